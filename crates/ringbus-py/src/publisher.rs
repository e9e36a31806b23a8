//! `Publisher` and `Loan`: write a message in place into shared memory, then publish it.
//!
//! A `Loan` is a Python object of its own, so it holds a core [`DetachedLoan`] kept in its
//! `Publisher` (never in the `Loan`): the publisher can then refuse to close while the
//! loan's memory is exported, and a loan can only ever go back to the publisher that lent
//! it. One loan at a time per publisher, as in Rust.

use crate::arrays::{self, Declared, Layout};
use crate::blocking::{self, SLICE};
use crate::buffer::Exports;
use crate::errors::{closed, Error, Result};
use pyo3::buffer::PyUntypedBuffer;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use ringbus::{DetachedLoan, LoanError, WhenFull};
use std::ffi::c_int;
use std::time::Duration;

/// The loan a publisher has out.
struct Lent {
    id: u64,
    loan: DetachedLoan,
    exports: Exports,
}

/// Publishes on one topic: `loan(size)` lends a chunk of shared memory to write in place
/// (a writable buffer: `numpy.frombuffer(loan, dtype)[:] = data`), `loan.publish()` makes
/// it visible to every subscriber in O(1) without copying it. `publish_copy(data)` does
/// both for small messages. Publishing never blocks, unless a reliable subscriber has not
/// taken the message a loan would overwrite: then the loan waits (GIL released, Ctrl-C
/// interrupts it) or raises, as the topic's `when_full` says. Use it from one thread at a
/// time.
#[pyclass(module = "ringbus._native")]
pub(crate) struct Publisher {
    inner: Option<ringbus::Publisher>,
    lent: Option<Lent>,
    loans: u64,
    /// What a loan does when a reliable subscriber is behind, as given to `Node.topic()`.
    when_full: WhenFull,
    /// Waits the core counted beyond the first of each loan (it counts one per slice):
    /// `blocked` in `stats()` counts loans.
    extra_blocked: u64,
    /// The array every message is, if the topic was opened with `payload_dtype`.
    declared: Option<Declared>,
}

impl Publisher {
    pub(crate) fn new(inner: ringbus::Publisher, when_full: WhenFull, declared: Option<Declared>) -> Publisher {
        Publisher { inner: Some(inner), lent: None, loans: 0, when_full, extra_blocked: 0, declared }
    }

    /// The policy the core publisher gets for `when_full`: a loan that may wait waits at
    /// most one slice in the core, and [`Publisher::lend`] runs Python's signal handlers
    /// between slices. A limit is cut into equal slices of at most [`SLICE`], so that
    /// they add up to it.
    pub(crate) fn core_policy(when_full: WhenFull) -> WhenFull {
        let slice = |limit: Duration| {
            let slices = limit.as_nanos().div_ceil(SLICE.as_nanos()).max(1);
            u32::try_from(slices).map_or(SLICE, |n| limit / n)
        };
        match when_full {
            WhenFull::Fail => WhenFull::Fail,
            WhenFull::Wait(limit) => WhenFull::Wait(Some(limit.map_or(SLICE, slice))),
        }
    }

    /// A loan of `size` bytes from the core. It is tried first without waiting, holding the
    /// GIL (the common case: there is room); only when a reliable subscriber is behind and
    /// `when_full` allows a wait is the GIL released for it, in slices (see
    /// [`Publisher::core_policy`]), and a wait that runs out is a `Timeout` saying how long
    /// it waited in all.
    fn lend(&mut self, py: Python<'_>, size: usize) -> Result<DetachedLoan> {
        let when_full = self.when_full;
        let publisher = self.live()?;
        publisher.set_when_full(WhenFull::Fail);
        let first = publisher.loan_detached(size);
        let WhenFull::Wait(limit) = when_full else {
            return Ok(first?);
        };
        match first {
            Err(LoanError::Full { .. }) => {}
            other => return Ok(other?),
        }
        publisher.set_when_full(Self::core_policy(when_full));
        let blocked = publisher.stats().blocked;
        let (mut full, mut waited_ms) = (None, 0);
        let lent = blocking::wait_in_slices(py, limit, |_| match publisher.loan_detached(size) {
            Ok(loan) => Ok(Some(loan)),
            Err(LoanError::Full { subscriber_slot, pid, depth, waited_ms: slice_ms }) => {
                waited_ms += slice_ms;
                full = Some((subscriber_slot, pid, depth));
                Ok(None)
            }
            Err(e) => Err(e.into()),
        });
        let slices_waited = publisher.stats().blocked - blocked;
        self.extra_blocked += slices_waited.saturating_sub(1);
        match (lent, full) {
            (Err(Error::Timeout), Some((subscriber_slot, pid, depth))) => {
                Err(Error::LoanTimeout(LoanError::Full { subscriber_slot, pid, depth, waited_ms }))
            }
            (lent, _) => lent,
        }
    }

