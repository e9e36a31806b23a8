// ringbus::Latch: a one-bit event between processes.
#ifndef RINGBUS_LATCH_HPP
#define RINGBUS_LATCH_HPP

#include <chrono>
#include <string>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "node.hpp"
#include "timeout.hpp"

namespace ringbus {

/// The latch `name` under the node's root, created (not set) if it does not exist.
/// set() wakes every waiter; the owner reset()s it, then looks for work, then waits.
/// Safe to use from several threads.
class Latch {
public:
    /// An empty latch (a moved-from one is empty too).
    Latch() = default;

    /// Opens the latch; throws ringbus::Error (e.g. RB_ERR_INVALID_NAME).
    Latch(const Node& node, const std::string& name) {
        rb_latch* latch = nullptr;
        detail::check(rb_latch_open(node.native_handle(), name.c_str(), &latch));
        latch_.reset(latch);
    }

    explicit operator bool() const noexcept { return latch_ != nullptr; }

    /// Sets it and wakes every waiter (nothing if it is set).
    void set() const { detail::check(rb_latch_set(latch_.get())); }
    /// Clears it: reset, *then* look for work, then wait, and no set() is missed.
    void reset() const { detail::check(rb_latch_reset(latch_.get())); }
    bool is_set() const noexcept { return rb_latch_is_set(latch_.get()); }

    /// Waits until it is set (at once if it is), at most `timeout`: whether it is set.
    template <class Rep, class Period>
    bool wait(std::chrono::duration<Rep, Period> timeout) const {
        return detail::check(rb_latch_wait(latch_.get(), detail::timeout_ns(timeout))) == RB_OK;
    }
    /// Waits until it is set, without a limit.
    void wait() const { wait(forever); }

    /// Removes its name: open handles keep working; the next open creates a new latch.
    void unlink() const { detail::check(rb_latch_unlink(latch_.get())); }

    /// The C handle (still owned by this Latch).
    const rb_latch* native_handle() const noexcept { return latch_.get(); }

private:
    detail::Owned<rb_latch, rb_latch_close> latch_;
};

}  // namespace ringbus

#endif  // RINGBUS_LATCH_HPP
