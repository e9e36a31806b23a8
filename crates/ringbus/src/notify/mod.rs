//! Notification: wake only those who sleep, with one system call — the topic wake
//! protocol, and the words, latches and semaphores users wait on directly.
#![allow(unsafe_code)]

pub(crate) mod doorbell;
pub(crate) mod latch;
#[cfg(not(loom))]
pub(crate) mod object;
pub(crate) mod protocol;
pub(crate) mod semaphore;
#[cfg(not(loom))]
pub(crate) mod word;

pub(crate) use protocol::{Sleep, WakeWords, DEFAULT_DIRECT_WAKES};

/// A wait ended because its timeout expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the wait timed out")
    }
}

impl std::error::Error for TimedOut {}
