//! A subscriber's process-local pin counts, one per chunk of one publisher.
//!
//! The shared holder bit of a subscriber slot is a single bit, but one process may hold
//! the same chunk twice (a `peek` and a `take` of the same message). The local count makes
//! the shared bit go up on the first pin and down on the last release. The 0↔1 transitions
//! run under a `BUSY` mark so that a release on one thread and a pin on another cannot
//! interleave their shared-memory operations.

use crate::sync::{spin_hint, AtomicU32, Ordering};

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
            // Acquire: pairs with the Release that ended a BUSY section.
            let v = count.load(Ordering::Acquire);
            if v & BUSY != 0 {
                spin_hint();
            } else if v > 0 {
                if let Some(check) = still_valid.take() {
                    if !check() {
                        return false;
                    }
                }
                // AcqRel: pairs with the Release that ended the BUSY section pinning it.
                if count.compare_exchange(v, v + 1, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    return true;
                }
            } else if count.compare_exchange(0, BUSY, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                // (Acquire on taking BUSY: pairs with the Release that ended the last BUSY
                // section, so this one's shared-memory steps come after that one's.)
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
            // Acquire: as in `acquire`.
            let v = count.load(Ordering::Acquire);
            if v & BUSY != 0 {
                spin_hint();
            } else if v > 1 {
                // AcqRel: our reads of the payload come before a later last release.
                if count.compare_exchange(v, v - 1, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    return;
                }
            } else if v == 1 {
                // Acquire: pairs with the Release decrements and section ends before.
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

#[cfg(all(test, not(loom)))]
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

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    /// Two threads of one process pin and release the same chunk: the shared holder bit
    /// (here a counter that must stay 0 or 1) is set by the first pin and cleared by the
    /// last release only, and never while the other thread's shared step is in flight.
    #[test]
    fn the_shared_bit_follows_the_first_pin_and_the_last_release() {
        loom::model(|| {
            let pins = Arc::new(LocalPins::new(1));
            let shared = Arc::new(AtomicU32::new(0));
            let pin_and_release = |pins: &LocalPins, shared: &AtomicU32| {
                let pinned = pins.acquire(
                    0,
                    || {
                        assert_eq!(shared.fetch_add(1, Ordering::Relaxed), 0, "the bit set twice");
                        true
                    },
                    || true,
                );
                assert!(pinned);
                assert_eq!(shared.load(Ordering::Relaxed), 1, "held without the shared bit");
                pins.release(0, || assert_eq!(shared.fetch_sub(1, Ordering::Relaxed), 1, "cleared twice"));
            };
            let other = {
                let (pins, shared) = (pins.clone(), shared.clone());
                loom::thread::spawn(move || pin_and_release(&pins, &shared))
            };
            pin_and_release(&pins, &shared);
            other.join().unwrap();
            assert_eq!((pins.count(0), shared.load(Ordering::Relaxed)), (0, 0));
        });
    }
}
