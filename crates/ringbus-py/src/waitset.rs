//! `WaitSet` and `Event`: one wait over subscribers, latches, semaphores, words, fds,
//! intervals and deadlines; `fileno()` hands it to asyncio.
//!
//! The core wait set borrows its words and fds for a lifetime; here each attachment keeps
//! what it borrows (a pinned `Word`, a duplicated fd) in the same record as its key, and
//! the record outlives the source in the core set (detach first, then drop the record).

use crate::blocking;
use crate::errors::{closed, Error, Result};
use crate::events::{Latch, Semaphore, Word, WordPin};
use crate::queue::Consumer;
use crate::service::Server;
use crate::subscriber::Subscriber;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use ringbus::{EventKind, Interest, Key};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// A value that only the thread that made it may reach: the core wait set (not `Sync`,
/// and its io_uring completions are posted through the thread that submitted). Any thread
/// may hold it or drop it; every other use from another thread is a `ringbus.Error`, not
/// a panic.
struct ThreadBound<T> {
    owner: ThreadId,
    value: T,
}

// SAFETY: `value` is reached through `&ThreadBound` only by `get`, which refuses every
// thread but `owner`: no two threads ever hold `&T` at once, so sharing the wrapper is as
// sound as sending `T` (which `T: Send` allows) to the owner.
unsafe impl<T: Send> Sync for ThreadBound<T> {}

impl<T> ThreadBound<T> {
    fn new(value: T) -> ThreadBound<T> {
        ThreadBound { owner: std::thread::current().id(), value }
    }

    fn check(&self) -> Result<()> {
        if std::thread::current().id() != self.owner {
            return Err(Error::InvalidArgument(
                "a WaitSet may be used only by the thread that created it; create one per thread".into(),
            ));
        }
        Ok(())
    }

    fn get(&self) -> Result<&T> {
        self.check().map(|()| &self.value)
    }

    fn get_mut(&mut self) -> Result<&mut T> {
        self.check()?;
        Ok(&mut self.value)
    }
}

/// Moves a value into `Python::detach`, whose closure runs on this same thread: a value
/// that is not `Send` (the wait set) never reaches another thread through it.
struct OnThisThread<T>(T);

// SAFETY: only used to pass a reference into `Python::detach`, which runs the closure
// synchronously on the calling thread; the value is never used by another thread.
unsafe impl<T> Send for OnThisThread<T> {}

impl<T> OnThisThread<T> {
    /// Used through a method so closures capture the whole wrapper, not its field.
    fn get(&self) -> &T {
        &self.0
    }
}

/// What an attachment keeps alive for the core wait set.
enum Keep {
    Nothing,
    Word { _pin: WordPin },
    Fd { _fd: OwnedFd },
}

struct Attached {
    key: Key,
    id: u64,
    source: Option<Py<PyAny>>,
    _keep: Keep,
}

/// One ready source, from `WaitSet.wait()`: `key` (what `attach_*` returned), `source`
/// (the attached object; `None` for intervals and deadlines) and `kind` — `"data"` (take
/// from the subscriber until `None`), `"word"` (`value`: the word's new value), `"latch"`
/// (set), `"token"` (a semaphore token taken for you: `post()` it back when done), `"fd"`
/// (`readable` / `writable` / `hangup`), `"interval"` (`value`: periods elapsed),
/// `"deadline"`.
#[pyclass(module = "ringbus._native", frozen, get_all)]
pub(crate) struct Event {
    key: u64,
    kind: &'static str,
    value: Option<u64>,
    readable: bool,
    writable: bool,
    hangup: bool,
    source: Option<Py<PyAny>>,
}

#[pymethods]
impl Event {
    fn __repr__(&self) -> String {
        format!("<ringbus.Event key={} kind={} value={:?}>", self.key, self.kind, self.value)
    }
}

fn event(key: u64, kind: EventKind, source: Option<Py<PyAny>>) -> Event {
    let mut e = Event { key, kind: "", value: None, readable: false, writable: false, hangup: false, source };
    (e.kind, e.value) = match kind {
        EventKind::Data => ("data", None),
        EventKind::Word(v) => ("word", Some(v as u64)),
        EventKind::LatchSet => ("latch", None),
        EventKind::Token => ("token", None),
        EventKind::Fd { readable, writable, hangup } => {
            (e.readable, e.writable, e.hangup) = (readable, writable, hangup);
            ("fd", None)
        }
        EventKind::Interval(periods) => ("interval", Some(periods)),
        EventKind::Deadline => ("deadline", None),
        EventKind::PeerGone => ("peer_gone", None),
    };
    e
}

