//! `rb_subscriber` and `rb_sample`: take or wait for messages, read them in place.

use crate::call::{free, guard, handle, out, timeout, Failure};
use crate::node::{builder, rb_node, rb_topic_options};
use crate::rb_status;
use ringbus::{ReceiveError, Sample, Subscriber, ViewError};
use std::ffi::{c_char, c_void};

/// A subscriber on one topic.
pub struct rb_subscriber(pub(crate) Subscriber);

/// A message held in place in shared memory until `rb_sample_release`; it counts against
/// the topic's `max_held` and keeps its chunk from being reused meanwhile.
pub struct rb_sample(Sample);

/// Opens a subscriber on `topic` (created with `options` if it does not exist; NULL: all
/// defaults). It receives what is published from now on, plus `history` older messages.
/// On success `*out_subscriber` is the subscriber, to be closed with
/// `rb_subscriber_close`; on failure it is NULL.
///
/// # Safety
/// `node` is a live node; `topic` a NUL-terminated string; `options` NULL or readable;
/// `out_subscriber` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_subscriber_open(
    node: *const rb_node,
    topic: *const c_char,
    options: *const rb_topic_options,
    out_subscriber: *mut *mut rb_subscriber,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(out_subscriber, "out_subscriber") }?;
        // SAFETY: the caller's contract.
        let subscriber = unsafe { builder(node, topic, options) }?.subscriber()?;
        *slot = Box::into_raw(Box::new(rb_subscriber(subscriber)));
        Ok(rb_status::RB_OK)
    })
}

/// Closes a subscriber (NULL: nothing). Samples it took stay valid until released.
///
/// # Safety
/// `subscriber` is NULL or a subscriber from `rb_subscriber_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn rb_subscriber_close(subscriber: *mut rb_subscriber) {
    // SAFETY: the caller gives back a pointer from rb_*_open/take/receive, once.
    unsafe { free(subscriber) }
}

fn hand_over(slot: &mut *mut rb_sample, sample: Sample) -> rb_status {
    *slot = Box::into_raw(Box::new(rb_sample(sample)));
    rb_status::RB_OK
}

/// The next unread message, without blocking and without a system call: `RB_OK` with
/// `*out_sample` set, or `RB_EMPTY` with it NULL.
///
/// # Safety
/// `subscriber` is a live subscriber; `out_sample` is writable.
#[no_mangle]
pub unsafe extern "C" fn rb_subscriber_take(
    subscriber: *mut rb_subscriber,
    out_sample: *mut *mut rb_sample,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(out_sample, "out_sample") }?;
        // SAFETY: the caller's contract.
        let s = unsafe { handle(subscriber, "subscriber") }?;
        Ok(match s.0.take()? {
            Some(sample) => hand_over(slot, sample),
            None => rb_status::RB_EMPTY,
        })
    })
}

/// Waits for the next message, sleeping in the kernel if there is none, at most
/// `timeout_ns` nanoseconds (negative: no limit): `RB_OK` with `*out_sample` set, or
/// `RB_TIMEOUT` with it NULL.
///
/// # Safety
/// `subscriber` is a live subscriber; `out_sample` is writable.
#[no_mangle]
pub unsafe extern "C" fn rb_subscriber_receive(
    subscriber: *mut rb_subscriber,
    timeout_ns: i64,
    out_sample: *mut *mut rb_sample,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(out_sample, "out_sample") }?;
        // SAFETY: the caller's contract.
        let s = unsafe { handle(subscriber, "subscriber") }?;
        match s.0.receive(timeout(timeout_ns)) {
            Ok(sample) => Ok(hand_over(slot, sample)),
            Err(ReceiveError::Timeout) => Ok(rb_status::RB_TIMEOUT),
            Err(e) => Err(e.into()),
        }
    })
}

/// Messages taken so far.
///
/// # Safety
/// `subscriber` is NULL (0 is returned) or a live subscriber.
#[no_mangle]
pub unsafe extern "C" fn rb_subscriber_taken(subscriber: *const rb_subscriber) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { subscriber.as_ref() }.map_or(0, |s| s.0.taken())
}

