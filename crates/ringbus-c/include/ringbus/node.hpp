// ringbus::Node: a participant, which opens topics, latches and semaphores.
#ifndef RINGBUS_NODE_HPP
#define RINGBUS_NODE_HPP

#include <string>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"

namespace ringbus {

/// A participant in the root directory `root` (empty: `$RINGBUS_ROOT`, else
/// `/dev/shm/ringbus-<uid>`), created if needed. Safe to use from several threads. What it
/// opens keeps what it needs of it, so a node may be destroyed before its publishers.
class Node {
public:
    /// An empty node (a moved-from one is empty too).
    Node() = default;

    /// Opens the node `name`; throws ringbus::Error (e.g. RB_ERR_INVALID_NAME,
    /// RB_ERR_ROOT_UNUSABLE).
    explicit Node(const std::string& name, const std::string& root = {}) {
        rb_node* node = nullptr;
        detail::check(rb_node_open(name.c_str(), root.empty() ? nullptr : root.c_str(), &node));
        node_.reset(node);
    }

    explicit operator bool() const noexcept { return node_ != nullptr; }

    /// The C handle, for the C API (still owned by this Node).
    const rb_node* native_handle() const noexcept { return node_.get(); }

private:
    detail::Owned<rb_node, rb_node_close> node_;
};

/// The version of libringbus_c.so in use, e.g. "0.1.0".
inline const char* version() noexcept { return rb_version(); }

}  // namespace ringbus

#endif  // RINGBUS_NODE_HPP
