// ringbus::Result<V>: what the non-throwing `try_*` calls return — a value, or the status
// that says why there is none.
#ifndef RINGBUS_RESULT_HPP
#define RINGBUS_RESULT_HPP

#include <optional>
#include <string>
#include <utility>

#include "error.hpp"

namespace ringbus {

/// A value, or the `rb_status` that explains its absence: `RB_EMPTY` or `RB_TIMEOUT` (an
/// outcome, nothing wrong) or a failure (negative; its message is kept). Tests like an
/// optional: `if (auto sample = subscriber.try_take()) use(*sample);`. Only a failure
/// allocates (its message).
template <class V>
class Result {
public:
    /// A value.
    Result(V value) : value_(std::move(value)), status_(RB_OK) {}  // NOLINT: implicit by design

    /// No value, because of `status`; a failure's message is read from `rb_last_error()`.
    static Result none(rb_status status) {
        Result r(status);
        if (status < 0) r.message_ = rb_last_error();
        return r;
    }

    explicit operator bool() const noexcept { return value_.has_value(); }
    bool has_value() const noexcept { return value_.has_value(); }

    /// `RB_OK` with a value; else why there is none.
    rb_status status() const noexcept { return status_; }

    /// A failure's message ("" for a value, `RB_EMPTY` or `RB_TIMEOUT`).
    const std::string& message() const noexcept { return message_; }

    /// The value; without one, throws the failure (or an Error with `RB_EMPTY`/`RB_TIMEOUT`).
    V& value() & {
        if (!value_) throw Error(status_, message_.empty() ? status_name(status_) : message_);
        return *value_;
    }
    V&& value() && { return std::move(value()); }

    V& operator*() & noexcept { return *value_; }
    V&& operator*() && noexcept { return std::move(*value_); }
    V* operator->() noexcept { return &*value_; }

    /// The value as an optional (moved out), for code that ignores the reason.
    std::optional<V> take() && { return std::move(value_); }

private:
    explicit Result(rb_status status) : status_(status) {}

    std::optional<V> value_;
    rb_status status_;
    std::string message_;
};

namespace detail {

/// The value of a `try_*` call as an optional, empty for RB_EMPTY or RB_TIMEOUT; throws a failure.
template <class V>
std::optional<V> value_or_throw(Result<V> result) {
    if (result.status() < 0) throw Error(result.status(), result.message());
    return std::move(result).take();
}

}  // namespace detail
}  // namespace ringbus

#endif  // RINGBUS_RESULT_HPP
