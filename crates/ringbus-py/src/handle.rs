//! [`Handle`]: a cheaply cloned core handle (node, latch, semaphore) that Python can close.

use std::sync::Mutex;

/// Holds a clonable core handle until `close()`. Each use clones it out of the lock, so a
/// blocking call never holds the lock (another thread may close meanwhile: the clone it
/// waits on stays valid, and later calls see the handle closed).
#[derive(Debug)]
pub(crate) struct Handle<T: Clone> {
    inner: Mutex<Option<T>>,
}

impl<T: Clone> Handle<T> {
    pub(crate) fn new(value: T) -> Handle<T> {
        Handle { inner: Mutex::new(Some(value)) }
    }

    /// A clone of the handle; `None` once closed.
    pub(crate) fn get(&self) -> Option<T> {
        self.lock().clone()
    }

    /// Drops the handle (idempotent).
    pub(crate) fn close(&self) {
        let value = self.lock().take();
        drop(value); // outside the lock
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<T>> {
        // Nothing panics while holding the lock; recover the value if something did.
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
