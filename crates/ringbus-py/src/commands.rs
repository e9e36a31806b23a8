//! Commands of queues and services as numpy values. The pure-Python module
//! `ringbus._commands` normalises the dtype, names the type and converts values to and from
//! bytes; the core moves the bytes.

use crate::errors::Result;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyBytes;
use ringbus::CommandType;

static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    MODULE.get_or_try_init(py, || py.import("ringbus._commands").map(Bound::unbind)).map(|m| m.bind(py))
}

/// A command type given as a numpy dtype, and that dtype (normalised).
#[derive(Debug)]
pub(crate) struct Command {
    pub(crate) dtype: Py<PyAny>,
    pub(crate) core: CommandType,
}

impl Command {
    /// The command type of `dtype`, named `type_name` (`None`: derived from the dtype).
    pub(crate) fn new(dtype: &Bound<'_, PyAny>, type_name: Option<&str>) -> Result<Command> {
        let (dtype, name, size, align): (Py<PyAny>, String, usize, usize) =
            module(dtype.py())?.call_method1("command_type", (dtype, type_name))?.extract()?;
        Ok(Command { dtype, core: CommandType::new(&name, size, align)? })
    }

    /// `value` as the bytes of one command.
    pub(crate) fn bytes<'py>(&self, value: &Bound<'py, PyAny>) -> Result<Bound<'py, PyBytes>> {
        let bytes = module(value.py())?.call_method1("one", (value, &self.dtype))?;
        Ok(bytes.cast_into::<PyBytes>().map_err(PyErr::from)?)
    }

    /// `values` as a contiguous 1-d array of the dtype.
    pub(crate) fn batch<'py>(&self, values: &Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>> {
        Ok(module(values.py())?.call_method1("batch", (values, &self.dtype))?)
    }

    /// The bytes of one command as a numpy scalar.
    pub(crate) fn scalar<'py>(&self, bytes: &Bound<'py, PyBytes>) -> Result<Bound<'py, PyAny>> {
        Ok(module(bytes.py())?.call_method1("scalar", (bytes, &self.dtype))?)
    }

    /// The first `count` commands in `bytes` as a 1-d numpy array.
    pub(crate) fn array<'py>(&self, bytes: &Bound<'py, PyBytes>, count: usize) -> Result<Bound<'py, PyAny>> {
        Ok(module(bytes.py())?.call_method1("array", (bytes, count, &self.dtype))?)
    }

    /// The dtype, for Python.
    pub(crate) fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.dtype.bind(py).clone()
    }
}

impl Clone for Command {
    fn clone(&self) -> Command {
        Python::attach(|py| Command { dtype: self.dtype.clone_ref(py), core: self.core.clone() })
    }
}
