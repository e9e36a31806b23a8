//! The calling convention: statuses, the per-thread last error, argument checks, and the
//! guard that keeps panics on the Rust side.

use ringbus::{LoanError, OpenError, ReceiveError, TakeError};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a call returned. `RB_OK` and the positive values are outcomes; the negative ones are
/// failures, described by `rb_last_error`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum rb_status {
    /// Done.
    RB_OK = 0,
    /// `rb_subscriber_take`: nothing new. `rb_semaphore_try_wait`: no free token.
    /// `rb_queue_pop`: no command.
    RB_EMPTY = 1,
    /// `rb_subscriber_receive`, `rb_latch_wait`, `rb_semaphore_wait`, `rb_word_wait`,
    /// `rb_queue_wait`, `rb_queue_push_timeout`, `rb_client_call`: the timeout expired.
    RB_TIMEOUT = 2,
    /// A NULL pointer, a string that is not UTF-8, a misaligned word, or a call out of order
    /// (a second loan, a publish without a loan, a publish longer than its loan).
    RB_ERR_INVALID_ARGUMENT = -1,
    /// A system call failed (the message names it and the path).
    RB_ERR_IO = -2,
    /// The root directory is missing, not ours, or has the wrong mode.
    RB_ERR_ROOT_UNUSABLE = -3,
    /// The shared-memory filesystem is full.
    RB_ERR_NO_SPACE = -4,
    /// The topic or node name is not allowed.
    RB_ERR_INVALID_NAME = -5,
    /// A topic option is out of its range.
    RB_ERR_INVALID_CONFIG = -6,
    /// The topic or queue exists with a different configuration or type.
    RB_ERR_MISMATCH = -7,
    /// A file in the root is not a ringbus segment, or is truncated.
    RB_ERR_FOREIGN = -8,
    /// A segment was made by an incompatible version of ringbus.
    RB_ERR_VERSION_MISMATCH = -9,
    /// Shared memory holds a value out of range (a bad or crashed peer).
    RB_ERR_CORRUPTED = -10,
    /// The topic already has its maximum number of publishers or subscribers, or the queue
    /// its consumer (or its SPSC producer, or 64 MPSC producers).
    RB_ERR_TOO_MANY = -11,
    /// A loan larger than the topic's `max_payload_bytes`.
    RB_ERR_TOO_LARGE = -12,
    /// Every chunk of the publisher is held by subscribers or loaned.
    RB_ERR_POOL_EXHAUSTED = -13,
    /// The subscriber already holds `max_held` samples: release one first.
    RB_ERR_HELD_LIMIT = -14,
    /// `rb_subscriber_receive` on a subscriber opened with `RB_WAKE_NEVER`.
    RB_ERR_POLLING_ONLY = -15,
    /// `rb_semaphore_post` on a semaphore that already holds the maximum count (2^31 - 1):
    /// a post without a matching wait.
    RB_ERR_SEMAPHORE_FULL = -16,
    /// A loan would take the publisher's payload memory over the topic's `pool_bytes`:
    /// create the topic with a larger `pool_bytes`, or keep fewer messages in flight.
    RB_ERR_POOL_BUDGET = -17,
    /// A reliable subscriber has not taken the message a loan would overwrite, and the
    /// publisher's `when_full` said not to wait (longer). `rb_queue_push`: the queue is
    /// full (nothing pushed).
    RB_ERR_FULL = -18,
    /// Opening waited longer than its open timeout for another process holding the topic's
    /// or queue's lock (one stopped by Ctrl-Z or a debugger while it joined or left).
    RB_ERR_LOCK_TIMED_OUT = -19,
    /// `rb_client_call`: no server serves the service (none was started, or it exited or
    /// was killed). Start one and call again; the client finds it by name.
    RB_ERR_SERVER_GONE = -20,
    /// A bug in ringbus; the message says where.
    RB_ERR_PANIC = -99,
}

/// A failed call: its status and the message for [`rb_last_error`].
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: rb_status,
    pub message: String,
}

impl Failure {
    pub(crate) fn invalid(message: impl Into<String>) -> Failure {
        Failure { status: rb_status::RB_ERR_INVALID_ARGUMENT, message: message.into() }
    }
}

impl From<OpenError> for Failure {
    fn from(e: OpenError) -> Failure {
        use rb_status::*;
        let status = match &e {
            OpenError::Io { .. } => RB_ERR_IO,
            OpenError::RootUnusable { .. } => RB_ERR_ROOT_UNUSABLE,
            OpenError::NoSpace { .. } | OpenError::NoInodes { .. } => RB_ERR_NO_SPACE,
            OpenError::InvalidName { .. } => RB_ERR_INVALID_NAME,
            OpenError::InvalidConfig { .. } => RB_ERR_INVALID_CONFIG,
            OpenError::ConfigMismatch { .. } | OpenError::TypeMismatch { .. } => RB_ERR_MISMATCH,
            OpenError::Foreign { .. } => RB_ERR_FOREIGN,
            OpenError::VersionMismatch { .. } => RB_ERR_VERSION_MISMATCH,
            OpenError::Corrupted { .. } => RB_ERR_CORRUPTED,
            OpenError::TooMany { .. } => RB_ERR_TOO_MANY,
            OpenError::LockTimedOut { .. } => RB_ERR_LOCK_TIMED_OUT,
            // The C API sets no cancel flag.
            OpenError::Interrupted { .. } => RB_ERR_IO,
        };
        Failure { status, message: e.to_string() }
    }
}

