//! A link's counters: relaxed atomic adds on the forwarding path (no lock, no fence), read
//! whole by the control interface.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// Live counters of one link.
#[derive(Debug, Default)]
pub struct Counters {
    frames_in: AtomicU64,
    bytes_in: AtomicU64,
    frames_out: AtomicU64,
    bytes_out: AtomicU64,
    filtered_in: AtomicU64,
    filtered_out: AtomicU64,
    dropped_out: AtomicU64,
    garbage_bytes: AtomicU64,
}

/// The counters of one link at one moment (what `ringbus route ctl list` shows).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterSnapshot {
    /// Frames received whole (checksum right, or an id the dialect does not know).
    pub frames_in: u64,
    pub bytes_in: u64,
    /// Frames handed to the link's socket or topic.
    pub frames_out: u64,
    pub bytes_out: u64,
    /// Received frames the link's input filter refused.
    pub filtered_in: u64,
    /// Frames the link's output filter kept from it.
    pub filtered_out: u64,
    /// Frames for the link lost: its queue was full, or its socket or topic refused them.
    pub dropped_out: u64,
    /// Received bytes that were not part of a frame (noise, bad checksums, cut frames).
    pub garbage_bytes: u64,
}

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

impl Counters {
    pub fn received(&self, bytes: usize) {
        add(&self.frames_in, 1);
        add(&self.bytes_in, bytes as u64);
    }

    pub fn sent(&self, bytes: usize) {
        add(&self.frames_out, 1);
        add(&self.bytes_out, bytes as u64);
    }

    pub fn filtered_in(&self) {
        add(&self.filtered_in, 1);
    }

    pub fn filtered_out(&self) {
        add(&self.filtered_out, 1);
    }

    pub fn dropped_out(&self) {
        add(&self.dropped_out, 1);
    }

    pub fn garbage(&self, bytes: u64) {
        if bytes > 0 {
            add(&self.garbage_bytes, bytes);
        }
    }

    pub fn snapshot(&self) -> CounterSnapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CounterSnapshot {
            frames_in: get(&self.frames_in),
            bytes_in: get(&self.bytes_in),
            frames_out: get(&self.frames_out),
            bytes_out: get(&self.bytes_out),
            filtered_in: get(&self.filtered_in),
            filtered_out: get(&self.filtered_out),
            dropped_out: get(&self.dropped_out),
            garbage_bytes: get(&self.garbage_bytes),
        }
    }
}
