// std::chrono durations as the C API's timeout_ns.
#include <chrono>
#include <cstdint>
#include <limits>

#include "support.hpp"

namespace {

using namespace std::chrono;
using ringbus::detail::timeout_ns;

TEST(Timeout, durations_become_nanoseconds_rounded_up) {
    EXPECT_EQ(timeout_ns(milliseconds(0)), 0);
    EXPECT_EQ(timeout_ns(milliseconds(3)), 3'000'000);
    EXPECT_EQ(timeout_ns(duration<double, std::micro>(1.5)), 1500);
    EXPECT_EQ(timeout_ns(duration<double, std::nano>(0.25)), 1);  // never shorter than asked
}

TEST(Timeout, negative_is_no_limit_and_huge_saturates) {
    EXPECT_EQ(timeout_ns(ringbus::forever), -1);
    EXPECT_EQ(timeout_ns(seconds(-5)), -1);
    EXPECT_EQ(timeout_ns(hours::max()), std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(ringbus::detail::period_ns(seconds(-1)), 0u);
}

}  // namespace
