//! The wake protocol between publishers and blocked subscribers of one topic.
//!
//! Three words per topic, on one cache line: the *wake word*, bumped by every publish, the
//! *sleepers* count, and the *relay* word. A publisher bumps the word and makes a system
//! call only if sleepers is non-zero — 0 system calls when nobody sleeps, exactly 1
//! (whatever the number of sleepers) when someone does. Subscribers that only poll never
//! touch these words and cost the publisher nothing.
//!
//! **The relay (a wake cascade).** Waking all N sleepers with one `FUTEX_WAKE` is one call,
//! but on a machine with few CPUs the N woken tasks preempt the publisher before its call
//! returns, and queue for the CPUs all at once. So with more than `direct` sleepers (the
//! publisher's [`DEFAULT_DIRECT_WAKES`], or its topic builder's `direct_wakes`) the
//! publisher's one call is `FUTEX_CMP_REQUEUE`: it wakes `direct` sleepers and moves all
//! the others to sleep on the relay word; every woken subscriber, before it does anything
//! else, wakes [`RELAY_FANOUT`] more from the relay word. The relay empties in O(log N)
//! steps, the publisher's latency stops growing with N, and wake-ups are spread over time.
//! The price: a subscriber that waits for another one's relay waits for a CPU twice. With
//! many topics published back to back (ten of 6–13 subscribers each), that made end-to-end
//! latency 3–5 × eventfd's, against 1.0–1.5 × when the publisher wakes up to 16 itself — at
//! 4–9 × the publish latency. Hence the setting (BENCHMARKS.md, "Who wakes whom"). Only
//! sleepers that were asleep at a publish are ever moved to the relay, so waking any of
//! them is right; one woken spuriously re-checks and sleeps again. A *relay pending* flag
//! is set when a publish moved sleepers to the relay and cleared by the step that finds
//! it empty. If a relaying subscriber dies before its step, the rest of its subtree sleeps
//! until some later wake-up passes through the relay, or until a publish finds nobody on
//! the wake word while the flag is still set and wakes the relay itself (the only case of a
//! second system call, after a crash), or until their timeouts.
//!
//! The lost-wake-up race is the classic store→load (Dekker) pattern: the publisher stores
//! data then loads sleepers; the waiter stores sleepers then loads data. Both sides put a
//! `SeqCst` fence between their store and their load, so at least one of them sees the
//! other: either the publisher sees the sleeper and wakes it, or the waiter sees the data
//! (or the bumped wake word, which makes `FUTEX_WAIT` return at once). Model-checked by
//! loom below, with a futex (wait, wake, requeue) modelled as the kernel implements it.

use crate::sync::{fence, futex, AtomicU32, FutexWait, Ordering};
use std::time::Duration;

/// How many sleepers a publisher wakes itself unless its topic builder says otherwise; any
/// more go onto the relay. The loom models use 1, so that two waiters already exercise the
/// relay.
pub(crate) const DEFAULT_DIRECT_WAKES: u32 = if cfg!(loom) { 1 } else { 2 };

/// How many sleepers each woken subscriber wakes from the relay (2 measured as good as 4 or
/// more, and a chain of 1 clearly worse: BENCHMARKS.md).
pub(crate) const RELAY_FANOUT: u32 = if cfg!(loom) { 1 } else { 2 };

/// The words of one topic.
#[derive(Clone, Copy)]
pub(crate) struct WakeWords<'a> {
    pub word: &'a AtomicU32,
    pub sleepers: &'a AtomicU32,
    pub relay: &'a AtomicU32,
    pub relay_pending: &'a AtomicU32,
}

/// How one [`WakeWords::sleep`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sleep {
    /// The re-check after registering found data: no system call was made.
    DataReady,
    /// Woken (by a publish or a relay): look again.
    Woken,
    /// The word had moved, or a signal: look again.
    Returned,
    /// The timeout expired.
    TimedOut,
}

