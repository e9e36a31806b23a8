//! `rb_node` (a participant) and `rb_topic_options` (the topic builder's settings).

use crate::call::{free, guard, out, shared, text, Failure};
use crate::rb_status;
use ringbus::{Node, TopicBuilder, Wake, WhenFull};
use std::ffi::c_char;
use std::time::Duration;

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

/// Whether a publisher reserves every chunk's memory when it is created
/// (`rb_topic_options::preallocate`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum rb_preallocate {
    /// The existing topic's setting; for a new topic, `RB_PREALLOCATE_YES` if
    /// `max_payload_bytes` ≤ 4096, else `RB_PREALLOCATE_NO`.
    RB_PREALLOCATE_DEFAULT = 0,
    /// A fixed pool: all of it reserved up front, no system call on any loan.
    RB_PREALLOCATE_YES = 1,
    /// On demand: each chunk holds memory (whole pages) only for the message lent in it,
    /// at most `pool_bytes` per publisher.
    RB_PREALLOCATE_NO = 2,
}

/// What a publisher's loan does when a reliable subscriber has not taken the message it would
/// overwrite (`rb_topic_options::when_full`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum rb_when_full {
    /// Wait until that subscriber takes it, at most `when_full_timeout_ns` (0: as long as it
    /// takes; the default), then fail with `RB_ERR_FULL`. A subscriber that dies stops
    /// holding the publisher back.
    RB_WHEN_FULL_WAIT = 0,
    /// Fail at once with `RB_ERR_FULL`.
    RB_WHEN_FULL_FAIL = 1,
}

/// A topic's settings. Zero-initialize it (`rb_topic_options o = {0};`) and set what you
/// need: every field left 0 means "the default for a new topic, whatever the topic already
/// has for an existing one". A set field that differs from an existing topic's makes the
/// open fail with `RB_ERR_MISMATCH`. Ranges and defaults are those of the Rust
/// `TopicBuilder` (see the README): max_publishers 1..=64 (4), max_subscribers 1..=1024
/// (16), depth a power of two up to 65536 (16), history ≤ depth (0), max_held 1..=256 (4),
/// max_payload_bytes up to 1 GiB (4096), pool_bytes from max_payload_bytes up to 16 TiB
/// (1 GiB, or 4 × max_payload_bytes if more), preallocate (`RB_PREALLOCATE_DEFAULT`).
/// `reliable`, `when_full` and `when_full_timeout_ns` belong to one subscriber or publisher,
/// not to the topic: they never make an open fail with `RB_ERR_MISMATCH`, and 0 means
/// a lossy subscriber and a publisher that waits as long as it takes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
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
    /// Most payload memory one publisher may hold at once; a loan that would go over it
    /// fails with `RB_ERR_POOL_BUDGET`.
    pub pool_bytes: u64,
    /// An `rb_preallocate` value.
    pub preallocate: u32,
    /// Subscribers only: keep only the newest `keep_last` unread messages (1..=depth).
    pub keep_last: u32,
    /// Publishers only: sleepers a publish wakes itself before relaying (at least 1; 2).
    pub direct_wakes: u32,
    /// Subscribers only: an `rb_wake` value.
    pub wake: u32,
    /// Subscribers only: 1 for a reliable subscriber — no publisher overwrites a message it
    /// has not taken (a publisher that would waits or fails, as its `when_full` says);
    /// 0 for a lossy one (the default: a slow subscriber loses what publishers overwrite,
    /// and counts it in `rb_subscriber_lost`). Not with `keep_last` (`RB_ERR_INVALID_CONFIG`).
    pub reliable: u32,
    /// Publishers only: an `rb_when_full` value.
    pub when_full: u32,
    /// Publishers only, with `RB_WHEN_FULL_WAIT`: the longest a loan waits for a reliable
    /// subscriber, in nanoseconds; 0: as long as it takes.
    pub when_full_timeout_ns: u64,
    /// The payload type's name (1 to 256 bytes, NUL-terminated; the same in every program
    /// of the topic, e.g. "geometry.Pose"), or NULL for a topic of plain bytes. With a
    /// name, `payload_size` (at least 1) and `payload_align` (a power of two up to 4096; 0
    /// means 1) say the type's layout, and an open with another name, size or alignment
    /// fails with `RB_ERR_MISMATCH`. A Rust program joins with its own type under that name
    /// (`payload_type_as::<T>(name)`).
    pub payload_type_name: *const c_char,
    /// `sizeof` the payload type (with a name).
    pub payload_size: usize,
    /// `_Alignof` the payload type (with a name; 0 means 1).
    pub payload_align: usize,
}

impl Default for rb_topic_options {
    fn default() -> Self {
        rb_topic_options {
            max_publishers: 0,
            max_subscribers: 0,
            depth: 0,
            history: 0,
            max_held: 0,
            chunks: 0,
            max_payload_bytes: 0,
            pool_bytes: 0,
            preallocate: 0,
            keep_last: 0,
            direct_wakes: 0,
            wake: 0,
            reliable: 0,
            when_full: 0,
            when_full_timeout_ns: 0,
            payload_type_name: std::ptr::null(),
            payload_size: 0,
            payload_align: 0,
        }
    }
}

