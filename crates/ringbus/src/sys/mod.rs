//! Raw system calls, and the only place in the crate that makes them.
//!
//! Each wrapper takes typed arguments (`&AtomicU32`, `BorrowedFd`, `Duration`) and returns
//! `io::Result`, so the layers above never see a raw `libc` call or an `errno`.
#![allow(unsafe_code)]

pub mod clock;
mod code_placement;
pub mod epoll;
pub mod eventfd;
pub mod fs;
pub mod futex;
pub mod lock;
pub mod mmap;
pub mod perf;
pub mod pidfd;
pub mod random;
pub mod truncation;
pub mod uring;

/// Converts a `-1`-on-error return value into `io::Result`.
pub(crate) fn check(ret: libc::c_int) -> std::io::Result<libc::c_int> {
    if ret < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}
