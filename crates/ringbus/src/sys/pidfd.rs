//! Process file descriptors: readable once the process has exited.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

/// `pidfd_open(pid)`: a descriptor that becomes readable when `pid` exits. `ESRCH` if
/// there is no such process.
pub fn open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let ret = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0 as libc::c_uint) };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us; nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(ret as libc::c_int) })
}