impl rb_topic_options {
    /// # Safety
    /// `payload_type_name` is NULL or NUL-terminated.
    unsafe fn apply(&self, b: TopicBuilder) -> Result<TopicBuilder, Failure> {
        type B = TopicBuilder;
        let b = match self.payload_type_name.is_null() {
            true => b,
            false => {
                // SAFETY: the caller's contract.
                let name = unsafe { text(self.payload_type_name, "options.payload_type_name") }?;
                b.payload_type_named(name, self.payload_size, self.payload_align.max(1))
            }
        };
        let b = set_nonzero(
            b,
            [
                (self.max_publishers, B::max_publishers),
                (self.max_subscribers, B::max_subscribers),
                (self.depth, B::depth),
                (self.history, B::history),
                (self.max_held, B::max_held),
                (self.chunks, B::chunks),
                (self.keep_last, B::keep_last),
                (self.direct_wakes, B::direct_wakes),
            ],
        );
        let b = set_nonzero(b, [(self.max_payload_bytes, B::max_payload_bytes), (self.pool_bytes, B::pool_bytes)]);
        let b = match self.preallocate {
            p if p == rb_preallocate::RB_PREALLOCATE_DEFAULT as u32 => b,
            p if p == rb_preallocate::RB_PREALLOCATE_YES as u32 => b.preallocate(true),
            p if p == rb_preallocate::RB_PREALLOCATE_NO as u32 => b.preallocate(false),
            other => {
                return Err(not_a_value(
                    "preallocate",
                    other,
                    "RB_PREALLOCATE_DEFAULT, RB_PREALLOCATE_YES or RB_PREALLOCATE_NO",
                ))
            }
        };
        let wake = match self.wake {
            w if w == rb_wake::RB_WAKE_ON_DATA as u32 => Wake::OnData,
            w if w == rb_wake::RB_WAKE_NEVER as u32 => Wake::Never,
            other => return Err(not_a_value("wake", other, "RB_WAKE_ON_DATA or RB_WAKE_NEVER")),
        };
        let b = match self.reliable {
            0 => b,
            1 => b.reliable(),
            other => {
                return Err(Failure {
                    status: rb_status::RB_ERR_INVALID_CONFIG,
                    message: format!("reliable = {other}; pass 1 for a reliable subscriber or 0 for a lossy one"),
                })
            }
        };
        Ok(b.wake(wake).when_full(self.when_full()?))
    }

    /// `when_full` and `when_full_timeout_ns` as the core's policy.
    fn when_full(&self) -> Result<WhenFull, Failure> {
        let timeout = self.when_full_timeout_ns;
        match self.when_full {
            w if w == rb_when_full::RB_WHEN_FULL_WAIT as u32 => {
                Ok(WhenFull::Wait((timeout != 0).then(|| Duration::from_nanos(timeout))))
            }
            w if w == rb_when_full::RB_WHEN_FULL_FAIL as u32 && timeout == 0 => Ok(WhenFull::Fail),
            w if w == rb_when_full::RB_WHEN_FULL_FAIL as u32 => Err(Failure {
                status: rb_status::RB_ERR_INVALID_CONFIG,
                message: format!(
                    "when_full_timeout_ns = {timeout} with RB_WHEN_FULL_FAIL, which never waits; \
                     leave it 0, or use RB_WHEN_FULL_WAIT"
                ),
            }),
            other => Err(not_a_value("when_full", other, "RB_WHEN_FULL_WAIT or RB_WHEN_FULL_FAIL")),
        }
    }
}

/// An option holding none of its enum's values (`allowed`).
fn not_a_value(option: &str, value: u32, allowed: &str) -> Failure {
    Failure {
        status: rb_status::RB_ERR_INVALID_CONFIG,
        message: format!("{option} = {value} is not an rb_{option} value ({allowed})"),
    }
}

/// A `TopicBuilder` setter.
type Setter<T> = fn(TopicBuilder, T) -> TopicBuilder;

/// Applies to `b` each setting that is not 0 (0: unset).
fn set_nonzero<T: Default + PartialEq, const N: usize>(b: TopicBuilder, settings: [(T, Setter<T>); N]) -> TopicBuilder {
    settings.into_iter().fold(b, |b, (value, set)| if value == T::default() { b } else { set(b, value) })
}

/// The topic builder for `topic` with `options` (NULL: all defaults).
///
/// # Safety
/// As for [`text`]; `options` is NULL or points to an `rb_topic_options` whose
/// `payload_type_name` is NULL or NUL-terminated.
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
    // SAFETY: the caller promises a NUL-terminated `payload_type_name`, if any.
    unsafe { options.apply(node.0.topic(topic)) }
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
