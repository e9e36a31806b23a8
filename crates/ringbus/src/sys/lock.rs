//! Open-file-description (OFD) byte-range locks.
//!
//! An OFD lock belongs to the open file description, not to the process id, and the kernel
//! releases it when the last descriptor of that description closes — including at death by
//! SIGKILL. That makes it the liveness identity of every slot in a topic and of every node:
//! "the lock on byte X is held" is exactly "its owner is alive", with no PID-reuse hazard.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

fn flock(kind: libc::c_short, offset: u64) -> libc::flock {
    // SAFETY: `flock` is a plain C struct for which all-zero is a valid value.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_start = offset as libc::off_t;
    fl.l_len = 1;
    fl.l_pid = 0; // required to be 0 for OFD locks
    fl
}

fn fcntl(fd: BorrowedFd<'_>, cmd: libc::c_int, fl: &mut libc::flock) -> io::Result<()> {
    // SAFETY: `fd` is open for the duration of the call and `fl` is a valid flock.
    super::check(unsafe { libc::fcntl(fd.as_raw_fd(), cmd, fl as *mut libc::flock) }).map(|_| ())
}

/// Tries to take the write lock on byte `offset`; `Ok(false)` if someone else holds it.
pub fn try_lock(fd: BorrowedFd<'_>, offset: u64) -> io::Result<bool> {
    let mut fl = flock(libc::F_WRLCK as libc::c_short, offset);
    match fcntl(fd, libc::F_OFD_SETLK, &mut fl) {
        Ok(()) => Ok(true),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EACCES)) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Why [`lock_within`] gave up.
#[derive(Debug)]
pub enum GaveUp {
    TimedOut,
    Interrupted,
    Io(io::Error),
}

/// The first and the longest pause between two tries of [`lock_within`].
const FIRST_PAUSE: Duration = Duration::from_micros(50);
const LONGEST_PAUSE: Duration = Duration::from_millis(5);

/// Takes the write lock on byte `offset`, trying again until `deadline` or until
/// `interrupted()` says to stop. It polls (pauses from 50 µs doubling to 5 ms) instead of
/// sleeping in `F_OFD_SETLKW`, which has no timeout and which a holder stopped by Ctrl-Z
/// or a debugger would hold forever; the locks it is used for are held for microseconds,
/// so the first try nearly always succeeds.
pub fn lock_within(
    fd: BorrowedFd<'_>,
    offset: u64,
    deadline: Instant,
    interrupted: impl Fn() -> bool,
) -> Result<(), GaveUp> {
    let mut pause = FIRST_PAUSE;
    loop {
        if try_lock(fd, offset).map_err(GaveUp::Io)? {
            return Ok(());
        }
        if interrupted() {
            return Err(GaveUp::Interrupted);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(GaveUp::TimedOut);
        }
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// Releases the lock on byte `offset` held through `fd`.
pub fn unlock(fd: BorrowedFd<'_>, offset: u64) -> io::Result<()> {
    let mut fl = flock(libc::F_UNLCK as libc::c_short, offset);
    fcntl(fd, libc::F_OFD_SETLK, &mut fl)
}

/// Whether some *other* open file description holds a lock on byte `offset`.
pub fn is_locked(fd: BorrowedFd<'_>, offset: u64) -> io::Result<bool> {
    let mut fl = flock(libc::F_WRLCK as libc::c_short, offset);
    fcntl(fd, libc::F_OFD_GETLK, &mut fl)?;
    Ok(fl.l_type != libc::F_UNLCK as libc::c_short)
}
