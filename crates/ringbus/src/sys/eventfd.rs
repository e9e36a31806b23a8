//! Eventfds: a counter in the kernel, readable while it is non-zero — how a helper thread
//! wakes an epoll.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// A non-blocking, close-on-exec eventfd.
#[derive(Debug)]
pub struct EventFd(OwnedFd);

impl EventFd {
    /// `eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)`.
    pub fn new() -> io::Result<EventFd> {
        // SAFETY: eventfd takes an initial value and flags and returns a new descriptor or -1.
        let fd = super::check(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })?;
        // SAFETY: the kernel just returned this descriptor to us; nobody else owns it.
        Ok(EventFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Adds 1 to the counter: the fd becomes readable. Never blocks (the counter would
    /// have to reach `u64::MAX - 1` first; a full counter is readable anyway).
    pub fn signal(&self) -> io::Result<()> {
        let one: u64 = 1;
        // SAFETY: writes exactly the 8 bytes of `one`, a live local.
        let ret = unsafe { libc::write(self.0.as_raw_fd(), (&one as *const u64).cast(), 8) };
        match ret {
            8 => Ok(()),
            _ => match io::Error::last_os_error() {
                e if e.raw_os_error() == Some(libc::EAGAIN) => Ok(()),
                e => Err(e),
            },
        }
    }

    /// Resets the counter to zero; returns what it was (0 if it already was).
    pub fn drain(&self) -> io::Result<u64> {
        let mut value: u64 = 0;
        // SAFETY: reads at most 8 bytes into `value`, a live, writable local.
        let ret = unsafe { libc::read(self.0.as_raw_fd(), (&mut value as *mut u64).cast(), 8) };
        match ret {
            8 => Ok(value),
            _ => match io::Error::last_os_error() {
                e if e.raw_os_error() == Some(libc::EAGAIN) => Ok(0),
                e => Err(e),
            },
        }
    }
}

impl AsFd for EventFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

impl AsRawFd for EventFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}
