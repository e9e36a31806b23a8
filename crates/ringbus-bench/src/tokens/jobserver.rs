//! The two token protocols under test, worker side, and the bench's side of the pipe.
//!
//! **Pipe** — GNU make's jobserver: one pipe holding one byte per free token, inherited by
//! every worker. A worker sets `O_NONBLOCK` on the read side, `poll`s it for `POLLIN`, then
//! `read`s one byte; `EAGAIN` means another worker took that byte first, so it polls
//! again. After the job it writes the byte back. Every write wakes *every* poller
//! (`poll` waits are not exclusive), and all but one of them find nothing: the herd.
//!
//! **Semaphore** — [`ringbus::Semaphore`]: `wait()`, job, `post()`. A post wakes exactly
//! one sleeper (one `FUTEX_WAKE(1)`), and makes no system call when nobody sleeps.

use crate::transports::{adopt_fd, check};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The byte a token is written as (make writes `+`).
const TOKEN: u8 = b'+';

/// Where a worker gets its tokens; sent to it as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum TokenEndpoint {
    /// The jobserver pipe's two ends, inherited from the bench.
    Pipe { read_fd: RawFd, write_fd: RawFd },
    /// A ringbus semaphore under the run's root.
    Semaphore { name: String },
}

/// The bench's side of the pipe: created holding `tokens` bytes, both ends close-on-exec
/// (cleared in each worker only).
#[derive(Debug)]
pub(crate) struct PipeJobserver {
    pub read: OwnedFd,
    pub write: OwnedFd,
}

impl PipeJobserver {
    /// `tokens` must fit in the pipe without blocking: at most one page (4096), which
    /// every pipe holds however low the user's pipe-buffer limit.
    pub(crate) fn create(tokens: u32) -> Result<PipeJobserver> {
        anyhow::ensure!(tokens as usize <= 4096, "{tokens} tokens do not fit in a pipe page");
        let mut fds = [0; 2];
        // SAFETY: `fds` is a writable array of two ints, as pipe2 requires.
        let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
        check(r.into(), || "pipe2 for the jobserver".into())?;
        // SAFETY: pipe2 succeeded: both fds are open and owned by nobody else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let bytes = vec![TOKEN; tokens as usize];
        // SAFETY: `bytes` is valid for reads of its length; the fd is open.
        let n = unsafe { libc::write(write.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        check(n as libc::c_long, || "filling the jobserver pipe".into())?;
        anyhow::ensure!(n as usize == bytes.len(), "the jobserver pipe took {n} of {tokens} tokens");
        Ok(PipeJobserver { read, write })
    }

    /// Tokens in the pipe now, emptying it; the bench counts them after a run.
    pub(crate) fn drain(&self) -> Result<u64> {
        set_nonblocking(self.read.as_raw_fd())?;
        let mut buf = [0u8; 4096];
        let mut total = 0;
        loop {
            // SAFETY: `buf` is valid for writes of its length; the fd is open.
            let n = unsafe { libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            match n {
                0 => return Ok(total),
                n if n > 0 => total += n as u64,
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock => return Ok(total),
                _ => return Err(std::io::Error::last_os_error()).context("reading the jobserver pipe"),
            }
        }
    }
}

fn set_nonblocking(fd: RawFd) -> Result<()> {
    // SAFETY: F_GETFL/F_SETFL on an open fd, with a flag word.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    check(flags.into(), || "fcntl(F_GETFL) on the jobserver pipe".into())?;
    // SAFETY: as above.
    let r = unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) };
    check(r.into(), || "fcntl(F_SETFL, O_NONBLOCK) on the jobserver pipe".into())?;
    Ok(())
}

/// A worker's token source.
#[derive(Debug)]
pub(crate) enum Tokens {
    Pipe { read: OwnedFd, write: OwnedFd, failed_takes: u64 },
    Semaphore(ringbus::Semaphore),
}

impl Tokens {
    /// Opens `endpoint` in a worker (the pipe's fds were inherited; the semaphore exists).
    pub(crate) fn open(root: &ringbus::Root, endpoint: &TokenEndpoint) -> Result<Tokens> {
        Ok(match endpoint {
            TokenEndpoint::Pipe { read_fd, write_fd } => {
                let read = adopt_fd(*read_fd, "jobserver read")?;
                let write = adopt_fd(*write_fd, "jobserver write")?;
                set_nonblocking(read.as_raw_fd())?;
                Tokens::Pipe { read, write, failed_takes: 0 }
            }
            TokenEndpoint::Semaphore { name } => Tokens::Semaphore(
                ringbus::Semaphore::open(root, name, 0).with_context(|| format!("cannot open the semaphore {name}"))?,
            ),
        })
    }

    /// Takes one token, sleeping until one is free.
    pub(crate) fn take(&mut self) -> Result<()> {
        match self {
            Tokens::Pipe { read, failed_takes, .. } => take_byte(read.as_raw_fd(), failed_takes),
            Tokens::Semaphore(sem) => {
                sem.wait();
                Ok(())
            }
        }
    }

    /// Gives the token back.
    pub(crate) fn give(&mut self) -> Result<()> {
        match self {
            Tokens::Pipe { write, .. } => loop {
                // SAFETY: one readable byte; the fd is open.
                let n = unsafe { libc::write(write.as_raw_fd(), [TOKEN].as_ptr().cast(), 1) };
                match n {
                    1 => return Ok(()),
                    _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                    _ => return Err(std::io::Error::last_os_error()).context("writing a token back to the pipe"),
                }
            },
            Tokens::Semaphore(sem) => Ok(sem.post()?),
        }
    }

    /// Pipe: reads that lost the race for the byte `poll` announced; `None` for the semaphore.
    pub(crate) fn failed_takes(&self) -> Option<u64> {
        match self {
            Tokens::Pipe { failed_takes, .. } => Some(*failed_takes),
            Tokens::Semaphore(_) => None,
        }
    }
}

/// make's acquire loop: poll for POLLIN, read one byte; EAGAIN (lost the race) polls again.
fn take_byte(fd: RawFd, failed_takes: &mut u64) -> Result<()> {
    loop {
        let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd; no timeout.
        let r = unsafe { libc::poll(&mut pfd, 1, -1) };
        if r < 0 {
            match std::io::Error::last_os_error() {
                e if e.kind() == std::io::ErrorKind::Interrupted => continue,
                e => return Err(e).context("poll on the jobserver pipe"),
            }
        }
        let mut byte = 0u8;
        // SAFETY: `byte` is valid for a one-byte write; the fd is open.
        let n = unsafe { libc::read(fd, (&mut byte as *mut u8).cast(), 1) };
        match n {
            1 => return Ok(()),
            0 => bail!("the jobserver pipe was closed"),
            _ => match std::io::Error::last_os_error() {
                e if e.kind() == std::io::ErrorKind::WouldBlock => *failed_takes += 1,
                e if e.kind() == std::io::ErrorKind::Interrupted => {}
                e => return Err(e).context("reading a token from the jobserver pipe"),
            },
        }
    }
}
