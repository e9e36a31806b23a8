// The payload type of the C++ tests.
#ifndef RINGBUS_TEST_POSE_HPP
#define RINGBUS_TEST_POSE_HPP

#include <cstdint>

#include "ringbus.hpp"

namespace test {

struct Pose {
    double x, y, z;
    std::uint32_t seq;
    std::uint32_t flags;
};

}  // namespace test

RINGBUS_PAYLOAD(test::Pose, "test::Pose");

#endif  // RINGBUS_TEST_POSE_HPP
