//! The baselines' payload store: per topic a ring of 64 slots in a shared file, written in
//! place by the publisher (zero copy, like ringbus) before it notifies the subscribers.
//! The whole payload of every slot is written once at creation; each publish writes only
//! the 16-byte header.
//!
//! ```text
//! slot = topic × 64 + seq % 64, each `slot_words` words:
//!   word 0  t0_ns
//!   word 1  seq + 1 (0: never written), stored last with Release
//!   rest    payload filler
//! ```

use crate::shm::SharedWords;
use anyhow::Result;
use std::path::Path;
use std::sync::atomic::Ordering;

pub(crate) const SLOTS: u64 = 64;

#[derive(Debug)]
pub(crate) struct SlotRing {
    shared: SharedWords,
    slot_words: usize,
}

impl SlotRing {
    fn geometry(topics: u32, payload_bytes: u64) -> (usize, usize) {
        let slot_words = payload_bytes.div_ceil(8).max(2) as usize;
        (slot_words, topics as usize * SLOTS as usize * slot_words)
    }

    /// The bench's side: creates the ring and writes every payload byte once.
    pub(crate) fn create(path: &Path, topics: u32, payload_bytes: u64) -> Result<SlotRing> {
        let (slot_words, len) = Self::geometry(topics, payload_bytes);
        let shared = SharedWords::create(path, len)?;
        for (i, w) in shared.words().iter().enumerate() {
            w.store(if i % slot_words < 2 { 0 } else { 0xA5A5_A5A5_A5A5_A5A5 }, Ordering::Relaxed);
        }
        Ok(SlotRing { shared, slot_words })
    }

    /// A subscriber's side.
    pub(crate) fn open(path: &Path, topics: u32, payload_bytes: u64) -> Result<SlotRing> {
        let (slot_words, len) = Self::geometry(topics, payload_bytes);
        Ok(SlotRing { shared: SharedWords::open(path, len)?, slot_words })
    }

    fn base(&self, topic: u32, seq: u64) -> usize {
        (topic as usize * SLOTS as usize + (seq % SLOTS) as usize) * self.slot_words
    }

    /// Writes message `seq`'s header in place (the payload stays as written at creation).
    pub(crate) fn write(&self, topic: u32, seq: u64, t0_ns: u64) {
        let b = self.base(topic, seq);
        let words = self.shared.words();
        words[b].store(t0_ns, Ordering::Relaxed);
        // Release: pairs with the Acquire in `read`; a reader that sees seq sees t0.
        words[b + 1].store(seq + 1, Ordering::Release);
    }

    /// Message `seq`'s t0, or `None` if its slot holds another message (not yet written,
    /// or already overwritten by a publisher 64 messages ahead).
    pub(crate) fn read(&self, topic: u32, seq: u64) -> Option<u64> {
        let b = self.base(topic, seq);
        let words = self.shared.words();
        // Acquire: pairs with the Release in `write`. (A publisher lapping the reader between
        // the two loads could pair a new t0 with the old seq; at 64 slots and a paced
        // publisher that would take a subscriber 64 periods late, which `lost` would show.)
        let found = words[b + 1].load(Ordering::Acquire);
        let t0 = words[b].load(Ordering::Relaxed);
        (found == seq + 1).then_some(t0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_found_until_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ring");
        let bench = SlotRing::create(&path, 2, 100).unwrap();
        let sub = SlotRing::open(&path, 2, 100).unwrap();
        assert_eq!(sub.read(1, 0), None);
        bench.write(1, 3, 777);
        assert_eq!(sub.read(1, 3), Some(777));
        assert_eq!(sub.read(0, 3), None, "topics have separate rings");
        bench.write(1, 3 + SLOTS, 888);
        assert_eq!(sub.read(1, 3), None, "overwritten");
        assert_eq!(sub.read(1, 3 + SLOTS), Some(888));
    }
}