impl From<LoanError> for Failure {
    fn from(e: LoanError) -> Failure {
        let status = match &e {
            LoanError::TooLarge { .. } => rb_status::RB_ERR_TOO_LARGE,
            LoanError::PoolExhausted { .. } => rb_status::RB_ERR_POOL_EXHAUSTED,
            LoanError::TypeMismatch { .. } => rb_status::RB_ERR_MISMATCH,
            LoanError::NoSpace { .. } => rb_status::RB_ERR_NO_SPACE,
            LoanError::PoolBudget { .. } => rb_status::RB_ERR_POOL_BUDGET,
            LoanError::Reserve { .. } => rb_status::RB_ERR_IO,
            LoanError::Truncated { .. } => rb_status::RB_ERR_CORRUPTED,
            LoanError::Full { .. } => rb_status::RB_ERR_FULL,
        };
        Failure { status, message: e.to_string() }
    }
}

impl From<TakeError> for Failure {
    fn from(e: TakeError) -> Failure {
        let message = e.to_string();
        let status = match e {
            TakeError::HeldLimit { .. } => rb_status::RB_ERR_HELD_LIMIT,
            TakeError::Corrupted { .. } | TakeError::Truncated { .. } | TakeError::TopicTruncated { .. } => {
                rb_status::RB_ERR_CORRUPTED
            }
            TakeError::Attach(open) => Failure::from(open).status,
        };
        Failure { status, message }
    }
}

impl From<ReceiveError> for Failure {
    fn from(e: ReceiveError) -> Failure {
        match e {
            ReceiveError::Take(take) => Failure::from(take),
            ReceiveError::PollingOnly => Failure { status: rb_status::RB_ERR_POLLING_ONLY, message: e.to_string() },
            // Callers turn a timeout into RB_TIMEOUT before it gets here.
            ReceiveError::Timeout => Failure { status: rb_status::RB_TIMEOUT, message: e.to_string() },
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message with an interior NUL (a path could hold one) is cut there rather than lost.
    let text = message.split('\0').next().unwrap_or_default();
    let text = CString::new(text).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// Runs the body of an exported function: its failure becomes a status and the thread's
/// last error, and a panic becomes `RB_ERR_PANIC` instead of unwinding into C.
pub(crate) fn guard(body: impl FnOnce() -> Result<rb_status, Failure>) -> rb_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(status)) => status,
        Ok(Err(failure)) => {
            set_last_error(&failure.message);
            failure.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_last_error(&format!("ringbus panicked ({what}); this is a bug in ringbus, please report it"));
            rb_status::RB_ERR_PANIC
        }
    }
}

/// Reads a NUL-terminated UTF-8 argument.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that outlives the call.
pub(crate) unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::invalid(format!("{what} is NULL")));
    }
    // SAFETY: non-NULL, and the caller promises a NUL-terminated string living through the call.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map_err(|_| Failure::invalid(format!("{what} is not UTF-8: {}", c.to_string_lossy())))
}

/// Borrows a handle argument.
///
/// # Safety
/// `p` is NULL or a live handle of this type, used by no other thread during the call.
pub(crate) unsafe fn handle<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller promises a live, unshared handle when it is not NULL.
    unsafe { p.as_mut() }.ok_or_else(|| Failure::invalid(format!("{what} is NULL")))
}

/// Borrows a handle argument that several threads may use at once (its type is `Sync`).
///
/// # Safety
/// `p` is NULL or a live handle of this type, closed by no thread during the call.
pub(crate) unsafe fn shared<'a, T: Sync>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller promises a live handle when it is not NULL; `T: Sync` makes
    // shared use from several threads sound.
    unsafe { p.as_ref() }.ok_or_else(|| Failure::invalid(format!("{what} is NULL")))
}

/// A C timeout in nanoseconds: negative means no limit.
pub(crate) fn timeout(ns: i64) -> Option<std::time::Duration> {
    u64::try_from(ns).ok().map(std::time::Duration::from_nanos)
}

/// Checks an out-pointer and clears what it points to, so that a failed call leaves NULL.
///
/// # Safety
/// `out` is NULL or valid for one write of a pointer.
pub(crate) unsafe fn out<'a, T>(out: *mut *mut T, what: &str) -> Result<&'a mut *mut T, Failure> {
    // SAFETY: the caller promises `out` is writable when it is not NULL.
    let slot = unsafe { out.as_mut() }.ok_or_else(|| Failure::invalid(format!("{what} is NULL")))?;
    *slot = std::ptr::null_mut();
    Ok(slot)
}

/// Drops a handle given back by C (NULL: nothing).
///
/// # Safety
/// `p` is NULL or a pointer from `Box::into_raw` given back once.
pub(crate) unsafe fn free<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: the caller gives back a pointer from Box::into_raw, once.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// The message of the last call that failed on this thread ("" if none has): what went
/// wrong and what to do. Valid until the next failing call on this thread.
#[no_mangle]
pub extern "C" fn rb_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The library's version, e.g. "0.1.0" (static storage).
#[no_mangle]
pub extern "C" fn rb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
