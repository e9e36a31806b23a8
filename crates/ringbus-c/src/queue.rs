//! `rb_queue_producer` and `rb_queue_consumer`: command queues between processes, whose
//! command type is given at open time (a name, a size, an alignment) and checked by every
//! opener, in any language — a Rust program joins with the same name
//! (`QueueBuilder::type_name`). A push copies one command into the ring and never blocks
//! (`rb_queue_push_timeout` waits for room); a pop copies one out.

use crate::call::{free, guard, handle, out, shared, text, timeout, Failure};
use crate::node::{rb_node, rb_wake};
use crate::rb_status;
use ringbus::queue::QueueBuilder;
use ringbus::{CommandType, Consumer, Node, Producer, PushError, QueueError, RawCommand, Wake};
use std::ffi::{c_char, c_void};

/// Pushes commands into a queue. One thread at a time.
pub struct rb_queue_producer(Producer<RawCommand>);

/// Pops commands from a queue (its only consumer). One thread at a time.
pub struct rb_queue_consumer(pub(crate) Consumer<RawCommand>);

/// How many producers a queue takes (`rb_queue_options::producers`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum rb_queue_producers {
    /// An existing queue's setting; one producer at a time for a new queue.
    RB_QUEUE_DEFAULT = 0,
    /// One producer at a time: pushes need no atomic read-modify-write.
    RB_QUEUE_SPSC = 1,
    /// Up to 64 producers at once; a consumer skips what a producer killed mid-push
    /// claimed and never wrote (`rb_queue_abandoned`).
    RB_QUEUE_MPSC = 2,
}

/// A queue's command type and settings. Zero-initialize it (`rb_queue_options o = {0};`),
/// then give the command type — `type_name` (1 to 256 bytes, the same in every program that
/// opens the queue, e.g. "arm.move"), `command_size` (1 to 65536 bytes) and `command_align`
/// (a power of two up to 4096; 0 means 1) — and what else you need. `capacity` (a power of
/// two, 2 to 2^24): 0 means the existing queue's, or 1024 for a new one. `wake`:
/// `RB_WAKE_NEVER` creates a queue nobody sleeps on (pushes and pops skip the wake-up
/// check; waits poll); `RB_WAKE_ON_DATA` (0) takes an existing queue's setting and creates
/// a waking one. A type or set field that differs from an existing queue's makes the open
/// fail with `RB_ERR_MISMATCH`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rb_queue_options {
    /// The command type's name (NUL-terminated).
    pub type_name: *const c_char,
    /// Bytes of one command (`sizeof` your command struct).
    pub command_size: usize,
    /// Its alignment (`_Alignof` your command struct); 0 means 1.
    pub command_align: usize,
    /// Commands the ring holds; 0: the existing queue's, or 1024.
    pub capacity: u32,
    /// An `rb_queue_producers` value.
    pub producers: rb_queue_producers,
    /// An `rb_wake` value.
    pub wake: rb_wake,
}

/// The builder `options` describe, for queue `name`.
///
/// # Safety
/// `options.type_name` is NULL or NUL-terminated.
unsafe fn builder(node: &Node, name: &str, options: &rb_queue_options) -> Result<QueueBuilder<RawCommand>, Failure> {
    // SAFETY: forwarded from the caller's contract.
    let type_name = unsafe { text(options.type_name, "options.type_name") }?;
    let command = CommandType::new(type_name, options.command_size, options.command_align.max(1))?;
    let mut builder = node.raw_queue(name, command);
    if options.capacity != 0 {
        builder = builder.capacity(options.capacity);
    }
    builder = match options.producers {
        rb_queue_producers::RB_QUEUE_DEFAULT => builder,
        rb_queue_producers::RB_QUEUE_SPSC => builder.spsc(),
        rb_queue_producers::RB_QUEUE_MPSC => builder.mpsc(),
    };
    if options.wake == rb_wake::RB_WAKE_NEVER {
        builder = builder.wake(Wake::Never);
    }
    Ok(builder)
}

