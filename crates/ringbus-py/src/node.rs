//! `Node` and `Topic`: joining the bus and describing a topic before opening it.

use crate::arrays::{self, Declared};
use crate::blocking;
use crate::commands::Command;
use crate::errors::{closed, Error, Result};
use crate::events::{Latch, Semaphore};
use crate::handle::Handle;
use crate::publisher::Publisher;
use crate::queue::Queue;
use crate::service::{Client, Server};
use crate::subscriber::Subscriber;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};
use ringbus::service::{RawClient, RawServer};
use ringbus::WhenFull;
use std::path::PathBuf;

/// A payload name, size and alignment given without a numpy dtype.
type Named<'a> = (Option<&'a str>, Option<usize>, Option<usize>);

/// Declares the payload type given to `Node.topic()`: a numpy layout (`payload_dtype`,
/// `payload_shape`, `payload_type_name`), or a name with a size and alignment.
fn declare_payload(
    b: ringbus::TopicBuilder,
    dtype: Option<&Bound<'_, PyAny>>,
    shape: Option<&Bound<'_, PyAny>>,
    (name, size, align): Named<'_>,
) -> Result<(ringbus::TopicBuilder, Option<Declared>)> {
    let invalid = |what: &str| Err(Error::InvalidArgument(what.into()));
    match (dtype, shape, size, align) {
        (Some(_), _, Some(_), _) | (Some(_), _, _, Some(_)) => {
            invalid("payload_size and payload_align come from payload_dtype: give one or the other")
        }
        (Some(dtype), shape, None, None) => {
            let d = arrays::declare(dtype, shape, name)?;
            Ok((b.payload_type_named(&d.name, d.size, d.align), Some(d.layout)))
        }
        (None, None, Some(size), align) => match name {
            Some(name) => Ok((b.payload_type_named(name, size, align.unwrap_or(1)), None)),
            None => invalid("payload_size and payload_align describe a payload_type_name: give it too"),
        },
        (None, None, None, None) if name.is_none() => Ok((b, None)),
        _ => invalid(
            "payload_shape describes a payload_dtype, and payload_type_name needs payload_dtype or \
             payload_size: give one of them",
        ),
    }
}

/// Whether a subscriber sleeps in `receive()` and is woken by publishes (`ON_DATA`, the
/// default) or only polls with `take()` / `take_latest()` and costs publishers nothing
/// (`NEVER`).
#[pyclass(module = "ringbus._native", eq, eq_int, frozen, from_py_object)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wake {
    #[pyo3(name = "ON_DATA")]
    OnData,
    #[pyo3(name = "NEVER")]
    Never,
}

impl From<Wake> for ringbus::Wake {
    fn from(wake: Wake) -> ringbus::Wake {
        match wake {
            Wake::OnData => ringbus::Wake::OnData,
            Wake::Never => ringbus::Wake::Never,
        }
    }
}

impl From<ringbus::Wake> for Wake {
    fn from(wake: ringbus::Wake) -> Wake {
        match wake {
            ringbus::Wake::OnData => Wake::OnData,
            ringbus::Wake::Never => Wake::Never,
        }
    }
}

/// A participant on the bus, registered under the ringbus root (`root`, else
/// `$RINGBUS_ROOT`, else `/dev/shm/ringbus-<uid>`). Publishers, subscribers, latches and
/// semaphores opened through it keep working after it is closed.
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Node {
    inner: Handle<ringbus::Node>,
}

impl Node {
    fn get(&self) -> Result<ringbus::Node> {
        self.inner.get().ok_or_else(|| closed("node"))
    }
}

#[pymethods]
impl Node {
    #[new]
    #[pyo3(signature = (name = "python", root = None))]
    fn new(py: Python<'_>, name: &str, root: Option<PathBuf>) -> Result<Node> {
        let node = py.detach(|| match root {
            Some(root) => ringbus::Node::with_root(name, root),
            None => ringbus::Node::new(name),
        })?;
        Ok(Node { inner: Handle::new(node) })
    }

