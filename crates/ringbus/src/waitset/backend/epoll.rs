//! The epoll backend, for where io_uring is refused (seccomp, `io_uring_disabled`): an
//! epoll watches the fds (level-triggered) and an eventfd; one helper thread per backend
//! sleeps on the armed futex vector and, when its `futex_waitv` returns, files the
//! completion and writes the eventfd.
//!
//! The helper's vector carries one extra word, the backend's private *cancel* word:
//! `disarm` bumps it and wakes it, so the helper leaves its `futex_waitv` at once (or
//! never enters it: the value it expects is the one read when the vector was armed).
//! The same bump ends the helper when the backend drops.

use super::{Backend, Completion, Sleeper, READABLE, WRITABLE};
use crate::sync::{AtomicU32, Ordering};
use crate::sys::clock::monotonic_ns;
use crate::sys::epoll::{Epoll, Ready};
use crate::sys::eventfd::EventFd;
use crate::sys::futex::{self, WaitvEntry, WAITV_MAX};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// The epoll data of the eventfd (fd tokens are wait-set keys, counted up from 0).
const EVENTFD_TOKEN: u64 = u64::MAX;

/// How long the helper sleeps on a full (128-word) vector before it looks at the cancel
/// word again: the most a `disarm` or a drop waits for it.
const FULL_VECTOR_NAP_NS: u64 = 10_000_000;

/// A vector handed to the helper.
#[derive(Debug)]
struct Job {
    id: u64,
    entries: Vec<WaitvEntry>,
    /// The cancel word when the vector was armed: any later bump cancels it.
    cancel_seen: u32,
}

#[derive(Debug, Default)]
struct State {
    /// The armed vector, until the helper takes it.
    job: Option<Job>,
    /// Completions the helper filed, until `wait` collects them.
    done: Vec<Completion>,
    stop: bool,
}

/// What the backend and its helper share.
#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when a job is filed or the helper must stop.
    changed: Condvar,
    cancel: AtomicU32,
    eventfd: EventFd,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere cannot leave `State` half-updated: every change is one store.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Files a completion and makes the epoll readable.
    fn file(&self, completion: Completion) {
        self.lock().done.push(completion);
        // An eventfd write fails only if the counter is full, which is readable anyway.
        let _ = self.eventfd.signal();
    }

    /// Makes the helper leave its `futex_waitv` (or not enter it).
    fn bump_cancel(&self) {
        // Relaxed: the futex syscalls order the bump before the helper's value check.
        self.cancel.fetch_add(1, Ordering::Relaxed);
        let _ = futex::wake(&self.cancel, u32::MAX);
    }

    /// The helper thread: one vector at a time, until told to stop.
    fn run(&self) {
        loop {
            let job = {
                let mut state = self.lock();
                loop {
                    if state.stop {
                        return;
                    }
                    if let Some(job) = state.job.take() {
                        break job;
                    }
                    state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
                }
            };
            let result = self.sleep(job.entries, job.cancel_seen);
            self.file(Completion::Futex { id: job.id, result });
        }
    }

    /// `futex_waitv` on `entries` plus the cancel word; a cancel reads as `ECANCELED`.
    fn sleep(&self, mut entries: Vec<WaitvEntry>, cancel_seen: u32) -> io::Result<usize> {
        let cancelled = || io::Error::from_raw_os_error(libc::ECANCELED);
        if entries.len() == WAITV_MAX {
            return self.sleep_full(&entries, cancel_seen);
        }
        let cancel_index = entries.len();
        entries.push(WaitvEntry::new(&self.cancel, cancel_seen));
        match futex::waitv(&entries, None) {
            Ok(i) if i == cancel_index => Err(cancelled()),
            Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && self.cancel.load(Ordering::Relaxed) != cancel_seen => {
                Err(cancelled())
            }
            r => r,
        }
    }

    /// A full vector leaves no room for the cancel word: look at it between short sleeps.
    fn sleep_full(&self, entries: &[WaitvEntry], cancel_seen: u32) -> io::Result<usize> {
        loop {
            if self.cancel.load(Ordering::Relaxed) != cancel_seen {
                return Err(io::Error::from_raw_os_error(libc::ECANCELED));
            }
            match futex::waitv(entries, Some(monotonic_ns() + FULL_VECTOR_NAP_NS)) {
                Err(e) if e.raw_os_error() == Some(libc::ETIMEDOUT) => continue,
                r => return r,
            }
        }
    }
}

#[derive(Debug)]
pub(crate) struct EpollSleeper {
    epoll: Epoll,
    shared: Arc<Shared>,
    /// Started by the first `arm`.
    helper: Option<JoinHandle<()>>,
    armed: Option<u64>,
    ready: Vec<Ready>,
}

