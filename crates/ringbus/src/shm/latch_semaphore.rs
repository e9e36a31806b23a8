//! Named synchronisation objects: one small segment per [`Latch`](crate::Latch) or
//! [`Semaphore`](crate::Semaphore), holding the futex words and their counters.
//!
//! ```text
//!   0 SegmentHeader (kind Latch or Semaphore)
//!  64 word       the futex word (latch: generation<<2 | waiters<<1 | set; semaphore: count)
//!  68 sleepers   semaphore waiters registered to sleep (unused by a latch: its waiters bit
//!                lives in the word itself)
//!  72 initial    the value the creator started with (diagnostics)
//!  76 reserved (0)
//! 128 wake_calls  FUTEX_WAKE calls made by set/post      136 woken  tasks they woke
//! 144 skipped     set/post that found nobody asleep      152 reserved (0) .. 192
//! ```
//! Every bit pattern of the words is a valid state, so a scribbling peer can cause spurious
//! or missed wake-ups on this object, never undefined behaviour.

use super::header::{HeaderError, SegmentHeader, SegmentKind};
use super::{Region, Shared};
use crate::sync::{AtomicU32, AtomicU64, Ordering};
use std::mem::{offset_of, size_of};

#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct ObjectRecord {
    pub common: SegmentHeader,
    pub word: u32,
    pub sleepers: u32,
    pub initial: u32,
    pub reserved0: [u8; 52],
    pub wake_calls: u64,
    pub woken: u64,
    pub skipped: u64,
    pub reserved1: [u8; 40],
}
const _: () = assert!(offset_of!(ObjectRecord, word) == 64);
const _: () = assert!(offset_of!(ObjectRecord, sleepers) == 68);
const _: () = assert!(offset_of!(ObjectRecord, initial) == 72);
const _: () = assert!(offset_of!(ObjectRecord, wake_calls) == 128);
const _: () = assert!(offset_of!(ObjectRecord, woken) == 136);
const _: () = assert!(offset_of!(ObjectRecord, skipped) == 144);
const _: () = assert!(size_of::<ObjectRecord>() == 192);
// SAFETY: repr(C), integers and byte arrays only.
unsafe impl Shared for ObjectRecord {}

pub(crate) const OBJECT_BYTES: u64 = size_of::<ObjectRecord>() as u64;

/// The shared words of one object: `word` and `sleepers` are lent to the latch and
/// semaphore protocols (`notify::latch`, `notify::semaphore`); the counters are kept here.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ObjectWords<'a> {
    pub word: &'a AtomicU32,
    pub sleepers: &'a AtomicU32,
    wake_calls: &'a AtomicU64,
    woken: &'a AtomicU64,
    skipped: &'a AtomicU64,
}

impl ObjectWords<'_> {
    /// Counts one `set` / `post`: a wake call that woke `n`, or `None` (nobody asleep, no call).
    pub(crate) fn count_wake(&self, woken: Option<u32>) {
        match woken {
            None => {
                self.skipped.fetch_add(1, Ordering::Relaxed);
            }
            Some(n) => {
                self.woken.fetch_add(n as u64, Ordering::Relaxed);
                self.wake_calls.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// `(wake calls, tasks woken, calls skipped)` so far.
    pub(crate) fn wake_counters(&self) -> (u64, u64, u64) {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        (load(self.wake_calls), load(self.woken), load(self.skipped))
    }

    /// The futex word now (latch state, or a semaphore's free tokens).
    pub(crate) fn word_now(&self) -> u32 {
        self.word.load(Ordering::Relaxed)
    }

    /// Semaphore waiters registered to sleep now.
    pub(crate) fn sleepers_now(&self) -> u32 {
        self.sleepers.load(Ordering::Relaxed)
    }
}

impl ObjectRecord {
    pub(crate) fn init(region: &Region, kind: SegmentKind, initial: u32) {
        let record = ObjectRecord {
            common: SegmentHeader::new(kind, size_of::<ObjectRecord>() as u32, OBJECT_BYTES),
            word: initial,
            sleepers: 0,
            initial,
            reserved0: [0; 52],
            wake_calls: 0,
            woken: 0,
            skipped: 0,
            reserved1: [0; 40],
        };
        region.write_plain(0, record);
    }

    /// Checks what the header does not: the object's own size, that the segment is a whole
    /// record, and its reserved bytes.
    pub(crate) fn validate(region: &Region, header: &SegmentHeader) -> Result<(), HeaderError> {
        if header.header_bytes as u64 != OBJECT_BYTES {
            return Err(super::header::corrupt("object record size", header.header_bytes as u64, OBJECT_BYTES));
        }
        if region.len() as u64 != OBJECT_BYTES {
            return Err(super::header::corrupt("object segment length", region.len() as u64, OBJECT_BYTES));
        }
        let record: ObjectRecord = region.read_plain(0);
        if record.reserved0 != [0; 52] || record.reserved1 != [0; 40] {
            return Err(super::header::corrupt("reserved object bytes", 1, 0));
        }
        Ok(())
    }

    pub(crate) fn words(region: &Region) -> ObjectWords<'_> {
        ObjectWords {
            word: region.get(offset_of!(ObjectRecord, word)),
            sleepers: region.get(offset_of!(ObjectRecord, sleepers)),
            wake_calls: region.get(offset_of!(ObjectRecord, wake_calls)),
            woken: region.get(offset_of!(ObjectRecord, woken)),
            skipped: region.get(offset_of!(ObjectRecord, skipped)),
        }
    }
}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    super::layout_facts!(ObjectRecord: common, word, sleepers, initial, reserved0, wake_calls, woken, skipped, reserved1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing: a latch file of 156 bytes whose header said so (and was otherwise
    /// valid) made opening it read a 192-byte record past its end (a panic).
    #[test]
    fn a_record_shorter_or_longer_than_its_layout_is_refused() {
        for len in [64, 156, 256] {
            let r = Region::heap(len);
            SegmentHeader::new(SegmentKind::Latch, OBJECT_BYTES as u32, len as u64).write(&r);
            SegmentHeader::publish(&r);
            let header = SegmentHeader::read(&r, SegmentKind::Latch).unwrap();
            let e = ObjectRecord::validate(&r, &header).unwrap_err();
            assert!(matches!(e, HeaderError::Corrupted(c) if c.what == "object segment length"), "{len}");
        }
        let r = Region::heap(OBJECT_BYTES as usize);
        ObjectRecord::init(&r, SegmentKind::Semaphore, 3);
        SegmentHeader::publish(&r);
        let header = SegmentHeader::read(&r, SegmentKind::Semaphore).unwrap();
        assert_eq!(ObjectRecord::validate(&r, &header), Ok(()));
    }
}
