// Timeouts: std::chrono durations as the C API's `timeout_ns` (negative: no limit).
#ifndef RINGBUS_TIMEOUT_HPP
#define RINGBUS_TIMEOUT_HPP

#include <chrono>
#include <cstdint>
#include <limits>

namespace ringbus {

/// A timeout that never expires: `subscriber.receive(ringbus::forever)`.
inline constexpr std::chrono::nanoseconds forever{-1};

namespace detail {

/// `timeout` in nanoseconds for the C API: rounded up (a wait never ends early), a
/// negative one -1 (no limit), one too long for 64 bits the longest there is.
template <class Rep, class Period>
constexpr std::int64_t timeout_ns(std::chrono::duration<Rep, Period> timeout) {
    using std::chrono::duration;
    using std::chrono::nanoseconds;
    if (timeout < duration<Rep, Period>::zero()) return -1;
    if (duration<double, std::nano>(timeout).count() >= static_cast<double>(std::numeric_limits<std::int64_t>::max()))
        return std::numeric_limits<std::int64_t>::max();
    return std::chrono::ceil<nanoseconds>(timeout).count();
}

/// A period or delay for the C API: like timeout_ns, but a negative one is 0.
template <class Rep, class Period>
constexpr std::uint64_t period_ns(std::chrono::duration<Rep, Period> period) {
    std::int64_t ns = timeout_ns(period);
    return ns < 0 ? 0 : static_cast<std::uint64_t>(ns);
}

}  // namespace detail
}  // namespace ringbus

#endif  // RINGBUS_TIMEOUT_HPP