/// Waits on many sources at once: subscribers, latches, semaphores, words, fds,
/// intervals and deadlines. `wait()` releases the GIL; `fileno()` gives an fd that becomes
/// readable when `wait(0)` would report something (for `asyncio`'s `add_reader`). Used by
/// the thread that created it: a call from another raises `ringbus.Error`.
#[pyclass(module = "ringbus._native")]
pub(crate) struct WaitSet {
    /// Declared before `attached`: dropped first, so no source outlives what it borrows.
    set: ThreadBound<Option<ringbus::WaitSet<'static>>>,
    attached: Vec<Attached>,
    next_id: u64,
}

impl WaitSet {
    fn live(&self) -> Result<&ringbus::WaitSet<'static>> {
        self.set.get()?.as_ref().ok_or_else(|| closed("wait set"))
    }

    fn record(&mut self, key: Key, source: Option<Py<PyAny>>, keep: Keep) -> u64 {
        self.next_id += 1;
        self.attached.push(Attached { key, id: self.next_id, source, _keep: keep });
        self.next_id
    }
}

fn seconds(s: f64, what: &str) -> Result<Duration> {
    blocking::timeout(Some(s))?.ok_or_else(|| Error::InvalidArgument(format!("{what} must be finite")))
}

#[pymethods]
impl WaitSet {
    #[new]
    fn new() -> Result<WaitSet> {
        Ok(WaitSet { set: ThreadBound::new(Some(ringbus::WaitSet::new()?)), attached: Vec::new(), next_id: 0 })
    }

    /// Reports `"data"` when the subscriber (which must wake: not `Wake.NEVER`) may have
    /// messages. Returns the key.
    fn attach_subscriber(&mut self, subscriber: &Bound<'_, Subscriber>) -> Result<u64> {
        let key = self.live()?.attach_subscriber(subscriber.borrow().core()?)?.keep();
        Ok(self.record(key, Some(subscriber.clone().into_any().unbind()), Keep::Nothing))
    }

    /// Reports `"data"` when a command is ready for `consumer` (of a queue that wakes:
    /// not `Wake.NEVER`): pop until `None`. Do not also `wait()` on the consumer in another
    /// thread meanwhile. Returns the key.
    fn attach_consumer(&mut self, consumer: &Bound<'_, Consumer>) -> Result<u64> {
        let key = self.live()?.attach_queue(consumer.borrow().core()?)?.keep();
        Ok(self.record(key, Some(consumer.clone().into_any().unbind()), Keep::Nothing))
    }

    /// Reports `"data"` while requests wait for `server`: answer them with
    /// `server.serve_once(handler, timeout=0)`. Do not also `serve_once` with a timeout in
    /// another thread meanwhile. Returns the key.
    fn attach_server(&mut self, server: &Bound<'_, Server>) -> Result<u64> {
        let key = self.live()?.attach_server(server.borrow().core()?)?.keep();
        Ok(self.record(key, Some(server.clone().into_any().unbind()), Keep::Nothing))
    }

    /// Reports `"latch"` while the latch is set. Returns the key.
    fn attach_latch(&mut self, latch: &Bound<'_, Latch>) -> Result<u64> {
        let key = self.live()?.attach_latch(&latch.get().core()?)?.keep();
        Ok(self.record(key, Some(latch.clone().into_any().unbind()), Keep::Nothing))
    }

    /// Takes a token for you whenever one is free and reports `"token"`: `post()` it back
    /// when done. Returns the key.
    fn attach_semaphore(&mut self, semaphore: &Bound<'_, Semaphore>) -> Result<u64> {
        let key = self.live()?.attach_semaphore(&semaphore.get().core()?)?.keep();
        Ok(self.record(key, Some(semaphore.clone().into_any().unbind()), Keep::Nothing))
    }

    /// Reports `"word"` when the word differs from `expected` (then from the value
    /// reported). The word cannot be closed while attached. Returns the key.
    fn attach_word(&mut self, word: &Bound<'_, Word>, expected: u32) -> Result<u64> {
        let pin = WordPin::new(word.clone().unbind())?;
        // SAFETY: the pin keeps the word's memory mapped for as long as it lives; it lives
        // in this attachment's record, which is dropped only after the source is detached
        // from the core set (`detach`), or after the core set itself (field order).
        let atomic: &'static std::sync::atomic::AtomicU32 = unsafe { &*std::ptr::from_ref(pin.atomic()) };
        let key = self.live()?.attach_word(atomic, expected)?.keep();
        Ok(self.record(key, Some(word.clone().into_any().unbind()), Keep::Word { _pin: pin }))
    }