/// The opening steps both roles share: check the out-pointer, borrow the node and the
/// options, read the name, open, hand the handle over.
///
/// # Safety
/// `node` is NULL or a live node; `name` NULL or NUL-terminated; `options` NULL or valid,
/// its `type_name` NULL or NUL-terminated; `out_handle` NULL or writable.
unsafe fn open_role<T>(
    node: *const rb_node,
    name: *const c_char,
    options: *const rb_queue_options,
    out_handle: *mut *mut T,
    out_name: &str,
    open: impl FnOnce(QueueBuilder<RawCommand>) -> Result<T, Failure>,
) -> rb_status {
    guard(|| {
        // SAFETY: forwarded from the caller's contract.
        let slot = unsafe { out(out_handle, out_name) }?;
        // SAFETY: forwarded from the caller's contract.
        let node = unsafe { shared(node, "node") }?;
        // SAFETY: forwarded from the caller's contract.
        let name = unsafe { text(name, "name") }?;
        // SAFETY: forwarded from the caller's contract.
        let options = unsafe { options.as_ref() }.ok_or_else(|| Failure::invalid("options is NULL"))?;
        // SAFETY: forwarded from the caller's contract.
        let builder = unsafe { builder(&node.0, name, options) }?;
        *slot = Box::into_raw(Box::new(open(builder)?));
        Ok(rb_status::RB_OK)
    })
}

impl From<QueueError> for Failure {
    fn from(e: QueueError) -> Failure {
        let status = match e {
            QueueError::Corrupted(_) => rb_status::RB_ERR_CORRUPTED,
            _ => rb_status::RB_ERR_INVALID_ARGUMENT,
        };
        Failure { status, message: e.to_string() }
    }
}

impl From<PushError<()>> for Failure {
    fn from(e: PushError<()>) -> Failure {
        match e {
            PushError::Full(()) => Failure { status: rb_status::RB_ERR_FULL, message: e.to_string() },
            PushError::Queue(e) => Failure::from(e),
        }
    }
}

/// `count` commands of `size` bytes at `p`, as bytes.
///
/// # Safety
/// `p` is NULL (then `count` must be 0) or readable for `count * size` bytes.
unsafe fn commands<'a>(p: *const c_void, count: usize, size: usize, what: &str) -> Result<&'a [u8], Failure> {
    let len = count.checked_mul(size).ok_or_else(|| Failure::invalid(format!("{what}: {count} commands overflow")))?;
    match (p.is_null(), len) {
        (_, 0) => Ok(&[]),
        (true, _) => Err(Failure::invalid(format!("{what} is NULL"))),
        // SAFETY: the caller promises `len` readable bytes at `p`.
        (false, _) => Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }),
    }
}

/// `count` commands of `size` bytes at `p`, writable.
///
/// # Safety
/// `p` is NULL (then `count` must be 0) or writable for `count * size` bytes, used by
/// nothing else during the call.
unsafe fn commands_mut<'a>(p: *mut c_void, count: usize, size: usize, what: &str) -> Result<&'a mut [u8], Failure> {
    let len = count.checked_mul(size).ok_or_else(|| Failure::invalid(format!("{what}: {count} commands overflow")))?;
    match (p.is_null(), len) {
        (_, 0) => Ok(&mut []),
        (true, _) => Err(Failure::invalid(format!("{what} is NULL"))),
        // SAFETY: the caller promises `len` writable bytes at `p`, unaliased.
        (false, _) => Ok(unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) }),
    }
}

