//! The counting-semaphore protocol on two words: `count` (the futex word: free tokens) and
//! `sleepers` (waiters registered to sleep): job tokens as make's jobserver shares them
//! through a pipe, without the pipe's thundering herd.
//!
//! `post` adds a token and, only if someone sleeps, wakes **exactly one** of them with
//! `FUTEX_WAKE(1)`: no thundering herd, no system call when nobody sleeps. A waiter takes
//! a token with a compare-and-swap; with none left it registers in `sleepers`, looks at
//! `count` again and sleeps while it is 0. The store→load race between them is the same
//! Dekker pattern as the topic wake protocol (a `SeqCst` fence on both sides).
//!
//! A woken waiter that finds no token (another took it first) simply sleeps again: the
//! token it was woken for was used. A waiter that is *woken* and dies before taking its
//! token leaves that token free with the others asleep until the next `post` — the one
//! case a crash can delay others, never block them for good while posts continue.

use crate::sync::{fence, futex, AtomicU32, FutexWait, Ordering};
use std::time::{Duration, Instant};

/// The largest count a semaphore holds; a `post` beyond it is refused.
pub const MAX_SEMAPHORE_COUNT: u32 = i32::MAX as u32;

/// The words of one semaphore.
#[derive(Clone, Copy)]
pub(crate) struct SemaphoreWords<'a> {
    pub count: &'a AtomicU32,
    pub sleepers: &'a AtomicU32,
}

/// What one `post` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PostOutcome {
    /// The count is at [`MAX_SEMAPHORE_COUNT`]: nothing was added.
    Full,
    /// Added; nobody slept, no system call.
    Quiet,
    /// Added, and one `FUTEX_WAKE(1)` woke this many (0 or 1) sleepers.
    Woke(u32),
}

impl SemaphoreWords<'_> {
    pub(crate) fn post(&self) -> PostOutcome {
        let mut current = self.count.load(Ordering::Relaxed);
        loop {
            if current >= MAX_SEMAPHORE_COUNT {
                return PostOutcome::Full;
            }
            // Release: pairs with the Acquire of the waiter's swap in `try_wait`.
            match self.count.compare_exchange_weak(current, current + 1, Ordering::Release, Ordering::Relaxed) {
                Ok(_) => break,
                Err(seen) => current = seen,
            }
        }
        // Pairs with the fence in `register`.
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) == 0 {
            return PostOutcome::Quiet;
        }
        PostOutcome::Woke(futex::wake(self.count, 1))
    }

    pub(crate) fn try_wait(&self) -> bool {
        let mut current = self.count.load(Ordering::Relaxed);
        loop {
            // A value above the limit was scribbled by a peer; it is still only a count.
            if current == 0 {
                return false;
            }
            // Acquire: pairs with the Release in `post`.
            match self.count.compare_exchange_weak(current, current - 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(seen) => current = seen,
            }
        }
    }

    /// Registers as a sleeper; returns whether a token is free (then unregister and take
    /// it instead of sleeping).
    pub(crate) fn register(&self) -> bool {
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        // Pairs with the fence in `post`.
        fence(Ordering::SeqCst);
        self.count.load(Ordering::Relaxed) != 0
    }

    pub(crate) fn unregister(&self) {
        self.sleepers.fetch_sub(1, Ordering::Relaxed);
    }

    /// Takes a token, sleeping at most `timeout` for one.
    pub(crate) fn wait(&self, timeout: Option<Duration>) -> Result<(), crate::notify::TimedOut> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            if self.try_wait() {
                return Ok(());
            }
            let remaining = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if remaining == Some(Duration::ZERO) {
                return Err(crate::notify::TimedOut);
            }
            let free = self.register();
            let slept = if free { FutexWait::Returned } else { futex::wait(self.count, 0, remaining) };
            self.unregister();
            if slept == FutexWait::TimedOut {
                return if self.try_wait() { Ok(()) } else { Err(crate::notify::TimedOut) };
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_counted_and_bounded() {
        let (count, sleepers) = (AtomicU32::new(1), AtomicU32::new(0));
        let s = SemaphoreWords { count: &count, sleepers: &sleepers };
        assert!(s.try_wait());
        assert!(!s.try_wait());
        assert_eq!(s.post(), PostOutcome::Quiet);
        assert!(s.wait(Some(Duration::ZERO)).is_ok());
        assert!(s.wait(Some(Duration::from_millis(1))).is_err());
        count.store(MAX_SEMAPHORE_COUNT, Ordering::Relaxed);
        assert_eq!(s.post(), PostOutcome::Full);
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    struct Sem {
        count: AtomicU32,
        sleepers: AtomicU32,
        holders: AtomicU32,
    }

    fn words(s: &Sem) -> SemaphoreWords<'_> {
        SemaphoreWords { count: &s.count, sleepers: &s.sleepers }
    }

    /// One token, two waiters, one post: both get the token in turn, never together, and
    /// nobody is left asleep (a lost wake-up would be a loom deadlock).
    #[test]
    fn one_token_passes_between_two_waiters() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let s = Arc::new(Sem { count: AtomicU32::new(0), sleepers: AtomicU32::new(0), holders: AtomicU32::new(0) });
            let waiters: Vec<_> = (0..2)
                .map(|_| {
                    let s = s.clone();
                    loom::thread::spawn(move || {
                        words(&s).wait(None).unwrap();
                        assert_eq!(s.holders.fetch_add(1, Ordering::SeqCst), 0, "two holders of one token");
                        s.holders.fetch_sub(1, Ordering::SeqCst);
                        words(&s).post();
                    })
                })
                .collect();
            words(&s).post();
            for w in waiters {
                w.join().unwrap();
            }
            assert_eq!(s.count.load(Ordering::SeqCst), 1);
        });
    }
}