    fn live(&mut self) -> Result<&mut ringbus::Publisher> {
        self.inner.as_mut().ok_or_else(|| closed("publisher"))
    }

    fn peek_live(&self) -> Result<&ringbus::Publisher> {
        self.inner.as_ref().ok_or_else(|| closed("publisher"))
    }

    /// The publisher and the loan `id`, if it is still out.
    fn lent(&mut self, id: u64) -> Result<(&mut ringbus::Publisher, &mut Lent)> {
        let gone = || Error::Closed("this loan was already published or discarded; take a new loan()".into());
        match (&mut self.inner, &mut self.lent) {
            (Some(publisher), Some(lent)) if lent.id == id => Ok((publisher, lent)),
            _ => Err(gone()),
        }
    }

    /// Ends the loan `id` (publishing it or giving it back), unless its memory is exported.
    fn finish(&mut self, id: u64, publish: bool) -> Result<()> {
        let (_, lent) = self.lent(id)?;
        if lent.exports.live() > 0 {
            return Err(lent.exports.busy("loan", if publish { "publish" } else { "discard" }));
        }
        let lent = self.lent.take().expect("checked above");
        let publisher = self.live()?;
        match publish {
            true => publisher.publish_detached(lent.loan),
            false => publisher.discard_detached(lent.loan),
        }
        Ok(())
    }
}

#[pymethods]
impl Publisher {
    /// Lends `size` bytes of shared memory to write the next message into, as a `Loan`
    /// (a writable buffer). The bytes may hold an older message of this publisher unless
    /// `zeroed`. One loan at a time: publish or discard it before the next. Never blocks,
    /// unless a reliable subscriber is `depth` messages behind: then, as the topic's
    /// `when_full` says, it waits (GIL released, Ctrl-C interrupts it) until that subscriber
    /// takes a message, or raises `Timeout` once the seconds given have passed, or raises
    /// `LimitReached` at once (`"fail"`). A dead subscriber holds nobody back.
    #[pyo3(signature = (size, *, zeroed = false))]
    fn loan(slf: Bound<'_, Self>, size: usize, zeroed: bool) -> Result<Loan> {
        let mut this = slf.try_borrow_mut().map_err(PyErr::from)?;
        if let Some(orphan) = this.lent.as_ref().filter(|l| l.exports.orphaned()).map(|l| l.id) {
            this.finish(orphan, false)?; // its Loan was dropped while this publisher was busy
        }
        if this.lent.is_some() {
            return Err(Error::Busy(
                "this publisher already lent a chunk; publish() or discard() that loan first (one loan at a time)"
                    .into(),
            ));
        }
        let mut loan = this.lend(slf.py(), size)?;
        let bytes = this.live()?.detached_bytes(&mut loan);
        if zeroed {
            bytes.fill(0);
        }
        let address = bytes.as_ptr() as usize;
        this.loans += 1;
        let (id, exports) = (this.loans, Exports::default());
        this.lent = Some(Lent { id, loan, exports: exports.clone() });
        Ok(Loan { publisher: slf.clone().unbind(), id, address, exports, layout: None })
    }

    /// Lends a chunk sized for a numpy array of `shape` (an int or a tuple) and `dtype`
    /// (plain data: numbers, fixed-size records), as a `Loan` whose `as_array()` is that
    /// array over the chunk itself: `pub.loan_array((1000, 4), numpy.float32)`. On a topic
    /// opened with `payload_dtype`, both default to the declared ones and others raise
    /// `Mismatch`. Raises `InvalidArgument` for a dtype that cannot live in shared memory
    /// or a negative size; as `loan()` otherwise. Needs numpy (`pip install
    /// 'ringbus[numpy]'`).
    #[pyo3(signature = (shape = None, dtype = None, *, zeroed = false))]
    fn loan_array(
        slf: Bound<'_, Self>,
        shape: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        zeroed: bool,
    ) -> Result<Loan> {
        let py = slf.py();
        let declared = slf.borrow().declared.clone();
        let (layout, size) = match (declared, shape, dtype) {
            (Some(declared), shape, dtype) => {
                arrays::check_declared(&declared, dtype, shape)?;
                arrays::layout(declared.shape.bind(py), declared.dtype.bind(py))?
            }
            (None, Some(shape), Some(dtype)) => arrays::layout(shape, dtype)?,
            (None, ..) => {
                return Err(Error::InvalidArgument(
                    "pass the array's shape and dtype: loan_array(shape, dtype) (this topic was not opened with payload_dtype)"
                        .into(),
                ))
            }
        };
        let mut loan = Publisher::loan(slf, size, zeroed)?;
        loan.layout = Some(layout);
        Ok(loan)
    }

