//! `Subscriber` and `Sample`: messages read in place from the publisher's shared memory.

use crate::arrays::{self, Declared};
use crate::blocking;
use crate::buffer::Exports;
use crate::errors::{closed, Error, Result};
use crate::node::Wake;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use ringbus::ReceiveError;
use std::ffi::c_int;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Receives a topic's messages from every publisher on it, in each publisher's order.
/// `take()` / `take_latest()` never block (pure shared-memory reads); `receive()` sleeps
/// until a message comes (releasing the GIL; Ctrl-C interrupts it). Iterating blocks on
/// `receive()` for each message. Use it from one thread at a time.
#[pyclass(module = "ringbus._native")]
pub(crate) struct Subscriber {
    inner: Option<ringbus::Subscriber>,
    /// The array every message is, if the topic was opened with `payload_dtype`.
    declared: Option<Declared>,
}

impl Subscriber {
    pub(crate) fn new(inner: ringbus::Subscriber, declared: Option<Declared>) -> Subscriber {
        Subscriber { inner: Some(inner), declared }
    }

    fn sample(&self, sample: ringbus::Sample) -> Sample {
        Sample::new(sample, self.declared.clone())
    }

    fn live(&mut self) -> Result<&mut ringbus::Subscriber> {
        self.inner.as_mut().ok_or_else(|| closed("subscriber"))
    }

    fn peek_live(&self) -> Result<&ringbus::Subscriber> {
        self.inner.as_ref().ok_or_else(|| closed("subscriber"))
    }

    /// The core subscriber, for a wait set to attach.
    pub(crate) fn core(&self) -> Result<&ringbus::Subscriber> {
        self.peek_live()
    }
}

#[pymethods]
impl Subscriber {
    /// The next unread message, or `None`. Never blocks; no system call.
    fn take(&mut self) -> Result<Option<Sample>> {
        let sample = self.live()?.take()?;
        Ok(sample.map(|s| self.sample(s)))
    }

    /// The newest message, or `None`, skipping (not counting as lost) everything older.
    fn take_latest(&mut self) -> Result<Option<Sample>> {
        let sample = self.live()?.take_latest()?;
        Ok(sample.map(|s| self.sample(s)))
    }

    /// The next unread message without consuming it, or `None`.
    fn peek(&mut self) -> Result<Option<Sample>> {
        let sample = self.live()?.peek()?;
        Ok(sample.map(|s| self.sample(s)))
    }

    /// Whether `take()` would find something. No system call.
    fn has_data(&self) -> Result<bool> {
        Ok(self.peek_live()?.has_data())
    }