impl WakeWords<'_> {
    /// Publisher side, after the data is published: wakes up to `direct` sleepers itself,
    /// the others through the relay. Returns whether it made the system call.
    pub(crate) fn notify(&self, direct: u32) -> bool {
        // Release: a waiter that loads the bumped word (Acquire, in `sleep`) sees the data.
        let bumped = self.word.fetch_add(1, Ordering::Release).wrapping_add(1);
        // Pairs with the fence in `sleep`.
        fence(Ordering::SeqCst);
        let sleepers = self.sleepers.load(Ordering::Relaxed);
        if sleepers == 0 {
            return false;
        }
        let found = if sleepers <= direct {
            // Few enough to wake them all at once (a plain wake is the cheaper call).
            Some(futex::wake(self.word, u32::MAX))
        } else {
            // `None`: another publisher bumped the word since; its own call covers every
            // sleeper, and they will see our data too.
            let moved = futex::requeue(self.word, direct, self.relay, bumped);
            if moved.is_some_and(|m| m > direct) {
                self.relay_pending.store(1, Ordering::Relaxed);
            }
            moved
        };
        // Nobody asleep on the word although sleepers is non-zero: they are registering
        // (they will see the bump) — or stranded on the relay by a relaying subscriber that
        // died, which the pending flag tells. Only then a second call.
        if found == Some(0) && self.relay_pending.load(Ordering::Relaxed) != 0 {
            futex::wake(self.relay, RELAY_FANOUT);
        }
        true
    }

    /// Woken subscriber side: passes the wake-up on down the relay, if anyone sleeps.
    pub(crate) fn relay(&self) {
        let woken = if self.sleepers.load(Ordering::Relaxed) != 0 { futex::wake(self.relay, RELAY_FANOUT) } else { 0 };
        if woken < RELAY_FANOUT {
            self.relay_pending.store(0, Ordering::Relaxed);
        }
    }

    /// Waiter side: registers as a sleeper, re-checks `has_data`, sleeps at most once.
    ///
    /// `mark` is the caller's own "I am counted in sleepers" flag in shared memory, so that
    /// whoever reclaims a subscriber killed mid-sleep can take its count back. It is set
    /// after the increment and cleared before the decrement: a death in between can only
    /// leave the count too high (an unneeded wake call), never too low (a lost wake-up).
    pub(crate) fn sleep(&self, mark: &AtomicU32, has_data: impl Fn() -> bool, timeout: Option<Duration>) -> Sleep {
        let seen = self.register(mark);
        let outcome = if has_data() {
            Sleep::DataReady
        } else {
            match futex::wait(self.word, seen, timeout) {
                FutexWait::Woken => Sleep::Woken,
                FutexWait::Returned => Sleep::Returned,
                FutexWait::TimedOut => Sleep::TimedOut,
            }
        };
        self.unregister(mark);
        if outcome == Sleep::Woken {
            self.relay();
        }
        outcome
    }

    /// Counts the caller in `sleepers` (see [`WakeWords::sleep`] for `mark`) and returns
    /// the wake word to sleep on. The caller must look for data *after* this, and sleep
    /// only while the word still holds the returned value.
    pub(crate) fn register(&self, mark: &AtomicU32) -> u32 {
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        mark.store(1, Ordering::Relaxed);
        // Pairs with the fence in `notify`.
        fence(Ordering::SeqCst);
        // Acquire: pairs with the Release bump in `notify`.
        self.word.load(Ordering::Acquire)
    }

    /// Undoes [`WakeWords::register`].
    pub(crate) fn unregister(&self, mark: &AtomicU32) {
        mark.store(0, Ordering::Relaxed);
        self.sleepers.fetch_sub(1, Ordering::Release);
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    struct Topic {
        word: AtomicU32,
        sleepers: AtomicU32,
        relay: AtomicU32,
        relay_pending: AtomicU32,
        data: AtomicU32,
        marks: [AtomicU32; 2],
    }

    fn topic() -> Arc<Topic> {
        Arc::new(Topic {
            word: AtomicU32::new(0),
            sleepers: AtomicU32::new(0),
            relay: AtomicU32::new(0),
            relay_pending: AtomicU32::new(0),
            data: AtomicU32::new(0),
            marks: [AtomicU32::new(0), AtomicU32::new(0)],
        })
    }

    fn words(t: &Topic) -> WakeWords<'_> {
        WakeWords { word: &t.word, sleepers: &t.sleepers, relay: &t.relay, relay_pending: &t.relay_pending }
    }

    fn wait_for_data(t: &Topic, who: usize) {
        let words = words(t);
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
            words(&t).notify(DEFAULT_DIRECT_WAKES);
            waiter.join().unwrap();
            assert_eq!(t.sleepers.load(Ordering::Relaxed), 0);
        });
    }

    /// With a fan-out of 1 the publisher wakes one waiter and moves the other to the relay
    /// word; the woken one must pass the wake-up on (without that step loom reports the
    /// deadlock).
    #[test]
    fn two_waiters_are_both_woken_by_one_publish_through_the_relay() {
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
            words(&t).notify(DEFAULT_DIRECT_WAKES);
            for w in waiters {
                w.join().unwrap();
            }
        });
    }

    /// The wait-set form of the protocol: a subscriber looked (wake word `w`, no data),
    /// later registers and sleeps only while the word is still `w`. A publish after the
    /// look is never missed.
    #[test]
    fn a_wait_set_sleeping_on_the_drained_word_is_never_lost() {
        loom::model(|| {
            let t = topic();
            let t2 = t.clone();
            let waiter = loom::thread::spawn(move || {
                let words = words(&t2);
                let drained_at = t2.word.load(Ordering::Acquire);
                if t2.data.load(Ordering::Acquire) != 0 {
                    return;
                }
                let seen = words.register(&t2.marks[0]);
                if seen == drained_at {
                    if futex::wait(&t2.word, drained_at, None) == FutexWait::Woken {
                        words.relay();
                    }
                }
                words.unregister(&t2.marks[0]);
                assert_ne!(t2.data.load(Ordering::Acquire), 0, "woken (or not asleep) without the data");
            });
            t.data.store(1, Ordering::Release);
            words(&t).notify(DEFAULT_DIRECT_WAKES);
            waiter.join().unwrap();
        });
    }

    /// With nobody registered as a sleeper, publishing never calls the futex.
    #[test]
    fn no_sleeper_means_no_wake_call() {
        loom::model(|| {
            let t = topic();
            t.data.store(1, Ordering::Release);
            assert!(!words(&t).notify(DEFAULT_DIRECT_WAKES));
        });
    }
}