    /// Copies `data` (bytes, bytearray, memoryview, a C-contiguous numpy array: any
    /// buffer) into a chunk and publishes it. Its loan waits or raises as `loan()`'s.
    fn publish_copy(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> Result<()> {
        let buffer = PyUntypedBuffer::get(data)?;
        if !buffer.is_c_contiguous() {
            return Err(Error::InvalidArgument(
                "publish_copy needs a C-contiguous buffer; pass numpy.ascontiguousarray(data) or bytes(data)".into(),
            ));
        }
        let len = buffer.len_bytes();
        let mut loan = self.lend(py, len)?;
        let publisher = self.live()?;
        let target = publisher.detached_bytes(&mut loan);
        // SAFETY: `buffer` keeps its exporter's `len` contiguous bytes at `buf_ptr` valid
        // until it is dropped; `target` is a chunk just claimed by this publisher, which no
        // Python object can see, so the two do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(buffer.buf_ptr().cast::<u8>(), target.as_mut_ptr(), len) };
        publisher.publish_detached(loan);
        Ok(())
    }

    /// Counters: `publishes`, `wake_syscalls` (publishes that woke a sleeper),
    /// `wakes_skipped` (nobody slept: no system call), `payload_bytes`, `blocked` (loans
    /// that waited for a reliable subscriber) and `blocked_ns` (nanoseconds they waited, in
    /// all). The shared counters `ringbus top` shows count a long wait once per slice of at
    /// most 100 ms (the GIL is taken between slices).
    fn stats<'py>(&self, py: Python<'py>) -> Result<Bound<'py, PyDict>> {
        let s = self.peek_live()?.stats();
        let dict = PyDict::new(py);
        for (key, value) in [
            ("publishes", s.publishes),
            ("wake_syscalls", s.wake_syscalls),
            ("wakes_skipped", s.wakes_skipped),
            ("payload_bytes", s.payload_bytes),
            ("blocked", s.blocked - self.extra_blocked),
            ("blocked_ns", s.blocked_ns),
        ] {
            dict.set_item(key, value)?;
        }
        Ok(dict)
    }

    /// Chunks of this publisher that some subscriber holds (a diagnostic; reclaims those
    /// of dead subscribers first).
    fn chunks_held_by_subscribers(&mut self) -> Result<u32> {
        Ok(self.live()?.chunks_held_by_subscribers())
    }

    /// Chunks free for the next loans right now.
    fn free_chunks(&self) -> Result<usize> {
        Ok(self.peek_live()?.free_chunks())
    }

    /// Bytes of payload memory this publisher holds right now: with `preallocate`, the
    /// whole pool; otherwise what the messages lent, in the log or held by subscribers
    /// take (whole pages), at most the topic's `pool_bytes`.
    fn reserved_payload_bytes(&self) -> Result<u64> {
        Ok(self.peek_live()?.reserved_payload_bytes())
    }

    /// Subscribers asleep on this topic right now.
    fn sleeping_subscribers(&self) -> Result<u32> {
        Ok(self.peek_live()?.sleeping_subscribers())
    }

    /// The largest loan the topic allows.
    #[getter]
    fn max_payload_bytes(&self) -> Result<u64> {
        Ok(self.peek_live()?.max_payload_bytes())
    }

    /// The topic's name.
    #[getter]
    fn topic(&self) -> Result<String> {
        Ok(self.peek_live()?.topic_name().to_string())
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// Leaves the topic (an unpublished loan is discarded). Raises `BufferError` while the
    /// loan's memory is still viewed (delete the arrays first). Idempotent.
    fn close(&mut self, py: Python<'_>) -> Result<()> {
        if let Some(id) = self.lent.as_ref().map(|l| l.id) {
            // Refuses (BufferError) while the loan is viewed.
            self.finish(id, false)?;
        }
        if let Some(publisher) = self.inner.take() {
            py.detach(|| drop(publisher));
        }
        Ok(())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> Result<()> {
        self.close(py)
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            Some(p) => format!("<ringbus.Publisher {:?} published={}>", p.topic_name(), p.stats().publishes),
            None => "<ringbus.Publisher (closed)>".into(),
        }
    }
}

/// A chunk of shared memory lent by `Publisher.loan()` or `loan_array()`: a writable buffer
/// (`memoryview`, `numpy.frombuffer(loan, dtype)`, `loan.as_array()`) to write the message
/// into in place, then `publish()`. Views of it must be gone before `publish()` /
/// `discard()` (else `BufferError`): write through a temporary (`loan.as_array()[:] =
/// data`) or `del` the array.
/// As a context manager it publishes on success and discards on an exception. A loan
/// dropped unpublished gives its chunk back.
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Loan {
    publisher: Py<Publisher>,
    id: u64,
    address: usize,
    exports: Exports,
    /// What `loan_array()` was given; `None` from `loan()`.
    layout: Option<Layout>,
}

