//! `Latch`, `Semaphore` and `Word`: waiting and waking between processes through shared
//! memory words alone.

use crate::blocking;
use crate::errors::{closed, Error, Result};
use crate::handle::Handle;
use pyo3::buffer::PyUntypedBuffer;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

fn stats_dict(py: Python<'_>, s: ringbus::WakeStats) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("wake_calls", s.wake_calls)?;
    dict.set_item("woken", s.woken)?;
    dict.set_item("skipped", s.skipped)?;
    Ok(dict)
}

/// What latches and semaphores share: a name, a file, counters, `unlink`, `close`.
macro_rules! object_methods {
    ($ty:ident, $what:literal, { $($methods:tt)* }) => {
        impl $ty {
            pub(crate) fn new(inner: ringbus::$ty) -> $ty {
                $ty { inner: Handle::new(inner) }
            }

            /// The core object, for a wait set to attach.
            pub(crate) fn core(&self) -> Result<ringbus::$ty> {
                self.inner.get().ok_or_else(|| closed($what))
            }
        }

        #[pymethods]
        impl $ty {
            /// The object's name.
            #[getter]
            fn name(&self) -> Result<String> {
                Ok(self.core()?.name().to_string())
            }

            /// The object's file under the ringbus root.
            #[getter]
            fn path(&self) -> Result<PathBuf> {
                Ok(self.core()?.path().to_path_buf())
            }

            /// Wake counters kept in shared memory by every process using the object:
            /// `wake_calls`, `woken`, `skipped` (calls that found nobody asleep).
            fn stats<'py>(&self, py: Python<'py>) -> Result<Bound<'py, PyDict>> {
                Ok(stats_dict(py, self.core()?.stats())?)
            }

            /// Removes the name: handles already open keep working; the next open of the
            /// name creates a new object.
            fn unlink(&self) -> Result<()> {
                self.core()?.unlink();
                Ok(())
            }

            /// Whether `close()` was called.
            #[getter]
            fn closed(&self) -> bool {
                self.inner.get().is_none()
            }

            /// Unmaps this handle (other handles and processes are unaffected). Idempotent.
            fn close(&self) {
                self.inner.close();
            }

            fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
                slf
            }

            #[pyo3(signature = (*_exc))]
            fn __exit__(&self, _exc: &Bound<'_, PyTuple>) {
                self.close();
            }

            $($methods)*
        }
    };
}

/// A one-bit event between processes: `set()` wakes every waiter (one system call, none
/// if nobody waits); the owner `reset()`s it before looking for work, then waits.
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Latch {
    inner: Handle<ringbus::Latch>,
}
object_methods!(Latch, "latch", {
    /// Sets the latch and wakes every waiter; returns whether it was unset.
    fn set(&self) -> Result<bool> {
        Ok(self.core()?.set())
    }

    /// Clears the latch.
    fn reset(&self) -> Result<()> {
        self.core()?.reset();
        Ok(())
    }

    /// Whether the latch is set.
    fn is_set(&self) -> Result<bool> {
        Ok(self.core()?.is_set())
    }

    /// Waits until the latch is set (returns at once if it is), at most `timeout` seconds
    /// (`None`: forever); raises `Timeout`. Releases the GIL; Ctrl-C interrupts it.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> Result<()> {
        let (timeout, latch) = (blocking::timeout(timeout)?, self.core()?);
        blocking::wait_in_slices(py, timeout, |slice| Ok(latch.wait(Some(slice)).ok()))
    }
});

/// A counting semaphore between processes (job tokens without a pipe): `post()` wakes
/// exactly one sleeper and makes no system call when nobody sleeps.
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Semaphore {
    inner: Handle<ringbus::Semaphore>,
}
object_methods!(Semaphore, "semaphore", {
    /// Returns a token and wakes one sleeper, if any sleeps.
    fn post(&self) -> Result<()> {
        Ok(self.core()?.post()?)
    }

    /// Takes a token if one is free; never blocks.
    fn try_wait(&self) -> Result<bool> {
        Ok(self.core()?.try_wait())
    }

    /// Takes a token, waiting at most `timeout` seconds (`None`: forever); raises
    /// `Timeout`. Releases the GIL; Ctrl-C interrupts it.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> Result<()> {
        let (timeout, semaphore) = (blocking::timeout(timeout)?, self.core()?);
        blocking::wait_in_slices(py, timeout, |slice| Ok(semaphore.wait_timeout(slice).ok()))
    }

    /// Free tokens right now (a snapshot).
    #[getter]
    fn value(&self) -> Result<u32> {
        Ok(self.core()?.value())
    }
});

/// A 32-bit word in memory shared with other processes — `mmap.mmap` of a shared file,
/// `multiprocessing.shared_memory.SharedMemory().buf`, at a 4-byte aligned `offset` — to
/// wait on until it changes and to wake its waiters, with no fd and no handle: the memory
/// is the rendezvous. Holds a view of the buffer until closed (so the mapping stays).
#[pyclass(module = "ringbus._native", frozen)]
pub(crate) struct Word {
    buffer: Mutex<Option<PyUntypedBuffer>>,
    address: usize,
    /// Waits in progress and wait-set attachments: `close()` refuses while any.
    busy: AtomicUsize,
}

