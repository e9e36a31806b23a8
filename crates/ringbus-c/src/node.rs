//! `rb_node` (a participant) and `rb_topic_options` (the topic builder's settings).

use crate::call::{free, guard, out, shared, text, Failure};
use crate::rb_status;
use ringbus::{Node, TopicBuilder, Wake};
use std::ffi::c_char;

/// A participant: opens topics, latches and semaphores, from several threads at once if
/// need be. What it opens keeps what it needs of it, so it may be closed before them.
pub struct rb_node(pub(crate) Node);

/// How a subscriber learns of new messages (`rb_topic_options::wake`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum rb_wake {
    /// Sleeps in `rb_subscriber_receive` and is woken by publishers (the default).
    RB_WAKE_ON_DATA = 0,
    /// Never woken: only `rb_subscriber_take`; publishers make no system call for it.
    RB_WAKE_NEVER = 1,
}

/// A topic's settings. Zero-initialize it (`rb_topic_options o = {0};`) and set what you
/// need: every field left 0 means "the default for a new topic, whatever the topic already
/// has for an existing one". A set field that differs from an existing topic's makes the
/// open fail with `RB_ERR_MISMATCH`. Ranges and defaults are those of the Rust
/// `TopicBuilder` (see the README): max_publishers 1..=64 (4), max_subscribers 1..=1024
/// (16), depth a power of two up to 65536 (16), history ≤ depth (0), max_held 1..=256 (4),
/// max_payload_bytes up to 1 GiB (4096).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct rb_topic_options {
    pub max_publishers: u32,
    pub max_subscribers: u32,
    /// Log entries per publisher (a power of two).
    pub depth: u32,
    /// Past messages a subscriber that joins late receives.
    pub history: u32,
    /// Samples one subscriber may hold at once.
    pub max_held: u32,
    /// Payload chunks per publisher.
    pub chunks: u32,
    /// Largest message.
    pub max_payload_bytes: u64,
    /// Subscribers only: keep only the newest `keep_last` unread messages (1..=depth).
    pub keep_last: u32,
    /// Publishers only: sleepers a publish wakes itself before relaying (at least 1; 2).
    pub direct_wakes: u32,
    /// Subscribers only: an `rb_wake` value.
    pub wake: u32,
}

impl rb_topic_options {
    fn apply(&self, mut b: TopicBuilder) -> Result<TopicBuilder, Failure> {
        let settings = [
            (self.max_publishers, TopicBuilder::max_publishers as fn(_, _) -> _),
            (self.max_subscribers, TopicBuilder::max_subscribers),
            (self.depth, TopicBuilder::depth),
            (self.history, TopicBuilder::history),
            (self.max_held, TopicBuilder::max_held),
            (self.chunks, TopicBuilder::chunks),
            (self.keep_last, TopicBuilder::keep_last),
            (self.direct_wakes, TopicBuilder::direct_wakes),
        ];
        for (value, set) in settings {
            if value != 0 {
                b = set(b, value);
            }
        }
        if self.max_payload_bytes != 0 {
            b = b.max_payload_bytes(self.max_payload_bytes);
        }
        let wake = match self.wake {
            w if w == rb_wake::RB_WAKE_ON_DATA as u32 => Wake::OnData,
            w if w == rb_wake::RB_WAKE_NEVER as u32 => Wake::Never,
            other => {
                return Err(Failure {
                    status: rb_status::RB_ERR_INVALID_CONFIG,
                    message: format!("wake = {other} is not an rb_wake value (RB_WAKE_ON_DATA or RB_WAKE_NEVER)"),
                })
            }
        };
        Ok(b.wake(wake))
    }
}

/// The topic builder for `topic` with `options` (NULL: all defaults).
///
/// # Safety
/// As for [`text`]; `options` is NULL or points to an `rb_topic_options`.
pub(crate) unsafe fn builder(
    node: *const rb_node,
    topic: *const c_char,
    options: *const rb_topic_options,
) -> Result<TopicBuilder, Failure> {
    // SAFETY: forwarded from the caller's contract.
    let node = unsafe { shared(node, "node") }?;
    // SAFETY: forwarded from the caller's contract.
    let topic = unsafe { text(topic, "topic") }?;
    // SAFETY: the caller promises NULL or a readable rb_topic_options.
    let options = unsafe { options.as_ref() }.copied().unwrap_or_default();
    options.apply(node.0.topic(topic))
}

/// Opens a node named `name` in the root directory `root` (NULL: `$RINGBUS_ROOT`, else
/// `/dev/shm/ringbus-<uid>`), creating the directory if needed. On success `*out_node` is
/// the node, to be closed with `rb_node_close`; on failure it is NULL.
///
/// # Safety
/// `name` (and `root` unless NULL) are NUL-terminated strings; `out_node` is writable.
#[no_mangle]
pub unsafe extern "C" fn rb_node_open(
    name: *const c_char,
    root: *const c_char,
    out_node: *mut *mut rb_node,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(out_node, "out_node") }?;
        // SAFETY: the caller's contract.
        let name = unsafe { text(name, "name") }?;
        let opened = if root.is_null() {
            Node::new(name)?
        } else {
            // SAFETY: the caller's contract.
            Node::with_root(name, unsafe { text(root, "root") }?)?
        };
        *slot = Box::into_raw(Box::new(rb_node(opened)));
        Ok(rb_status::RB_OK)
    })
}

/// Closes a node (NULL: nothing).
///
/// # Safety
/// `node` is NULL or a node from `rb_node_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn rb_node_close(node: *mut rb_node) {
    // SAFETY: the caller gives back a pointer from rb_*_open/take/receive, once.
    unsafe { free(node) }
}
