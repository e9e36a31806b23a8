//! `Queue`, `Producer` and `Consumer`: command queues whose commands are numpy values of
//! one dtype, moved as bytes by the core's queues of run-time types.

use crate::blocking;
use crate::commands::Command;
use crate::errors::{closed, Error, Result};
use crate::node::Wake;
use pyo3::buffer::PyUntypedBuffer;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use ringbus::{PushError, RawCommand};
use std::time::Duration;

/// A queue's name, command type and settings, from `Node.queue()`: open it with
/// `producer()` or `consumer()`.
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Queue {
    node: ringbus::Node,
    name: String,
    command: Command,
    capacity: Option<u32>,
    mpsc: Option<bool>,
    wake: Option<Wake>,
}

impl Queue {
    pub(crate) fn new(
        node: ringbus::Node,
        name: &str,
        command: Command,
        capacity: Option<u32>,
        mpsc: Option<bool>,
        wake: Option<Wake>,
    ) -> Queue {
        Queue { node, name: name.to_string(), command, capacity, mpsc, wake }
    }

    fn builder(&self) -> ringbus::queue::QueueBuilder<RawCommand> {
        let b = self.node.raw_queue(&self.name, self.command.core.clone());
        let b = match self.capacity {
            Some(c) => b.capacity(c),
            None => b,
        };
        let b = match self.mpsc {
            Some(true) => b.mpsc(),
            Some(false) => b.spsc(),
            None => b,
        };
        match self.wake {
            Some(wake) => b.wake(wake.into()),
            None => b,
        }
    }
}

#[pymethods]
impl Queue {
    /// Joins the queue as a producer (creating the queue if needed). An SPSC queue has one
    /// producer at a time, an MPSC queue several (else `LimitReached`).
    fn producer(&self, py: Python<'_>) -> Result<Producer> {
        let builder = self.builder();
        let inner = py.detach(|| builder.producer())?;
        Ok(Producer { inner: Some(inner), command: self.command.clone() })
    }

    /// Joins the queue as its one consumer (creating the queue if needed; a second
    /// consumer while one lives raises `LimitReached`).
    fn consumer(&self, py: Python<'_>) -> Result<Consumer> {
        let builder = self.builder();
        let inner = py.detach(|| builder.consumer())?;
        Ok(Consumer { inner: Some(inner), command: self.command.clone() })
    }

    /// The queue's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The dtype of one command.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.command.dtype(py)
    }

    /// The command type's name, which every opener gives.
    #[getter]
    fn type_name(&self) -> &str {
        self.command.core.name()
    }
}

/// Pushes commands into a queue. `push()` never blocks unless given a timeout; a full
/// queue (the consumer behind, stopped or gone) returns `False`. Use it from one thread at
/// a time.
#[pyclass(module = "ringbus._native")]
pub(crate) struct Producer {
    inner: Option<ringbus::Producer<RawCommand>>,
    command: Command,
}

impl Producer {
    fn live(&mut self) -> Result<&mut ringbus::Producer<RawCommand>> {
        self.inner.as_mut().ok_or_else(|| closed("producer"))
    }

    fn peek_live(&self) -> Result<&ringbus::Producer<RawCommand>> {
        self.inner.as_ref().ok_or_else(|| closed("producer"))
    }
}

/// A push that found the queue full: `false`; another failure: the error.
fn pushed(result: std::result::Result<(), PushError<()>>) -> Result<bool> {
    match result {
        Ok(()) => Ok(true),
        Err(PushError::Full(())) => Ok(false),
        Err(PushError::Queue(e)) => Err(e.into()),
    }
}

/// Waits in slices (GIL released, Ctrl-C interrupts) until `attempt` succeeds or
/// `timeout` passes: whether it succeeded.
fn until(
    py: Python<'_>,
    timeout: Option<Duration>,
    attempt: impl FnMut(Duration) -> Result<bool> + Send,
) -> Result<bool> {
    let mut attempt = attempt;
    match blocking::wait_in_slices(py, timeout, |slice| Ok(attempt(slice)?.then_some(()))) {
        Ok(()) => Ok(true),
        Err(Error::Timeout) => Ok(false),
        Err(e) => Err(e),
    }
}

#[pymethods]
impl Producer {
    /// Pushes one command: a value of the queue's dtype (a numpy scalar, a 0-d or
    /// 1-element array, or what `numpy.array(value, dtype)` takes, such as a tuple for a
    /// structured dtype) or bytes of exactly its size. Returns whether it was pushed:
    /// `False` if the queue stayed full for `timeout` seconds (default 0: no wait; `None`:
    /// as long as it takes). A wait releases the GIL; Ctrl-C interrupts it.
    #[pyo3(signature = (command, timeout = Some(0.0)))]
    fn push(&mut self, py: Python<'_>, command: &Bound<'_, PyAny>, timeout: Option<f64>) -> Result<bool> {
        let timeout = blocking::timeout(timeout)?;
        let bytes = self.command.bytes(command)?;
        let producer = self.live()?;
        let first = pushed(producer.push_bytes(bytes.as_bytes()))?;
        if first || timeout == Some(Duration::ZERO) {
            return Ok(first);
        }
        let bytes = bytes.as_bytes().to_vec();
        until(py, timeout, |slice| pushed(producer.push_bytes_timeout(&bytes, Some(slice))))
    }

