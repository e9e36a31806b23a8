// ringbus::Sample<T>: a message held in place in shared memory until the Sample is destroyed.
#ifndef RINGBUS_SAMPLE_HPP
#define RINGBUS_SAMPLE_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "payload.hpp"
#include "span.hpp"

namespace ringbus {

template <class T>
class Subscriber;

/// A message read where the publisher wrote it (no copy). Move-only; while it lives its
/// chunk is not reused and it counts against the topic's max_held; its destructor releases
/// it (`rb_sample_release`). It may outlive its subscriber.
template <class T>
class Sample {
    static_assert(detail::check_payload<T>());

public:
    /// An empty sample (a moved-from one is empty too).
    Sample() = default;

    explicit operator bool() const noexcept { return sample_ != nullptr; }

    /// The message's bytes.
    span<const std::byte> bytes() const noexcept {
        return span<const std::byte>(static_cast<const std::byte*>(rb_sample_data(sample_.get())),
                                     rb_sample_len(sample_.get()));
    }

    /// The bytes as text (no check that they are UTF-8).
    std::string_view text() const noexcept {
        return std::string_view(static_cast<const char*>(rb_sample_data(sample_.get())), rb_sample_len(sample_.get()));
    }

    /// The message as elements of T. Throws ringbus::Error (RB_ERR_INVALID_ARGUMENT) if it
    /// is not a whole number of them, suitably aligned: the publisher sent another type.
    span<const T> array() const {
        if (!sample_) throw Error(RB_ERR_INVALID_ARGUMENT, "this Sample is empty (moved from, or never taken): it has no message");
        const void* data = nullptr;
        std::size_t count = 0;
        rb_status status = rb_sample_array(sample_.get(), sizeof(T), alignof(T), &data, &count);
        if (status != RB_OK) throw not_a(std::string("whole number of ") + std::string(payload_name<T>::value), status);
        return span<const T>(static_cast<const T*>(data), count);
    }

    /// The message as one T. Throws ringbus::Error (RB_ERR_INVALID_ARGUMENT) if it is not
    /// exactly one, suitably aligned.
    const T& value() const {
        span<const T> elements = array();
        if (elements.size() != 1) throw not_a(std::string("single ") + std::string(payload_name<T>::value), RB_ERR_INVALID_ARGUMENT);
        return elements[0];
    }
    const T& operator*() const { return value(); }
    const T* operator->() const { return &value(); }

    /// When it was published, on CLOCK_MONOTONIC (std::chrono::steady_clock on Linux):
    /// comparable across processes.
    std::chrono::nanoseconds timestamp() const noexcept {
        return std::chrono::nanoseconds(static_cast<std::int64_t>(rb_sample_timestamp_ns(sample_.get())));
    }

    /// The C handle (still owned by this Sample).
    const rb_sample* native_handle() const noexcept { return sample_.get(); }

private:
    friend class Subscriber<T>;
    explicit Sample(rb_sample* sample) noexcept : sample_(sample) {}

    Error not_a(const std::string& what, rb_status status) const {
        return Error(status, "the message is " + std::to_string(rb_sample_len(sample_.get())) + " bytes, not a " + what +
                                 " (" + std::to_string(sizeof(T)) + " bytes, aligned to " + std::to_string(alignof(T)) +
                                 "): the publisher sends another type; open the subscriber with the type it sends");
    }

    detail::Owned<rb_sample, rb_sample_release> sample_;
};

}  // namespace ringbus

#endif  // RINGBUS_SAMPLE_HPP
