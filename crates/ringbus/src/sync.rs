//! Atomics and the futex primitive, swappable for loom's models under `--cfg loom`, and the
//! cache-line prefetch hint (a no-op under loom).
//!
//! Every algorithm that runs between processes takes its atomics from here, so the very
//! same code is model-checked by loom (see `loom_models` in `notify::protocol`,
//! `pool::pin`, `pool::local_pins` and `ring::log`). Under loom the futex is modelled the way the kernel
//! implements it: under one lock (the hash-bucket lock) a wait checks the word and queues
//! itself, a wake marks up to n sleepers of that word woken. A lost wake-up therefore shows
//! up as a loom deadlock.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

/// Inside a spin loop: a CPU hint, or under loom a yield (a loop that spins without
/// yielding never lets loom schedule the thread it waits for).
#[inline]
pub(crate) fn spin_hint() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::hint::spin_loop();
}

/// Outcome of a futex wait, for the protocol code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FutexWait {
    /// Woken by a wake (possibly spuriously): re-check.
    Woken,
    /// Returned without being woken: the word already differed, or a signal: re-check.
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
            Ok(()) => FutexWait::Woken,
            Err(e) if e.raw_os_error() == Some(libc::ETIMEDOUT) => FutexWait::TimedOut,
            // EAGAIN (word changed) and EINTR are both "re-check and maybe sleep again".
            Err(_) => FutexWait::Returned,
        }
    }

    /// Wakes up to `n` sleepers on `word`; returns how many were woken.
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    pub(crate) fn wake(word: &AtomicU32, n: u32) -> u32 {
        crate::sys::futex::wake(word, n).unwrap_or(0)
    }
}

/// The loom model of a futex: one lock (the kernel's hash-bucket lock) over a list of
/// sleepers, each waiting on one word's address until it is marked woken.
#[cfg(loom)]
pub(crate) mod futex {
    use super::{AtomicU32, FutexWait, Ordering};
    use loom::sync::{Condvar, Mutex};
    use std::time::Duration;

    struct Sleeper {
        id: usize,
        word: usize,
        woken: bool,
    }

    #[derive(Default)]
    struct Queue {
        next_id: usize,
        sleepers: Vec<Sleeper>,
    }

    loom::lazy_static! {
        static ref BUCKET: (Mutex<Queue>, Condvar) = (Mutex::new(Queue::default()), Condvar::new());
    }

    fn address(word: &AtomicU32) -> usize {
        word as *const AtomicU32 as usize
    }

    pub(crate) fn wait(word: &AtomicU32, expected: u32, _timeout: Option<Duration>) -> FutexWait {
        let mut q = BUCKET.0.lock().unwrap();
        if word.load(Ordering::SeqCst) != expected {
            return FutexWait::Returned;
        }
        let id = q.next_id;
        q.next_id += 1;
        q.sleepers.push(Sleeper { id, word: address(word), woken: false });
        loop {
            q = BUCKET.1.wait(q).unwrap();
            let i = q.sleepers.iter().position(|s| s.id == id).expect("a sleeper stays queued until woken");
            if q.sleepers[i].woken {
                q.sleepers.remove(i);
                return FutexWait::Woken;
            }
        }
    }

    pub(crate) fn wake(word: &AtomicU32, n: u32) -> u32 {
        let mut q = BUCKET.0.lock().unwrap();
        let word = address(word);
        let mut woken = 0;
        for s in q.sleepers.iter_mut().filter(|s| s.word == word && !s.woken).take(n as usize) {
            s.woken = true;
            woken += 1;
        }
        BUCKET.1.notify_all();
        woken
    }
}

/// Asks the CPU to fetch the cache line at `at` for writing, without waiting for it.
///
/// A publisher asleep between messages finds the lines it is about to write cold (evicted,
/// or last written by a subscriber on another CPU); fetching them all at once at the start
/// of a loan overlaps those misses instead of paying them one after another. A hint only:
/// it never faults and changes no value. No-op off x86-64, under loom and under Miri.
#[inline(always)]
#[cfg(not(loom))]
pub(crate) fn prefetch_for_write<T>(at: *const T) {
    #[cfg(all(target_arch = "x86_64", not(loom), not(miri)))]
    #[allow(unsafe_code)]
    // SAFETY: PREFETCHW (`_MM_HINT_ET0`) only moves a line between caches: it never faults,
    // even on an unmapped address, and reads or writes nothing the program can see. SSE,
    // which `_mm_prefetch` requires, is part of the x86-64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0};
        _mm_prefetch::<_MM_HINT_ET0>(at.cast::<i8>());
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom), not(miri))))]
    let _ = at;
}