impl Word {
    fn lock(&self) -> MutexGuard<'_, Option<PyUntypedBuffer>> {
        // Nothing panics while holding the lock; recover the buffer if something did.
        self.buffer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the word while the buffer is held.
    fn with<T>(&self, f: impl FnOnce(&AtomicU32) -> T) -> Result<T> {
        let guard = self.lock();
        if guard.is_none() {
            return Err(closed("word"));
        }
        // SAFETY: `address` was checked at construction to be 4-byte aligned, inside the
        // buffer and writable; the buffer, held in `guard`, keeps the memory mapped.
        Ok(f(unsafe { &*(self.address as *const AtomicU32) }))
    }
}

/// Keeps a `Word`'s buffer from being released (counted in its `busy`) while a wait or a
/// wait set uses the word.
pub(crate) struct WordPin {
    word: Py<Word>,
}

impl WordPin {
    pub(crate) fn new(word: Py<Word>) -> Result<WordPin> {
        let w = word.get();
        let guard = w.lock();
        if guard.is_none() {
            return Err(closed("word"));
        }
        w.busy.fetch_add(1, Ordering::Relaxed); // under the lock `close()` checks it under
        drop(guard);
        Ok(WordPin { word })
    }

    /// The word, valid for as long as this pin lives.
    pub(crate) fn atomic(&self) -> &AtomicU32 {
        // SAFETY: as in `Word::with`: aligned, in bounds, writable; the pin keeps `close()`
        // from releasing the buffer, and holds the `Word` (so the buffer) alive.
        unsafe { &*(self.word.get().address as *const AtomicU32) }
    }
}

impl Drop for WordPin {
    fn drop(&mut self) {
        self.word.get().busy.fetch_sub(1, Ordering::Relaxed);
    }
}

#[pymethods]
impl Word {
    #[new]
    #[pyo3(signature = (buffer, offset = 0))]
    fn new(buffer: &Bound<'_, PyAny>, offset: usize) -> Result<Word> {
        let view = PyUntypedBuffer::get(buffer)?;
        let invalid = |reason: String| Err(Error::InvalidArgument(reason));
        if view.readonly() {
            return invalid("a Word needs writable memory; this buffer is read-only".into());
        }
        if !view.is_c_contiguous() || offset.checked_add(4).is_none_or(|end| end > view.len_bytes()) {
            return invalid(format!(
                "offset {offset} leaves no 4 contiguous bytes in a buffer of {} bytes",
                view.len_bytes()
            ));
        }
        let address = view.buf_ptr() as usize + offset;
        if !address.is_multiple_of(4) {
            return invalid(format!("a Word must be 4-byte aligned; offset {offset} is not (use a multiple of 4)"));
        }
        Ok(Word { buffer: Mutex::new(Some(view)), address, busy: AtomicUsize::new(0) })
    }

    /// The word's value now.
    fn load(&self) -> Result<u32> {
        // Acquire: pairs with the Release store of whoever changed it.
        self.with(|w| w.load(Ordering::Acquire))
    }

    /// Stores `value` (Release: what was written before is visible to whoever sees it).
    /// Call `wake()` after to end waits.
    fn store(&self, value: u32) -> Result<()> {
        self.with(|w| w.store(value, Ordering::Release))
    }

    /// Adds `delta` (wrapping) and returns the previous value.
    fn fetch_add(&self, delta: u32) -> Result<u32> {
        // AcqRel: a read-modify-write both sides of a hand-over can use.
        self.with(|w| w.fetch_add(delta, Ordering::AcqRel))
    }

    /// Waits until the word differs from `expected` (returns at once if it does), at
    /// most `timeout` seconds (`None`: forever), and returns the value found; raises
    /// `Timeout`. Releases the GIL; Ctrl-C interrupts it.
    #[pyo3(signature = (expected, timeout = None))]
    fn wait(slf: &Bound<'_, Self>, expected: u32, timeout: Option<f64>) -> Result<u32> {
        let timeout = blocking::timeout(timeout)?;
        let pin = WordPin::new(slf.clone().unbind())?;
        blocking::wait_in_slices(slf.py(), timeout, |slice| Ok(ringbus::wait(pin.atomic(), expected, Some(slice)).ok()))
    }

    /// Wakes up to `count` waiters (`None`: all) in any process; returns how many woke.
    /// One system call: change the word first, then wake.
    #[pyo3(signature = (count = None))]
    fn wake(&self, count: Option<u32>) -> Result<u32> {
        let n = count.unwrap_or(i32::MAX as u32);
        self.with(|w| ringbus::wake(w, n))
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.lock().is_none()
    }

    /// Releases the view of the buffer (the mapping can then be closed). Raises
    /// `BufferError` while a wait or a wait set uses the word. Idempotent.
    fn close(&self) -> Result<()> {
        let mut guard = self.lock();
        if self.busy.load(Ordering::Relaxed) > 0 {
            return Err(Error::Exported(
                "this word is attached to a WaitSet or being waited on; detach it first".into(),
            ));
        }
        let buffer = guard.take();
        drop(guard);
        drop(buffer);
        Ok(())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> Result<()> {
        self.close()
    }
}
