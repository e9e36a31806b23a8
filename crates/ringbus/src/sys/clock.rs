//! Clocks. `CLOCK_MONOTONIC` through the vDSO: no system call on x86-64 and arm64.

/// Nanoseconds on `CLOCK_MONOTONIC`, comparable between processes of one boot.
#[inline]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