/// Opens the queue `name` under the node's root as a producer, creating it if it does not
/// exist. An SPSC queue takes one producer at a time (another open fails with
/// `RB_ERR_TOO_MANY` while it lives), an MPSC one up to 64. On success `*out_producer` is
/// the producer, to be closed with `rb_queue_producer_close`; on failure it is NULL.
///
/// # Safety
/// `node` is a live node; `name` a NUL-terminated string; `options` valid, with a
/// NUL-terminated `type_name`; `out_producer` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_producer_open(
    node: *const rb_node,
    name: *const c_char,
    options: *const rb_queue_options,
    out_producer: *mut *mut rb_queue_producer,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe { open_role(node, name, options, out_producer, "out_producer", |b| Ok(rb_queue_producer(b.producer()?))) }
}

/// Pushes one command (`command_size` bytes at `command`): `RB_OK`, or `RB_ERR_FULL` when
/// the queue is full (nothing pushed: try again later, or use `rb_queue_push_timeout`).
/// Never blocks; wakes the consumer only if it sleeps.
///
/// # Safety
/// `producer` is a live producer; `command` readable for `command_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_push(producer: *mut rb_queue_producer, command: *const c_void) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let producer = unsafe { handle(producer, "producer") }?;
        // SAFETY: the caller's contract.
        let command = unsafe { commands(command, 1, producer.0.command_size(), "command") }?;
        producer.0.push_bytes(command)?;
        Ok(rb_status::RB_OK)
    })
}

/// Pushes as many of the `count` commands at `commands` (back to back) as fit, in order;
/// `*out_pushed` says how many (0 when full). Never blocks; one wake-up check for all.
///
/// # Safety
/// `producer` is a live producer; `commands` readable for `count * command_size` bytes;
/// `out_pushed` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_push_batch(
    producer: *mut rb_queue_producer,
    commands: *const c_void,
    count: usize,
    out_pushed: *mut usize,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let producer = unsafe { handle(producer, "producer") }?;
        // SAFETY: the caller's contract.
        let bytes = unsafe { self::commands(commands, count, producer.0.command_size(), "commands") }?;
        let pushed = producer.0.push_batch_bytes(bytes)?;
        // SAFETY: the caller's contract (NULL: the count is not wanted).
        if let Some(out) = unsafe { out_pushed.as_mut() } {
            *out = pushed;
        }
        Ok(rb_status::RB_OK)
    })
}

/// Pushes one command, waiting at most `timeout_ns` nanoseconds (negative: no limit) for
/// room: `RB_OK`, or `RB_TIMEOUT` (nothing pushed).
///
/// # Safety
/// As `rb_queue_push`.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_push_timeout(
    producer: *mut rb_queue_producer,
    command: *const c_void,
    timeout_ns: i64,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let producer = unsafe { handle(producer, "producer") }?;
        // SAFETY: the caller's contract.
        let command = unsafe { commands(command, 1, producer.0.command_size(), "command") }?;
        match producer.0.push_bytes_timeout(command, timeout(timeout_ns)) {
            Ok(()) => Ok(rb_status::RB_OK),
            Err(PushError::Full(())) => Ok(rb_status::RB_TIMEOUT),
            Err(e) => Err(e.into()),
        }
    })
}

/// Whether the queue's consumer is alive (NULL: false). One system call.
///
/// # Safety
/// `producer` is NULL or a live producer.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_consumer_alive(producer: *const rb_queue_producer) -> bool {
    // SAFETY: the caller's contract.
    unsafe { producer.as_ref() }.is_some_and(|p| p.0.consumer_alive())
}

/// Closes the producer (NULL: nothing); the queue and what it holds stay.
///
/// # Safety
/// `producer` is NULL or a producer from `rb_queue_producer_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_producer_close(producer: *mut rb_queue_producer) {
    // SAFETY: the caller gives back a pointer from rb_queue_producer_open, once.
    unsafe { free(producer) }
}

