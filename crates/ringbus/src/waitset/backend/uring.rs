//! The io_uring backend: the armed futex vector is one `FUTEX_WAITV` request and every fd
//! a one-shot `POLL_ADD`, all in one ring whose fd a foreign event loop can poll.
//!
//! Fds are level-triggered, as with epoll: a poll that completed is queued again at the
//! start of the next `wait`, so an fd that stays ready is reported at every wait. Requests
//! are only queued by `arm`, `disarm`, `add_fd` and `remove_fd`; `wait` submits them all
//! with the same `io_uring_enter` that sleeps.

use super::{Backend, Completion, Sleeper};
use crate::sys::clock::monotonic_ns;
use crate::sys::futex::WaitvEntry;
use crate::sys::uring::{Reaped, Ring};
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

/// A watched fd.
#[derive(Debug)]
struct Watch {
    token: u64,
    fd: RawFd,
    events: u32,
    /// The tag of its latest poll request: a new one per `add_fd`, so a completion of a
    /// removed watch is never taken for a later one with the same token.
    tag: u64,
    /// Its poll request is queued or in the kernel.
    polling: bool,
}

#[derive(Debug)]
pub(crate) struct UringSleeper {
    ring: Ring,
    armed: Option<u64>,
    watches: Vec<Watch>,
    next_tag: u64,
}

impl UringSleeper {
    /// Fails if the kernel refuses io_uring or lacks `FUTEX_WAITV` / `POLL_ADD`: use epoll.
    pub(crate) fn new() -> io::Result<UringSleeper> {
        Ok(UringSleeper { ring: Ring::new()?, armed: None, watches: Vec::new(), next_tag: 0 })
    }

    /// Queues a poll for every watch whose last one completed (level-triggered).
    fn repoll(&mut self) -> io::Result<()> {
        for watch in self.watches.iter_mut().filter(|w| !w.polling) {
            self.ring.push_poll(watch.tag, watch.fd, watch.events)?;
            watch.polling = true;
        }
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>) {
        let UringSleeper { ring, armed, watches, .. } = self;
        ring.reap(|reaped| match reaped {
            Reaped::Waitv { tag: id, result } => {
                if *armed == Some(id) {
                    *armed = None;
                }
                let result = match result {
                    r if r >= 0 => Ok(r as usize),
                    r => Err(io::Error::from_raw_os_error(-r)),
                };
                out.push(Completion::Futex { id, result });
            }
            Reaped::Poll { tag, result } => {
                // A removed watch (its tag is gone): drop the completion.
                let Some(watch) = watches.iter_mut().find(|w| w.tag == tag) else {
                    return;
                };
                watch.polling = false;
                out.push(Completion::Fd { token: watch.token, revents: revents(result) });
            }
            Reaped::Cancel { .. } | Reaped::Nop => {}
        });
    }
}

/// A poll completion's result as revents: a failed poll reads as an error on the fd.
fn revents(result: i32) -> u32 {
    match result {
        r if r >= 0 => r as u32,
        r if r == -libc::EBADF => (libc::POLLNVAL | libc::POLLERR) as u32,
        _ => libc::POLLERR as u32,
    }
}

impl Sleeper for UringSleeper {
    fn kind(&self) -> Backend {
        Backend::IoUring
    }

    fn add_fd(&mut self, token: u64, fd: RawFd, events: u32) -> io::Result<()> {
        let tag = self.next_tag;
        self.ring.push_poll(tag, fd, events)?;
        self.next_tag += 1;
        self.watches.push(Watch { token, fd, events, tag, polling: true });
        Ok(())
    }

    fn remove_fd(&mut self, token: u64, _fd: RawFd) -> io::Result<()> {
        let Some(i) = self.watches.iter().position(|w| w.token == token) else {
            return Ok(());
        };
        let watch = self.watches.swap_remove(i);
        if watch.polling {
            self.ring.remove_poll(watch.tag)?;
            // Submit now: until the removal runs, the poll holds a reference to the file,
            // and a socket the caller closes after detaching it would stay open.
            self.ring.submit_and_wait(Some(Duration::ZERO))?;
        }
        Ok(())
    }

    fn arm(&mut self, id: u64, entries: Vec<WaitvEntry>) -> io::Result<()> {
        if self.armed.is_some() {
            self.disarm();
        }
        self.ring.push_waitv(id, entries)?;
        self.armed = Some(id);
        Ok(())
    }

    fn disarm(&mut self) {
        if let Some(id) = self.armed.take() {
            // If the cancel cannot even be queued (the kernel refuses to take the queue),
            // the vector still completes when one of its words is woken.
            let _ = self.ring.cancel_waitv(id);
        }
    }

    fn armed(&self) -> Option<u64> {
        self.armed
    }

    fn wait(&mut self, deadline_ns: Option<u64>, out: &mut Vec<Completion>) -> io::Result<()> {
        self.repoll()?;
        let timeout = deadline_ns.map(|d| Duration::from_nanos(d.saturating_sub(monotonic_ns())));
        self.ring.submit_and_wait(timeout)?;
        self.reap(out);
        Ok(())
    }

    fn raw_fd(&self) -> Option<RawFd> {
        Some(self.ring.fd())
    }

    fn keep_readable(&mut self) -> io::Result<()> {
        self.ring.post_nop()
    }
}

#[cfg(all(test, not(miri)))] // real io_uring, epoll and futex calls: not under Miri
mod tests {
    use super::*;

    fn sleeper() -> Box<dyn Sleeper> {
        Box::new(UringSleeper::new().expect("io_uring with FUTEX_WAITV (Linux 6.7+)"))
    }

    super::super::conformance::conformance_tests!(sleeper(), Backend::IoUring);
}
