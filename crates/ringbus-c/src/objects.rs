//! `rb_latch` and `rb_semaphore`: named objects under a node's root, for waking and
//! counting between processes (a PostgreSQL-style latch; job tokens without a pipe).
//!
//! Both are `Sync`, so one handle may be used by several threads at once (never while
//! another closes it).

use crate::call::{free, guard, out, shared, text, timeout, Failure};
use crate::node::rb_node;
use crate::rb_status;
use ringbus::{Latch, Root, Semaphore};
use std::ffi::c_char;

/// A one-bit event between processes: `rb_latch_set` wakes every waiter (one system call,
/// none if nobody waits); the owner resets it, then looks for work, then waits.
pub struct rb_latch(pub(crate) Latch);

/// A counting semaphore between processes: `rb_semaphore_post` wakes exactly one sleeper
/// (no herd) and makes no system call when nobody sleeps.
pub struct rb_semaphore(pub(crate) Semaphore);

/// The opening steps both objects share: check the out-pointer, borrow the node, read the
/// name, open, hand the handle over.
///
/// # Safety
/// `node` is NULL or a live node; `name` NULL or NUL-terminated; `out_handle` NULL or
/// writable.
unsafe fn open_object<T>(
    node: *const rb_node,
    name: *const c_char,
    out_handle: *mut *mut T,
    out_name: &str,
    open: impl FnOnce(&Root, &str) -> Result<T, Failure>,
) -> rb_status {
    guard(|| {
        // SAFETY: forwarded from the caller's contract.
        let slot = unsafe { out(out_handle, out_name) }?;
        // SAFETY: forwarded from the caller's contract.
        let node = unsafe { shared(node, "node") }?;
        // SAFETY: forwarded from the caller's contract.
        let name = unsafe { text(name, "name") }?;
        *slot = Box::into_raw(Box::new(open(node.0.root(), name)?));
        Ok(rb_status::RB_OK)
    })
}

/// Opens the latch `name` under the node's root, creating it (not set) if it does not
/// exist. Names follow the topic-name rules. On success `*out_latch` is the latch, to be
/// closed with `rb_latch_close`; on failure it is NULL.
///
/// # Safety
/// `node` is a live node; `name` a NUL-terminated string; `out_latch` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_latch_open(
    node: *const rb_node,
    name: *const c_char,
    out_latch: *mut *mut rb_latch,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe { open_object(node, name, out_latch, "out_latch", |root, name| Ok(rb_latch(Latch::open(root, name)?))) }
}

/// Sets the latch and wakes every waiter; setting a set latch does nothing.
///
/// # Safety
/// `latch` is a live latch.
#[no_mangle]
pub unsafe extern "C" fn rb_latch_set(latch: *const rb_latch) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { shared(latch, "latch") }?.0.set();
        Ok(rb_status::RB_OK)
    })
}

/// Clears the latch. Reset, *then* look for work, then wait: a set in between is never
/// missed.
///
/// # Safety
/// `latch` is a live latch.
#[no_mangle]
pub unsafe extern "C" fn rb_latch_reset(latch: *const rb_latch) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { shared(latch, "latch") }?.0.reset();
        Ok(rb_status::RB_OK)
    })
}

/// Whether the latch is set (NULL: false).
///
/// # Safety
/// `latch` is NULL or a live latch.
#[no_mangle]
pub unsafe extern "C" fn rb_latch_is_set(latch: *const rb_latch) -> bool {
    // SAFETY: the caller's contract.
    unsafe { latch.as_ref() }.is_some_and(|l| l.0.is_set())
}

/// Waits until the latch is set (at once if it is), at most `timeout_ns` nanoseconds
/// (negative: no limit): `RB_OK`, or `RB_TIMEOUT`.
///
/// # Safety
/// `latch` is a live latch.
#[no_mangle]
pub unsafe extern "C" fn rb_latch_wait(latch: *const rb_latch, timeout_ns: i64) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let latch = unsafe { shared(latch, "latch") }?;
        Ok(match latch.0.wait(timeout(timeout_ns)) {
            Ok(()) => rb_status::RB_OK,
            Err(_) => rb_status::RB_TIMEOUT,
        })
    })
}

/// Removes the latch's name, like `sem_unlink`: handles already open keep working; the
/// next open of the name creates a new latch.
///
/// # Safety
/// `latch` is a live latch.
#[no_mangle]
pub unsafe extern "C" fn rb_latch_unlink(latch: *const rb_latch) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { shared(latch, "latch") }?.0.unlink();
        Ok(rb_status::RB_OK)
    })
}