impl EpollSleeper {
    pub(crate) fn new() -> io::Result<EpollSleeper> {
        let epoll = Epoll::new()?;
        let eventfd = EventFd::new()?;
        epoll.add(eventfd.as_raw_fd(), libc::EPOLLIN as u32, EVENTFD_TOKEN)?;
        let shared =
            Shared { state: Mutex::new(State::default()), changed: Condvar::new(), cancel: AtomicU32::new(0), eventfd };
        Ok(EpollSleeper { epoll, shared: Arc::new(shared), helper: None, armed: None, ready: Vec::new() })
    }

    fn start_helper(&mut self) -> io::Result<()> {
        if self.helper.is_none() {
            let shared = Arc::clone(&self.shared);
            let helper = std::thread::Builder::new().name("ringbus-waitset".into()).spawn(move || shared.run())?;
            self.helper = Some(helper);
        }
        Ok(())
    }
}

/// epoll events back into `poll` revents.
fn revents(events: u32) -> u32 {
    [
        (libc::EPOLLIN, libc::POLLIN),
        (libc::EPOLLOUT, libc::POLLOUT),
        (libc::EPOLLPRI, libc::POLLPRI),
        (libc::EPOLLHUP, libc::POLLHUP),
        (libc::EPOLLERR, libc::POLLERR),
    ]
    .into_iter()
    .filter(|(e, _)| events & *e as u32 != 0)
    .fold(0, |r, (_, p)| r | p as u32)
}

impl Sleeper for EpollSleeper {
    fn kind(&self) -> Backend {
        Backend::Epoll
    }

    fn add_fd(&mut self, token: u64, fd: RawFd, events: u32) -> io::Result<()> {
        debug_assert_ne!(token, EVENTFD_TOKEN);
        let mut interest = 0;
        if events & READABLE != 0 {
            interest |= libc::EPOLLIN as u32;
        }
        if events & WRITABLE != 0 {
            interest |= libc::EPOLLOUT as u32;
        }
        self.epoll.add(fd, interest, token)
    }

    fn remove_fd(&mut self, _token: u64, fd: RawFd) -> io::Result<()> {
        self.epoll.delete(fd)
    }

    fn arm(&mut self, id: u64, entries: Vec<WaitvEntry>) -> io::Result<()> {
        if entries.is_empty() || entries.len() > WAITV_MAX {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        if self.armed.is_some() {
            self.disarm();
        }
        self.start_helper()?;
        let cancel_seen = self.shared.cancel.load(Ordering::Relaxed);
        self.shared.lock().job = Some(Job { id, entries, cancel_seen });
        self.shared.changed.notify_one();
        self.armed = Some(id);
        Ok(())
    }

    fn disarm(&mut self) {
        let Some(id) = self.armed.take() else {
            return;
        };
        let mut state = self.shared.lock();
        if state.job.as_ref().is_some_and(|j| j.id == id) {
            // The helper never took it: cancel it here, without a futex call.
            state.job = None;
            drop(state);
            self.shared.file(Completion::Futex { id, result: Err(io::Error::from_raw_os_error(libc::ECANCELED)) });
        } else {
            drop(state);
            self.shared.bump_cancel();
        }
    }

    fn armed(&self) -> Option<u64> {
        self.armed
    }

    fn wait(&mut self, deadline_ns: Option<u64>, out: &mut Vec<Completion>) -> io::Result<()> {
        let timeout = deadline_ns.map(|d| Duration::from_nanos(d.saturating_sub(monotonic_ns())));
        self.ready.clear();
        self.epoll.wait(timeout, &mut self.ready)?;
        for ready in &self.ready {
            match ready.data {
                // Drain first, collect after: a completion filed in between re-signals.
                EVENTFD_TOKEN => drop(self.shared.eventfd.drain()?),
                token => out.push(Completion::Fd { token, revents: revents(ready.events) }),
            }
        }
        for completion in std::mem::take(&mut self.shared.lock().done) {
            if let Completion::Futex { id, .. } = completion {
                if self.armed == Some(id) {
                    self.armed = None;
                }
            }
            out.push(completion);
        }
        Ok(())
    }

    fn raw_fd(&self) -> Option<RawFd> {
        Some(self.epoll.as_raw_fd())
    }

    fn keep_readable(&mut self) -> io::Result<()> {
        // Drained by the next `wait`, like a completion the helper files.
        self.shared.eventfd.signal()
    }
}

impl Drop for EpollSleeper {
    fn drop(&mut self) {
        let Some(helper) = self.helper.take() else {
            return;
        };
        self.shared.lock().stop = true;
        self.shared.changed.notify_one();
        // Ends a futex_waitv the helper is in or about to enter.
        self.shared.bump_cancel();
        let _ = helper.join();
    }
}

#[cfg(all(test, not(miri)))] // real io_uring, epoll and futex calls: not under Miri
mod tests {
    use super::*;

    fn sleeper() -> Box<dyn Sleeper> {
        Box::new(EpollSleeper::new().expect("epoll"))
    }

    super::super::conformance::conformance_tests!(sleeper(), Backend::Epoll);
}