    /// Describes the topic `name` (`[A-Za-z0-9_-]` segments joined by `/`); call
    /// `.publisher()` or `.subscriber()` on the result. Unset settings accept the existing
    /// topic's; set ones must match it (else `Mismatch`). `wake` and `keep_last` concern
    /// subscribers only, `direct_wakes` publishers only (how many sleeping subscribers a
    /// publish wakes itself before the first of them wakes the rest; default 2).
    ///
    /// Memory: `pool_bytes` is the most payload memory one publisher may hold at once
    /// (default 1 GiB, or 4 × `max_payload_bytes` if more; at least `max_payload_bytes`): a
    /// loan that would go over it raises `LimitReached`. `preallocate=True` reserves every
    /// chunk's memory when a publisher is created (a fixed pool, no system call on a loan);
    /// `False` reserves it as messages are lent, so a topic with a large
    /// `max_payload_bytes` costs only what is in flight. Default: `True` if
    /// `max_payload_bytes` ≤ 4096.
    ///
    /// Reliability: `reliable=True` (subscribers) makes a subscriber that loses nothing: no
    /// publisher overwrites a message it has not taken (not with `keep_last`). `when_full`
    /// (publishers) says what a publish does when a reliable subscriber is `depth` messages
    /// behind: `None` (the default) waits as long as it takes, a number of seconds waits at
    /// most that long and then raises `Timeout`, `"fail"` raises `LimitReached` at once.
    /// Both belong to the subscriber or publisher, not to the topic.
    ///
    /// Typed arrays: `payload_dtype` (and `payload_shape`, default one value) declares that
    /// every message is one numpy array of that dtype and shape. Every opener that declares
    /// a type must declare the same name, size and alignment (else `Mismatch`), the
    /// topic's `max_payload_bytes` defaults to the array's size, `loan_array()` and
    /// `Sample.as_array()` need no arguments and refuse another dtype or shape.
    /// `payload_type_name` (default: `"numpy:"` + `str(dtype.descr)` + the shape) is the
    /// name C, C++ and Rust programs give the same type.
    ///
    /// A type with no numpy layout (variable-size messages that a name describes, such as
    /// ROS 2 messages: `ringbus.ros.topic`): `payload_type_name` with `payload_size` and
    /// `payload_align` (default 1), without `payload_dtype`, declares the name, size and
    /// alignment as C's `rb_topic_options` does; `max_payload_bytes` then defaults to
    /// `payload_size`, so give it when creating such a topic.
    #[pyo3(signature = (
        name, *, max_publishers = None, max_subscribers = None, depth = None, history = None,
        max_held = None, chunks = None, max_payload_bytes = None, pool_bytes = None, preallocate = None,
        keep_last = None, wake = Wake::OnData, direct_wakes = None, reliable = false, when_full = None,
        payload_dtype = None, payload_shape = None, payload_type_name = None, payload_size = None,
        payload_align = None,
    ))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per setting
    fn topic(
        &self,
        name: &str,
        max_publishers: Option<u32>,
        max_subscribers: Option<u32>,
        depth: Option<u32>,
        history: Option<u32>,
        max_held: Option<u32>,
        chunks: Option<u32>,
        max_payload_bytes: Option<u64>,
        pool_bytes: Option<u64>,
        preallocate: Option<bool>,
        keep_last: Option<u32>,
        wake: Wake,
        direct_wakes: Option<u32>,
        reliable: bool,
        when_full: Option<&Bound<'_, PyAny>>,
        payload_dtype: Option<&Bound<'_, PyAny>>,
        payload_shape: Option<&Bound<'_, PyAny>>,
        payload_type_name: Option<&str>,
        payload_size: Option<usize>,
        payload_align: Option<usize>,
    ) -> Result<Topic> {
        let when_full = when_full_policy(when_full)?;
        use ringbus::TopicBuilder as B;
        let b = self.get()?.topic(name);
        let b = given(
            b,
            [
                (max_publishers, B::max_publishers),
                (max_subscribers, B::max_subscribers),
                (depth, B::depth),
                (history, B::history),
                (max_held, B::max_held),
                (chunks, B::chunks),
                (keep_last, B::keep_last),
                (direct_wakes, B::direct_wakes),
            ],
        );
        let b = given(b, [(max_payload_bytes, B::max_payload_bytes), (pool_bytes, B::pool_bytes)]);
        let b = given(b, [(preallocate, B::preallocate)]);
        let b = b.wake(wake.into());
        let b = if reliable { b.reliable() } else { b };
        let named = (payload_type_name, payload_size, payload_align);
        let (b, declared) = declare_payload(b, payload_dtype, payload_shape, named)?;
        Ok(Topic { builder: b, when_full, declared })
    }

    /// Whether the topic `name` exists under the node's root (its publishers may all be
    /// gone): settings given to `topic()` apply only when it is created, and are checked
    /// against an existing topic's.
    fn topic_exists(&self, py: Python<'_>, name: &str) -> Result<bool> {
        let node = self.get()?;
        Ok(py.detach(|| ringbus::inspect::topic(node.root(), name))?.is_some())
    }

    /// Describes the command queue `name` whose commands are values of the numpy `dtype`
    /// (one element each; a structured dtype for a struct — `align=True` lays it out as C
    /// and Rust do): call `.producer()` or `.consumer()` on the result. Every opener gives
    /// the same `type_name` (default: `"numpy:"` followed by `str(dtype.descr)`, e.g.
    /// `"numpy:[('', '<u4')]"`), the dtype's size and its alignment, else `Mismatch`; to
    /// share a queue with C, C++ or Rust, give the name they use (e.g. `"arm.move"`).
    /// `capacity` (a power of two; default 1024 when creating), `mpsc` (several producers;
    /// default SPSC when creating) and `wake` (default `ON_DATA` when creating) must match
    /// an existing queue's when given.
    #[pyo3(signature = (name, dtype, *, capacity = None, mpsc = None, wake = None, type_name = None))]
    fn queue(
        &self,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        capacity: Option<u32>,
        mpsc: Option<bool>,
        wake: Option<Wake>,
        type_name: Option<&str>,
    ) -> Result<Queue> {
        let command = Command::new(dtype, type_name)?;
        Ok(Queue::new(self.get()?, name, command, capacity, mpsc, wake))
    }

    /// Serves the service `name` (one server at a time): requests are values of
    /// `request_dtype`, responses of `response_dtype`, named as `Node.queue()` names a
    /// command type (give `request_type_name` and `response_type_name` to share the
    /// service with C, C++ or Rust). `capacity` requests can wait. Answer them with
    /// `serve_once()`.
    #[pyo3(signature = (name, request_dtype, response_dtype, *, capacity = 64, request_type_name = None, response_type_name = None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per setting
    fn service(
        &self,
        py: Python<'_>,
        name: &str,
        request_dtype: &Bound<'_, PyAny>,
        response_dtype: &Bound<'_, PyAny>,
        capacity: u32,
        request_type_name: Option<&str>,
        response_type_name: Option<&str>,
    ) -> Result<Server> {
        let (node, request, response) = (
            self.get()?,
            Command::new(request_dtype, request_type_name)?,
            Command::new(response_dtype, response_type_name)?,
        );
        let server = py.detach(|| RawServer::new(&node, name, capacity, &request.core, &response.core))?;
        Ok(Server::new(server, request, response))
    }

    /// A client of the service `name`, with the server's request and response dtypes and
    /// type names (see `service()`; other ones raise `Mismatch`, now if the server is
    /// running, else at the first call). `capacity` responses can wait (late answers to
    /// calls that timed out).
    #[pyo3(signature = (name, request_dtype, response_dtype, *, capacity = 8, request_type_name = None, response_type_name = None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per setting
    fn client(
        &self,
        py: Python<'_>,
        name: &str,
        request_dtype: &Bound<'_, PyAny>,
        response_dtype: &Bound<'_, PyAny>,
        capacity: u32,
        request_type_name: Option<&str>,
        response_type_name: Option<&str>,
    ) -> Result<Client> {
        let (node, request, response) = (
            self.get()?,
            Command::new(request_dtype, request_type_name)?,
            Command::new(response_dtype, response_type_name)?,
        );
        let client = py.detach(|| RawClient::new(&node, name, capacity, &request.core, &response.core))?;
        Ok(Client::new(client, request, response))
    }

    /// Opens the latch `name`, creating it (not set) if needed.
    fn latch(&self, py: Python<'_>, name: &str) -> Result<Latch> {
        let node = self.get()?;
        Ok(Latch::new(py.detach(|| node.latch(name))?))
    }

    /// Opens the semaphore `name`, creating it with `initial` tokens if it does not exist.
    #[pyo3(signature = (name, initial = 0))]
    fn semaphore(&self, py: Python<'_>, name: &str, initial: u32) -> Result<Semaphore> {
        let node = self.get()?;
        Ok(Semaphore::new(py.detach(|| node.semaphore(name, initial))?))
    }

    /// The node's name.
    #[getter]
    fn name(&self) -> Result<String> {
        Ok(self.get()?.name().to_string())
    }

    /// The node's random 64-bit id.
    #[getter]
    fn id(&self) -> Result<u64> {
        Ok(self.get()?.id())
    }

    /// The root directory the node lives in.
    #[getter]
    fn root(&self) -> Result<PathBuf> {
        Ok(self.get()?.root_path().to_path_buf())
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.get().is_none()
    }

    /// Leaves the bus (once everything opened through the node is closed too). Idempotent.
    fn close(&self) {
        self.inner.close();
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, pyo3::types::PyTuple>) {
        self.close();
    }

    fn __repr__(&self) -> String {
        match self.inner.get() {
            Some(n) => format!("<ringbus.Node {:?} id={:#x} root={:?}>", n.name(), n.id(), n.root_path()),
            None => "<ringbus.Node (closed)>".into(),
        }
    }
}

