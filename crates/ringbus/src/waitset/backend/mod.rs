//! How a [`WaitSet`](crate::WaitSet) sleeps: the backends, behind one small interface.
//!
//! The wait set hands a backend (a) the fds it watches, each with a token, and (b) at most
//! one *armed* futex vector at a time: the shared-memory words to sleep on, each with the
//! value it must still hold. The backend blocks until a watched fd is ready, a word of the
//! armed vector is woken, or a deadline passes, and reports what happened as
//! [`Completion`]s. Synchronous backends (futex) finish the armed vector inside `wait`;
//! asynchronous ones (io_uring, epoll + helper thread) keep it armed across calls until
//! it completes or is disarmed, so a foreign event loop can sleep on their fd.

use crate::sys::futex::WaitvEntry;
use std::io;
use std::os::fd::RawFd;

#[cfg(all(test, not(miri)))] // real io_uring, epoll and futex calls: not under Miri
pub(crate) mod conformance;
pub(crate) mod epoll;
pub(crate) mod futex;
pub(crate) mod uring;

/// The mechanism a wait set sleeps with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// `FUTEX_WAIT` on one word, or `futex_waitv` on up to 128: only shared-memory
    /// sources and timers are attached.
    Futex,
    /// io_uring: `FUTEX_WAITV` and one-shot `POLL_ADD`s (re-armed at each wait, so fds are
    /// level-triggered) in one ring; fds are attached.
    IoUring,
    /// epoll with an eventfd, fed by a helper thread that sleeps on the words; used where
    /// io_uring is refused (seccomp, `io_uring_disabled`).
    Epoll,
}

impl Backend {
    /// The name `RINGBUS_WAITSET_BACKEND` takes for it: `futex`, `io_uring`, `epoll`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Futex => "futex",
            Backend::IoUring => "io_uring",
            Backend::Epoll => "epoll",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which backend to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The cheapest that can do the job: futex while only shared-memory sources and
    /// timers are attached; io_uring once an fd is attached or `as_raw_fd` is asked for;
    /// epoll if io_uring is refused. `RINGBUS_WAITSET_BACKEND=futex|io_uring|epoll`
    /// overrides it (for tests and for sandboxes that kill on io_uring).
    #[default]
    Auto,
    /// Always this backend (`Futex` refuses fds and `as_raw_fd`).
    Force(Backend),
}

/// What a backend reports.
#[derive(Debug)]
pub(crate) enum Completion {
    /// The armed vector `id` ended: `Ok(i)` woken through entry `i`; `Err` with `EAGAIN`
    /// (a word already differed), `ETIMEDOUT`, `EINTR` or `ECANCELED`: look again.
    Futex { id: u64, result: io::Result<usize> },
    /// A watched fd is ready: its token and `poll` revents.
    Fd { token: u64, revents: u32 },
}

/// `poll` interest bits a wait set uses.
pub(crate) const READABLE: u32 = libc::POLLIN as u32;
pub(crate) const WRITABLE: u32 = libc::POLLOUT as u32;

pub(crate) trait Sleeper: Send {
    fn kind(&self) -> Backend;
    /// Starts watching `fd` for `events` (READABLE / WRITABLE), reporting `token`.
    fn add_fd(&mut self, token: u64, fd: RawFd, events: u32) -> io::Result<()>;
    /// Stops watching the fd of `token`.
    fn remove_fd(&mut self, token: u64, fd: RawFd) -> io::Result<()>;
    /// Arms a futex vector (1..=128 entries) under `id`. Only one is armed at a time: the
    /// caller disarms the previous one first.
    fn arm(&mut self, id: u64, entries: Vec<WaitvEntry>) -> io::Result<()>;
    /// Cancels the armed vector, if any; its `Futex` completion (ECANCELED, or how it
    /// ended first) is reported by a later `wait`.
    fn disarm(&mut self);
    /// The id of the armed vector, until its completion has been reported.
    fn armed(&self) -> Option<u64>;
    /// Blocks until something completes or `deadline_ns` (CLOCK_MONOTONIC; `None` =
    /// never; a past deadline = do not block) and appends every completion to `out`.
    fn wait(&mut self, deadline_ns: Option<u64>, out: &mut Vec<Completion>) -> io::Result<()>;
    /// An fd a foreign event loop can poll: readable when `wait` would report something.
    fn raw_fd(&self) -> Option<RawFd>;
    /// Makes the fd of [`Sleeper::raw_fd`] readable until the next `wait` (which then
    /// reports nothing for it): the wait set returned events without leaving everything
    /// armed, and a foreign loop must come back. No fd, nothing to do.
    fn keep_readable(&mut self) -> io::Result<()>;
}

/// Builds the backend `kind`.
pub(crate) fn build(kind: Backend) -> io::Result<Box<dyn Sleeper>> {
    match kind {
        Backend::Futex => Ok(Box::new(futex::FutexSleeper::default())),
        Backend::IoUring => Ok(Box::new(uring::UringSleeper::new()?)),
        Backend::Epoll => Ok(Box::new(epoll::EpollSleeper::new()?)),
    }
}

/// The backend forced by `RINGBUS_WAITSET_BACKEND`, if set.
pub(crate) fn from_env() -> Option<Backend> {
    match std::env::var("RINGBUS_WAITSET_BACKEND").ok()?.as_str() {
        "futex" => Some(Backend::Futex),
        "io_uring" | "iouring" | "uring" => Some(Backend::IoUring),
        "epoll" => Some(Backend::Epoll),
        _ => None,
    }
}
