// ringbus::Publisher<T>: sends messages of T (or arrays of T; std::byte: any bytes) on one topic.
#ifndef RINGBUS_PUBLISHER_HPP
#define RINGBUS_PUBLISHER_HPP

#include <cstddef>
#include <cstdint>
#include <string>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "loan.hpp"
#include "node.hpp"
#include "options.hpp"
#include "payload.hpp"
#include "result.hpp"
#include "span.hpp"

namespace ringbus {

/// A publisher on one topic, created with `options` if it does not exist. Used by one
/// thread at a time; at most one Loan outstanding. Destroying it discards nothing
/// published: subscribers can still take what it sent.
template <class T>
class Publisher {
    static_assert(detail::check_payload<T>());

public:
    /// An empty publisher (a moved-from one is empty too).
    Publisher() = default;

    /// Opens a publisher; throws ringbus::Error (e.g. RB_ERR_MISMATCH when `options` set
    /// something the existing topic has otherwise).
    Publisher(const Node& node, const std::string& topic, const TopicOptions& options = {}) {
        rb_publisher* publisher = nullptr;
        detail::check(rb_publisher_open(node.native_handle(), topic.c_str(), &options.raw(), &publisher));
        publisher_.reset(publisher);
    }

    explicit operator bool() const noexcept { return publisher_ != nullptr; }

    /// A chunk for `count` elements (one by default), to write in place and publish().
    /// Throws ringbus::Error: RB_ERR_TOO_LARGE (over the topic's max_payload_bytes),
    /// RB_ERR_POOL_EXHAUSTED, RB_ERR_POOL_BUDGET, RB_ERR_FULL, or
    /// RB_ERR_INVALID_ARGUMENT (a second loan at once).
    Loan<T> loan(std::size_t count = 1) { return std::move(try_loan(count)).value(); }

    /// loan() without exceptions: the loan, or the status that says why not.
    Result<Loan<T>> try_loan(std::size_t count = 1) {
        void* data = nullptr;
        rb_status status = rb_publisher_loan_array(publisher_.get(), sizeof(T), count, &data);
        if (status != RB_OK) return Result<Loan<T>>::none(status);
        return Loan<T>(publisher_.get(), data, count);
    }

    /// Publishes a copy of `value` (one copy, into shared memory).
    void publish_copy(const T& value) { detail::check(try_publish_copy(value)); }
    /// Publishes a copy of `values`.
    void publish_copy(span<const T> values) { detail::check(try_publish_copy(values)); }

    /// publish_copy() without exceptions: RB_OK, or why it failed.
    rb_status try_publish_copy(const T& value) noexcept {
        return rb_publisher_publish_copy(publisher_.get(), &value, sizeof(T));
    }
    rb_status try_publish_copy(span<const T> values) noexcept {
        return rb_publisher_publish_copy(publisher_.get(), values.data(), values.size() * sizeof(T));
    }

    /// Bytes of payload memory this publisher holds now (see rb_publisher_reserved_payload_bytes).
    std::uint64_t reserved_payload_bytes() const noexcept {
        return rb_publisher_reserved_payload_bytes(publisher_.get());
    }

    /// The C handle (still owned by this Publisher).
    rb_publisher* native_handle() const noexcept { return publisher_.get(); }

private:
    detail::Owned<rb_publisher, rb_publisher_close> publisher_;
};

}  // namespace ringbus

#endif  // RINGBUS_PUBLISHER_HPP