    /// Pushes as many of `commands` (a 1-d array of the queue's dtype, or a sequence numpy
    /// makes one of) as fit, in order; returns how many. Never blocks.
    fn push_batch(&mut self, commands: &Bound<'_, PyAny>) -> Result<usize> {
        let array = self.command.batch(commands)?;
        let buffer = PyUntypedBuffer::get(&array)?;
        let len = buffer.len_bytes();
        // SAFETY: `buffer` keeps the contiguous array's `len` bytes at `buf_ptr` valid and
        // unchanged (the GIL is held, and only this call sees the array) until it is dropped.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.buf_ptr().cast::<u8>(), len) };
        Ok(self.live()?.push_batch_bytes(bytes)?)
    }

    /// Whether the queue's consumer is alive (its process holds the queue open).
    fn consumer_alive(&self) -> Result<bool> {
        Ok(self.peek_live()?.consumer_alive())
    }

    /// Removes the queue's file (openers after this make a new queue); this producer and
    /// the consumer keep the one they have.
    fn unlink(&self) -> Result<()> {
        self.peek_live()?.unlink();
        Ok(())
    }

    /// Commands the queue holds.
    #[getter]
    fn capacity(&self) -> Result<u32> {
        Ok(self.peek_live()?.capacity())
    }

    /// The dtype of one command.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.command.dtype(py)
    }

    /// The queue's name.
    #[getter]
    fn name(&self) -> Result<String> {
        Ok(self.peek_live()?.name().to_string())
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// Leaves the queue (it stays for the next producer). Idempotent.
    fn close(&mut self, py: Python<'_>) {
        if let Some(producer) = self.inner.take() {
            py.detach(|| drop(producer));
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
            Some(p) => format!("<ringbus.Producer {:?}>", p.name()),
            None => "<ringbus.Producer (closed)>".into(),
        }
    }
}

/// Pops the commands of a queue, oldest first: the queue's one consumer. `pop()` and
/// `pop_batch()` never block; `wait()` sleeps until a command is ready (GIL released;
/// Ctrl-C interrupts it). Use it from one thread at a time.
#[pyclass(module = "ringbus._native")]
pub(crate) struct Consumer {
    inner: Option<ringbus::Consumer<RawCommand>>,
    command: Command,
}

impl Consumer {
    fn live(&mut self) -> Result<&mut ringbus::Consumer<RawCommand>> {
        self.inner.as_mut().ok_or_else(|| closed("consumer"))
    }

    fn peek_live(&self) -> Result<&ringbus::Consumer<RawCommand>> {
        self.inner.as_ref().ok_or_else(|| closed("consumer"))
    }

    /// The core consumer, for a wait set to attach.
    pub(crate) fn core(&self) -> Result<&ringbus::Consumer<RawCommand>> {
        self.peek_live()
    }
}

#[pymethods]
impl Consumer {
    /// The oldest command as a numpy scalar of the queue's dtype, or `None` if the queue is
    /// empty. Never blocks.
    fn pop<'py>(&mut self, py: Python<'py>) -> Result<Option<Bound<'py, PyAny>>> {
        let consumer = self.live()?;
        let mut popped = Ok(false);
        let bytes = PyBytes::new_with(py, consumer.command_size(), |out| {
            popped = consumer.pop_bytes(out);
            Ok(())
        })?;
        match popped? {
            true => Ok(Some(self.command.scalar(&bytes)?)),
            false => Ok(None),
        }
    }

    /// Up to `max` commands, oldest first, as a 1-d numpy array of the queue's dtype
    /// (empty if the queue is). Never blocks.
    fn pop_batch<'py>(&mut self, py: Python<'py>, max: usize) -> Result<Bound<'py, PyAny>> {
        let consumer = self.live()?;
        let count = max.min(consumer.capacity() as usize);
        let mut popped = Ok(0);
        let bytes = PyBytes::new_with(py, count * consumer.command_size(), |out| {
            popped = consumer.pop_batch_bytes(out);
            Ok(())
        })?;
        let n = popped?;
        self.command.array(&bytes, n)
    }

    /// Waits until a command is ready, at most `timeout` seconds (`None`: forever);
    /// returns whether one is. Releases the GIL while it sleeps; Ctrl-C raises
    /// `KeyboardInterrupt`.
    #[pyo3(signature = (timeout = None))]
    fn wait(&mut self, py: Python<'_>, timeout: Option<f64>) -> Result<bool> {
        let timeout = blocking::timeout(timeout)?;
        let consumer = self.live()?;
        until(py, timeout, |slice| Ok(consumer.wait(Some(slice))))
    }

    /// Commands skipped because a producer died between claiming their slots and writing
    /// them (MPSC queues).
    #[getter]
    fn abandoned(&self) -> Result<u64> {
        Ok(self.peek_live()?.abandoned())
    }

    /// Removes the queue's file: queues persist until unlinked. This consumer and the
    /// producers keep the one they have.
    fn unlink(&self) -> Result<()> {
        self.peek_live()?.unlink();
        Ok(())
    }

    /// Commands the queue holds.
    #[getter]
    fn capacity(&self) -> Result<u32> {
        Ok(self.peek_live()?.capacity())
    }

    /// The dtype of one command.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.command.dtype(py)
    }

    /// The queue's name.
    #[getter]
    fn name(&self) -> Result<String> {
        Ok(self.peek_live()?.name().to_string())
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// Leaves the queue (it stays, with its commands, until unlinked). Idempotent.
    fn close(&mut self, py: Python<'_>) {
        if let Some(consumer) = self.inner.take() {
            py.detach(|| drop(consumer));
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
            Some(c) => format!("<ringbus.Consumer {:?}>", c.name()),
            None => "<ringbus.Consumer (closed)>".into(),
        }
    }
}
