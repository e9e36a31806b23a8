//! Waiting on and waking any 32-bit word in shared memory — one ringbus created, or the
//! caller's own `mmap` — with no fd and no handle: the address is the rendezvous.

use super::TimedOut;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Waits until `word` differs from `expected`, at most `timeout` (`None`: forever), and
/// returns the value it found. Returns at once if it differs already.
///
/// The word may live in any mapping shared between processes (`MAP_SHARED`); the wait
/// is a shared futex, so a [`wake`] from any process that maps the same memory, at any
/// address, ends it. Spurious wake-ups are absorbed here.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
/// // Here a word of this process; across processes, a word in a MAP_SHARED mapping.
/// let word = AtomicU32::new(0);
/// std::thread::scope(|s| {
///     s.spawn(|| {
///         word.store(1, Ordering::Release); // change the word first,
///         ringbus::wake(&word, u32::MAX); // then wake every waiter
///     });
///     assert_eq!(ringbus::wait(&word, 0, Some(Duration::from_secs(5))), Ok(1));
/// });
/// ```
pub fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) -> Result<u32, TimedOut> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        // Acquire: pairs with the Release store the waker made before calling `wake`.
        let now = word.load(Ordering::Acquire);
        if now != expected {
            return Ok(now);
        }
        let remaining = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if remaining == Some(Duration::ZERO) {
            return Err(TimedOut);
        }
        crate::sync::futex::wait(word, expected, remaining);
    }
}

/// Wakes up to `n` processes or threads waiting on `word` (by [`wait`], a
/// [`WaitSet`](crate::WaitSet), or a raw `FUTEX_WAIT`); returns how many woke. Change the
/// word first (with `Release`), then wake: a waiter that has not yet slept sees the change.
/// One system call; skip it when you know nobody waits. See [`wait`] for an example.
pub fn wake(word: &AtomicU32, n: u32) -> u32 {
    crate::sync::futex::wake(word, n)
}
