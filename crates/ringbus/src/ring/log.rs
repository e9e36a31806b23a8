//! The seqlock of one entry of a publisher's broadcast log, over the entry's words (the
//! entry itself, its layout and where it lives, belong to `shm::log_entry`).
//!
//! The publisher (the only writer) marks the entry as being written, writes the fields and
//! stores the new sequence last. A reader takes the fields only if it sees the sequence it
//! wants both before and after reading them.

use crate::sync::{fence, AtomicU32, AtomicU64, Ordering};

/// The sequence of an entry being written.
const WRITING: u64 = u64::MAX;

/// The words of one log entry: `sequence` is the position + 1 of the message held (0:
/// never written, `u64::MAX`: being written), the rest describe it.
#[derive(Clone, Copy)]
pub(crate) struct EntryWords<'a> {
    pub sequence: &'a AtomicU64,
    pub chunk: &'a AtomicU32,
    pub generation: &'a AtomicU32,
    pub length: &'a AtomicU64,
    pub timestamp_ns: &'a AtomicU64,
}

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

impl EntryWords<'_> {
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
    #[inline]
    pub(crate) fn read(&self, position: u64) -> EntryRead {
        // A position no publisher reaches (see `PublisherView::published`): nothing to read.
        let Some(wanted) = position.checked_add(1) else {
            return EntryRead::Overwritten;
        };
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

impl EntryWords<'_> {
    /// Whether the entry holds a position older than `position`: `position` is not
    /// published yet (one load; what a subscriber that has read everything polls).
    #[inline]
    pub(crate) fn holds_older(&self, position: u64) -> bool {
        // Acquire: pairs with the Release store that finished a write, like `read`; a
        // look that found the entry older than `position` saw every write before it.
        let sequence = self.sequence.load(Ordering::Acquire);
        sequence != WRITING && sequence <= position
    }

    /// After reading the payload of the message `read(position)` returned: whether the
    /// entry still holds it, so the bytes read were that message's. A chunk is rewritten
    /// only after the entry that named it was marked `WRITING` for a later position (the
    /// publisher frees a chunk when a new message takes its log index), so this is the
    /// closing check of a seqlock over the payload, as `read`'s second load is over the
    /// entry's fields.
    #[inline]
    pub(crate) fn still_holds(&self, position: u64) -> bool {
        // Pairs with the writer's Release fence after the WRITING mark (see `write`): a
        // payload read that saw a byte the publisher wrote after re-marking this entry
        // makes this load see the mark or a later sequence.
        fence(Ordering::Acquire);
        position.checked_add(1) == Some(self.sequence.load(Ordering::Relaxed))
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    #[derive(Default)]
    struct Entry {
        sequence: AtomicU64,
        chunk: AtomicU32,
        generation: AtomicU32,
        length: AtomicU64,
        timestamp_ns: AtomicU64,
    }

    impl Entry {
        fn words(&self) -> EntryWords<'_> {
            EntryWords {
                sequence: &self.sequence,
                chunk: &self.chunk,
                generation: &self.generation,
                length: &self.length,
                timestamp_ns: &self.timestamp_ns,
            }
        }
    }

    /// A reader never accepts a mix of two messages' fields.
    #[test]
    fn reader_never_sees_a_torn_entry() {
        loom::model(|| {
            let e = Arc::new(Entry::default());
            let rec = |p: u64| EntryRecord { chunk: p as u32, generation: p as u32, length: p, timestamp_ns: p };
            e.words().write(0, rec(0));
            let reader = {
                let e = e.clone();
                loom::thread::spawn(move || {
                    for p in [0u64, 1] {
                        if let EntryRead::Ready(r) = e.words().read(p) {
                            assert_eq!(r, rec(p));
                        }
                    }
                })
            };
            e.words().write(1, rec(1));
            reader.join().unwrap();
        });
    }

    /// A reader that reads a chunk's payload without pinning it, then checks the entry
    /// still holds the message (`still_holds`), never accepts bytes of a later message —
    /// the publisher reuses the chunk only after writing a later position into the entry
    /// (a log of one entry, so the next message takes it at once). The payload is a
    /// relaxed atomic here: what a plain load of a byte another process writes does.
    #[test]
    fn a_reader_without_a_pin_never_accepts_a_rewritten_payload() {
        loom::model(|| {
            let e = Arc::new(Entry::default());
            let payload = Arc::new(AtomicU64::new(0));
            let rec = EntryRecord { chunk: 0, generation: 0, length: 8, timestamp_ns: 0 };
            payload.store(100, Ordering::Relaxed);
            e.words().write(0, rec);
            let reader = {
                let (e, payload) = (e.clone(), payload.clone());
                loom::thread::spawn(move || {
                    if let EntryRead::Ready(_) = e.words().read(0) {
                        let seen = payload.load(Ordering::Relaxed);
                        if e.words().still_holds(0) {
                            assert_eq!(seen, 100, "accepted the bytes of a later message");
                        }
                    }
                })
            };
            // The next message takes the entry, frees the chunk, and rewrites it.
            e.words().write(1, rec);
            payload.store(101, Ordering::Relaxed);
            reader.join().unwrap();
        });
    }
}
