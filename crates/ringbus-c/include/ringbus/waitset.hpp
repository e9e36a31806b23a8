// ringbus::WaitSet: one wait over subscribers, queue consumers, latches, semaphores, words, fds and timers,
// as a list of events or as callbacks.
#ifndef RINGBUS_WAITSET_HPP
#define RINGBUS_WAITSET_HPP

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "latch.hpp"
#include "queue.hpp"
#include "semaphore.hpp"
#include "span.hpp"
#include "subscriber.hpp"
#include "timeout.hpp"
#include "word.hpp"

namespace ringbus {

/// What became ready.
enum class EventKind : int {
    data = RB_EVENT_DATA,            ///< a subscriber may have data, or a consumer a command: take()/pop() until nullopt
    word = RB_EVENT_WORD,            ///< a word changed; `value` is its new value
    latch_set = RB_EVENT_LATCH_SET,  ///< a latch is set (at every wait until reset)
    token = RB_EVENT_TOKEN,          ///< a semaphore token was taken for you: post() it back
    fd = RB_EVENT_FD,                ///< an fd is ready; `value` holds fd_readable/fd_writable/fd_hangup bits
    interval = RB_EVENT_INTERVAL,    ///< an interval elapsed; `value` periods since it last fired
    deadline = RB_EVENT_DEADLINE,    ///< a deadline passed (once)
};

/// attach_fd's interest and an fd event's value.
inline constexpr std::uint32_t fd_readable = RB_FD_READABLE;
inline constexpr std::uint32_t fd_writable = RB_FD_WRITABLE;
inline constexpr std::uint32_t fd_hangup = RB_FD_HANGUP;

/// One ready source: the key attach returned, what happened, and a value (see EventKind).
struct Event {
    std::uint64_t key;
    EventKind kind;
    std::uint64_t value;
};

namespace detail {
inline void close_waitset(rb_waitset* ws) noexcept { (void)rb_waitset_close(ws); }
}  // namespace detail

/// A wait set. It belongs to the thread that created it: use and destroy it there. A
/// source attached must outlive its attachment (detach it, or destroy the wait set first).
class WaitSet {
public:
    using Key = std::uint64_t;

    /// Opens an empty wait set; `capacity` is the most events one wait() returns (more
    /// come at the next wait, at once).
    explicit WaitSet(std::size_t capacity = 64) : raw_(capacity == 0 ? 1 : capacity) {
        rb_waitset* ws = nullptr;
        detail::check(rb_waitset_open(&ws));
        ws_.reset(ws);
        events_.reserve(raw_.size());
    }

    explicit operator bool() const noexcept { return ws_ != nullptr; }

    /// Wakes on data for `subscriber` (EventKind::data; opened with Wake::on_data).
    template <class T>
    Key attach(const Subscriber<T>& subscriber) {
        return attached(rb_waitset_attach_subscriber(ws_.get(), subscriber.native_handle(), &key_));
    }
    /// Wakes when a command is ready for `consumer` (EventKind::data: pop() until nullopt;
    /// its queue not made with Wake::never). Do not also wait() on the consumer meanwhile.
    template <class T>
    Key attach(const Consumer<T>& consumer) {
        return attached(rb_waitset_attach_queue(ws_.get(), consumer.native_handle(), &key_));
    }
    /// Wakes while `latch` is set (EventKind::latch_set).
    Key attach(const Latch& latch) { return attached(rb_waitset_attach_latch(ws_.get(), latch.native_handle(), &key_)); }
    /// Takes a token of `semaphore` whenever one is free (EventKind::token: post it back).
    Key attach(const Semaphore& semaphore) {
        return attached(rb_waitset_attach_semaphore(ws_.get(), semaphore.native_handle(), &key_));
    }
    /// Wakes when `word` differs from `expected` (EventKind::word, with the new value).
    Key attach(const std::atomic<std::uint32_t>& word, std::uint32_t expected) {
        return attached(rb_waitset_attach_word(ws_.get(), detail::word_address(word), expected, &key_));
    }
    /// Wakes while `fd` is ready (level-triggered; the wait set watches a duplicate).
    Key attach_fd(int fd, std::uint32_t interest = fd_readable) {
        return attached(rb_waitset_attach_fd(ws_.get(), fd, interest, &key_));
    }
    /// Fires every `period`, first one period from now.
    template <class Rep, class Period>
    Key attach_interval(std::chrono::duration<Rep, Period> period) {
        return attached(rb_waitset_attach_interval(ws_.get(), detail::period_ns(period), &key_));
    }
    /// Fires once, `delay` from now.
    template <class Rep, class Period>
    Key attach_deadline(std::chrono::duration<Rep, Period> delay) {
        return attached(rb_waitset_attach_deadline(ws_.get(), detail::period_ns(delay), &key_));
    }

