//! Probes of what a wait set needs from the kernel, for diagnostics (`ringbus doctor`):
//! each one makes the real call in a way that cannot block, and says whether it worked.

use crate::sys::clock::monotonic_ns;
use crate::sys::futex::{self, WaitvEntry};
use std::io;
use std::sync::atomic::AtomicU32;

/// Calls `futex_waitv` once on a local word with an expected value it does not hold, which
/// a kernel that has the call answers at once with `EAGAIN`. `Ok` if it did; otherwise the
/// error it returned instead: `ENOSYS` before Linux 5.16, `EPERM` (or another error) when a
/// seccomp filter refuses it.
///
/// Never sleeps: the word differs from its expected value, and the deadline has already
/// passed in case a kernel looked at the deadline first.
pub fn futex_waitv() -> io::Result<()> {
    let word = AtomicU32::new(0);
    let entries = [WaitvEntry::new(&word, 1)];
    match futex::waitv(&entries, Some(monotonic_ns())) {
        Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => Ok(()),
        Err(e) => Err(e),
        Ok(i) => Err(io::Error::other(format!(
            "futex_waitv reported entry {i} woken, though nobody wakes it and its value differs"
        ))),
    }
}

/// Whether this kernel has `futex_waitv` and lets this process call it (see
/// [`futex_waitv`]): a [`WaitSet`](crate::WaitSet) sleeping on more than one shared-memory
/// word needs it, and so do its io_uring and epoll backends.
pub fn futex_waitv_available() -> bool {
    futex_waitv().is_ok()
}

#[cfg(all(test, not(miri)))] // a real futex_waitv call: not under Miri
mod tests {
    use super::*;

    #[test]
    fn futex_waitv_answers_eagain_on_the_kernels_ringbus_supports() {
        futex_waitv().expect("futex_waitv on a word that differs must fail with EAGAIN only");
        assert!(futex_waitv_available());
    }
}
