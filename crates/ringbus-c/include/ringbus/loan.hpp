// ringbus::Loan<T>: a chunk of shared memory lent by a publisher, written in place, then
// published — or given back when the Loan is destroyed unpublished.
#ifndef RINGBUS_LOAN_HPP
#define RINGBUS_LOAN_HPP

#include <cstddef>
#include <utility>

#include "../ringbus.h"
#include "error.hpp"
#include "payload.hpp"
#include "span.hpp"

namespace ringbus {

template <class T>
class Publisher;

/// `size()` elements of `T` in shared memory, not initialised: write every byte you
/// publish. Move-only; one per publisher at a time, and it must end (published or
/// destroyed) before its publisher. Destroyed unpublished, it gives its chunk back
/// (`rb_publisher_discard`) and nothing is sent.
template <class T>
class Loan {
    static_assert(detail::check_payload<T>());

public:
    /// An empty loan (a published or moved-from one is empty too).
    Loan() = default;
    Loan(Loan&& other) noexcept { *this = std::move(other); }
    Loan& operator=(Loan&& other) noexcept {
        if (this != &other) {
            discard();
            publisher_ = std::exchange(other.publisher_, nullptr);
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }
    Loan(const Loan&) = delete;
    Loan& operator=(const Loan&) = delete;
    ~Loan() { discard(); }

    explicit operator bool() const noexcept { return publisher_ != nullptr; }

    /// Elements lent.
    std::size_t size() const noexcept { return count_; }
    T* data() const noexcept { return data_; }

    /// The first (often the only) element.
    T& value() const noexcept { return *data_; }
    T& operator*() const noexcept { return *data_; }
    T* operator->() const noexcept { return data_; }

    /// Every element lent.
    span<T> array() const noexcept { return span<T>(data_, count_); }

    /// The bytes lent.
    span<std::byte> bytes() const noexcept {
        return span<std::byte>(reinterpret_cast<std::byte*>(data_), count_ * sizeof(T));
    }

    /// Publishes every element lent; the loan is empty afterwards, even if this throws.
    void publish() { publish(count_); }

    /// Publishes the first `count` elements (at most size()).
    void publish(std::size_t count) { detail::check(try_publish(count)); }

    /// publish() without exceptions: RB_OK, or why it failed (rb_last_error() says more).
    rb_status try_publish() noexcept { return try_publish(count_); }
    rb_status try_publish(std::size_t count) noexcept {
        rb_publisher* publisher = std::exchange(publisher_, nullptr);
        rb_status status = rb_publisher_publish(publisher, count * sizeof(T));
        if (status != RB_OK && publisher != nullptr) rb_publisher_discard(publisher);
        data_ = nullptr;
        count_ = 0;
        return status;
    }

private:
    friend class Publisher<T>;
    Loan(rb_publisher* publisher, void* data, std::size_t count) noexcept
        // The chunk is aligned to at least 64 bytes and holds count * sizeof(T) bytes;
        // T is trivially copyable, so its bytes are the object (written before publish).
        : publisher_(publisher), data_(static_cast<T*>(data)), count_(count) {}

    void discard() noexcept {
        if (publisher_ != nullptr) rb_publisher_discard(std::exchange(publisher_, nullptr));
        data_ = nullptr;
        count_ = 0;
    }

    rb_publisher* publisher_ = nullptr;
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace ringbus

#endif  // RINGBUS_LOAN_HPP
