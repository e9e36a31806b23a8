//! `rb_waitset`: one wait over subscribers, shared words, latches, semaphores, fds,
//! intervals and deadlines (what FreeBSD's proposed EVFILT_USERMEM offers, for C), and an
//! fd for foreign event loops.
//!
//! The core wait set is not `Sync` and borrows its words and fds: here it is bound to the
//! thread that opened it (every call from another thread is refused, so it is never
//! touched by two threads), an attached fd is duplicated so the caller may close its own,
//! and a word is the caller's promise to keep it mapped until it is detached. Events that
//! do not fit the caller's array wait in the handle for the next call: a semaphore token
//! is never dropped, and one pending when its source is detached goes back to the
//! semaphore.

use crate::call::{guard, handle, out, shared, timeout, Failure};
use crate::objects::{rb_latch, rb_semaphore};
use crate::queue::rb_queue_consumer;
use crate::rb_status;
use crate::subscriber::rb_subscriber;
use crate::words::word_at;
use ringbus::waitset::Backend;
use ringbus::{Event, EventKind, Interest, Key, Semaphore, WaitSet, WaitSetError};
use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// `rb_waitset_attach_fd`'s interest and `RB_EVENT_FD`'s value: readable.
pub const RB_FD_READABLE: u32 = 1;
/// `rb_waitset_attach_fd`'s interest and `RB_EVENT_FD`'s value: writable.
pub const RB_FD_WRITABLE: u32 = 2;
/// `RB_EVENT_FD`'s value: hung up or failed.
pub const RB_FD_HANGUP: u32 = 4;

/// What became ready.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum rb_event_kind {
    /// The subscriber may have data: `rb_subscriber_take` until `RB_EMPTY`. For a queue's
    /// consumer: a command is ready; `rb_queue_pop` until `RB_EMPTY`.
    RB_EVENT_DATA = 1,
    /// The word changed; `value` is its new value (the next wait waits for it to change again).
    RB_EVENT_WORD = 2,
    /// The latch is set (reported at every wait until it is reset).
    RB_EVENT_LATCH_SET = 3,
    /// A semaphore token was taken for you: `rb_semaphore_post` it back when done.
    RB_EVENT_TOKEN = 4,
    /// The fd is ready (level-triggered); `value` holds `RB_FD_*` bits.
    RB_EVENT_FD = 5,
    /// An interval elapsed; `value` is how many periods passed since it last fired.
    RB_EVENT_INTERVAL = 6,
    /// The deadline passed (reported once).
    RB_EVENT_DEADLINE = 7,
}

/// One ready source: the key its `rb_waitset_attach_*` returned, what happened, and a
/// value for `RB_EVENT_WORD`, `RB_EVENT_FD` and `RB_EVENT_INTERVAL` (0 otherwise).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rb_event {
    pub key: u64,
    pub kind: rb_event_kind,
    pub value: u64,
}

/// One attachment: its core key, the key C sees, and what it keeps alive.
struct Attached {
    key: Key,
    id: u64,
    /// Where a pending token goes back if the source is detached.
    semaphore: Option<Semaphore>,
    _fd: Option<OwnedFd>,
}

/// A wait set, used only by the thread that opened it.
pub struct rb_waitset {
    /// Written once, at creation; any thread may read it to be refused.
    owner: ThreadId,
    /// Reached only by `owner`, one call at a time (see [`on_own_thread`]).
    state: UnsafeCell<State>,
}

struct State {
    /// Declared before `attached`: dropped first, so no source outlives the fd it borrows.
    set: WaitSet<'static>,
    attached: Vec<Attached>,
    next_id: u64,
    /// Events returned by the core that did not fit the caller's array yet.
    pending: VecDeque<rb_event>,
}

