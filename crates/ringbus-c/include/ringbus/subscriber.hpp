// ringbus::Subscriber<T>: takes or waits for the messages of one topic.
#ifndef RINGBUS_SUBSCRIBER_HPP
#define RINGBUS_SUBSCRIBER_HPP

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "node.hpp"
#include "options.hpp"
#include "payload.hpp"
#include "result.hpp"
#include "sample.hpp"
#include "timeout.hpp"

namespace ringbus {

/// A subscriber on one topic, created with `options` if it does not exist: it receives
/// what is published from now on (plus the topic's history). Used by one thread at a time.
template <class T>
class Subscriber {
    static_assert(detail::check_payload<T>());

public:
    /// An empty subscriber (a moved-from one is empty too).
    Subscriber() = default;

    /// Opens a subscriber; throws ringbus::Error (e.g. RB_ERR_MISMATCH, RB_ERR_TOO_MANY).
    Subscriber(const Node& node, const std::string& topic, const TopicOptions& options = {}) {
        rb_subscriber* subscriber = nullptr;
        detail::check(rb_subscriber_open(node.native_handle(), topic.c_str(), &options.raw(), &subscriber));
        subscriber_.reset(subscriber);
    }

    explicit operator bool() const noexcept { return subscriber_ != nullptr; }

    /// The next unread message, if any; never blocks, no system call. Throws
    /// ringbus::Error (e.g. RB_ERR_HELD_LIMIT: release a Sample first).
    std::optional<Sample<T>> take() { return detail::value_or_throw(try_take()); }

    /// The next message, waiting at most `timeout` (ringbus::forever: no limit); nullopt
    /// when it expired. Throws ringbus::Error (e.g. RB_ERR_POLLING_ONLY).
    template <class Rep, class Period>
    std::optional<Sample<T>> receive(std::chrono::duration<Rep, Period> timeout) {
        return detail::value_or_throw(try_receive(timeout));
    }

    /// receive() without a limit.
    std::optional<Sample<T>> receive() { return receive(forever); }

    /// take() without exceptions: a sample, or RB_EMPTY, or a failure.
    Result<Sample<T>> try_take() {
        rb_sample* sample = nullptr;
        rb_status status = rb_subscriber_take(subscriber_.get(), &sample);
        return wrap(status, sample);
    }

    /// receive() without exceptions: a sample, or RB_TIMEOUT, or a failure.
    template <class Rep, class Period>
    Result<Sample<T>> try_receive(std::chrono::duration<Rep, Period> timeout) {
        rb_sample* sample = nullptr;
        rb_status status = rb_subscriber_receive(subscriber_.get(), detail::timeout_ns(timeout), &sample);
        return wrap(status, sample);
    }

    /// Messages taken so far.
    std::uint64_t taken() const noexcept { return rb_subscriber_taken(subscriber_.get()); }
    /// Messages overwritten before they were taken.
    std::uint64_t lost() const noexcept { return rb_subscriber_lost(subscriber_.get()); }

    /// The C handle (still owned by this Subscriber).
    rb_subscriber* native_handle() const noexcept { return subscriber_.get(); }

private:
    static Result<Sample<T>> wrap(rb_status status, rb_sample* sample) {
        if (status != RB_OK) return Result<Sample<T>>::none(status);
        return Sample<T>(sample);
    }

    detail::Owned<rb_subscriber, rb_subscriber_close> subscriber_;
};

}  // namespace ringbus

#endif  // RINGBUS_SUBSCRIBER_HPP
