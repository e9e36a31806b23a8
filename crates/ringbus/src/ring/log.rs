//! One entry of a publisher's broadcast log, read and written as a seqlock.
//!
//! ```text
//!  0 sequence: u64   position + 1 of the message held (0: never written, MAX: being written)
//!  8 chunk: u32      index of the chunk holding the payload
//! 12 generation: u32 the chunk's generation when it was published (see pool::pin)
//! 16 length: u64     payload bytes
//! 24 timestamp: u64  CLOCK_MONOTONIC ns at publish
//! ```
//! The publisher (the only writer) marks the entry as being written, writes the fields and
//! stores the new sequence last. A reader takes the fields only if it sees the sequence it
//! wants both before and after reading them.

use crate::sync::{fence, AtomicU32, AtomicU64, Ordering};

const WRITING: u64 = u64::MAX;

#[repr(C)]
pub(crate) struct LogEntry {
    sequence: AtomicU64,
    chunk: AtomicU32,
    generation: AtomicU32,
    length: AtomicU64,
    timestamp_ns: AtomicU64,
}

#[cfg(not(loom))]
const _: () = {
    assert!(std::mem::size_of::<LogEntry>() == 32);
    assert!(std::mem::offset_of!(LogEntry, chunk) == 8);
    assert!(std::mem::offset_of!(LogEntry, generation) == 12);
    assert!(std::mem::offset_of!(LogEntry, length) == 16);
    assert!(std::mem::offset_of!(LogEntry, timestamp_ns) == 24);
};

// SAFETY: repr(C), fixed-width atomics only, valid for any bit pattern.
#[cfg(not(loom))]
unsafe impl crate::shm::Shared for LogEntry {}

/// What an entry said (still unvalidated against the pool's bounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryRecord {
    pub chunk: u32,
    pub generation: u32,
    pub length: u64,
    pub timestamp_ns: u64,
}

/// Result of reading the entry for one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryRead {
    Ready(EntryRecord),
    /// A later message has taken (or is taking) the slot: this one is lost.
    Overwritten,
    /// The slot holds an *older* position than the publisher's count claims: corrupt.
    Behind {
        sequence: u64,
    },
}

impl LogEntry {
    #[cfg(loom)]
    pub(crate) fn new() -> LogEntry {
        LogEntry {
            sequence: AtomicU64::new(0),
            chunk: AtomicU32::new(0),
            generation: AtomicU32::new(0),
            length: AtomicU64::new(0),
            timestamp_ns: AtomicU64::new(0),
        }
    }

    /// Publisher only: writes the entry for `position`.
    #[inline]
    pub(crate) fn write(&self, position: u64, record: EntryRecord) {
        self.sequence.store(WRITING, Ordering::Relaxed);
        // Orders the WRITING mark before the field stores; pairs with the reader's Acquire
        // fence, so a reader that saw any new field sees the mark on its second load.
        fence(Ordering::Release);
        self.chunk.store(record.chunk, Ordering::Relaxed);
        self.generation.store(record.generation, Ordering::Relaxed);
        self.length.store(record.length, Ordering::Relaxed);
        self.timestamp_ns.store(record.timestamp_ns, Ordering::Relaxed);
        // Release: pairs with the reader's Acquire load of the sequence.
        self.sequence.store(position + 1, Ordering::Release);
    }

    /// Reads the entry for `position`.
    pub(crate) fn read(&self, position: u64) -> EntryRead {
        let wanted = position + 1;
        // Acquire: pairs with the Release store that finished the write.
        let before = self.sequence.load(Ordering::Acquire);
        if before != wanted {
            return if before == WRITING || before > wanted {
                EntryRead::Overwritten
            } else {
                EntryRead::Behind { sequence: before }
            };
        }
        let record = EntryRecord {
            chunk: self.chunk.load(Ordering::Relaxed),
            generation: self.generation.load(Ordering::Relaxed),
            length: self.length.load(Ordering::Relaxed),
            timestamp_ns: self.timestamp_ns.load(Ordering::Relaxed),
        };
        // Pairs with the writer's Release fence (see `write`).
        fence(Ordering::Acquire);
        if self.sequence.load(Ordering::Relaxed) != wanted {
            return EntryRead::Overwritten;
        }
        EntryRead::Ready(record)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::shm::Region;

    #[test]
    fn write_then_read_on_a_heap_segment() {
        let r = Region::heap(64);
        let e = r.get::<LogEntry>(0);
        let rec = EntryRecord { chunk: 3, generation: 9, length: 100, timestamp_ns: 5 };
        assert_eq!(e.read(0), EntryRead::Behind { sequence: 0 });
        e.write(0, rec);
        assert_eq!(e.read(0), EntryRead::Ready(rec));
        e.write(8, rec);
        assert_eq!(e.read(0), EntryRead::Overwritten);
        assert_eq!(e.read(8), EntryRead::Ready(rec));
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    /// A reader never accepts a mix of two messages' fields.
    #[test]
    fn reader_never_sees_a_torn_entry() {
        loom::model(|| {
            let e = Arc::new(LogEntry::new());
            let rec = |p: u64| EntryRecord { chunk: p as u32, generation: p as u32, length: p, timestamp_ns: p };
            e.write(0, rec(0));
            let reader = {
                let e = e.clone();
                loom::thread::spawn(move || {
                    for p in [0u64, 1] {
                        if let EntryRead::Ready(r) = e.read(p) {
                            assert_eq!(r, rec(p));
                        }
                    }
                })
            };
            e.write(1, rec(1));
            reader.join().unwrap();
        });
    }
}