/// Messages overwritten before they were taken (`keep_last`, or a publisher lapping a slow
/// subscriber).
///
/// # Safety
/// `subscriber` is NULL (0 is returned) or a live subscriber.
#[no_mangle]
pub unsafe extern "C" fn rb_subscriber_lost(subscriber: *const rb_subscriber) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { subscriber.as_ref() }.map_or(0, |s| s.0.lost())
}

/// The message's bytes, in place in shared memory (read-only), valid until
/// `rb_sample_release`.
///
/// # Safety
/// `sample` is NULL (NULL is returned) or a live sample.
#[no_mangle]
pub unsafe extern "C" fn rb_sample_data(sample: *const rb_sample) -> *const c_void {
    // SAFETY: the caller's contract.
    unsafe { sample.as_ref() }.map_or(std::ptr::null(), |s| s.0.as_ptr().cast())
}

/// The message's length in bytes.
///
/// # Safety
/// `sample` is NULL (0 is returned) or a live sample.
#[no_mangle]
pub unsafe extern "C" fn rb_sample_len(sample: *const rb_sample) -> usize {
    // SAFETY: the caller's contract.
    unsafe { sample.as_ref() }.map_or(0, |s| s.0.len())
}

/// The message as an array of elements of `element_size` bytes aligned to `element_align`
/// (`sizeof` and `_Alignof` of the element type): on `RB_OK`, `*data` is the first element,
/// in place in shared memory (read-only) until `rb_sample_release`, and `*count` the number
/// of elements. `RB_ERR_INVALID_ARGUMENT` (with `*data` NULL and `*count` 0) if the message
/// is not a whole number of elements, is not aligned to `element_align`, or `element_size`
/// is 0 or `element_align` not a power of two.
///
/// # Safety
/// `sample` is a live sample; `data` and `count` are writable.
#[no_mangle]
pub unsafe extern "C" fn rb_sample_array(
    sample: *const rb_sample,
    element_size: usize,
    element_align: usize,
    data: *mut *const c_void,
    count: *mut usize,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller promises `data` writable when it is not NULL.
        let slot = unsafe { data.as_mut() }.ok_or_else(|| Failure::invalid("data is NULL"))?;
        *slot = std::ptr::null();
        // SAFETY: the caller promises `count` writable when it is not NULL.
        let count = unsafe { count.as_mut() }.ok_or_else(|| Failure::invalid("count is NULL"))?;
        *count = 0;
        // SAFETY: the caller's contract.
        let sample = unsafe { sample.as_ref() }.ok_or_else(|| Failure::invalid("sample is NULL"))?;
        if element_size == 0 || !element_align.is_power_of_two() {
            return Err(Failure::invalid(format!(
                "element_size {element_size} and element_align {element_align}: pass sizeof and _Alignof \
                 of the element type (a size above 0, an alignment that is a power of two)"
            )));
        }
        let bytes: &[u8] = &sample.0;
        if !bytes.len().is_multiple_of(element_size) {
            let e = ViewError::SliceSize { type_name: "elements", element: element_size, actual: bytes.len() };
            return Err(Failure::invalid(e.to_string()));
        }
        if !(bytes.as_ptr() as usize).is_multiple_of(element_align) {
            let e = ViewError::Alignment { type_name: "the element type", align: element_align };
            return Err(Failure::invalid(e.to_string()));
        }
        *slot = bytes.as_ptr().cast();
        *count = bytes.len() / element_size;
        Ok(rb_status::RB_OK)
    })
}

/// When it was published: CLOCK_MONOTONIC nanoseconds, comparable across processes.
///
/// # Safety
/// `sample` is NULL (0 is returned) or a live sample.
#[no_mangle]
pub unsafe extern "C" fn rb_sample_timestamp_ns(sample: *const rb_sample) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { sample.as_ref() }.map_or(0, |s| s.0.timestamp_ns())
}

/// Releases a sample (NULL: nothing): its chunk may be reused, and it no longer counts
/// against `max_held`.
///
/// # Safety
/// `sample` is NULL or a sample from `rb_subscriber_take`/`rb_subscriber_receive` not
/// released yet.
#[no_mangle]
pub unsafe extern "C" fn rb_sample_release(sample: *mut rb_sample) {
    // SAFETY: the caller gives back a pointer from rb_*_open/take/receive, once.
    unsafe { free(sample) }
}
