//! Atomics and the futex primitive, swappable for loom's models under `--cfg loom`.
//!
//! Every algorithm that runs between processes takes its atomics from here, so the very
//! same code is model-checked by loom (see `tests` in `notify::protocol` and `pool::pin`).
//! Under loom the futex is modelled the way the kernel implements it: a wait checks the
//! word and goes to sleep under one lock (the hash-bucket lock), a wake takes that lock and
//! wakes everyone. A lost wake-up therefore shows up as a loom deadlock.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

/// Outcome of a futex wait, for the protocol code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FutexWait {
    /// Woken, or the word already differed, or a spurious/EINTR return: re-check.
    Returned,
    /// The timeout expired.
    TimedOut,
}

#[cfg(not(loom))]
pub(crate) mod futex {
    use super::{AtomicU32, FutexWait};
    use std::time::Duration;

    /// Sleeps while `word == expected`, at most `timeout`.
    pub(crate) fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) -> FutexWait {
        match crate::sys::futex::wait(word, expected, timeout) {
            Ok(()) => FutexWait::Returned,
            Err(e) if e.raw_os_error() == Some(libc::ETIMEDOUT) => FutexWait::TimedOut,
            // EAGAIN (word changed) and EINTR are both "re-check and maybe sleep again".
            Err(_) => FutexWait::Returned,
        }
    }

    /// Wakes up to `n` sleepers on `word`; returns how many were woken.
    pub(crate) fn wake(word: &AtomicU32, n: u32) -> u32 {
        crate::sys::futex::wake(word, n).unwrap_or(0)
    }
}

#[cfg(loom)]
pub(crate) mod futex {
    use super::{AtomicU32, FutexWait, Ordering};
    use loom::sync::{Condvar, Mutex};
    use std::time::Duration;

    loom::lazy_static! {
        static ref BUCKET: (Mutex<()>, Condvar) = (Mutex::new(()), Condvar::new());
    }

    pub(crate) fn wait(word: &AtomicU32, expected: u32, _timeout: Option<Duration>) -> FutexWait {
        let guard = BUCKET.0.lock().unwrap();
        if word.load(Ordering::SeqCst) == expected {
            drop(BUCKET.1.wait(guard).unwrap());
        }
        FutexWait::Returned
    }

    pub(crate) fn wake(_word: &AtomicU32, _n: u32) -> u32 {
        let _guard = BUCKET.0.lock().unwrap();
        BUCKET.1.notify_all();
        1
    }
}