/// A `TopicBuilder` setter.
type Setter<T> = fn(ringbus::TopicBuilder, T) -> ringbus::TopicBuilder;

/// Applies to `b` each setting that was given (`Some`).
fn given<T, const N: usize>(b: ringbus::TopicBuilder, settings: [(Option<T>, Setter<T>); N]) -> ringbus::TopicBuilder {
    settings.into_iter().fold(b, |b, (value, set)| match value {
        Some(v) => set(b, v),
        None => b,
    })
}

/// `when_full=` as a policy: `"fail"`, a number of seconds >= 0, or `None` (as long as it
/// takes).
fn when_full_policy(value: Option<&Bound<'_, PyAny>>) -> Result<WhenFull> {
    const ALLOWED: &str = "when_full must be \"fail\", a number of seconds >= 0, or None to wait as long as it takes";
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(WhenFull::Wait(None));
    };
    if let Ok(text) = value.cast::<PyString>() {
        return match &*text.to_cow()? {
            "fail" => Ok(WhenFull::Fail),
            other => Err(Error::InvalidArgument(format!("{ALLOWED} (got {other:?})"))),
        };
    }
    let not_a_number = || {
        let type_name = value.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string());
        Error::Py(PyTypeError::new_err(format!("{ALLOWED} (got a {type_name})")))
    };
    if value.is_instance_of::<PyBool>() {
        return Err(not_a_number());
    }
    let seconds: f64 = value.extract().map_err(|_| not_a_number())?;
    let limit = blocking::limit(seconds).ok_or_else(|| Error::InvalidArgument(format!("{ALLOWED} (got {seconds})")))?;
    Ok(WhenFull::Wait(limit))
}

/// A topic's name and settings, from `Node.topic()`: open it with `publisher()` or
/// `subscriber()`, as often as needed.
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Topic {
    builder: ringbus::TopicBuilder,
    /// What its publishers do when a reliable subscriber is behind.
    when_full: WhenFull,
    /// The array every message is, if `payload_dtype` was given.
    declared: Option<Declared>,
}

#[pymethods]
impl Topic {
    /// Joins the topic as a publisher (creating the topic if needed).
    fn publisher(&self, py: Python<'_>) -> Result<Publisher> {
        let builder = self.builder.clone().when_full(Publisher::core_policy(self.when_full));
        Ok(Publisher::new(py.detach(|| builder.publisher())?, self.when_full, self.declared.clone()))
    }

    /// Joins the topic as a subscriber (creating the topic if needed).
    fn subscriber(&self, py: Python<'_>) -> Result<Subscriber> {
        let builder = self.builder.clone();
        Ok(Subscriber::new(py.detach(|| builder.subscriber())?, self.declared.clone()))
    }
}