impl Loan {
    fn end(&self, py: Python<'_>, publish: bool) -> Result<()> {
        let mut publisher = self.publisher.bind(py).try_borrow_mut().map_err(PyErr::from)?;
        publisher.finish(self.id, publish)
    }
}

#[pymethods]
impl Loan {
    // SAFETY (for callers): only CPython calls this, with the `Py_buffer` it owns for the
    // request — the `view` that `Exports::export` requires.
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        let this = slf.get();
        let mut publisher = this.publisher.bind(slf.py()).try_borrow_mut()?;
        let (core, lent) = publisher.lent(this.id)?;
        let bytes = core.detached_bytes(&mut lent.loan);
        // SAFETY: the chunk stays claimed by this loan and mapped by its publisher until the
        // loan is published or discarded, or the publisher closed — each refuses while an
        // export is live — and every export keeps this loan, so its publisher, alive.
        // Only the loan's views write the chunk until it is published.
        unsafe { this.exports.export(view, slf.as_any(), bytes.as_mut_ptr(), bytes.len(), true, flags) }
    }

    // SAFETY (for callers): only CPython calls this, once per successful `__getbuffer__`,
    // so each call undoes exactly one counted export (the count never goes below zero).
    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {
        self.exports.release();
    }

    /// Publishes the message: one log entry, and a wake system call only if a subscriber
    /// sleeps. Raises `BufferError` while a view of the loan is alive.
    fn publish(&self, py: Python<'_>) -> Result<()> {
        self.end(py, true)
    }

    /// Gives the chunk back unpublished. Raises `BufferError` while a view is alive.
    fn discard(&self, py: Python<'_>) -> Result<()> {
        self.end(py, false)
    }

    /// The loan as a writable numpy array over the chunk itself (no copy). Default dtype
    /// and shape: those given to `loan_array()`; with a `dtype` and no `shape`, one
    /// dimension; one size of `shape` may be -1. Raises `InvalidArgument` if the loan's
    /// bytes are not a whole number of `dtype` or do not fit `shape`. Delete the array (or
    /// write through a temporary: `loan.as_array()[:] = data`) before `publish()`.
    #[pyo3(signature = (dtype = None, shape = None))]
    fn as_array<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<Bound<'py, PyAny>>,
        shape: Option<Bound<'py, PyAny>>,
    ) -> Result<Bound<'py, PyAny>> {
        let py = slf.py();
        let (dtype, shape) = match (dtype, &slf.get().layout) {
            (Some(dtype), _) => (dtype, shape),
            (None, Some(layout)) => {
                (layout.dtype.bind(py).clone(), shape.or_else(|| Some(layout.shape.bind(py).clone())))
            }
            (None, None) => {
                return Err(Error::InvalidArgument(
                    "pass a dtype: this loan came from loan(), which records none (loan_array() does)".into(),
                ))
            }
        };
        Ok(arrays::view(slf.as_any(), &dtype, shape.as_ref())?)
    }

    /// Shortens the message to `size` bytes (loan the maximum, trim once the size is known).
    fn truncate(&self, py: Python<'_>, size: usize) -> Result<()> {
        let mut publisher = self.publisher.bind(py).try_borrow_mut().map_err(PyErr::from)?;
        publisher.lent(self.id)?.1.loan.truncate(size);
        Ok(())
    }

    /// Address of the first byte in this process, inside the publisher's shared-memory
    /// segment (what zero-copy tests compare a numpy array's pointer with).
    #[getter]
    fn address(&self) -> usize {
        self.address
    }

    /// Whether it was published or discarded (or its publisher closed).
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        let publisher = self.publisher.bind(py).try_borrow_mut();
        !publisher.is_ok_and(|mut p| p.lent(self.id).is_ok())
    }

    fn __len__(&self, py: Python<'_>) -> Result<usize> {
        let mut publisher = self.publisher.bind(py).try_borrow_mut().map_err(PyErr::from)?;
        Ok(publisher.lent(self.id)?.1.loan.len())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Publishes on a normal exit, discards when an exception leaves the block.
    #[pyo3(signature = (exc_type, _exc_value, _traceback))]
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: Option<&Bound<'_, PyAny>>,
        _exc_value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> Result<()> {
        self.end(py, exc_type.is_none())
    }

    fn __repr__(&self) -> String {
        format!("<ringbus.Loan #{}>", self.id)
    }
}

impl Drop for Loan {
    fn drop(&mut self) {
        Python::attach(|py| {
            // Busy only if the publisher is in a call right now; then its next loan() or
            // close() finds this loan orphaned and gives the chunk back.
            if let Ok(mut publisher) = self.publisher.bind(py).try_borrow_mut() {
                let _ = publisher.finish(self.id, false);
            }
        });
    }
}
