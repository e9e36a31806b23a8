//! Notification: wake only those who sleep, with one system call — the topic wake
//! protocol, and the words, latches and semaphores users wait on directly.
#![allow(unsafe_code)]

pub(crate) mod doorbell;
pub(crate) mod latch;
pub(crate) mod protocol;
pub(crate) mod semaphore;
#[cfg(not(loom))]
pub(crate) mod word;

#[cfg(not(loom))]
pub(crate) use protocol::{Sleep, WakeWords, DEFAULT_DIRECT_WAKES};

/// Whether a waiter sleeps in the kernel and is woken, or only polls: a topic's
/// subscriber (set per subscriber), or a command queue's consumer and producers (set per
/// queue, when it is created).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wake {
    /// `receive()` sleeps and is woken by publishes (the default). A queue's `wait` and
    /// `push_timeout` sleep and are woken by pushes and pops.
    #[default]
    OnData,
    /// Never woken: the subscriber only polls (`take`, `take_latest`, `peek`), and costs
    /// publishers nothing — it never touches the sleepers count. A queue created so is
    /// never rung: pushes and pops skip the memory fence and the look at the sleepers
    /// that waking needs, and its `wait` and `push_timeout` poll instead of sleeping —
    /// for a consumer that spins on a core of its own.
    Never,
}

/// A wait ended because its timeout expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the wait timed out")
    }
}

impl std::error::Error for TimedOut {}
