// ringbus::Semaphore: a counting semaphore between processes.
#ifndef RINGBUS_SEMAPHORE_HPP
#define RINGBUS_SEMAPHORE_HPP

#include <chrono>
#include <cstdint>
#include <string>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "node.hpp"
#include "timeout.hpp"

namespace ringbus {

/// The semaphore `name` under the node's root, created with `initial` tokens if it does
/// not exist (an existing one keeps its count). post() wakes exactly one sleeper and
/// makes no system call when nobody sleeps. Safe to use from several threads. Tokens taken
/// and not posted back stay taken, also when the handle is destroyed (as with POSIX).
class Semaphore {
public:
    /// An empty semaphore (a moved-from one is empty too).
    Semaphore() = default;

    /// Opens the semaphore; throws ringbus::Error (e.g. RB_ERR_INVALID_NAME).
    Semaphore(const Node& node, const std::string& name, std::uint32_t initial) {
        rb_semaphore* semaphore = nullptr;
        detail::check(rb_semaphore_open(node.native_handle(), name.c_str(), initial, &semaphore));
        semaphore_.reset(semaphore);
    }

    explicit operator bool() const noexcept { return semaphore_ != nullptr; }

    /// Returns a token (throws RB_ERR_SEMAPHORE_FULL at 2^31 - 1 tokens: a post without a wait).
    void post() const { detail::check(rb_semaphore_post(semaphore_.get())); }

    /// Takes a token if one is free, never blocking: whether it took one.
    bool try_wait() const { return detail::check(rb_semaphore_try_wait(semaphore_.get())) == RB_OK; }

    /// Takes a token, waiting at most `timeout` for one: whether it took one.
    template <class Rep, class Period>
    bool wait(std::chrono::duration<Rep, Period> timeout) const {
        return detail::check(rb_semaphore_wait(semaphore_.get(), detail::timeout_ns(timeout))) == RB_OK;
    }
    /// Takes a token, waiting without a limit.
    void wait() const { wait(forever); }

    /// Free tokens now (a snapshot).
    std::uint32_t value() const noexcept { return rb_semaphore_value(semaphore_.get()); }

    /// Removes its name: open handles keep working; the next open creates a new semaphore.
    void unlink() const { detail::check(rb_semaphore_unlink(semaphore_.get())); }

    /// The C handle (still owned by this Semaphore).
    const rb_semaphore* native_handle() const noexcept { return semaphore_.get(); }

private:
    detail::Owned<rb_semaphore, rb_semaphore_close> semaphore_;
};

}  // namespace ringbus

#endif  // RINGBUS_SEMAPHORE_HPP
