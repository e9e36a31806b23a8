//! How long joining or leaving a topic or queue waits for another participant's lock.
//!
//! Joins and leaves take the object's control lock for microseconds. A participant stopped
//! while holding it (Ctrl-Z, a debugger) would make every other joiner wait forever, so a
//! join waits at most its open timeout ([`DEFAULT_OPEN_TIMEOUT`] unless the builder says
//! otherwise) and stops early when its cancel flag is raised; a leave waits at most
//! [`LEAVE_WAIT`] and then leaves without removing the object (the next participant to
//! leave, or `ringbus clean`, does).

use crate::error::{io_err, OpenError};
use crate::sys::lock::{lock_within, GaveUp};
use std::fs::File;
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a join waits for a busy control lock unless told otherwise.
pub const DEFAULT_OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a leave waits for a busy control lock before it leaves without tear-down.
pub(crate) const LEAVE_WAIT: Duration = Duration::from_millis(250);

/// A builder's open timeout and cancel flag.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpenWait {
    pub timeout: Option<Duration>,
    pub cancel: Option<Arc<AtomicBool>>,
}

impl OpenWait {
    /// Starts the clock: the deadline of this join, whatever number of tries it takes.
    pub(crate) fn start(&self) -> JoinDeadline<'_> {
        let timeout = self.timeout.unwrap_or(DEFAULT_OPEN_TIMEOUT);
        JoinDeadline { started: Instant::now(), timeout, cancel: self.cancel.as_deref() }
    }
}

/// One join's deadline and cancel flag.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JoinDeadline<'a> {
    started: Instant,
    timeout: Duration,
    cancel: Option<&'a AtomicBool>,
}

impl JoinDeadline<'_> {
    /// Takes lock byte `byte` of `file` (at `path`) before the deadline.
    pub(crate) fn lock(&self, file: &File, byte: u64, path: &Path) -> Result<(), OpenError> {
        // A timeout too long to add to the clock never ends.
        let deadline = self.started.checked_add(self.timeout).unwrap_or_else(|| Instant::now() + FOREVER);
        let cancelled = || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        lock_within(file.as_fd(), byte, deadline, cancelled).map_err(|e| match e {
            GaveUp::TimedOut => OpenError::LockTimedOut {
                path: path.to_path_buf(),
                waited_ms: self.started.elapsed().as_millis() as u64,
            },
            GaveUp::Interrupted => OpenError::Interrupted { path: path.to_path_buf() },
            GaveUp::Io(e) => io_err("lock", path)(e),
        })
    }
}

/// Stands for "no deadline" (a century).
const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// A leave takes the control lock if it can within [`LEAVE_WAIT`].
pub(crate) fn lock_to_leave(file: &File, byte: u64) -> bool {
    lock_within(file.as_fd(), byte, Instant::now() + LEAVE_WAIT, || false).is_ok()
}
