//! A doorbell: one futex word and a sleepers mask that wake the waiters of a command
//! queue — its consumer when commands arrive, its producers when space frees up.
//!
//! The same store→load (Dekker) pattern as the topic protocol (`notify::protocol`), made
//! cheaper for the ringer because a queue's ringer rings on every push or pop: it bumps
//! the word only when someone sleeps. Ringer: store the data, `SeqCst` fence, load
//! sleepers; if non-zero, bump the word (Release) and `FUTEX_WAKE` everyone. Waiter:
//! set its bit in sleepers, `SeqCst` fence, load the word, look for data, sleep only while
//! the word still holds what it loaded.
//!
//! Sleepers is a mask with one bit per waiter *role* (the consumer; a producer entry), not
//! a count: a waiter killed asleep leaves its own bit set, and whoever takes the role over
//! clears exactly that bit ([`Doorbell::forget_sleeper`]) — a count could not tell whose
//! increment was left behind, and every later ring would make a useless system call. Either the ringer sees the sleeper (and its bump makes
//! the waiter's `FUTEX_WAIT` return or its wake wakes it), or the waiter sees the data. A
//! waiter that saw the bumped word also sees the data (the bump is a Release after it).
//! Model-checked by loom below.
//!
//! A queue created with [`Wake::Never`](crate::Wake::Never) has *polling* doorbells:
//! nobody ever sleeps on them, so ringing is a no-op — no fence, no look at the sleepers —
//! and a wait polls. The setting is fixed in the queue's header when it is created, so
//! no ringer can skip a ring while some waiter sleeps.

use crate::sync::{fence, futex, AtomicU32, AtomicU64, FutexWait, Ordering};
use std::time::Duration;

/// How many times a wait on a polling doorbell looks before it sleeps for
/// [`POLL_INTERVAL`], and how long it sleeps before its caller looks again.
const POLL_SPINS: u32 = 128;
const POLL_INTERVAL: Duration = Duration::from_micros(50);

/// The words of one doorbell.
#[derive(Clone, Copy)]
pub(crate) struct Doorbell<'a> {
    pub word: &'a AtomicU32,
    /// One bit per waiter role asleep (or about to sleep).
    pub sleepers: &'a AtomicU64,
    /// Never rung: waiters poll (the queue's [`Wake::Never`](crate::Wake::Never)).
    pub polling: bool,
}

impl Doorbell<'_> {
    /// Ringer side, after storing what the waiters wait for: wakes them if any sleeps.
    /// Returns whether it made the system call.
    #[inline]
    pub(crate) fn ring(&self) -> bool {
        if self.polling {
            return false;
        }
        // Pairs with the fence in `wait`. (An asymmetric fence — a compiler fence here and
        // `membarrier` in `wait` — saved about 8 ns per push in `ringbus bench queue` but
        // made the service round trip's p99 4× worse on this VM: the waiter's barrier
        // waits for IPIs to vCPUs the host may have descheduled.)
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) == 0 {
            return false;
        }
        // Release: a waiter that loads the bumped word (Acquire) sees the data.
        self.word.fetch_add(1, Ordering::Release);
        futex::wake(self.word, u32::MAX);
        true
    }

    /// Waiter side, as the role owning bit `me`: registers, looks with `ready`, sleeps at
    /// most once (at most `timeout`). Returns what `ready` said after registering; on
    /// `false` the caller looks again (it was woken, timed out or interrupted).
    pub(crate) fn wait(&self, me: u64, ready: impl Fn() -> bool, timeout: Option<Duration>) -> bool {
        if self.polling {
            return poll(ready, timeout);
        }
        let seen = self.register(me);
        let found = ready();
        if !found {
            // Woken, timed out, or the word moved: the caller looks again either way.
            let _: FutexWait = futex::wait(self.word, seen, timeout);
        }
        self.unregister(me);
        found
    }

    /// Waiter side, first half: sets bit `me` among the sleepers and returns the word to
    /// sleep on. The caller then looks for what it waits for, sleeps only while the word
    /// still holds the value returned, and [`Doorbell::unregister`]s — what `wait` does, and
    /// what a wait set does for a queue among its other sources.
    pub(crate) fn register(&self, me: u64) -> u32 {
        self.sleepers.fetch_or(me, Ordering::Relaxed);
        // Pairs with the fence in `ring`.
        fence(Ordering::SeqCst);
        // Acquire: pairs with the Release bump in `ring`.
        self.word.load(Ordering::Acquire)
    }

    /// Waiter side, last half: clears bit `me`.
    pub(crate) fn unregister(&self, me: u64) {
        // Release: orders the look before a ringer can see us gone.
        self.sleepers.fetch_and(!me, Ordering::Release);
    }

    /// Clears bit `me`, left set by a waiter of this role that died asleep. Only the new
    /// holder of the role may call it (it holds the role's lock, so no one else sleeps
    /// as `me`).
    #[cfg(not(loom))]
    pub(crate) fn forget_sleeper(&self, me: u64) {
        self.sleepers.fetch_and(!me, Ordering::Relaxed);
    }

    /// How many waiter roles sleep (for inspection).
    #[cfg(not(loom))]
    pub(crate) fn sleeping(&self) -> u32 {
        self.sleepers.load(Ordering::Relaxed).count_ones()
    }
}

