//! A subscriber's process-local pin counts, one per chunk of one publisher.
//!
//! The shared holder bit of a subscriber slot is a single bit, but one process may hold
//! the same chunk twice (a `peek` and a `take` of the same message). The local count makes
//! the shared bit go up on the first pin and down on the last release. The 0↔1 transitions
//! run under a `BUSY` mark so that a release on one thread and a pin on another cannot
//! interleave their shared-memory operations.

use std::sync::atomic::{AtomicU32, Ordering};

const BUSY: u32 = 1 << 31;

#[derive(Debug)]
pub(crate) struct LocalPins {
    counts: Box<[AtomicU32]>,
}

impl LocalPins {
    pub(crate) fn new(chunk_count: u32) -> LocalPins {
        LocalPins { counts: (0..chunk_count).map(|_| AtomicU32::new(0)).collect() }
    }

    /// Pins `chunk`: runs `pin_shared` on the first pin. When this process already holds the
    /// chunk, `still_valid` says whether the wanted message is the one held.
    pub(crate) fn acquire(
        &self,
        chunk: u32,
        pin_shared: impl FnOnce() -> bool,
        still_valid: impl FnOnce() -> bool,
    ) -> bool {
        let count = &self.counts[chunk as usize];
        let mut still_valid = Some(still_valid);
        loop {
            let v = count.load(Ordering::Acquire);
            if v & BUSY != 0 {
                std::hint::spin_loop();
            } else if v > 0 {
                if let Some(check) = still_valid.take() {
                    if !check() {
                        return false;
                    }
                }
                if count.compare_exchange(v, v + 1, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    return true;
                }
            } else if count.compare_exchange(0, BUSY, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                let pinned = pin_shared();
                // Release: ends the BUSY section; pairs with the Acquire loads above.
                count.store(pinned as u32, Ordering::Release);
                return pinned;
            }
        }
    }

    /// Releases one pin of `chunk`: runs `release_shared` on the last.
    pub(crate) fn release(&self, chunk: u32, release_shared: impl FnOnce()) {
        let count = &self.counts[chunk as usize];
        loop {
            let v = count.load(Ordering::Acquire);
            if v & BUSY != 0 {
                std::hint::spin_loop();
            } else if v > 1 {
                if count.compare_exchange(v, v - 1, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    return;
                }
            } else if v == 1 {
                if count.compare_exchange(1, BUSY, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    release_shared();
                    // Release: ends the BUSY section.
                    count.store(0, Ordering::Release);
                    return;
                }
            } else {
                debug_assert!(false, "ringbus bug: release of an unpinned chunk");
                return;
            }
        }
    }

    /// Pins held on `chunk` by this process.
    #[cfg(test)]
    pub(crate) fn count(&self, chunk: u32) -> u32 {
        self.counts[chunk as usize].load(Ordering::Relaxed) & !BUSY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn shared_bit_follows_first_pin_and_last_release() {
        let pins = LocalPins::new(2);
        let shared = Cell::new(0);
        assert!(pins.acquire(
            1,
            || {
                shared.set(shared.get() + 1);
                true
            },
            || true
        ));
        assert!(pins.acquire(1, || unreachable!(), || true));
        assert_eq!((pins.count(1), shared.get()), (2, 1));
        pins.release(1, || unreachable!());
        pins.release(1, || shared.set(shared.get() - 1));
        assert_eq!((pins.count(1), shared.get()), (0, 0));
        assert!(!pins.acquire(0, || false, || true), "a failed shared pin leaves nothing held");
        assert_eq!(pins.count(0), 0);
    }
}
