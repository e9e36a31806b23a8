//! Pinning a chunk without ABA: a generation word plus one holder bit per subscriber slot.
//!
//! A chunk's words are `generation: u32` and `holders: [u64; ceil(max_subscribers / 64)]`.
//! Subscriber slot `s` owns bit `s`. To pin the chunk a log entry named with generation `g`,
//! a subscriber sets its bit, then checks the generation is still `g`; if not, the chunk was
//! recycled (the entry is stale) and it clears the bit again. To reuse a chunk, the
//! publisher bumps the generation, then checks that no bit is set. Both sides fence
//! (`SeqCst`) between their store and their load, so either the publisher sees the bit and
//! keeps its hands off, or the subscriber sees the new generation and backs off — a pinned
//! chunk is never rewritten, and a stale entry never pins a recycled chunk (no ABA: the
//! generation, not the chunk index, names the message).
//!
//! Why bits and not a reference count: a count cannot say *who* holds, so a subscriber
//! killed between "record that I am pinning" and "increment" leaves an ambiguity nobody can
//! resolve. A bit belongs to exactly one slot, so reclaiming a dead subscriber is "clear bit
//! `s` everywhere" — idempotent and exact. The publisher's check costs one load per 64
//! subscribers.

use crate::sync::{fence, AtomicU32, AtomicU64, Ordering};

/// The words of one chunk.
#[derive(Clone, Copy)]
pub(crate) struct ChunkWords<'a> {
    pub generation: &'a AtomicU32,
    pub holders: &'a [AtomicU64],
}

/// The word and the bit of subscriber slot `holder` in a set of one bit per slot (holder
/// bits here; the topic's reliable set too).
pub(crate) fn split(holder: u32) -> (usize, u64) {
    ((holder / 64) as usize, 1u64 << (holder % 64))
}

impl ChunkWords<'_> {
    /// Subscriber `holder` pins the chunk for `generation`; false if it was recycled.
    pub(crate) fn try_pin(&self, holder: u32, generation: u32) -> bool {
        let (word, bit) = split(holder);
        self.holders[word].fetch_or(bit, Ordering::Relaxed);
        // Pairs with the fence in `try_claim`.
        fence(Ordering::SeqCst);
        if self.generation.load(Ordering::Relaxed) == generation {
            true
        } else {
            self.holders[word].fetch_and(!bit, Ordering::Relaxed);
            false
        }
    }

    /// Subscriber `holder` lets go (also used to reclaim a dead subscriber's bit).
    pub(crate) fn release(&self, holder: u32) {
        let (word, bit) = split(holder);
        // Release: our reads of the payload happen before the publisher's Acquire fence in
        // `try_claim` and so before it rewrites the chunk.
        self.holders[word].fetch_and(!bit, Ordering::Release);
    }

    /// Whether the chunk still carries `generation` (a look without pinning).
    #[inline]
    #[cfg(not(loom))]
    pub(crate) fn has_generation(&self, generation: u32) -> bool {
        self.generation.load(Ordering::Relaxed) == generation
    }

    /// Whether any subscriber's bit is set (a snapshot, for diagnostics).
    #[cfg(not(loom))]
    pub(crate) fn is_held(&self) -> bool {
        self.holders.iter().any(|h| h.load(Ordering::Relaxed) != 0)
    }

    /// Whether subscriber `holder`'s bit is set.
    #[cfg(test)]
    #[cfg(not(loom))]
    pub(crate) fn is_held_by(&self, holder: u32) -> bool {
        let (word, bit) = split(holder);
        self.holders[word].load(Ordering::Relaxed) & bit != 0
    }

    /// Publisher: takes the chunk for a new message if nobody holds it. Returns the new
    /// generation to record in the log entry.
    #[inline]
    pub(crate) fn try_claim(&self) -> Option<u32> {
        let generation = self.generation.load(Ordering::Relaxed).wrapping_add(1);
        self.generation.store(generation, Ordering::Relaxed);
        // Pairs with the fence in `try_pin`.
        fence(Ordering::SeqCst);
        if self.holders.iter().all(|h| h.load(Ordering::Relaxed) == 0) {
            // Pairs with the Release in `release`.
            fence(Ordering::Acquire);
            Some(generation)
        } else {
            None
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn pin_blocks_claim_until_released() {
        let generation = AtomicU32::new(0);
        let holders = [AtomicU64::new(0), AtomicU64::new(0)];
        let w = ChunkWords { generation: &generation, holders: &holders };
        let g = w.try_claim().unwrap();
        assert!(w.try_pin(70, g));
        assert!(w.is_held_by(70));
        assert_eq!(w.try_claim(), None, "a held chunk must not be reused");
        // The claim attempt bumped the generation: a reader of the old entry cannot pin.
        assert!(!w.try_pin(3, g));
        assert!(!w.is_held_by(3));
        w.release(70);
        assert!(w.try_claim().is_some());
    }

    #[test]
    fn generation_wraps_around() {
        let generation = AtomicU32::new(u32::MAX);
        let holders = [AtomicU64::new(0)];
        let w = ChunkWords { generation: &generation, holders: &holders };
        assert_eq!(w.try_claim(), Some(0));
        assert!(w.try_pin(0, 0));
        assert!(!w.try_pin(1, u32::MAX));
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;

    struct Chunk {
        generation: AtomicU32,
        holders: [AtomicU64; 1],
        /// The payload; loom flags any unsynchronised access to it as a data race.
        payload: UnsafeCell<u32>,
        /// The log entry: which generation is published (0 = none).
        entry: AtomicU32,
    }

    fn words(c: &Chunk) -> ChunkWords<'_> {
        ChunkWords { generation: &c.generation, holders: &c.holders }
    }

    /// A subscriber that pins a published generation reads exactly that message's payload,
    /// and the publisher never rewrites a pinned chunk (loom would report the race).
    #[test]
    fn no_aba_and_no_rewrite_while_pinned() {
        loom::model(|| {
            let c = Arc::new(Chunk {
                generation: AtomicU32::new(0),
                holders: [AtomicU64::new(0)],
                payload: UnsafeCell::new(0),
                entry: AtomicU32::new(0),
            });
            let sub = {
                let c = c.clone();
                loom::thread::spawn(move || {
                    let g = c.entry.load(Ordering::Acquire);
                    if g != 0 && words(&c).try_pin(0, g) {
                        let seen = c.payload.with(|p| {
                            // SAFETY: pinned; the publisher does not write a held chunk.
                            unsafe { *p }
                        });
                        assert_eq!(seen, g, "pinned generation {g} but read message {seen}");
                        words(&c).release(0);
                    }
                })
            };
            // Publish message 1, then try to recycle the chunk for message 2.
            for _ in 0..2 {
                if let Some(g) = words(&c).try_claim() {
                    // SAFETY: claimed; no holder bit set, none can pin the new generation
                    // until it is published in the entry.
                    c.payload.with_mut(|p| unsafe { *p = g });
                    c.entry.store(g, Ordering::Release);
                }
            }
            sub.join().unwrap();
        });
    }
}
