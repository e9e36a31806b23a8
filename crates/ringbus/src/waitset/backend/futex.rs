//! The futex backend: the armed vector is slept on synchronously, inside `wait` —
//! `FUTEX_WAIT` for one word, `futex_waitv` for more. No fds.

use super::{Backend, Completion, Sleeper};
use crate::sys::futex::{self, WaitvEntry};
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

#[derive(Debug, Default)]
pub(crate) struct FutexSleeper {
    armed: Option<(u64, Vec<WaitvEntry>)>,
}

fn refuse() -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, "the futex backend cannot watch fds; use io_uring or epoll")
}

impl Sleeper for FutexSleeper {
    fn kind(&self) -> Backend {
        Backend::Futex
    }

    fn add_fd(&mut self, _token: u64, _fd: RawFd, _events: u32) -> io::Result<()> {
        Err(refuse())
    }

    fn remove_fd(&mut self, _token: u64, _fd: RawFd) -> io::Result<()> {
        Ok(())
    }

    fn arm(&mut self, id: u64, entries: Vec<WaitvEntry>) -> io::Result<()> {
        self.armed = Some((id, entries));
        Ok(())
    }

    fn disarm(&mut self) {
        self.armed = None;
    }

    fn armed(&self) -> Option<u64> {
        self.armed.as_ref().map(|(id, _)| *id)
    }

    fn wait(&mut self, deadline_ns: Option<u64>, out: &mut Vec<Completion>) -> io::Result<()> {
        let Some((id, entries)) = self.armed.take() else {
            // Only timers: sleep until the deadline.
            if let Some(d) = deadline_ns {
                std::thread::sleep(Duration::from_nanos(d.saturating_sub(crate::sys::clock::monotonic_ns())));
            }
            return Ok(());
        };
        let result = if let [only] = entries.as_slice() {
            // One word: plain FUTEX_WAIT, the cheapest sleep (relative timeout).
            let timeout =
                deadline_ns.map(|d| Duration::from_nanos(d.saturating_sub(crate::sys::clock::monotonic_ns())));
            futex::wait_entry(only, timeout).map(|()| 0)
        } else {
            futex::waitv(&entries, deadline_ns)
        };
        out.push(Completion::Futex { id, result });
        Ok(())
    }

    fn raw_fd(&self) -> Option<RawFd> {
        None
    }

    fn keep_readable(&mut self) -> io::Result<()> {
        Ok(())
    }
}