/// Opens the queue `name` under the node's root as its consumer, creating it if it does
/// not exist. One consumer at a time: another open fails with `RB_ERR_TOO_MANY` while it
/// lives; after it dies, the next one takes over what was queued. On success
/// `*out_consumer` is the consumer, to be closed with `rb_queue_consumer_close`; on
/// failure it is NULL.
///
/// # Safety
/// As `rb_queue_producer_open`, with `out_consumer` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_consumer_open(
    node: *const rb_node,
    name: *const c_char,
    options: *const rb_queue_options,
    out_consumer: *mut *mut rb_queue_consumer,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe { open_role(node, name, options, out_consumer, "out_consumer", |b| Ok(rb_queue_consumer(b.consumer()?))) }
}

/// Pops the oldest command into `out_command` (`command_size` bytes): `RB_OK`, or
/// `RB_EMPTY` (nothing written). Never blocks.
///
/// # Safety
/// `consumer` is a live consumer; `out_command` writable for `command_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_pop(consumer: *mut rb_queue_consumer, out_command: *mut c_void) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let consumer = unsafe { handle(consumer, "consumer") }?;
        // SAFETY: the caller's contract.
        let out = unsafe { commands_mut(out_command, 1, consumer.0.command_size(), "out_command") }?;
        Ok(if consumer.0.pop_bytes(out)? { rb_status::RB_OK } else { rb_status::RB_EMPTY })
    })
}

/// Pops up to `max` commands into `out_commands` (back to back, oldest first);
/// `*out_popped` says how many (0 when empty). Never blocks.
///
/// # Safety
/// `consumer` is a live consumer; `out_commands` writable for `max * command_size` bytes;
/// `out_popped` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_pop_batch(
    consumer: *mut rb_queue_consumer,
    out_commands: *mut c_void,
    max: usize,
    out_popped: *mut usize,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let consumer = unsafe { handle(consumer, "consumer") }?;
        // SAFETY: the caller's contract.
        let out = unsafe { commands_mut(out_commands, max, consumer.0.command_size(), "out_commands") }?;
        let popped = consumer.0.pop_batch_bytes(out)?;
        // SAFETY: the caller's contract (NULL: the count is not wanted).
        if let Some(out) = unsafe { out_popped.as_mut() } {
            *out = popped;
        }
        Ok(rb_status::RB_OK)
    })
}

/// Waits until a command is ready, at most `timeout_ns` nanoseconds (negative: no limit):
/// `RB_OK` (pop it now), or `RB_TIMEOUT`. Sleeps only while the queue is empty; in a
/// `RB_WAKE_NEVER` queue it polls.
///
/// # Safety
/// `consumer` is a live consumer.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_wait(consumer: *mut rb_queue_consumer, timeout_ns: i64) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let consumer = unsafe { handle(consumer, "consumer") }?;
        Ok(if consumer.0.wait(timeout(timeout_ns)) { rb_status::RB_OK } else { rb_status::RB_TIMEOUT })
    })
}

/// Commands skipped because their MPSC producer was killed after claiming their slots and
/// before writing them (NULL: 0). Never a command a live producer pushed.
///
/// # Safety
/// `consumer` is NULL or a live consumer.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_abandoned(consumer: *const rb_queue_consumer) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { consumer.as_ref() }.map_or(0, |c| c.0.abandoned())
}

/// Removes the queue's name, like `sem_unlink`: handles already open keep working; the
/// next open of the name creates a new queue.
///
/// # Safety
/// `consumer` is a live consumer.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_unlink(consumer: *const rb_queue_consumer) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract (read only: `unlink` takes `&self`).
        let consumer = unsafe { consumer.as_ref() }.ok_or_else(|| Failure::invalid("consumer is NULL"))?;
        consumer.0.unlink();
        Ok(rb_status::RB_OK)
    })
}

/// Closes the consumer (NULL: nothing); the queue and what it holds stay, for the next
/// consumer.
///
/// # Safety
/// `consumer` is NULL or a consumer from `rb_queue_consumer_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn rb_queue_consumer_close(consumer: *mut rb_queue_consumer) {
    // SAFETY: the caller gives back a pointer from rb_queue_consumer_open, once.
    unsafe { free(consumer) }
}
