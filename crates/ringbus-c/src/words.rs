//! `rb_word_wait` and `rb_word_wake`: waiting on and waking any 32-bit word in memory shared
//! between processes, with no handle, no fd and no node — the address is the rendezvous.
//! The word may live in a ringbus segment or in the caller's own `MAP_SHARED` mapping (a
//! file in `/dev/shm`, a memfd, an anonymous shared mapping inherited over `fork`), mapped
//! at any address in each process. The wait is a shared futex: never the private flag.

use crate::call::{guard, timeout, Failure};
use crate::rb_status;
use std::sync::atomic::AtomicU32;

/// Borrows the word at `word` as an atomic, after checking it is not NULL and is aligned.
///
/// # Safety
/// `word` is NULL, misaligned, or points to a 32-bit word that stays mapped for the call and
/// that every thread and process accesses only atomically (C11 atomics or `__atomic`).
pub(crate) unsafe fn word_at<'a>(word: *const u32) -> Result<&'a AtomicU32, Failure> {
    if word.is_null() {
        return Err(Failure::invalid("word is NULL"));
    }
    if !word.cast::<AtomicU32>().is_aligned() {
        return Err(Failure::invalid(format!("word {word:p} is not 4-byte aligned; a futex word must be")));
    }
    // SAFETY: not NULL and aligned (checked above); `AtomicU32` has the size and alignment
    // of `u32`; the caller promises the word stays mapped for the call and is only accessed
    // atomically, so a shared atomic reference to it is sound.
    Ok(unsafe { AtomicU32::from_ptr(word.cast_mut()) })
}

/// Waits until the 32-bit word at `word` differs from `expected` (at once if it does), at
/// most `timeout_ns` nanoseconds (negative: no limit; 0: only look): `RB_OK`, with the
/// value found in `*out_found` unless `out_found` is NULL, or `RB_TIMEOUT` (`*out_found`
/// untouched). Spurious wake-ups are absorbed.
///
/// Change the word first (an atomic store with release order), then call `rb_word_wake`:
/// a waiter that has not slept yet sees the change and does not sleep.
///
/// # Safety
/// `word` points to a 4-byte aligned word that stays mapped during the call and is accessed
/// only atomically by every thread and process (`__atomic` builtins on a `uint32_t`, or a
/// C11 `_Atomic uint32_t` cast to `const uint32_t *`: the same layout with gcc and clang);
/// `out_found` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rb_word_wait(
    word: *const u32,
    expected: u32,
    timeout_ns: i64,
    out_found: *mut u32,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let word = unsafe { word_at(word) }?;
        let Ok(found) = ringbus::wait(word, expected, timeout(timeout_ns)) else {
            return Ok(rb_status::RB_TIMEOUT);
        };
        // SAFETY: the caller promises `out_found` is NULL or writable.
        if let Some(out) = unsafe { out_found.as_mut() } {
            *out = found;
        }
        Ok(rb_status::RB_OK)
    })
}

/// Wakes up to `n` processes or threads waiting on the word at `word` (`UINT32_MAX`: all of
/// them) — in `rb_word_wait`, a ringbus wait, or a raw shared `FUTEX_WAIT` — with one system
/// call, and stores how many woke in `*out_woken` unless it is NULL. Skip the call when you
/// know nobody waits (a waiters count beside the word): it costs a system call even then.
///
/// # Safety
/// `word` is as for `rb_word_wait` (it is not written); `out_woken` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rb_word_wake(word: *const u32, n: u32, out_woken: *mut u32) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let woken = ringbus::wake(unsafe { word_at(word) }?, n);
        // SAFETY: the caller promises `out_woken` is NULL or writable.
        if let Some(out) = unsafe { out_woken.as_mut() } {
            *out = woken;
        }
        Ok(rb_status::RB_OK)
    })
}