impl From<WaitSetError> for Failure {
    fn from(e: WaitSetError) -> Failure {
        let status = match &e {
            WaitSetError::PollingOnly => rb_status::RB_ERR_POLLING_ONLY,
            WaitSetError::TooManyWords => rb_status::RB_ERR_TOO_MANY,
            WaitSetError::NothingToWaitFor => rb_status::RB_ERR_INVALID_ARGUMENT,
            // (The C API attaches no peer death, so `Peer` does not happen.)
            WaitSetError::Unsupported { .. } | WaitSetError::Io(_) | WaitSetError::Peer(_) => rb_status::RB_ERR_IO,
        };
        Failure { status, message: e.to_string() }
    }
}

/// Borrows the wait set's state for a call from its own thread.
///
/// # Safety
/// `ws` is NULL or a live wait set from `rb_waitset_open`.
unsafe fn on_own_thread<'a>(ws: *const rb_waitset) -> Result<&'a mut State, Failure> {
    // SAFETY: the caller promises a live wait set when not NULL. A shared borrow from any
    // thread is sound: `owner` is never written after creation, and `state` is reached only
    // through its `UnsafeCell`, below.
    let ws = unsafe { ws.as_ref() }.ok_or_else(|| Failure::invalid("waitset is NULL"))?;
    if ws.owner != std::thread::current().id() {
        return Err(Failure::invalid("a wait set may be used only by the thread that opened it; open one per thread"));
    }
    // SAFETY: only the owning thread gets here, and no call into the C API runs another
    // (no callbacks), so this is the only borrow of the state.
    Ok(unsafe { &mut *ws.state.get() })
}

impl State {
    fn record(&mut self, key: Key, semaphore: Option<Semaphore>, fd: Option<OwnedFd>) -> u64 {
        self.next_id += 1;
        self.attached.push(Attached { key, id: self.next_id, semaphore, _fd: fd });
        self.next_id
    }

    /// Detaches the source C knows as `key`; a token pending for it goes back.
    fn detach(&mut self, key: u64) -> Result<(), Failure> {
        let i = self
            .attached
            .iter()
            .position(|a| a.id == key)
            .ok_or_else(|| Failure::invalid(format!("no source of this wait set has key {key}")))?;
        self.set.detach(self.attached[i].key);
        let record = self.attached.remove(i);
        let tokens = self.pending.iter().filter(|e| e.key == key && e.kind == rb_event_kind::RB_EVENT_TOKEN).count();
        self.pending.retain(|e| e.key != key);
        if let Some(semaphore) = &record.semaphore {
            for _ in 0..tokens {
                // Taken for the caller and never handed over. Cannot be full: we held it.
                let _ = semaphore.post();
            }
        }
        Ok(())
    }

    fn to_c(&self, event: Event) -> rb_event {
        let id = self.attached.iter().find(|a| a.key == event.key).map_or(0, |a| a.id);
        let (kind, value) = match event.kind {
            EventKind::Data => (rb_event_kind::RB_EVENT_DATA, 0),
            EventKind::Word(v) => (rb_event_kind::RB_EVENT_WORD, u64::from(v)),
            EventKind::LatchSet => (rb_event_kind::RB_EVENT_LATCH_SET, 0),
            EventKind::Token => (rb_event_kind::RB_EVENT_TOKEN, 0),
            EventKind::Fd { readable, writable, hangup } => {
                let bits = [(readable, RB_FD_READABLE), (writable, RB_FD_WRITABLE), (hangup, RB_FD_HANGUP)];
                (rb_event_kind::RB_EVENT_FD, bits.iter().filter(|(on, _)| *on).map(|(_, b)| u64::from(*b)).sum())
            }
            EventKind::Interval(periods) => (rb_event_kind::RB_EVENT_INTERVAL, periods),
            EventKind::Deadline => (rb_event_kind::RB_EVENT_DEADLINE, 0),
            EventKind::PeerGone => unreachable!("the C API attaches no peer death"),
        };
        rb_event { key: id, kind, value }
    }
}

