//! The router's coarse clock: milliseconds since the router started, in one atomic word
//! that a housekeeping thread advances, so the forwarding path reads the time with one
//! relaxed load instead of a clock call per frame.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Debug)]
pub struct Clock {
    start: Instant,
    now_ms: AtomicU64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}

impl Clock {
    pub fn new() -> Clock {
        Clock { start: Instant::now(), now_ms: AtomicU64::new(0) }
    }

    /// The time of the last [`Clock::tick`].
    pub fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::Relaxed)
    }

    /// Reads the real clock into the word.
    pub fn tick(&self) {
        self.now_ms.store(self.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    /// Sets the time (tests of expiry).
    pub fn set_ms(&self, ms: u64) {
        self.now_ms.store(ms, Ordering::Relaxed);
    }
}
