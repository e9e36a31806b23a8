//! The latch protocol on one 32-bit word: `generation << 2 | WAITERS | SET`.
//!
//! PostgreSQL's latch as a futex: `set` turns SET on and bumps the generation
//! in one compare-and-swap; it makes a system call only if the WAITERS bit was on, and
//! clears that bit in the same swap — so a set with nobody asleep costs no system call,
//! and a waiter killed in its sleep costs at most one wasted wake on the next set (the bit
//! heals itself; no counter can stay wrong). A waiter turns WAITERS on before it sleeps,
//! and sleeps only while the word still holds exactly that value.
//!
//! `wait` returns once the latch has been set *since the wait began*: it compares
//! generations, so a `set` immediately followed by a `reset` (before the sleeper ran) is
//! not missed. The generation wraps after 2^30 sets; only an exact multiple of 2^30 sets
//! between two looks of one waiter could hide one.

use crate::sync::{futex, AtomicU32, FutexWait, Ordering};
use std::time::{Duration, Instant};

pub(crate) const SET: u32 = 1;
pub(crate) const WAITERS: u32 = 2;
const GENERATION_ONE: u32 = 4;

/// The latch word of one latch.
#[derive(Clone, Copy)]
pub(crate) struct LatchWord<'a>(pub &'a AtomicU32);

/// What one `set` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetOutcome {
    /// It was set already: nothing changed, no system call.
    AlreadySet,
    /// Set; nobody was asleep, no system call.
    SetQuietly,
    /// Set, and one `FUTEX_WAKE` woke this many sleepers.
    Woke(u32),
}

pub(crate) fn generation(word: u32) -> u32 {
    word >> 2
}

impl LatchWord<'_> {
    #[cfg(not(loom))]
    pub(crate) fn is_set(&self) -> bool {
        // Acquire: pairs with the Release in `set`, so what the setter wrote is visible.
        self.0.load(Ordering::Acquire) & SET != 0
    }

    pub(crate) fn set(&self) -> SetOutcome {
        let mut current = self.0.load(Ordering::Relaxed);
        loop {
            if current & SET != 0 {
                return SetOutcome::AlreadySet;
            }
            let next = (current & !(SET | WAITERS)).wrapping_add(GENERATION_ONE) | SET;
            // AcqRel: Release publishes the setter's writes to waiters (their Acquire
            // loads); Acquire orders this swap after the WAITERS bit a waiter set.
            match self.0.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => break,
                Err(seen) => current = seen,
            }
        }
        if current & WAITERS == 0 {
            SetOutcome::SetQuietly
        } else {
            SetOutcome::Woke(futex::wake(self.0, u32::MAX))
        }
    }

    pub(crate) fn reset(&self) {
        // Release: orders the owner's earlier reads of the work before the reset.
        self.0.fetch_and(!SET, Ordering::Release);
    }

    /// Registers as a waiter: turns WAITERS on unless the latch is set. Returns the value
    /// to sleep on, or `None` if the latch is set (or the word changed: look again).
    pub(crate) fn register(&self) -> Option<u32> {
        let current = self.0.load(Ordering::Acquire);
        if current & SET != 0 {
            return None;
        }
        if current & WAITERS != 0 {
            return Some(current);
        }
        // Acquire on failure is not needed: the caller looks again.
        match self.0.compare_exchange(current, current | WAITERS, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => Some(current | WAITERS),
            Err(_) => None,
        }
    }

    /// The current generation, for [`LatchWord::wait_since`].
    pub(crate) fn generation(&self) -> u32 {
        generation(self.0.load(Ordering::Acquire))
    }

    /// Sleeps until the latch is set or has been set since this call began.
    #[cfg(not(loom))]
    pub(crate) fn wait(&self, timeout: Option<Duration>) -> Result<(), crate::notify::TimedOut> {
        self.wait_since(self.generation(), timeout)
    }

    /// Sleeps until the latch is set, or has been set since it was at generation `start`.
    pub(crate) fn wait_since(&self, start: u32, timeout: Option<Duration>) -> Result<(), crate::notify::TimedOut> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let Some(expected) = self.register() else {
                let now = self.0.load(Ordering::Acquire);
                if now & SET != 0 || generation(now) != start {
                    return Ok(());
                }
                continue;
            };
            if generation(expected) != start {
                return Ok(());
            }
            let remaining = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if remaining == Some(Duration::ZERO) {
                return Err(crate::notify::TimedOut);
            }
            if futex::wait(self.0, expected, remaining) == FutexWait::TimedOut {
                let now = self.0.load(Ordering::Acquire);
                return if now & SET != 0 || generation(now) != start { Ok(()) } else { Err(crate::notify::TimedOut) };
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn set_is_idempotent_and_reset_keeps_the_generation() {
        let w = AtomicU32::new(0);
        let latch = LatchWord(&w);
        assert_eq!(latch.set(), SetOutcome::SetQuietly);
        assert_eq!(latch.set(), SetOutcome::AlreadySet);
        assert!(latch.is_set());
        latch.reset();
        assert!(!latch.is_set());
        assert_eq!(generation(w.load(Ordering::Relaxed)), 1);
        assert!(latch.wait(Some(Duration::ZERO)).is_err());
    }

    #[test]
    fn the_generation_wraps_around() {
        let w = AtomicU32::new(!(SET | WAITERS));
        let latch = LatchWord(&w);
        latch.set();
        assert_eq!(w.load(Ordering::Relaxed), SET);
        latch.reset();
        latch.set();
        assert_eq!(generation(w.load(Ordering::Relaxed)), 1);
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    /// No lost wake-up: a waiter is always released by a set, even one that is reset
    /// straight away.
    #[test]
    fn a_set_then_reset_always_releases_the_waiter() {
        loom::model(|| {
            let w = Arc::new(AtomicU32::new(0));
            let w2 = w.clone();
            // The wait begins (its generation is taken) before the set.
            let start = LatchWord(&w).generation();
            let waiter = loom::thread::spawn(move || LatchWord(&w2).wait_since(start, None));
            LatchWord(&w).set();
            LatchWord(&w).reset();
            assert!(waiter.join().unwrap().is_ok());
        });
    }

    /// Setting a latch nobody waits on never calls the futex.
    #[test]
    fn set_without_waiters_makes_no_call() {
        loom::model(|| {
            let w = AtomicU32::new(0);
            assert_eq!(LatchWord(&w).set(), SetOutcome::SetQuietly);
        });
    }
}