/// Closes this handle (NULL: nothing); the latch itself stays for other handles and
/// processes.
///
/// # Safety
/// `latch` is NULL or a latch from `rb_latch_open` not closed yet, in use by no thread.
#[no_mangle]
pub unsafe extern "C" fn rb_latch_close(latch: *mut rb_latch) {
    // SAFETY: the caller gives back a pointer from rb_latch_open, once.
    unsafe { free(latch) }
}

/// Opens the semaphore `name` under the node's root, creating it with `initial` tokens
/// (at most 2^31 - 1) if it does not exist; an existing semaphore keeps its count. On
/// success `*out_semaphore` is the semaphore, to be closed with `rb_semaphore_close`; on
/// failure it is NULL.
///
/// # Safety
/// `node` is a live node; `name` a NUL-terminated string; `out_semaphore` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_semaphore_open(
    node: *const rb_node,
    name: *const c_char,
    initial: u32,
    out_semaphore: *mut *mut rb_semaphore,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        open_object(node, name, out_semaphore, "out_semaphore", |root, name| {
            Ok(rb_semaphore(Semaphore::open(root, name, initial)?))
        })
    }
}

/// Returns a token and wakes exactly one sleeper, if any sleeps: `RB_OK`, or
/// `RB_ERR_SEMAPHORE_FULL` (nothing changed) when it already holds 2^31 - 1 tokens.
///
/// # Safety
/// `semaphore` is a live semaphore.
#[no_mangle]
pub unsafe extern "C" fn rb_semaphore_post(semaphore: *const rb_semaphore) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let semaphore = unsafe { shared(semaphore, "semaphore") }?;
        semaphore.0.post().map_err(|e| Failure { status: rb_status::RB_ERR_SEMAPHORE_FULL, message: e.to_string() })?;
        Ok(rb_status::RB_OK)
    })
}

/// Takes a token if one is free, without blocking and without a system call: `RB_OK`
/// (taken) or `RB_EMPTY` (none free).
///
/// # Safety
/// `semaphore` is a live semaphore.
#[no_mangle]
pub unsafe extern "C" fn rb_semaphore_try_wait(semaphore: *const rb_semaphore) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let taken = unsafe { shared(semaphore, "semaphore") }?.0.try_wait();
        Ok(if taken { rb_status::RB_OK } else { rb_status::RB_EMPTY })
    })
}

/// Takes a token, sleeping until one is free, at most `timeout_ns` nanoseconds (negative:
/// no limit): `RB_OK` (taken), or `RB_TIMEOUT` (nothing taken).
///
/// # Safety
/// `semaphore` is a live semaphore.
#[no_mangle]
pub unsafe extern "C" fn rb_semaphore_wait(semaphore: *const rb_semaphore, timeout_ns: i64) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let semaphore = unsafe { shared(semaphore, "semaphore") }?;
        let taken = match timeout(timeout_ns) {
            None => {
                semaphore.0.wait();
                true
            }
            Some(limit) => semaphore.0.wait_timeout(limit).is_ok(),
        };
        Ok(if taken { rb_status::RB_OK } else { rb_status::RB_TIMEOUT })
    })
}

/// Free tokens right now, a snapshot (NULL: 0).
///
/// # Safety
/// `semaphore` is NULL or a live semaphore.
#[no_mangle]
pub unsafe extern "C" fn rb_semaphore_value(semaphore: *const rb_semaphore) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { semaphore.as_ref() }.map_or(0, |s| s.0.value())
}

/// Removes the semaphore's name, like `sem_unlink`: handles already open keep working;
/// the next open of the name creates a new semaphore.
///
/// # Safety
/// `semaphore` is a live semaphore.
#[no_mangle]
pub unsafe extern "C" fn rb_semaphore_unlink(semaphore: *const rb_semaphore) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { shared(semaphore, "semaphore") }?.0.unlink();
        Ok(rb_status::RB_OK)
    })
}

/// Closes this handle (NULL: nothing); the semaphore and its tokens stay for other
/// handles and processes. Tokens taken through it and not posted back stay taken: like a
/// POSIX semaphore, a process that dies holding tokens loses them.
///
/// # Safety
/// `semaphore` is NULL or a semaphore from `rb_semaphore_open` not closed yet, in use by
/// no thread.
#[no_mangle]
pub unsafe extern "C" fn rb_semaphore_close(semaphore: *mut rb_semaphore) {
    // SAFETY: the caller gives back a pointer from rb_semaphore_open, once.
    unsafe { free(semaphore) }
}
