//! Ctrl-C and SIGTERM: the handler only raises a flag; the bench checks it between
//! messages, runs and while waiting, then unwinds normally so every worker process is
//! killed and every temporary file removed.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() -> std::io::Result<()> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: all-zero is a valid sigaction (empty mask, no flags); the handler only
        // stores to an atomic, which is async-signal-safe.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: `action` is a live, initialised sigaction; the old action is not wanted.
        if unsafe { libc::sigaction(signal, &action, std::ptr::null_mut()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// `Err` once a signal arrived.
pub fn check() -> anyhow::Result<()> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        anyhow::bail!("interrupted; worker processes were stopped and temporary files removed");
    }
    Ok(())
}
