// ringbus::Producer<T> and ringbus::Consumer<T>: a bounded command queue between processes.
// Commands are copied in and out (no loans), delivered once and in order to one consumer.
#ifndef RINGBUS_QUEUE_HPP
#define RINGBUS_QUEUE_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "node.hpp"
#include "options.hpp"
#include "payload.hpp"
#include "result.hpp"
#include "span.hpp"
#include "timeout.hpp"

namespace ringbus {

/// A queue's settings: `QueueOptions().capacity(64).mpsc()`. A setting left unset is the
/// default for a new queue (1024 commands, one producer at a time, a consumer that can
/// sleep) and whatever an existing queue has; one that differs from an existing queue's
/// makes the open fail with RB_ERR_MISMATCH, as does another command type.
class QueueOptions {
public:
    /// Commands the ring holds: a power of two, 2 to 2^24.
    QueueOptions& capacity(std::uint32_t n) {
        raw_.capacity = n;
        return *this;
    }
    /// One producer at a time (the default): pushes need no atomic read-modify-write.
    QueueOptions& spsc() {
        raw_.producers = RB_QUEUE_SPSC;
        return *this;
    }
    /// Up to 64 producers at once; the consumer skips what a producer killed mid-push
    /// claimed and never wrote (Consumer::abandoned()).
    QueueOptions& mpsc() {
        raw_.producers = RB_QUEUE_MPSC;
        return *this;
    }
    /// Wake::never makes a queue nobody sleeps on: pushes and pops skip the wake-up check,
    /// and Consumer::wait() polls.
    QueueOptions& wake(Wake how) {
        raw_.wake = static_cast<rb_wake>(how);
        return *this;
    }

    /// The C struct for commands named `type_name` of `size` bytes aligned to `align`.
    rb_queue_options raw(const char* type_name, std::size_t size, std::size_t align) const noexcept {
        rb_queue_options raw = raw_;
        raw.type_name = type_name;
        raw.command_size = size;
        raw.command_align = align;
        return raw;
    }

private:
    rb_queue_options raw_{};
};

namespace detail {

template <class T>
constexpr bool check_command() {
    static_assert(check_payload<T>());
    static_assert(std::is_default_constructible_v<T>, "ringbus: a command type needs a default constructor (pop() makes one)");
    return true;
}

/// Opens the queue `name` for commands of T with `open` (rb_queue_producer_open or
/// rb_queue_consumer_open); throws its Error.
template <class T, class Handle>
Handle* open_queue(rb_status (*open)(const rb_node*, const char*, const rb_queue_options*, Handle**), const Node& node,
                   const std::string& name, const QueueOptions& options) {
    std::string type = type_name<T>();
    rb_queue_options raw = options.raw(type.c_str(), sizeof(T), alignof(T));
    Handle* handle = nullptr;
    check(open(node.native_handle(), name.c_str(), &raw, &handle));
    return handle;
}

}  // namespace detail

/// Pushes commands of T into the queue `name`, created with `options` if it does not
/// exist; its command type is `payload_name<T>` with T's size and alignment. Used by one
/// thread at a time (open one producer per thread on an MPSC queue).
template <class T>
class Producer {
    static_assert(detail::check_command<T>());

public:
    /// An empty producer (a moved-from one is empty too).
    Producer() = default;

    /// Opens a producer; throws ringbus::Error (RB_ERR_MISMATCH: the queue has another
    /// command type or setting; RB_ERR_TOO_MANY: an SPSC queue has its producer already).
    Producer(const Node& node, const std::string& name, const QueueOptions& options = {})
        : producer_(detail::open_queue<T>(rb_queue_producer_open, node, name, options)) {}

    explicit operator bool() const noexcept { return producer_ != nullptr; }

    /// Pushes a copy of `command`, never blocking: false when the queue is full (nothing
    /// pushed). Wakes the consumer only if it sleeps. Throws ringbus::Error on a failure.
    bool push(const T& command) {
        rb_status status = try_push(command);
        if (status == RB_ERR_FULL) return false;
        detail::check(status);
        return true;
    }

