//! `membarrier(2)`, global expedited: the heavy half of an asymmetric fence between
//! processes (see `notify::fences`).

use std::io;

const MEMBARRIER_CMD_GLOBAL_EXPEDITED: libc::c_int = 1 << 1;
const MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED: libc::c_int = 1 << 2;

fn membarrier(cmd: libc::c_int) -> io::Result<()> {
    // SAFETY: membarrier takes two integers (command, flags) and a CPU id it ignores for
    // these commands; it reads and writes no memory of ours.
    let ret = unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_uint, 0 as libc::c_int) };
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Registers this process to take part in [`global_expedited`] barriers: from now on, its
/// running threads execute a full memory barrier whenever any process asks for one.
pub fn register_global_expedited() -> io::Result<()> {
    membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED)
}

/// Returns once every running thread of every registered process has executed a full
/// memory barrier (threads not running are de facto ordered by their context switch).
/// The caller's own accesses are ordered around the call as by a `SeqCst` fence.
pub fn global_expedited() -> io::Result<()> {
    membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)
}