    /// Reports `"fd"` when `fd` (an int or an object with `fileno()`) is readable and/or
    /// writable, level-triggered. The wait set watches its own duplicate of the fd.
    /// Returns the key.
    #[pyo3(signature = (fd, *, readable = true, writable = false))]
    fn attach_fd(&mut self, fd: &Bound<'_, PyAny>, readable: bool, writable: bool) -> Result<u64> {
        let raw: RawFd = match fd.extract() {
            Ok(raw) => raw,
            Err(_) => fd.call_method0("fileno")?.extract()?,
        };
        let interest = match (readable, writable) {
            (true, false) => Interest::Readable,
            (false, true) => Interest::Writable,
            (true, true) => Interest::Both,
            (false, false) => return Err(Error::InvalidArgument("watch an fd for readable, writable or both".into())),
        };
        if raw < 0 {
            return Err(Error::InvalidArgument(format!("{raw} is not a file descriptor")));
        }
        // SAFETY: the fd is borrowed only for the `dup` below, while the caller's object is
        // alive; if it is not open, the dup fails with EBADF.
        let owned = unsafe { BorrowedFd::borrow_raw(raw) }.try_clone_to_owned()?;
        // SAFETY: `owned` lives in this attachment's record, dropped only after the source
        // is detached from the core set, or after the core set itself (field order).
        let borrowed: BorrowedFd<'static> = unsafe { BorrowedFd::borrow_raw(owned.as_raw_fd()) };
        let key = self.live()?.attach_fd(borrowed, interest)?.keep();
        Ok(self.record(key, Some(fd.clone().unbind()), Keep::Fd { _fd: owned }))
    }

    /// Reports `"interval"` every `period` seconds, the first one period from now.
    fn attach_interval(&mut self, period: f64) -> Result<u64> {
        let key = self.live()?.attach_interval(seconds(period, "period")?)?.keep();
        Ok(self.record(key, None, Keep::Nothing))
    }

    /// Reports `"deadline"` once, `after` seconds from now.
    fn attach_deadline(&mut self, after: f64) -> Result<u64> {
        let at = Instant::now() + seconds(after, "after")?;
        let key = self.live()?.attach_deadline(at)?.keep();
        Ok(self.record(key, None, Keep::Nothing))
    }

    /// Detaches the source with this key (unknown keys are ignored).
    fn detach(&mut self, key: u64) -> Result<()> {
        let set = self.live()?;
        if let Some(i) = self.attached.iter().position(|a| a.id == key) {
            set.detach(self.attached[i].key);
            self.attached.remove(i); // after the core set let go of what it keeps
        }
        Ok(())
    }

    /// Waits until something is ready or `timeout` seconds pass (`None`: forever) and
    /// returns the events (empty on timeout). Releases the GIL; Ctrl-C interrupts it.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> Result<Vec<Event>> {
        let timeout = blocking::timeout(timeout)?;
        let set = OnThisThread(self.live()?);
        if timeout.is_none() && self.attached.is_empty() {
            // The core says so for a wait without a timeout; the slices below have one.
            return Err(ringbus::WaitSetError::NothingToWaitFor.into());
        }
        let found = blocking::wait_in_slices(py, timeout, move |slice| {
            let events = set.get().wait(Some(slice))?;
            Ok((!events.is_empty()).then_some(events))
        });
        let events = match found {
            Err(Error::Timeout) => return Ok(Vec::new()),
            found => found?,
        };
        Ok(events
            .into_iter()
            .map(|e| {
                let attached = self.attached.iter().find(|a| a.key == e.key);
                let source = attached.and_then(|a| a.source.as_ref()).map(|s| s.clone_ref(py));
                event(attached.map_or(0, |a| a.id), e.kind, source)
            })
            .collect())
    }

    /// An fd that becomes readable when `wait(0)` would report something: register it
    /// with `loop.add_reader()`, then call `wait(0)` when it is readable (which collects the
    /// events and re-arms). Moves the wait set to an fd-capable backend (io_uring or epoll).
    fn fileno(&self) -> Result<RawFd> {
        Ok(self.live()?.as_raw_fd()?)
    }

    /// The backend in use: `"futex"`, `"io_uring"` or `"epoll"`.
    #[getter]
    fn backend(&self) -> Result<&'static str> {
        Ok(match self.live()?.backend() {
            ringbus::waitset::Backend::Futex => "futex",
            ringbus::waitset::Backend::IoUring => "io_uring",
            ringbus::waitset::Backend::Epoll => "epoll",
        })
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> Result<bool> {
        Ok(self.set.get()?.is_none())
    }

    /// Detaches everything and closes the backend. Idempotent.
    fn close(&mut self) -> Result<()> {
        *self.set.get_mut()? = None;
        self.attached.clear(); // after the core set
        Ok(())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, PyTuple>) -> Result<()> {
        self.close()
    }
}
