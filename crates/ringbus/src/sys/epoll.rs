//! epoll: level-triggered readiness of many fds, with a nanosecond timeout
//! (`epoll_pwait2`, Linux 5.11; `epoll_wait` with the timeout rounded up to milliseconds
//! where a sandbox refuses it).

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// One ready fd: its `EPOLL*` event bits and the data it was added with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ready {
    pub events: u32,
    pub data: u64,
}

/// The most ready fds one [`Epoll::wait`] returns (the rest stay ready for the next).
pub const WAIT_MAX: usize = 64;

/// A close-on-exec epoll instance.
#[derive(Debug)]
pub struct Epoll(OwnedFd);

impl Epoll {
    /// `epoll_create1(EPOLL_CLOEXEC)`.
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes flags and returns a new descriptor or -1.
        let fd = super::check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: the kernel just returned this descriptor to us; nobody else owns it.
        Ok(Epoll(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Watches `fd` for `events` (`EPOLLIN`, `EPOLLOUT`; level-triggered), reporting `data`.
    /// The kernel checks `fd` (`EBADF`, `EPERM` for regular files, `EEXIST` if watched).
    pub fn add(&self, fd: RawFd, events: u32, data: u64) -> io::Result<()> {
        let mut event = libc::epoll_event { events, u64: data };
        // SAFETY: `event` is a live epoll_event the kernel only reads; a bad `fd` is an error
        // return, not memory access.
        super::check(unsafe { libc::epoll_ctl(self.0.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut event) }).map(drop)
    }

    /// Stops watching `fd` (`ENOENT` if it was not watched, `EBADF` if it was closed).
    pub fn delete(&self, fd: RawFd) -> io::Result<()> {
        // SAFETY: EPOLL_CTL_DEL ignores the event pointer (null is allowed since 2.6.9).
        super::check(unsafe { libc::epoll_ctl(self.0.as_raw_fd(), libc::EPOLL_CTL_DEL, fd, std::ptr::null_mut()) })
            .map(drop)
    }

    /// Waits until an fd is ready or `timeout` passes (`None`: forever; zero: do not block)
    /// and appends up to [`WAIT_MAX`] ready fds to `out`. A signal is an empty return.
    pub fn wait(&self, timeout: Option<Duration>, out: &mut Vec<Ready>) -> io::Result<()> {
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; WAIT_MAX];
        let n = match self.pwait2(&mut events, timeout) {
            Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => self.wait_ms(&mut events, timeout),
            r => r,
        };
        let n = match n {
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => 0,
            r => r?,
        };
        out.extend(events[..n].iter().map(|e| Ready { events: e.events, data: e.u64 }));
        Ok(())
    }

    fn pwait2(&self, events: &mut [libc::epoll_event; WAIT_MAX], timeout: Option<Duration>) -> io::Result<usize> {
        let ts = timeout.map(|t| libc::timespec {
            tv_sec: t.as_secs().min(i64::MAX as u64) as libc::time_t,
            tv_nsec: t.subsec_nanos() as libc::c_long,
        });
        let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `events` is a live, writable array of WAIT_MAX epoll_events and the kernel
        // writes at most WAIT_MAX; `ts_ptr` is null or points to a timespec on our stack;
        // a null sigmask leaves the signal mask alone.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_epoll_pwait2,
                self.0.as_raw_fd(),
                events.as_mut_ptr(),
                WAIT_MAX as libc::c_int,
                ts_ptr,
                std::ptr::null::<libc::sigset_t>(),
                0usize,
            )
        };
        if ret < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(ret as usize)
        }
    }

    fn wait_ms(&self, events: &mut [libc::epoll_event; WAIT_MAX], timeout: Option<Duration>) -> io::Result<usize> {
        // Round up: waking early would report "nothing" before the deadline.
        let ms = timeout.map_or(-1, |t| t.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int);
        // SAFETY: `events` is a live, writable array of WAIT_MAX epoll_events and the kernel
        // writes at most WAIT_MAX.
        let ret = unsafe { libc::epoll_wait(self.0.as_raw_fd(), events.as_mut_ptr(), WAIT_MAX as libc::c_int, ms) };
        super::check(ret).map(|n| n as usize)
    }
}

impl AsFd for Epoll {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

impl AsRawFd for Epoll {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}