/// A wait on a polling doorbell: spins looking with `ready`, then sleeps once (at most
/// [`POLL_INTERVAL`], at most `timeout`) and looks a last time.
fn poll(ready: impl Fn() -> bool, timeout: Option<Duration>) -> bool {
    for _ in 0..POLL_SPINS {
        if ready() {
            return true;
        }
        std::hint::spin_loop();
    }
    std::thread::sleep(timeout.map_or(POLL_INTERVAL, |t| t.min(POLL_INTERVAL)));
    ready()
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    struct Bell {
        word: AtomicU32,
        sleepers: AtomicU64,
        data: AtomicU32,
    }

    /// No lost wake-up: a waiter that sleeps is always woken by a later ring (a lost
    /// wake-up leaves it blocked forever, which loom reports as a deadlock).
    #[test]
    fn a_waiter_is_never_lost() {
        loom::model(|| {
            let b = Arc::new(Bell { word: AtomicU32::new(0), sleepers: AtomicU64::new(0), data: AtomicU32::new(0) });
            let b2 = b.clone();
            let waiter = loom::thread::spawn(move || {
                let bell = Doorbell { word: &b2.word, sleepers: &b2.sleepers, polling: false };
                while b2.data.load(Ordering::Acquire) == 0 {
                    bell.wait(1, || b2.data.load(Ordering::Acquire) != 0, None);
                }
            });
            b.data.store(1, Ordering::Release);
            Doorbell { word: &b.word, sleepers: &b.sleepers, polling: false }.ring();
            waiter.join().unwrap();
            assert_eq!(b.sleepers.load(Ordering::Relaxed), 0);
        });
    }

    /// Backpressure (`pubsub::backpressure`): a publisher waits for room until a reliable
    /// subscriber has moved its read position past the message it would overwrite; it
    /// stores its position (Release) and rings. The publisher is never left asleep,
    /// and once it sees the room it also sees that the reader was done (no overwrite
    /// under a reader: the payload cell is written by the publisher only after the wait,
    /// and loom reports a race if a reader could still be on it).
    #[test]
    fn a_publisher_waiting_for_room_is_never_lost() {
        use loom::cell::UnsafeCell;
        struct Room {
            word: AtomicU32,
            sleepers: AtomicU64,
            read: AtomicU64,
            payload: UnsafeCell<u32>,
        }
        loom::model(|| {
            let r = Arc::new(Room {
                word: AtomicU32::new(0),
                sleepers: AtomicU64::new(0),
                read: AtomicU64::new(0),
                payload: UnsafeCell::new(7),
            });
            let reader = {
                let r = r.clone();
                loom::thread::spawn(move || {
                    // SAFETY: the publisher writes the payload only after the read position
                    // moved past it; loom checks that claim.
                    let seen = r.payload.with(|p| unsafe { *p });
                    assert_eq!(seen, 7);
                    r.read.store(1, Ordering::Release);
                    Doorbell { word: &r.word, sleepers: &r.sleepers, polling: false }.ring();
                })
            };
            let room = || r.read.load(Ordering::Acquire) == 1;
            let bell = Doorbell { word: &r.word, sleepers: &r.sleepers, polling: false };
            while !room() {
                bell.wait(1, room, None);
            }
            // SAFETY: the reader is past the payload (Acquire on its position).
            r.payload.with_mut(|p| unsafe { *p = 8 });
            reader.join().unwrap();
            assert_eq!(r.sleepers.load(Ordering::Relaxed), 0);
        });
    }
}
