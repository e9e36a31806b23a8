// Waiting on and waking any 32-bit word in shared memory, by its address.
#ifndef RINGBUS_WORD_HPP
#define RINGBUS_WORD_HPP

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include "../ringbus.h"
#include "error.hpp"
#include "timeout.hpp"

namespace ringbus {

static_assert(sizeof(std::atomic<std::uint32_t>) == 4 && std::atomic<std::uint32_t>::is_always_lock_free,
              "ringbus: words need a lock-free std::atomic<std::uint32_t> laid out as a uint32_t");

namespace detail {
inline const std::uint32_t* word_address(const std::atomic<std::uint32_t>& word) noexcept {
    // A lock-free atomic<uint32_t> is a uint32_t in memory with gcc and clang (asserted above).
    return reinterpret_cast<const std::uint32_t*>(&word);
}
}  // namespace detail

/// Waits until `word` differs from `expected` (at once if it does), at most `timeout`: the
/// value found, or nullopt when the timeout expired. The word lives in a MAP_SHARED
/// mapping (or is private to the process) and is only accessed atomically.
template <class Rep, class Period>
std::optional<std::uint32_t> word_wait(const std::atomic<std::uint32_t>& word, std::uint32_t expected,
                                       std::chrono::duration<Rep, Period> timeout) {
    std::uint32_t found = 0;
    rb_status status = detail::check(rb_word_wait(detail::word_address(word), expected, detail::timeout_ns(timeout), &found));
    if (status != RB_OK) return std::nullopt;
    return found;
}

/// Wakes up to `n` waiters on `word` (all by default) in any process: how many woke. Store
/// the new value first (release order), then wake.
inline std::uint32_t word_wake(const std::atomic<std::uint32_t>& word, std::uint32_t n = UINT32_MAX) {
    std::uint32_t woken = 0;
    detail::check(rb_word_wake(detail::word_address(word), n, &woken));
    return woken;
}

}  // namespace ringbus

#endif  // RINGBUS_WORD_HPP
