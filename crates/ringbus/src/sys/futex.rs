//! Shared futexes: never `FUTEX_PRIVATE_FLAG`, because the words live in memory mapped by
//! several processes and a private futex would key the sleeper on this process's `mm`.

use std::io;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// `FUTEX_WAIT` on a shared word: sleeps while `*word == expected`, at most `timeout`
/// (measured on `CLOCK_MONOTONIC`). `Err` carries `EAGAIN` (word differed), `EINTR` or
/// `ETIMEDOUT`.
pub fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) -> io::Result<()> {
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: t.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: t.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a valid, aligned 4-byte atomic for the duration of the call; the
    // kernel only reads it. `ts_ptr` is null or points to a live timespec on our stack.
    let ret =
        unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAIT, expected, ts_ptr, 0usize, 0u32) };
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `FUTEX_WAKE` on a shared word: wakes up to `n` sleepers, returns how many woke.
pub fn wake(word: &AtomicU32, n: u32) -> io::Result<u32> {
    let n = n.min(i32::MAX as u32) as libc::c_int;
    // SAFETY: `word` is a valid, aligned 4-byte atomic; FUTEX_WAKE does not dereference the
    // remaining (unused) arguments.
    let ret = unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, n, 0usize, 0usize, 0u32) };
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret as u32)
    }
}
