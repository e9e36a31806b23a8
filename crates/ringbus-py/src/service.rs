//! `Server` and `Client`: services whose requests and responses are numpy values, on the
//! core's services of run-time types. A call is the core's `send` then `receive`, each
//! waiting in slices with the GIL released, so Ctrl-C interrupts either wait.

use crate::blocking;
use crate::commands::Command;
use crate::errors::{closed, Error, Result};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use ringbus::service::{CallError, RawClient, RawServer};
use std::time::Instant;

/// Answers the requests of one service (one server per service at a time): each request
/// is a numpy scalar of the request dtype, each answer converted to the response dtype.
/// Use it from one thread at a time.
#[pyclass(module = "ringbus._native")]
pub(crate) struct Server {
    inner: Option<RawServer>,
    request: Command,
    response: Command,
}

impl Server {
    pub(crate) fn new(inner: RawServer, request: Command, response: Command) -> Server {
        Server { inner: Some(inner), request, response }
    }

    fn live(&mut self) -> Result<&mut RawServer> {
        self.inner.as_mut().ok_or_else(|| closed("server"))
    }

    /// The core server, for a wait set to attach.
    pub(crate) fn core(&self) -> Result<&RawServer> {
        self.inner.as_ref().ok_or_else(|| closed("server"))
    }
}

/// Answers one request with `handler`: its result, converted to the response dtype, into
/// `response` (left zeroed when the handler raises).
fn answer(
    py: Python<'_>,
    handler: &Py<PyAny>,
    (request, response): (&Command, &Command),
    body: &[u8],
    out: &mut [u8],
) -> Result<()> {
    let value = handler.call1(py, (request.scalar(&PyBytes::new(py, body))?,))?;
    let bytes = response.bytes(value.bind(py))?;
    match bytes.as_bytes().len() == out.len() {
        true => out.copy_from_slice(bytes.as_bytes()),
        false => return Err(Error::InvalidArgument("the handler's answer is not one response".into())),
    }
    Ok(())
}

#[pymethods]
impl Server {
    /// Waits up to `timeout` seconds (`None`: forever) for requests, then answers those
    /// ready (at most the service's capacity): `handler(request)` gets each request as a
    /// numpy scalar of the request dtype and returns the response (a value of the response
    /// dtype, as `Producer.push` takes, or bytes of its size). Returns how many it answered
    /// (0 on timeout). If the handler raises, that request is answered with zeros, the
    /// round's other requests are still handled, and then the first exception propagates.
    /// Releases the GIL while it waits; Ctrl-C interrupts the wait.
    #[pyo3(signature = (handler, timeout = None))]
    fn serve_once(&mut self, py: Python<'_>, handler: &Bound<'_, PyAny>, timeout: Option<f64>) -> Result<usize> {
        let timeout = blocking::timeout(timeout)?;
        let handler = handler.clone().unbind();
        let types = (&self.request, &self.response);
        let server = self.inner.as_mut().ok_or_else(|| closed("server"))?;
        let mut failed: Vec<Error> = Vec::new();
        let answered = blocking::wait_in_slices(py, timeout, |slice| {
            let n = server.serve_once(Some(slice), |body, out| {
                Python::attach(|py| failed.extend(answer(py, &handler, types, body, out).err()));
            })?;
            Ok((n > 0).then_some(n))
        });
        let mut failed = failed.into_iter();
        match (failed.next(), answered) {
            (Some(first), _) => Err(with_note(py, first, failed.len())),
            (None, Err(Error::Timeout)) => Ok(0),
            (None, answered) => answered,
        }
    }

    /// Forgets clients that are gone (and removes their response queues); returns how many
    /// are still connected. `serve_once` does this for the clients it answers.
    fn sweep_clients(&mut self) -> Result<usize> {
        Ok(self.live()?.sweep_clients())
    }

    /// Responses dropped because their client was gone or did not read them.
    #[getter]
    fn dropped(&mut self) -> Result<u64> {
        Ok(self.live()?.dropped())
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// Stops serving: the service's request queue is removed, and its clients' calls raise
    /// `ServerGone` until a new server starts. Idempotent.
    fn close(&mut self, py: Python<'_>) {
        if let Some(server) = self.inner.take() {
            py.detach(|| drop(server));
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) {
        self.close(py);
    }
}

/// `error` as a Python exception, noting how many more requests of the round failed.
fn with_note(py: Python<'_>, error: Error, more: usize) -> Error {
    let error = PyErr::from(error);
    if more > 0 {
        let note = format!("{more} more request(s) of this round raised too (answered with zeros)");
        // A note is extra information: failing to add it changes nothing.
        let _ = error.value(py).call_method1("add_note", (note,));
    }
    Error::Py(error)
}

/// Calls one service: `call(request)` sends a request (a value of the request dtype) and
/// returns the response as a numpy scalar of the response dtype. It follows the service
/// across server restarts. Use it from one thread at a time.
#[pyclass(module = "ringbus._native")]
pub(crate) struct Client {
    inner: Option<RawClient>,
    id: u64,
    request: Command,
    response: Command,
}

impl Client {
    pub(crate) fn new(inner: RawClient, request: Command, response: Command) -> Client {
        let id = inner.id();
        Client { inner: Some(inner), id, request, response }
    }
}

#[pymethods]
impl Client {
    /// Sends `request` (a value of the request dtype, as `Producer.push` takes) and waits
    /// at most `timeout` seconds (`None`: forever) for the response, returned as a numpy
    /// scalar of the response dtype. Raises `ServerGone` when no server lives (none
    /// started, or it exited or was killed), `Timeout` when the server is alive but did not
    /// answer in time, `Mismatch` when the server has other request or response types.
    /// Releases the GIL while it waits; Ctrl-C interrupts the wait.
    #[pyo3(signature = (request, timeout = None))]
    fn call<'py>(
        &mut self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        timeout: Option<f64>,
    ) -> Result<Bound<'py, PyAny>> {
        let timeout = blocking::timeout(timeout)?;
        let request = self.request.bytes(request)?;
        let request = request.as_bytes();
        let client = self.inner.as_mut().ok_or_else(|| closed("client"))?;
        let mut response = vec![0; client.body_sizes().1];
        // Both halves wait in slices: a send that timed out sent nothing (send again), a
        // receive that timed out leaves the answer to come (receive again); an answer that
        // Ctrl-C left behind is dropped by the next call.
        let deadline = timeout.map(|t| Instant::now() + t);
        let call = blocking::wait_in_slices(py, timeout, |slice| match client.send(request, slice) {
            Ok(call) => Ok(Some(call)),
            Err(CallError::Timeout) => Ok(None),
            Err(e) => Err(e.into()),
        })?;
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let answered =
            blocking::wait_in_slices(py, left, |slice| Ok(client.receive(call, &mut response, slice)?.then_some(())));
        match answered {
            Err(Error::Timeout) => Err(CallError::Timeout.into()),
            answered => answered,
        }?;
        self.response.scalar(&PyBytes::new(py, &response))
    }

    /// This client's id (the server addresses its responses to it).
    #[getter]
    fn id(&self) -> u64 {
        self.id
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// Leaves the service (its response queue is removed). Idempotent.
    fn close(&mut self, py: Python<'_>) {
        if let Some(client) = self.inner.take() {
            py.detach(|| drop(client));
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) {
        self.close(py);
    }
}
