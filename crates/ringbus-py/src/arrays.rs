//! numpy arrays over loans and samples. The pure-Python module `ringbus._arrays` checks the
//! dtype and the shape and makes the array with `numpy.frombuffer`, so each array holds a
//! buffer export (`buffer`) that keeps its memory from being given back. numpy is an
//! optional dependency: that module is imported on the first call, never with `ringbus`.

use crate::errors::{Error, Result};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    MODULE.get_or_try_init(py, || py.import("ringbus._arrays").map(Bound::unbind)).map(|m| m.bind(py))
}

/// The dtype and shape a loan was made for (`Publisher.loan_array`), as `ringbus._arrays`
/// normalised them.
#[derive(Debug)]
pub(crate) struct Layout {
    pub(crate) dtype: Py<PyAny>,
    pub(crate) shape: Py<PyAny>,
}

/// The layout of an array of `shape` and `dtype`, and its size in bytes.
pub(crate) fn layout(shape: &Bound<'_, PyAny>, dtype: &Bound<'_, PyAny>) -> Result<(Layout, usize)> {
    let (dtype, shape, bytes): (Py<PyAny>, Py<PyAny>, Bound<'_, PyAny>) =
        module(shape.py())?.call_method1("layout", (shape, dtype))?.extract()?;
    let size = bytes.extract::<usize>().map_err(|_| {
        Error::InvalidArgument(format!(
            "an array of {bytes} bytes is larger than any loan can be; a loan holds at most the topic's max_payload_bytes"
        ))
    })?;
    Ok((Layout { dtype, shape }, size))
}

/// `buffer` (a `Loan` or a `Sample`) as an array of `dtype` and `shape` (None: one
/// dimension), without a copy; read-only if the buffer is.
pub(crate) fn view<'py>(
    buffer: &Bound<'py, PyAny>,
    dtype: &Bound<'py, PyAny>,
    shape: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    module(buffer.py())?.call_method1("view", (buffer, dtype, shape))
}

/// A topic's declared payload type: the array layout every message has, shared by the
/// topic's handles and their samples.
pub(crate) type Declared = std::sync::Arc<Layout>;

/// What `Node.topic(payload_dtype=, payload_shape=, payload_type_name=)` declares: the
/// layout, and the type's name, size and alignment for the core's payload type.
pub(crate) struct Declaration {
    pub(crate) layout: Declared,
    pub(crate) name: String,
    pub(crate) size: usize,
    pub(crate) align: usize,
}

pub(crate) fn declare(
    dtype: &Bound<'_, PyAny>,
    shape: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> Result<Declaration> {
    let (dtype, shape, size, align, name): (Py<PyAny>, Py<PyAny>, usize, usize, String) =
        module(dtype.py())?.call_method1("declare", (dtype, shape, name))?.extract()?;
    Ok(Declaration { layout: std::sync::Arc::new(Layout { dtype, shape }), name, size, align })
}

/// Refuses a `dtype` or `shape` other than the declared ones (`Mismatch`); `None` passes.
pub(crate) fn check_declared(
    declared: &Layout,
    dtype: Option<&Bound<'_, PyAny>>,
    shape: Option<&Bound<'_, PyAny>>,
) -> Result<()> {
    let py = match dtype.or(shape) {
        Some(given) => given.py(),
        None => return Ok(()),
    };
    let declared = (declared.dtype.clone_ref(py), declared.shape.clone_ref(py));
    module(py)?.call_method1("check_declared", (declared, dtype, shape))?;
    Ok(())
}
