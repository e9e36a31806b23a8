//! A link's counters: relaxed atomic adds on the forwarding path (no lock, no fence), read
//! whole by the control interface. What comes in is counted by the link's own reading
//! thread only; what goes out is counted by every forwarding thread, so those counters are
//! sharded — [`SHARDS`] cache-line-aligned copies, each thread adding to its own — and
//! summed when read: two threads sending to the same link do not fight over one line.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// Copies of the outgoing counters per link.
pub const SHARDS: usize = 4;

/// The counters forwarding threads add to, one cache line per shard.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Out {
    frames: AtomicU64,
    bytes: AtomicU64,
    filtered: AtomicU64,
    dropped: AtomicU64,
}

/// Live counters of one link.
#[derive(Debug, Default)]
pub struct Counters {
    frames_in: AtomicU64,
    bytes_in: AtomicU64,
    filtered_in: AtomicU64,
    garbage_bytes: AtomicU64,
    out: [Out; SHARDS],
}

/// This thread's shard: threads take shards in turn as they first count something.
fn shard() -> usize {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static SHARD: usize = (NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS as u64) as usize;
    }
    SHARD.with(|s| *s)
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

    fn out(&self) -> &Out {
        &self.out[shard()]
    }

    pub fn sent(&self, bytes: usize) {
        let out = self.out();
        add(&out.frames, 1);
        add(&out.bytes, bytes as u64);
    }

    pub fn filtered_in(&self) {
        add(&self.filtered_in, 1);
    }

    pub fn filtered_out(&self) {
        add(&self.out().filtered, 1);
    }

    pub fn dropped_out(&self) {
        add(&self.out().dropped, 1);
    }

    pub fn garbage(&self, bytes: u64) {
        if bytes > 0 {
            add(&self.garbage_bytes, bytes);
        }
    }

    pub fn snapshot(&self) -> CounterSnapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let sum = |f: fn(&Out) -> &AtomicU64| self.out.iter().map(|o| get(f(o))).sum();
        CounterSnapshot {
            frames_in: get(&self.frames_in),
            bytes_in: get(&self.bytes_in),
            frames_out: sum(|o| &o.frames),
            bytes_out: sum(|o| &o.bytes),
            filtered_in: get(&self.filtered_in),
            filtered_out: sum(|o| &o.filtered),
            dropped_out: sum(|o| &o.dropped),
            garbage_bytes: get(&self.garbage_bytes),
        }
    }
}
