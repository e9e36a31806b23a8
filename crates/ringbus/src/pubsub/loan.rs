//! [`Loan`] and [`DetachedLoan`]: a chunk lent by a [`Publisher`] to write a message into
//! in place, then publish.

use super::publisher::Publisher;
use crate::error::ViewError;
use crate::shm::pod::{self, Pod};
use crate::shm::publisher::ClaimedChunk;

/// A chunk lent by a [`Publisher`] that does not borrow it (see
/// [`Publisher::loan_detached`]): for bindings whose loan is an object of its own. It goes
/// back to the publisher that lent it — [`Publisher::publish_detached`] or
/// [`Publisher::discard_detached`] — which checks that it is its own.
#[derive(Debug)]
#[must_use = "a detached loan keeps its chunk until it is published or discarded on its publisher"]
pub struct DetachedLoan {
    pub(super) claim: ClaimedChunk,
    pub(super) len: u64,
    /// The lending publisher's topic id, slot and incarnation.
    pub(super) lender: (u64, u32, u32),
}

impl DetachedLoan {
    /// The message's length in bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the message is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Shortens the message to `len` bytes (a loan can be taken at the maximum size and
    /// trimmed once the real size is known).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len as u64);
    }
}

/// A chunk lent by a [`Publisher`]: write into it (it dereferences to `[u8]`), then
/// [`Loan::publish`]. Dropping it unpublished returns the chunk.
#[derive(Debug)]
pub struct Loan<'p> {
    publisher: &'p mut Publisher,
    /// `None` once published.
    detached: Option<DetachedLoan>,
}

impl<'p> Loan<'p> {
    #[inline]
    pub(super) fn new(publisher: &'p mut Publisher, detached: DetachedLoan) -> Loan<'p> {
        Loan { publisher, detached: Some(detached) }
    }

    #[inline]
    fn live(&self) -> &DetachedLoan {
        self.detached.as_ref().expect("live loan")
    }

    /// Publishes the message: one log entry, one position store, and a wake system call
    /// only if some subscriber sleeps.
    #[inline]
    pub fn publish(mut self) {
        let detached = self.detached.take().expect("a loan is published once");
        self.publisher.publish_detached(detached);
    }

    /// Shortens the message to `len` bytes (a loan can be taken at the maximum size and
    /// trimmed once the real size is known).
    pub fn truncate(&mut self, len: usize) {
        self.detached.as_mut().expect("live loan").truncate(len);
    }

    /// The payload as a `T` (size and alignment checked).
    pub fn value_mut<T: Pod>(&mut self) -> Result<&mut T, ViewError> {
        pod::view_mut(self)
    }

    /// The payload as a mutable slice of `T` (length a whole number of `T`); see
    /// [`Publisher::loan_slice`].
    pub fn slice_mut<T: Pod>(&mut self) -> Result<&mut [T], ViewError> {
        pod::view_slice_mut(self)
    }

    /// Address of the payload (to check zero-copy claims).
    pub fn address(&self) -> usize {
        self.publisher.detached_address(self.live())
    }
}

impl std::ops::Deref for Loan<'_> {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.publisher.lent_bytes(self.live())
    }
}

impl std::ops::DerefMut for Loan<'_> {
    #[inline]
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn deref_mut(&mut self) -> &mut [u8] {
        let detached = self.detached.as_mut().expect("live loan");
        self.publisher.detached_bytes(detached)
    }
}

impl Drop for Loan<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(detached) = self.detached.take() {
            self.publisher.discard_detached(detached);
        }
    }
}