    /// Detaches a source and forgets its callback; its semaphore tokens not yet returned go back.
    void detach(Key key) {
        detail::check(rb_waitset_detach(ws_.get(), key));
        callbacks_.erase(key);
    }

    /// Waits until a source is ready, at most `timeout` (ringbus::forever: no limit; zero:
    /// only look): the events, empty when the timeout expired. Valid until the next wait.
    template <class Rep, class Period>
    span<const Event> wait(std::chrono::duration<Rep, Period> timeout) {
        std::size_t count = 0;
        detail::check(rb_waitset_wait(ws_.get(), detail::timeout_ns(timeout), raw_.data(), raw_.size(), &count));
        events_.clear();
        for (std::size_t i = 0; i < count; i++)
            events_.push_back(Event{raw_[i].key, static_cast<EventKind>(raw_[i].kind), raw_[i].value});
        return span<const Event>(events_.data(), events_.size());
    }
    span<const Event> wait() { return wait(forever); }

    /// Calls `callback` for every event of `key` that spin_once() collects; `callback`
    /// takes the Event or nothing. Replaces the key's previous callback.
    template <class F>
    void on(Key key, F&& callback) {
        if constexpr (std::is_invocable_v<F&, const Event&>) {
            callbacks_[key] = std::forward<F>(callback);
        } else {
            callbacks_[key] = [f = std::forward<F>(callback)](const Event&) mutable { f(); };
        }
    }

    /// One wait (at most `timeout`), then the callback of each event's key: how many events
    /// came (0: the timeout expired). Events of a key without a callback are dropped — a
    /// semaphore's token among them would stay taken, so give semaphores a callback.
    template <class Rep, class Period>
    std::size_t spin_once(std::chrono::duration<Rep, Period> timeout) {
        span<const Event> events = wait(timeout);
        for (const Event& event : events) {
            auto callback = callbacks_.find(event.key);
            if (callback != callbacks_.end()) callback->second(event);
        }
        return events.size();
    }

    /// An fd that is readable when wait() has something, for a foreign event loop: poll
    /// it, then wait(std::chrono::nanoseconds(0)).
    int fd() const {
        std::int32_t fd = -1;
        detail::check(rb_waitset_fd(ws_.get(), &fd));
        return fd;
    }

    /// The backend in use: "futex", "io_uring" or "epoll".
    const char* backend() const noexcept { return rb_waitset_backend(ws_.get()); }

    /// The C handle (still owned by this WaitSet).
    rb_waitset* native_handle() const noexcept { return ws_.get(); }

private:
    Key attached(rb_status status) {
        detail::check(status);
        return key_;
    }

    detail::Owned<rb_waitset, detail::close_waitset> ws_;
    std::vector<rb_event> raw_;
    std::vector<Event> events_;
    std::unordered_map<Key, std::function<void(const Event&)>> callbacks_;
    Key key_ = 0;
};

}  // namespace ringbus

#endif  // RINGBUS_WAITSET_HPP