/// Runs an attach: checks the thread and the out-key, attaches, records, returns the key.
///
/// # Safety
/// `ws` is NULL or a live wait set; `out_key` NULL or writable.
unsafe fn attach(
    ws: *mut rb_waitset,
    out_key: *mut u64,
    attach: impl FnOnce(&WaitSet<'static>) -> Result<(Key, Option<Semaphore>, Option<OwnedFd>), Failure>,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller promises `out_key` is NULL or writable.
        let slot = unsafe { handle(out_key, "out_key") }?;
        // SAFETY: forwarded from the caller's contract.
        let ws = unsafe { on_own_thread(ws) }?;
        let (key, semaphore, fd) = attach(&ws.set)?;
        *slot = ws.record(key, semaphore, fd);
        Ok(rb_status::RB_OK)
    })
}

/// Opens an empty wait set on the cheapest backend (futex while only shared-memory sources
/// and timers are attached; io_uring, or epoll where io_uring is refused, once an fd is).
/// It belongs to the calling thread. On failure `*out_waitset` is NULL.
///
/// # Safety
/// `out_waitset` is writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_open(out_waitset: *mut *mut rb_waitset) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let slot = unsafe { out(out_waitset, "out_waitset") }?;
        let state = State { set: WaitSet::new()?, attached: Vec::new(), next_id: 0, pending: VecDeque::new() };
        let ws = rb_waitset { owner: std::thread::current().id(), state: UnsafeCell::new(state) };
        *slot = Box::into_raw(Box::new(ws));
        Ok(rb_status::RB_OK)
    })
}

/// Wakes on data for `subscriber` (opened with `RB_WAKE_ON_DATA`: `RB_ERR_POLLING_ONLY`
/// otherwise). The subscriber stays usable; on `RB_EVENT_DATA`, take until `RB_EMPTY`.
///
/// # Safety
/// `ws` is a live wait set; `subscriber` a live subscriber not used by another thread
/// during the call; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_subscriber(
    ws: *mut rb_waitset,
    subscriber: *const rb_subscriber,
    out_key: *mut u64,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        attach(ws, out_key, |set| {
            let subscriber = subscriber.as_ref().ok_or_else(|| Failure::invalid("subscriber is NULL"))?;
            Ok((set.attach_subscriber(&subscriber.0)?.keep(), None, None))
        })
    }
}

/// Wakes when a command is ready for `consumer` (of a queue opened with
/// `RB_WAKE_ON_DATA`: `RB_ERR_POLLING_ONLY` otherwise), as `RB_EVENT_DATA`. The consumer
/// stays usable; pop until `RB_EMPTY`. Do not also `rb_queue_wait` on it while the wait
/// set sleeps.
///
/// # Safety
/// `ws` is a live wait set; `consumer` a live consumer not used by another thread during
/// the call; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_queue(
    ws: *mut rb_waitset,
    consumer: *const rb_queue_consumer,
    out_key: *mut u64,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        attach(ws, out_key, |set| {
            let consumer = consumer.as_ref().ok_or_else(|| Failure::invalid("consumer is NULL"))?;
            Ok((set.attach_queue(&consumer.0)?.keep(), None, None))
        })
    }
}

/// Wakes when the 32-bit word at `word` differs from `expected` (`RB_EVENT_WORD`, with the
/// new value, which becomes the next `expected`). Woken by `rb_word_wake` from any process.
///
/// # Safety
/// `ws` is a live wait set; `word` as for `rb_word_wait`, and it stays mapped until it is
/// detached or the wait set closed; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_word(
    ws: *mut rb_waitset,
    word: *const u32,
    expected: u32,
    out_key: *mut u64,
) -> rb_status {
    // SAFETY: the caller's contract, including the word's lifetime.
    unsafe { attach(ws, out_key, |set| Ok((set.attach_word(word_at(word)?, expected)?.keep(), None, None))) }
}

/// Wakes while `latch` is set (`RB_EVENT_LATCH_SET` at every wait until it is reset).
///
/// # Safety
/// `ws` is a live wait set; `latch` a live latch; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_latch(
    ws: *mut rb_waitset,
    latch: *const rb_latch,
    out_key: *mut u64,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        attach(ws, out_key, |set| {
            let latch = shared(latch, "latch")?;
            Ok((set.attach_latch(&latch.0)?.keep(), None, None))
        })
    }
}

