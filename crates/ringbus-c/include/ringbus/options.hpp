// ringbus::TopicOptions: a topic's settings (rb_topic_options), set by name.
#ifndef RINGBUS_OPTIONS_HPP
#define RINGBUS_OPTIONS_HPP

#include <chrono>
#include <cstdint>

#include "../ringbus.h"
#include "payload.hpp"
#include "timeout.hpp"

namespace ringbus {

/// How a subscriber learns of new messages.
enum class Wake : std::uint32_t {
    on_data = RB_WAKE_ON_DATA,  ///< sleeps in receive() and is woken by publishers (the default)
    never = RB_WAKE_NEVER,      ///< only take(); publishers make no system call for it
};

/// What a publisher's loan does when a reliable subscriber has not taken what it would overwrite.
enum class WhenFull : std::uint32_t {
    wait = RB_WHEN_FULL_WAIT,  ///< wait (at most when_full_timeout), then RB_ERR_FULL (the default)
    fail = RB_WHEN_FULL_FAIL,  ///< RB_ERR_FULL at once
};

/// A topic's settings: `TopicOptions().max_payload_bytes(1 << 20).depth(8)`. A setting left
/// unset is the default for a new topic, and whatever an existing topic has; one that
/// differs from an existing topic's makes the open fail with RB_ERR_MISMATCH. Ranges and
/// defaults: the documentation of `rb_topic_options` in ringbus.h.
class TopicOptions {
public:
    TopicOptions() = default;
    explicit TopicOptions(const rb_topic_options& raw) : raw_(raw) {}

    TopicOptions& max_publishers(std::uint32_t n) { return set(raw_.max_publishers, n); }
    TopicOptions& max_subscribers(std::uint32_t n) { return set(raw_.max_subscribers, n); }
    TopicOptions& depth(std::uint32_t n) { return set(raw_.depth, n); }
    TopicOptions& history(std::uint32_t n) { return set(raw_.history, n); }
    TopicOptions& max_held(std::uint32_t n) { return set(raw_.max_held, n); }
    TopicOptions& chunks(std::uint32_t n) { return set(raw_.chunks, n); }
    TopicOptions& max_payload_bytes(std::uint64_t n) { return set(raw_.max_payload_bytes, n); }
    TopicOptions& pool_bytes(std::uint64_t n) { return set(raw_.pool_bytes, n); }
    TopicOptions& preallocate(bool yes) { return set(raw_.preallocate, yes ? RB_PREALLOCATE_YES : RB_PREALLOCATE_NO); }
    /// Subscribers only.
    TopicOptions& keep_last(std::uint32_t n) { return set(raw_.keep_last, n); }
    /// Subscribers only.
    TopicOptions& wake(Wake how) { return set(raw_.wake, static_cast<std::uint32_t>(how)); }
    /// Subscribers only: lose nothing (publishers wait for this subscriber, or fail).
    TopicOptions& reliable(bool yes = true) { return set(raw_.reliable, yes ? 1u : 0u); }
    /// Publishers only.
    TopicOptions& direct_wakes(std::uint32_t n) { return set(raw_.direct_wakes, n); }
    /// Publishers only.
    TopicOptions& when_full(WhenFull what) { return set(raw_.when_full, static_cast<std::uint32_t>(what)); }
    /// Publishers only, with WhenFull::wait: the longest a loan waits (ringbus::forever: no limit).
    template <class Rep, class Period>
    TopicOptions& when_full_timeout(std::chrono::duration<Rep, Period> timeout) {
        std::int64_t ns = detail::timeout_ns(timeout);
        return set(raw_.when_full_timeout_ns, ns <= 0 ? 0 : static_cast<std::uint64_t>(ns));
    }

    /// Types the topic, as Rust's `payload_type::<T>()` does: its messages are `T`s (named
    /// by `payload_name<T>`, with `sizeof`/`alignof`), and an open that gives another type
    /// throws RB_ERR_MISMATCH — in any language (a Rust program joins with
    /// `payload_type_as::<T>(name)`). A new topic's max_payload_bytes defaults to
    /// `sizeof(T)`: give a larger one for arrays of `T`. Without it, a topic carries bytes,
    /// and `Sample<T>` checks only the size when it is read.
    template <class T>
    TopicOptions& payload_type() {
        raw_.payload_type_name = detail::static_type_name<T>();
        raw_.payload_size = sizeof(T);
        raw_.payload_align = alignof(T);
        return *this;
    }

    /// The C struct, for the C API.
    const rb_topic_options& raw() const noexcept { return raw_; }

private:
    template <class Field, class Value>
    TopicOptions& set(Field& field, Value value) {
        field = static_cast<Field>(value);
        return *this;
    }

    rb_topic_options raw_{};
};

}  // namespace ringbus

#endif  // RINGBUS_OPTIONS_HPP
