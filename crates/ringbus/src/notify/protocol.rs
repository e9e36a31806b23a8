//! The wake protocol between publishers and blocked subscribers of one topic.
//!
//! Two words per topic, each on its own cache line: the *wake word*, bumped by every
//! publish, and the *sleepers* count. A publisher bumps the word and calls `FUTEX_WAKE` only
//! if sleepers is non-zero — 0 system calls when nobody sleeps, exactly 1 (whatever the
//! number of sleepers) when someone does. Subscribers that only poll never touch either
//! word and cost the publisher nothing.
//!
//! The lost-wake-up race is the classic store→load (Dekker) pattern: the publisher stores
//! data then loads sleepers; the waiter stores sleepers then loads data. Both sides put a
//! `SeqCst` fence between their store and their load, so at least one of them sees the
//! other: either the publisher sees the sleeper and wakes it, or the waiter sees the data
//! (or the bumped wake word, which makes `FUTEX_WAIT` return at once). Model-checked by
//! loom below, with a futex modelled as the kernel implements it.

use crate::sync::{fence, futex, AtomicU32, FutexWait, Ordering};
use std::time::Duration;

/// The two words of one topic.
#[derive(Clone, Copy)]
pub(crate) struct WakeWords<'a> {
    pub word: &'a AtomicU32,
    pub sleepers: &'a AtomicU32,
}

/// How one [`WakeWords::sleep`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sleep {
    /// The re-check after registering found data: no system call was made.
    DataReady,
    /// Woken (or the word moved, or a signal): look again.
    Returned,
    /// The timeout expired.
    TimedOut,
}

impl WakeWords<'_> {
    /// Publisher side, after the data is published. Returns whether it made the system call.
    pub(crate) fn notify(&self) -> bool {
        // Release: a waiter that loads the bumped word (Acquire, in `sleep`) sees the data.
        self.word.fetch_add(1, Ordering::Release);
        // Pairs with the fence in `sleep`.
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) != 0 {
            futex::wake(self.word, u32::MAX);
            true
        } else {
            false
        }
    }

    /// Waiter side: registers as a sleeper, re-checks `has_data`, sleeps at most once.
    ///
    /// `mark` is the caller's own "I am counted in sleepers" flag in shared memory, so that
    /// whoever reclaims a subscriber killed mid-sleep can take its count back. It is set
    /// after the increment and cleared before the decrement: a death in between can only
    /// leave the count too high (an unneeded wake call), never too low (a lost wake-up).
    pub(crate) fn sleep(&self, mark: &AtomicU32, has_data: impl Fn() -> bool, timeout: Option<Duration>) -> Sleep {
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        mark.store(1, Ordering::Relaxed);
        // Pairs with the fence in `notify`.
        fence(Ordering::SeqCst);
        // Acquire: pairs with the Release bump in `notify`.
        let seen = self.word.load(Ordering::Acquire);
        let outcome = if has_data() {
            Sleep::DataReady
        } else {
            match futex::wait(self.word, seen, timeout) {
                FutexWait::Returned => Sleep::Returned,
                FutexWait::TimedOut => Sleep::TimedOut,
            }
        };
        mark.store(0, Ordering::Relaxed);
        self.sleepers.fetch_sub(1, Ordering::Release);
        outcome
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    struct Topic {
        word: AtomicU32,
        sleepers: AtomicU32,
        data: AtomicU32,
        marks: [AtomicU32; 2],
    }

    fn topic() -> Arc<Topic> {
        Arc::new(Topic {
            word: AtomicU32::new(0),
            sleepers: AtomicU32::new(0),
            data: AtomicU32::new(0),
            marks: [AtomicU32::new(0), AtomicU32::new(0)],
        })
    }

    fn wait_for_data(t: &Topic, who: usize) {
        let words = WakeWords { word: &t.word, sleepers: &t.sleepers };
        while t.data.load(Ordering::Acquire) == 0 {
            words.sleep(&t.marks[who], || t.data.load(Ordering::Acquire) != 0, None);
        }
    }

    /// No lost wake-up: a waiter that goes to sleep is always woken by a later publish.
    /// (A lost wake-up leaves the waiter blocked forever, which loom reports as a deadlock.)
    #[test]
    fn one_waiter_is_never_lost() {
        loom::model(|| {
            let t = topic();
            let t2 = t.clone();
            let waiter = loom::thread::spawn(move || wait_for_data(&t2, 0));
            t.data.store(1, Ordering::Release);
            WakeWords { word: &t.word, sleepers: &t.sleepers }.notify();
            waiter.join().unwrap();
            assert_eq!(t.sleepers.load(Ordering::Relaxed), 0);
        });
    }

    #[test]
    fn two_waiters_are_both_woken_by_one_publish() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let t = topic();
            let waiters: Vec<_> = (0..2)
                .map(|who| {
                    let t = t.clone();
                    loom::thread::spawn(move || wait_for_data(&t, who))
                })
                .collect();
            t.data.store(1, Ordering::Release);
            WakeWords { word: &t.word, sleepers: &t.sleepers }.notify();
            for w in waiters {
                w.join().unwrap();
            }
        });
    }

    /// With nobody registered as a sleeper, publishing never calls the futex.
    #[test]
    fn no_sleeper_means_no_wake_call() {
        loom::model(|| {
            let t = topic();
            t.data.store(1, Ordering::Release);
            assert!(!WakeWords { word: &t.word, sleepers: &t.sleepers }.notify());
        });
    }
}
