//! `rb_publisher`: loan a chunk, write the message in place, publish it (zero copy), or
//! publish a copy of a buffer.

use crate::call::{guard, handle, out, Failure};
use crate::node::{builder, rb_node, rb_topic_options};
use crate::rb_status;
use ringbus::{DetachedLoan, Publisher};
use std::ffi::{c_char, c_void};

/// A publisher on one topic, with at most one loan outstanding.
pub struct rb_publisher {
    publisher: Publisher,
    loan: Option<DetachedLoan>,
}

/// Opens a publisher on `topic` (created with `options` if it does not exist; NULL: all
/// defaults). On success `*out_publisher` is the publisher, to be closed with
/// `rb_publisher_close`; on failure it is NULL.
///
/// # Safety
/// `node` is a live node; `topic` a NUL-terminated string; `options` NULL or readable;
/// `out_publisher` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_open(
    node: *const rb_node,
    topic: *const c_char,
    options: *const rb_topic_options,
    out_publisher: *mut *mut rb_publisher,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(out_publisher, "out_publisher") }?;
        // SAFETY: the caller's contract.
        let publisher = unsafe { builder(node, topic, options) }?.publisher()?;
        *slot = Box::into_raw(Box::new(rb_publisher { publisher, loan: None }));
        Ok(rb_status::RB_OK)
    })
}

/// Closes a publisher (NULL: nothing), discarding its outstanding loan. Subscribers can
/// still take what it published.
///
/// # Safety
/// `publisher` is NULL or a publisher from `rb_publisher_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_close(publisher: *mut rb_publisher) {
    if publisher.is_null() {
        return;
    }
    // SAFETY: the caller gives back a pointer from Box::into_raw, once.
    let mut p = unsafe { Box::from_raw(publisher) };
    if let Some(loan) = p.loan.take() {
        p.publisher.discard_detached(loan);
    }
}

/// Lends `len` bytes of `p`'s next chunk and points `slot` at them.
fn lend(p: &mut rb_publisher, len: usize, slot: &mut *mut c_void) -> Result<rb_status, Failure> {
    if p.loan.is_some() {
        return Err(Failure::invalid(
            "this publisher already has a loan outstanding; publish or discard it before taking another",
        ));
    }
    let mut loan = p.publisher.loan_detached(len)?;
    *slot = p.publisher.detached_bytes(&mut loan).as_mut_ptr().cast();
    p.loan = Some(loan);
    Ok(rb_status::RB_OK)
}

/// Lends a chunk of `len` bytes (at most the topic's `max_payload_bytes`) and sets `*data`
/// to it: write the message there, then `rb_publisher_publish` (or `rb_publisher_discard`).
/// The memory is shared: do not keep the pointer after publishing. One loan at a time per
/// publisher: a second one fails with `RB_ERR_INVALID_ARGUMENT`. A loan that would take
/// the publisher's memory over the topic's `pool_bytes` fails with `RB_ERR_POOL_BUDGET`,
/// one the shared-memory filesystem has no room for with `RB_ERR_NO_SPACE`; smaller loans
/// may still succeed. Never blocks, unless the topic has a reliable subscriber that has not
/// taken the message this loan would overwrite (it is `depth` messages behind): then the
/// loan waits for it or fails with `RB_ERR_FULL`, as the publisher's `when_full` says.
///
/// # Safety
/// `publisher` is a live publisher; `data` is writable.
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_loan(
    publisher: *mut rb_publisher,
    len: usize,
    data: *mut *mut c_void,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(data, "data") }?;
        // SAFETY: the caller's contract.
        let p = unsafe { handle(publisher, "publisher") }?;
        lend(p, len, slot)
    })
}

/// Lends a chunk for an array of `count` elements of `element_size` bytes (e.g.
/// `sizeof(struct point)`) and sets `*data` to its first element, as `rb_publisher_loan`
/// does for `count * element_size` bytes; publish it with `rb_publisher_publish(publisher,
/// count * element_size)`. Chunks are aligned to at least 64 bytes (more than any standard
/// C type needs).
/// An element size of 0 fails with `RB_ERR_INVALID_ARGUMENT`, a product that overflows
/// `size_t` with `RB_ERR_TOO_LARGE`. Subscribers read it with `rb_sample_array`.
///
/// # Safety
/// `publisher` is a live publisher; `data` is writable.
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_loan_array(
    publisher: *mut rb_publisher,
    element_size: usize,
    count: usize,
    data: *mut *mut c_void,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(data, "data") }?;
        // SAFETY: the caller's contract.
        let p = unsafe { handle(publisher, "publisher") }?;
        if element_size == 0 {
            return Err(Failure::invalid("element_size is 0; pass sizeof the element type"));
        }
        let len = element_size.checked_mul(count).ok_or_else(|| Failure {
            status: rb_status::RB_ERR_TOO_LARGE,
            message: format!(
                "{count} elements of {element_size} bytes are more bytes than size_t holds; \
                 a loan holds at most the topic's max_payload_bytes"
            ),
        })?;
        lend(p, len, slot)
    })
}

/// Bytes of payload memory the publisher holds right now: with preallocation, the whole
/// pool; otherwise what the messages lent, in the log or held by subscribers take (whole
/// pages), at most the topic's `pool_bytes`.
///
/// # Safety
/// `publisher` is NULL (0 is returned) or a live publisher.
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_reserved_payload_bytes(publisher: *const rb_publisher) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { publisher.as_ref() }.map_or(0, |p| p.publisher.reserved_payload_bytes())
}

/// Publishes the outstanding loan's first `len` bytes (at most what was loaned): every
/// subscriber sees them, sleeping ones are woken (one system call at most).
///
/// # Safety
/// `publisher` is a live publisher.
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_publish(publisher: *mut rb_publisher, len: usize) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let p = unsafe { handle(publisher, "publisher") }?;
        let Some(mut loan) = p.loan.take() else {
            return Err(Failure::invalid("nothing to publish: take a loan with rb_publisher_loan first"));
        };
        if len > loan.len() {
            let loaned = loan.len();
            p.loan = Some(loan);
            return Err(Failure::invalid(format!(
                "cannot publish {len} bytes from a loan of {loaned}; the loan is still outstanding"
            )));
        }
        loan.truncate(len);
        p.publisher.publish_detached(loan);
        Ok(rb_status::RB_OK)
    })
}

/// Gives the outstanding loan back unpublished (no loan: nothing).
///
/// # Safety
/// `publisher` is a live publisher.
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_discard(publisher: *mut rb_publisher) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let p = unsafe { handle(publisher, "publisher") }?;
        if let Some(loan) = p.loan.take() {
            p.publisher.discard_detached(loan);
        }
        Ok(rb_status::RB_OK)
    })
}

/// Publishes a copy of `len` bytes at `data` (one copy into shared memory). Its loan may
/// wait for a reliable subscriber or fail with `RB_ERR_FULL`, as `rb_publisher_loan`'s.
///
/// # Safety
/// `publisher` is a live publisher; `data` is readable for `len` bytes (or `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn rb_publisher_publish_copy(
    publisher: *mut rb_publisher,
    data: *const c_void,
    len: usize,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let p = unsafe { handle(publisher, "publisher") }?;
        let bytes = match (data.is_null(), len) {
            (_, 0) => &[][..],
            (true, _) => return Err(Failure::invalid(format!("data is NULL but len is {len}"))),
            // SAFETY: non-NULL, and the caller promises `len` readable bytes.
            (false, _) => unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) },
        };
        p.publisher.publish_copy(bytes)?;
        Ok(rb_status::RB_OK)
    })
}