/// Takes a token of `semaphore` for you whenever one is free: each `RB_EVENT_TOKEN` is one
/// token you now hold and must `rb_semaphore_post` back.
///
/// # Safety
/// `ws` is a live wait set; `semaphore` a live semaphore; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_semaphore(
    ws: *mut rb_waitset,
    semaphore: *const rb_semaphore,
    out_key: *mut u64,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        attach(ws, out_key, |set| {
            let semaphore = shared(semaphore, "semaphore")?;
            Ok((set.attach_semaphore(&semaphore.0)?.keep(), Some(semaphore.0.clone()), None))
        })
    }
}

/// Wakes when `fd` is readable and/or writable (`interest`: `RB_FD_READABLE`,
/// `RB_FD_WRITABLE` or both; level-triggered). The wait set watches a duplicate, so the
/// caller may close its fd at any time (then detach: the duplicate stays open until then).
///
/// # Safety
/// `ws` is a live wait set; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_fd(
    ws: *mut rb_waitset,
    fd: i32,
    interest: u32,
    out_key: *mut u64,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        attach(ws, out_key, |set| {
            let interest = match interest {
                RB_FD_READABLE => Interest::Readable,
                RB_FD_WRITABLE => Interest::Writable,
                i if i == RB_FD_READABLE | RB_FD_WRITABLE => Interest::Both,
                other => {
                    return Err(Failure::invalid(format!("interest {other}: use RB_FD_READABLE and/or RB_FD_WRITABLE")))
                }
            };
            if fd < 0 {
                return Err(Failure::invalid(format!("fd {fd} is not a file descriptor")));
            }
            // SAFETY: only duplicated here; an fd that is not open fails the dup with EBADF.
            let owned = BorrowedFd::borrow_raw(fd).try_clone_to_owned().map_err(|e| Failure {
                status: rb_status::RB_ERR_IO,
                message: format!("cannot duplicate fd {fd} to watch it: {e}"),
            })?;
            // SAFETY: the duplicate is kept in the attachment record, which outlives the
            // core source (detached first, dropped after).
            let borrowed = BorrowedFd::borrow_raw(std::os::fd::AsRawFd::as_raw_fd(&owned));
            Ok((set.attach_fd(borrowed, interest)?.keep(), None, Some(owned)))
        })
    }
}

/// Fires every `period_ns` nanoseconds (more than 0), first one period from now.
///
/// # Safety
/// `ws` is a live wait set; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_interval(
    ws: *mut rb_waitset,
    period_ns: u64,
    out_key: *mut u64,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        attach(ws, out_key, |set| {
            if period_ns == 0 {
                return Err(Failure::invalid("period_ns must be more than 0"));
            }
            Ok((set.attach_interval(Duration::from_nanos(period_ns))?.keep(), None, None))
        })
    }
}

/// Fires once, `in_ns` nanoseconds from now.
///
/// # Safety
/// `ws` is a live wait set; `out_key` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_attach_deadline(ws: *mut rb_waitset, in_ns: u64, out_key: *mut u64) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        attach(ws, out_key, |set| {
            let at = Instant::now() + Duration::from_nanos(in_ns);
            Ok((set.attach_deadline(at)?.keep(), None, None))
        })
    }
}

/// Detaches the source `key` (`RB_ERR_INVALID_ARGUMENT` if no source has it). Its pending
/// events are dropped, except semaphore tokens, which go back to the semaphore.
///
/// # Safety
/// `ws` is a live wait set.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_detach(ws: *mut rb_waitset, key: u64) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { on_own_thread(ws) }?.detach(key)?;
        Ok(rb_status::RB_OK)
    })
}