    /// Pushes a copy of `command`, waiting at most `timeout` (ringbus::forever: no limit)
    /// for room: false when the timeout expired (nothing pushed).
    template <class Rep, class Period>
    bool push(const T& command, std::chrono::duration<Rep, Period> timeout) {
        return detail::check(rb_queue_push_timeout(producer_.get(), &command, detail::timeout_ns(timeout))) == RB_OK;
    }

    /// push() without exceptions: RB_OK, RB_ERR_FULL (nothing pushed), or a failure.
    rb_status try_push(const T& command) noexcept { return rb_queue_push(producer_.get(), &command); }

    /// Pushes as many of `commands` as fit, in order, never blocking: how many (0 when full).
    std::size_t push_batch(span<const T> commands) {
        std::size_t pushed = 0;
        detail::check(rb_queue_push_batch(producer_.get(), commands.data(), commands.size(), &pushed));
        return pushed;
    }

    /// Whether the queue's consumer is alive (one system call).
    bool consumer_alive() const noexcept { return rb_queue_consumer_alive(producer_.get()); }

    /// The C handle (still owned by this Producer).
    rb_queue_producer* native_handle() const noexcept { return producer_.get(); }

private:
    detail::Owned<rb_queue_producer, rb_queue_producer_close> producer_;
};

/// The consumer of the queue `name` (one at a time; after one dies, the next takes over
/// what was queued), created with `options` if it does not exist. Destroying it leaves the
/// queue and what it holds for the next consumer; unlink() removes its name. Used by one
/// thread at a time.
template <class T>
class Consumer {
    static_assert(detail::check_command<T>());

public:
    /// An empty consumer (a moved-from one is empty too).
    Consumer() = default;

    /// Opens the consumer; throws ringbus::Error (RB_ERR_MISMATCH: another command type or
    /// setting; RB_ERR_TOO_MANY: the queue has a live consumer).
    Consumer(const Node& node, const std::string& name, const QueueOptions& options = {})
        : consumer_(detail::open_queue<T>(rb_queue_consumer_open, node, name, options)) {}

    explicit operator bool() const noexcept { return consumer_ != nullptr; }

    /// The oldest command, if any; never blocks. Throws ringbus::Error on a failure.
    std::optional<T> pop() { return detail::value_or_throw(try_pop()); }

    /// pop() without exceptions: a command, or RB_EMPTY, or a failure.
    Result<T> try_pop() {
        T command{};
        rb_status status = rb_queue_pop(consumer_.get(), &command);
        if (status != RB_OK) return Result<T>::none(status);
        return command;
    }

    /// Pops up to `commands.size()` commands into `commands`, oldest first, never
    /// blocking: how many (0 when empty).
    std::size_t pop_batch(span<T> commands) {
        std::size_t popped = 0;
        detail::check(rb_queue_pop_batch(consumer_.get(), commands.data(), commands.size(), &popped));
        return popped;
    }

    /// Waits until a command is ready, at most `timeout`: whether one is (pop it now).
    /// Sleeps only while the queue is empty; a Wake::never queue is polled.
    template <class Rep, class Period>
    bool wait(std::chrono::duration<Rep, Period> timeout) {
        return detail::check(rb_queue_wait(consumer_.get(), detail::timeout_ns(timeout))) == RB_OK;
    }
    /// Waits until a command is ready, without a limit.
    void wait() { wait(forever); }

    /// Commands skipped because their MPSC producer was killed between claiming their
    /// slots and writing them; never a command a live producer pushed.
    std::uint64_t abandoned() const noexcept { return rb_queue_abandoned(consumer_.get()); }

    /// Removes the queue's name: open handles keep working; the next open creates a new queue.
    void unlink() const { detail::check(rb_queue_unlink(consumer_.get())); }

    /// The C handle (still owned by this Consumer).
    rb_queue_consumer* native_handle() const noexcept { return consumer_.get(); }

private:
    detail::Owned<rb_queue_consumer, rb_queue_consumer_close> consumer_;
};

}  // namespace ringbus

#endif  // RINGBUS_QUEUE_HPP
