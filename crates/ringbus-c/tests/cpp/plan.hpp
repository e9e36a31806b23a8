// The request and response of the C++ tests' service, and the answer a server gives.
#ifndef RINGBUS_TEST_PLAN_HPP
#define RINGBUS_TEST_PLAN_HPP

#include <cstdint>

#include "ringbus.hpp"

namespace test {

struct PlanRequest {
    double goal[2];
    std::uint32_t id;
};

struct PlanResponse {
    std::uint64_t steps;
    std::uint32_t id;
};

inline PlanResponse plan(const PlanRequest& request) {
    return PlanResponse{static_cast<std::uint64_t>(request.goal[0] * 10 + request.goal[1]) + request.id, request.id};
}

}  // namespace test

RINGBUS_PAYLOAD(test::PlanRequest, "test::PlanRequest");
RINGBUS_PAYLOAD(test::PlanResponse, "test::PlanResponse");

#endif  // RINGBUS_TEST_PLAN_HPP