/// Waits until a source is ready or `timeout_ns` passes (negative: no limit; 0: only look)
/// and writes up to `capacity` events to `events`: `RB_OK` with `*out_count` ≥ 1, or
/// `RB_TIMEOUT` with 0. Events beyond `capacity` are returned by the next call, at once.
/// With nothing attached and no limit: `RB_ERR_INVALID_ARGUMENT` (it would never return).
///
/// # Safety
/// `ws` is a live wait set; `events` writable for `capacity` events; `out_count` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_wait(
    ws: *mut rb_waitset,
    timeout_ns: i64,
    events: *mut rb_event,
    capacity: usize,
    out_count: *mut usize,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller promises `out_count` is NULL or writable.
        let count = unsafe { handle(out_count, "out_count") }?;
        *count = 0;
        if events.is_null() || capacity == 0 {
            return Err(Failure::invalid("events must point to room for at least one rb_event (capacity > 0)"));
        }
        // SAFETY: the caller's contract.
        let ws = unsafe { on_own_thread(ws) }?;
        if ws.pending.is_empty() {
            for event in ws.set.wait(timeout(timeout_ns))? {
                let c = ws.to_c(event);
                ws.pending.push_back(c);
            }
        }
        // SAFETY: the caller promises room for `capacity` events at `events`.
        let room = unsafe { std::slice::from_raw_parts_mut(events, capacity) };
        for slot in room.iter_mut() {
            let Some(event) = ws.pending.pop_front() else { break };
            *slot = event;
            *count += 1;
        }
        Ok(if *count == 0 { rb_status::RB_TIMEOUT } else { rb_status::RB_OK })
    })
}

/// An fd that becomes readable when `rb_waitset_wait` would report something, for a
/// foreign event loop (epoll, libuv, ...): poll it, then call `rb_waitset_wait` with a
/// timeout of 0, which collects the events and re-arms. Valid until the wait set is closed.
///
/// # Safety
/// `ws` is a live wait set; `out_fd` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_fd(ws: *mut rb_waitset, out_fd: *mut i32) -> rb_status {
    guard(|| {
        // SAFETY: the caller promises `out_fd` is NULL or writable.
        let slot = unsafe { handle(out_fd, "out_fd") }?;
        *slot = -1;
        // SAFETY: the caller's contract.
        *slot = unsafe { on_own_thread(ws) }?.set.as_raw_fd()?;
        Ok(rb_status::RB_OK)
    })
}

/// The backend in use now: "futex", "io_uring" or "epoll" (static storage); "" for NULL or
/// a call from another thread.
///
/// # Safety
/// `ws` is NULL or a live wait set.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_backend(ws: *mut rb_waitset) -> *const std::ffi::c_char {
    // SAFETY: the caller's contract.
    let name = match unsafe { on_own_thread(ws) } {
        Ok(ws) => match ws.set.backend() {
            Backend::Futex => c"futex",
            Backend::IoUring => c"io_uring",
            Backend::Epoll => c"epoll",
        },
        Err(_) => c"",
    };
    name.as_ptr()
}

/// Closes the wait set (NULL: nothing): detaches everything and gives back the semaphore
/// tokens of events never returned. `RB_ERR_INVALID_ARGUMENT` from another thread than the
/// one that opened it (the wait set then stays open).
///
/// # Safety
/// `ws` is NULL or a live wait set, not used again after `RB_OK`.
#[no_mangle]
pub unsafe extern "C" fn rb_waitset_close(ws: *mut rb_waitset) -> rb_status {
    if ws.is_null() {
        return rb_status::RB_OK;
    }
    guard(|| {
        // SAFETY: the caller's contract.
        let state = unsafe { on_own_thread(ws) }?;
        let keys: Vec<u64> = state.attached.iter().map(|a| a.id).collect();
        for key in keys {
            state.detach(key)?;
        }
        // SAFETY: the caller gives back a pointer from rb_waitset_open, once; `state`, its
        // borrow, is not used after this.
        drop(unsafe { Box::from_raw(ws) });
        Ok(rb_status::RB_OK)
    })
}
