//! Exporting shared memory through the buffer protocol (`memoryview`, `numpy.frombuffer`)
//! without copying, and counting the exports so that the memory is never given back
//! while a Python object can still see it.

use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Live exports of one loan or sample: `__getbuffer__` adds one, `__releasebuffer__` takes
/// it back; what would give the memory back (publish, release, close) refuses while any
/// is live. Shared (`Arc`) so a release never needs to borrow the object that checks it.
#[derive(Debug, Default, Clone)]
pub(crate) struct Exports(Arc<AtomicUsize>);

impl Exports {
    pub(crate) fn live(&self) -> usize {
        // Relaxed: every increment and every check happen under the same Python object
        // borrow or lock; a decrement only ever allows more.
        self.0.load(Ordering::Relaxed)
    }

    /// Whether the other holder (the `Loan` object) is gone: only this clone is left.
    pub(crate) fn orphaned(&self) -> bool {
        Arc::strong_count(&self.0) == 1
    }

    pub(crate) fn release(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }

    /// Fills `view` to export `len` bytes at `ptr` on behalf of `owner` and counts the
    /// export. CPython keeps a strong reference to `owner` in the view until it is
    /// released, and calls `owner.__releasebuffer__` then.
    ///
    /// # Safety
    /// `view` is the pointer CPython passed to `owner.__getbuffer__`; `ptr..ptr + len` stays
    /// mapped and owned by `owner` (and, if `writable`, written by nobody else) until the
    /// matching `__releasebuffer__`, i.e. while [`Exports::live`] counts this export.
    pub(crate) unsafe fn export(
        &self,
        view: *mut ffi::Py_buffer,
        owner: &Bound<'_, PyAny>,
        ptr: *mut u8,
        len: usize,
        writable: bool,
        flags: c_int,
    ) -> PyResult<()> {
        // SAFETY: `view` is CPython's (caller's contract); `owner` is a live object;
        // `PyBuffer_FillInfo` only records `ptr`/`len` (valid per the caller's contract),
        // takes a reference to `owner`, and refuses a writable request on read-only memory.
        let filled = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                owner.as_ptr(),
                ptr.cast(),
                len as ffi::Py_ssize_t,
                c_int::from(!writable),
                flags,
            )
        };
        if filled != 0 {
            return Err(PyErr::fetch(owner.py()));
        }
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// The error for giving memory back while it is exported.
    pub(crate) fn busy(&self, what: &str, action: &str) -> crate::errors::Error {
        crate::errors::Error::Exported(format!(
            "cannot {action} this {what}: {} buffer(s) (memoryview, numpy array, ...) still view its memory; \
             delete them (del array) or release them (memoryview.release()) first",
            self.live()
        ))
    }
}
