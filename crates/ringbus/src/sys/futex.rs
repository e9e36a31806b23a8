//! Shared futexes: never `FUTEX_PRIVATE_FLAG`, because the words live in memory mapped by
//! several processes and a private futex would key the sleeper on this process's `mm`.

use std::io;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// `FUTEX_WAIT` on a shared word: sleeps while `*word == expected`, at most `timeout`
/// (measured on `CLOCK_MONOTONIC`). `Err` carries `EAGAIN` (word differed), `EINTR` or
/// `ETIMEDOUT`.
pub fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) -> io::Result<()> {
    wait_at(word.as_ptr() as u64, expected, timeout)
}

/// `FUTEX_WAIT` on the word of one `futex_waitv` entry (one word: the cheaper call).
pub fn wait_entry(entry: &WaitvEntry, timeout: Option<Duration>) -> io::Result<()> {
    wait_at(entry.address, entry.expected as u32, timeout)
}

fn wait_at(address: u64, expected: u32, timeout: Option<Duration>) -> io::Result<()> {
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: t.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: t.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: the kernel only reads the 4-byte word at `address` (and fails with EFAULT if
    // it is not mapped: no memory of ours is touched); `ts_ptr` is null or points to a
    // live timespec on our stack.
    let ret = unsafe {
        libc::syscall(libc::SYS_futex, address as usize as *const u32, libc::FUTEX_WAIT, expected, ts_ptr, 0usize, 0u32)
    };
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

/// `FUTEX2_SIZE_U32`: every ringbus word is 32 bits (and never `FUTEX2_PRIVATE`).
pub const FUTEX2_SIZE_U32: u32 = 0x02;

/// One entry of a `futex_waitv` vector, as the kernel defines `struct futex_waitv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct WaitvEntry {
    pub expected: u64,
    pub address: u64,
    pub flags: u32,
    pub reserved: u32,
}
const _: () = assert!(std::mem::size_of::<WaitvEntry>() == 24);
const _: () = assert!(std::mem::offset_of!(WaitvEntry, address) == 8);
const _: () = assert!(std::mem::offset_of!(WaitvEntry, flags) == 16);

/// The kernel's limit on a `futex_waitv` vector.
pub const WAITV_MAX: usize = 128;

impl WaitvEntry {
    /// An entry that sleeps while `*word == expected`.
    pub fn new(word: &AtomicU32, expected: u32) -> WaitvEntry {
        WaitvEntry { expected: expected as u64, address: word.as_ptr() as u64, flags: FUTEX2_SIZE_U32, reserved: 0 }
    }
}

/// `futex_waitv`: sleeps until one of the words is woken (returns its index) or differs
/// from its expected value (`EAGAIN`), at most until `deadline_ns` on `CLOCK_MONOTONIC`.
/// `Err` carries `EAGAIN`, `EINTR`, `ETIMEDOUT`, or `ENOSYS` on kernels before 5.16.
pub fn waitv(entries: &[WaitvEntry], deadline_ns: Option<u64>) -> io::Result<usize> {
    assert!(entries.len() <= WAITV_MAX, "ringbus bug: more than {WAITV_MAX} futex_waitv entries");
    let ts = deadline_ns.map(|ns| libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `entries` is a live array of kernel-layout `futex_waitv` structs (asserted
    // above) whose addresses come from `&AtomicU32`s the caller keeps mapped for the call;
    // `ts_ptr` is null or points to a timespec on our stack.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_futex_waitv,
            entries.as_ptr(),
            entries.len() as libc::c_uint,
            0 as libc::c_uint,
            ts_ptr,
            libc::CLOCK_MONOTONIC,
        )
    };
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret as usize)
    }
}
