//! One entry of a publisher's broadcast log: its layout. The log is an array of `depth`
//! entries in the publisher segment (`shm::publisher`); the seqlock that writes and reads
//! an entry is `ring::log`'s, over the words this module lends.
//!
//! ```text
//!  0 sequence: u64   position + 1 of the message held (0: never written, MAX: being written)
//!  8 chunk: u32      index of the chunk holding the payload
//! 12 generation: u32 the chunk's generation when it was published (see pool::pin)
//! 16 length: u64     payload bytes
//! 24 timestamp: u64  CLOCK_MONOTONIC ns at publish
//! ```

use super::Shared;
use crate::ring::log::EntryWords;
use crate::sync::{AtomicU32, AtomicU64};
use std::mem::{offset_of, size_of};

#[repr(C)]
pub(crate) struct LogEntry {
    sequence: AtomicU64,
    chunk: AtomicU32,
    generation: AtomicU32,
    length: AtomicU64,
    timestamp_ns: AtomicU64,
}
const _: () = assert!(size_of::<LogEntry>() == 32);
const _: () = assert!(offset_of!(LogEntry, chunk) == 8);
const _: () = assert!(offset_of!(LogEntry, generation) == 12);
const _: () = assert!(offset_of!(LogEntry, length) == 16);
const _: () = assert!(offset_of!(LogEntry, timestamp_ns) == 24);

// SAFETY: repr(C), fixed-width atomics only, valid for any bit pattern.
unsafe impl Shared for LogEntry {}

impl LogEntry {
    /// The entry's words, for the seqlock.
    #[inline]
    pub(crate) fn words(&self) -> EntryWords<'_> {
        EntryWords {
            sequence: &self.sequence,
            chunk: &self.chunk,
            generation: &self.generation,
            length: &self.length,
            timestamp_ns: &self.timestamp_ns,
        }
    }
}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    super::layout_facts!(LogEntry: sequence, chunk, generation, length, timestamp_ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::log::{EntryRead, EntryRecord};
    use crate::shm::Region;

    #[test]
    fn write_then_read_on_a_heap_segment() {
        let r = Region::heap(64);
        let e = r.get::<LogEntry>(0).words();
        let rec = EntryRecord { chunk: 3, generation: 9, length: 100, timestamp_ns: 5 };
        assert_eq!(e.read(0), EntryRead::Behind { sequence: 0 });
        e.write(0, rec);
        assert_eq!(e.read(0), EntryRead::Ready(rec));
        e.write(8, rec);
        assert_eq!(e.read(0), EntryRead::Overwritten);
        assert_eq!(e.read(8), EntryRead::Ready(rec));
        assert!(e.still_holds(8) && !e.still_holds(0), "the check after reading a payload in place");
        assert!(e.holds_older(16) && !e.holds_older(8) && !e.holds_older(0), "16 not published yet");
    }
}