    /// Waits for the next message, at most `timeout` seconds (`None`: forever); raises
    /// `Timeout`. Releases the GIL while it sleeps; Ctrl-C raises `KeyboardInterrupt`.
    #[pyo3(signature = (timeout = None))]
    fn receive(&mut self, py: Python<'_>, timeout: Option<f64>) -> Result<Sample> {
        let timeout = blocking::timeout(timeout)?;
        let subscriber = self.live()?;
        let sample = blocking::wait_in_slices(py, timeout, |slice| match subscriber.receive(Some(slice)) {
            Ok(sample) => Ok(Some(sample)),
            Err(ReceiveError::Timeout) => Ok(None),
            Err(e) => Err(e.into()),
        })?;
        Ok(self.sample(sample))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> Result<Sample> {
        self.receive(py, None)
    }

    /// Messages taken so far.
    #[getter]
    fn taken(&self) -> Result<u64> {
        Ok(self.peek_live()?.taken())
    }

    /// Messages overwritten before they were taken (`keep_last`, or a publisher lapping a
    /// slow subscriber).
    #[getter]
    fn lost(&self) -> Result<u64> {
        Ok(self.peek_live()?.lost())
    }

    /// Samples this subscriber holds right now (at most the topic's `max_held`).
    #[getter]
    fn held(&self) -> Result<u32> {
        Ok(self.peek_live()?.held())
    }

    /// Whether `receive()` and wait sets sleep until a publish wakes them (`Wake.ON_DATA`)
    /// or this subscriber only polls (`Wake.NEVER`): the topic's `wake` setting it was
    /// opened with. An executor's `input()` reads it to pick its style.
    #[getter]
    fn wake(&self) -> Result<Wake> {
        Ok(self.peek_live()?.wake_mode().into())
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

    /// Leaves the topic. Samples still alive stay readable (each keeps the mapping it
    /// reads). Idempotent.
    fn close(&mut self, py: Python<'_>) {
        if let Some(subscriber) = self.inner.take() {
            py.detach(|| drop(subscriber));
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) {
        self.close(py);
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            Some(s) => format!("<ringbus.Subscriber {:?} taken={} lost={}>", s.topic_name(), s.taken(), s.lost()),
            None => "<ringbus.Subscriber (closed)>".into(),
        }
    }
}

/// A received message: a read-only view of the publisher's chunk, pinned until released.
/// It supports the buffer protocol — `memoryview(sample)`, `numpy.frombuffer(sample,
/// dtype)`, `sample.as_array(dtype, shape)`, `bytes(sample)` — and those views (all but
/// `bytes`) copy nothing. Release it with `release()`,
/// a `with` block, or by dropping every reference; releasing it while a view of it is
/// alive raises `BufferError` (delete the views first).
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Sample {
    sample: Mutex<Option<ringbus::Sample>>,
    exports: Exports,
    /// The array it is, if its subscriber's topic was opened with `payload_dtype`.
    declared: Option<Declared>,
}

impl Sample {
    fn new(sample: ringbus::Sample, declared: Option<Declared>) -> Sample {
        Sample { sample: Mutex::new(Some(sample)), exports: Exports::default(), declared }
    }

    fn lock(&self) -> MutexGuard<'_, Option<ringbus::Sample>> {
        // Nothing panics while holding the lock; recover the sample if something did.
        self.sample.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn read<T>(&self, f: impl FnOnce(&ringbus::Sample) -> T) -> Result<T> {
        self.lock().as_ref().map(f).ok_or_else(released)
    }
}

fn released() -> Error {
    Error::Closed("this sample was released; keep the Sample (or a view of it) for as long as you read it".into())
}

#[pymethods]
impl Sample {
    // SAFETY (for callers): only CPython calls this, with the `Py_buffer` it owns for the
    // request — the `view` that `Exports::export` requires.
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        let this = slf.get();
        let guard = this.lock();
        let sample = guard.as_ref().ok_or_else(released)?;
        let ptr = sample.as_ptr().cast_mut();
        // SAFETY: the sample pins its chunk and keeps the publisher's segment mapped while
        // it lives; it is dropped only by `release()` (which refuses while an export is
        // live) or with this object, which every export keeps alive. The memory is
        // exported read-only.
        unsafe { this.exports.export(view, slf.as_any(), ptr, sample.len(), false, flags) }
    }

    // SAFETY (for callers): only CPython calls this, once per successful `__getbuffer__`,
    // so each call undoes exactly one counted export (the count never goes below zero).
    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {
        self.exports.release();
    }

    /// Gives the chunk back to the publisher (what dropping the last reference does).
    /// Raises `BufferError` while a view (memoryview, numpy array) of it is alive.
    /// Idempotent.
    fn release(&self) -> Result<()> {
        let mut guard = self.lock();
        if self.exports.live() > 0 {
            return Err(self.exports.busy("sample", "release"));
        }
        let sample = guard.take();
        drop(guard);
        drop(sample);
        Ok(())
    }

    /// Whether the sample was released.
    #[getter]
    fn released(&self) -> bool {
        self.lock().is_none()
    }

    /// The message's position in its publisher's stream (0, 1, 2, ...).
    #[getter]
    fn position(&self) -> Result<u64> {
        self.read(|s| s.position())
    }

    /// `CLOCK_MONOTONIC` nanoseconds (`time.monotonic_ns()`) when it was published.
    #[getter]
    fn timestamp_ns(&self) -> Result<u64> {
        self.read(|s| s.timestamp_ns())
    }

    /// Which publisher sent it: `(slot, incarnation)`.
    #[getter]
    fn publisher(&self) -> Result<(u32, u32)> {
        self.read(|s| (s.publisher().slot, s.publisher().incarnation))
    }

    /// Address of the first payload byte in this process: it lies in the publisher's
    /// shared-memory segment (what zero-copy tests compare a numpy array's pointer with).
    #[getter]
    fn address(&self) -> Result<usize> {
        self.read(|s| s.address())
    }

    /// The payload as a read-only numpy array of `dtype` and `shape` (None: one dimension;
    /// one size may be -1), over the publisher's chunk itself (no copy). On a topic opened
    /// with `payload_dtype`, both default to the declared ones and others raise
    /// `Mismatch`. Raises `InvalidArgument` if the payload is not a whole number of
    /// `dtype`, does not fit `shape`, or is not aligned for `dtype`. The array pins the
    /// sample: `release()` raises `BufferError` while it lives, and dropping the sample
    /// keeps the chunk until the array goes. Needs numpy (`pip install 'ringbus[numpy]'`).
    #[pyo3(signature = (dtype = None, shape = None))]
    fn as_array<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        shape: Option<&Bound<'py, PyAny>>,
    ) -> Result<Bound<'py, PyAny>> {
        let py = slf.py();
        match (&slf.get().declared, dtype) {
            (Some(declared), dtype) => {
                arrays::check_declared(declared, dtype, shape)?;
                Ok(arrays::view(slf.as_any(), declared.dtype.bind(py), Some(declared.shape.bind(py)))?)
            }
            (None, Some(dtype)) => Ok(arrays::view(slf.as_any(), dtype, shape)?),
            (None, None) => Err(Error::InvalidArgument(
                "pass a dtype: as_array(dtype, shape) (this topic was not opened with payload_dtype)".into(),
            )),
        }
    }

    /// The payload copied into `bytes`.
    fn tobytes<'py>(&self, py: Python<'py>) -> Result<Bound<'py, pyo3::types::PyBytes>> {
        self.read(|s| pyo3::types::PyBytes::new(py, s))
    }

    fn __len__(&self) -> Result<usize> {
        self.read(|s| s.len())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> Result<()> {
        self.release()
    }

    fn __repr__(&self) -> String {
        match self.lock().as_ref() {
            Some(s) => format!("<ringbus.Sample position={} len={}>", s.position(), s.len()),
            None => "<ringbus.Sample (released)>".into(),
        }
    }
}
