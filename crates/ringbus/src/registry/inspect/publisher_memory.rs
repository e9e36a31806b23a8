//! What one publisher's memory holds: the payload memory reserved (as the kernel counts
//! it), the bytes of the messages its log still offers, and the chunks subscribers hold.
//! Read from its segment like any shared-memory input: validated, never trusted.

use crate::pubsub::topic::TopicHandle;
use crate::ring::log::EntryRead;
use crate::shm::publisher::{PublisherGeometry, PublisherSegment};

/// One publisher's memory, as seen at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PublisherMemory {
    /// Payload memory reserved now: the blocks its segment file holds beyond its log and
    /// chunk words. On demand it follows the messages in flight; preallocated it is the
    /// whole pool.
    pub reserved_bytes: u64,
    /// Payload bytes of the messages still in its log (a subscriber can still take them).
    pub in_log_bytes: u64,
    /// Chunks some subscriber holds right now.
    pub held_chunks: u32,
    /// Whether the pool was reserved whole when the publisher was created.
    pub preallocated: bool,
}

/// Reads the memory of the publisher in `slot`/`incarnation`; `None` if its segment is
/// gone or does not check out (the snapshot reports nothing for it then).
pub(super) fn read(t: &TopicHandle, slot: u32, incarnation: u32) -> Option<PublisherMemory> {
    let path = t.root.publisher_path(&t.file_name, t.topic_id, slot, incarnation);
    let geometry = PublisherGeometry::new(t.segment.config(), t.payload.align)?;
    let segment = PublisherSegment::open(&path, geometry, t.topic_id, slot, incarnation).ok()??;
    let allocated = super::allocated_bytes(&path);
    let published = segment.published();
    let depth = geometry.depth as u64;
    let in_log_bytes = (published.saturating_sub(depth)..published)
        .filter_map(|position| match segment.entry(crate::ring::index(position, geometry.depth)).read(position) {
            EntryRead::Ready(record) if record.length <= geometry.max_payload_bytes => Some(record.length),
            _ => None,
        })
        .sum();
    let held_chunks = (0..geometry.chunk_count).filter(|&c| segment.chunk_words(c).is_held()).count() as u32;
    Some(PublisherMemory {
        reserved_bytes: allocated.saturating_sub(geometry.payload_offset),
        in_log_bytes,
        held_chunks,
        preallocated: !geometry.on_demand(),
    })
}
