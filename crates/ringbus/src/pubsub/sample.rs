//! [`Sample`]: a received message, read in place in the publisher's chunk, pinned until
//! dropped; and [`PublisherId`], which publisher sent it.

use super::publisher_view::PublisherView;
use crate::error::ViewError;
use crate::shm::pod::{self, Pod};
use std::sync::Arc;

/// Identifies one publisher of a topic over its lifetime: its slot and incarnation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PublisherId {
    /// The publisher's slot in the topic, `0..max_publishers`. A slot is reused by later
    /// publishers once its publisher has left.
    pub slot: u32,
    /// Which publisher of the slot: it grows by one each time the slot gets a new
    /// publisher, so slot and incarnation together name one publisher for the life of the
    /// topic.
    pub incarnation: u32,
}

/// A received message: a read-only view of the publisher's chunk, pinned until dropped.
/// No byte was copied to deliver it.
#[derive(Debug)]
pub struct Sample {
    view: Arc<PublisherView>,
    chunk: u32,
    len: u64,
    position: u64,
    timestamp_ns: u64,
}

impl Sample {
    pub(super) fn new(view: Arc<PublisherView>, chunk: u32, len: u64, position: u64, timestamp_ns: u64) -> Sample {
        Sample { view, chunk, len, position, timestamp_ns }
    }

    /// The message's position in its publisher's stream (0, 1, 2, ... per publisher).
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Which publisher sent it.
    pub fn publisher(&self) -> PublisherId {
        PublisherId { slot: self.view.publisher_slot, incarnation: self.view.incarnation }
    }

    /// `CLOCK_MONOTONIC` nanoseconds when it was published.
    pub fn timestamp_ns(&self) -> u64 {
        self.timestamp_ns
    }

    /// The payload as a `T` (size and alignment checked).
    pub fn value<T: Pod>(&self) -> Result<&T, ViewError> {
        pod::view(self)
    }

    /// The payload as a slice of `T` (e.g. the points of a point cloud): its length must
    /// be a whole number of `T`, and the payload aligned for `T` (chunks are aligned to the
    /// topic's payload type, and to at least 64 bytes).
    pub fn slice<T: Pod>(&self) -> Result<&[T], ViewError> {
        pod::view_slice(self)
    }

    /// Address of the first payload byte in this process (it lies in the publisher's
    /// segment mapping: zero copy).
    pub fn address(&self) -> usize {
        self.view.segment.payload_address(self.chunk)
    }
}

impl std::ops::Deref for Sample {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.view.segment.payload(self.chunk, self.len)
    }
}

impl AsRef<[u8]> for Sample {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Drop for Sample {
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn drop(&mut self) {
        self.view.release(self.chunk);
    }
}
