//! [`PublisherView`]: a subscriber's mapping of one publisher's segment, and pinning the
//! chunk a log entry names (holder bit and generation, counted per process).

use super::sample::Sample;
use super::subscriber_core::SubscriberCore;
use crate::error::{Corruption, OpenError, TakeError};
use crate::pool::local_pins::LocalPins;
use crate::ring::log::EntryRecord;
use crate::shm::publisher::{PublisherGeometry, PublisherSegment};
use std::sync::Arc;

/// The largest published count a subscriber believes (see [`PublisherView::published`]).
pub(crate) const MAX_PUBLISHED: u64 = 1 << 63;

/// The read position a reliable subscriber stores when `next` is the next position it
/// takes: `next + 1` (0 means none), saturating — `next` follows the publisher's count,
/// which a bad publisher can set to `u64::MAX`.
pub(crate) fn read_position(next: u64) -> u64 {
    next.saturating_add(1)
}

/// A subscriber's read-only mapping of one publisher's segment (its chunk words mapped
/// read-write, to pin).
#[derive(Debug)]
pub(crate) struct PublisherView {
    pub segment: PublisherSegment,
    pins: LocalPins,
    pub core: Arc<SubscriberCore>,
    pub publisher_slot: u32,
    pub incarnation: u32,
}

impl PublisherView {
    /// Maps the segment of `publisher_slot`/`incarnation`; `None` if its file is gone.
    pub(crate) fn attach(
        core: &Arc<SubscriberCore>,
        publisher_slot: u32,
        incarnation: u32,
    ) -> Result<Option<Arc<PublisherView>>, OpenError> {
        let t = &core.topic;
        let path = t.root.publisher_path(&t.file_name, t.topic_id, publisher_slot, incarnation);
        let geometry =
            PublisherGeometry::new(t.segment.config(), t.payload.align).ok_or_else(|| OpenError::Corrupted {
                path: path.clone(),
                corruption: Corruption {
                    what: "publisher geometry",
                    found: t.segment.config().max_payload_bytes,
                    limit: 0,
                },
            })?;
        let Some(segment) = PublisherSegment::open(&path, geometry, t.topic_id, publisher_slot, incarnation)? else {
            return Ok(None);
        };
        if core.reclaimed {
            segment.release_holder_everywhere(core.slot);
        }
        let pins = LocalPins::new(geometry.chunk_count);
        Ok(Some(Arc::new(PublisherView { segment, pins, core: core.clone(), publisher_slot, incarnation })))
    }

    /// Positions below this are published. The publisher's count, capped at
    /// [`MAX_PUBLISHED`]: no publisher gets there (2^63 messages), so a larger count is a
    /// scribble, and capping it keeps every position a subscriber derives from it (`+ 1`,
    /// the next one) from overflowing; the entries then say the count was wrong.
    pub(crate) fn published(&self) -> u64 {
        // Acquire: pairs with the publisher's Release store after writing the entry.
        self.segment.published().min(MAX_PUBLISHED)
    }

    /// Whether the log entry for `position` holds an older message: `position` is not
    /// published yet (one load of the entry's sequence).
    pub(crate) fn holds_older(&self, position: u64) -> bool {
        let depth = self.segment.geometry.depth;
        self.segment.entry(crate::ring::index(position, depth)).holds_older(position)
    }

    /// Reads the payload of a validated entry in place, without pinning its chunk, and
    /// keeps what `read` made of it only if the entry still holds the message afterwards
    /// (see `EntryWords::still_holds`). `None`: the chunk was reused meanwhile (the
    /// message is lost; what `read` saw may be torn and is dropped).
    pub(crate) fn read_with<R>(&self, position: u64, record: EntryRecord, read: impl FnOnce(&[u8]) -> R) -> Option<R> {
        let value = read(self.segment.payload(record.chunk, record.length));
        let depth = self.segment.geometry.depth;
        self.segment.entry(crate::ring::index(position, depth)).still_holds(position).then_some(value)
    }

    /// A reliable subscriber's read position moved to `next`: stores it (Release: the
    /// publisher that sees it sees we are done with what came before) and rings the room
    /// doorbell.
    pub(crate) fn report_read(&self, next: u64) {
        self.segment.read_position(self.core.slot).store(read_position(next), crate::sync::Ordering::Release);
        self.segment.room_doorbell().ring();
    }

    /// Checks an entry against this process's limits.
    pub(crate) fn validate(&self, record: &EntryRecord) -> Result<(), TakeError> {
        let g = &self.segment.geometry;
        let corrupted = |what, found, limit| TakeError::Corrupted {
            publisher_slot: self.publisher_slot,
            corruption: Corruption { what, found, limit },
        };
        if record.chunk >= g.chunk_count {
            return Err(corrupted("log entry chunk index", record.chunk as u64, g.chunk_count as u64));
        }
        if record.length > g.max_payload_bytes {
            return Err(corrupted("log entry length", record.length, g.max_payload_bytes));
        }
        Ok(())
    }

    /// Pins the chunk of a validated entry. `Ok(None)`: the chunk was recycled (the message
    /// is lost).
    pub(crate) fn pin(self: &Arc<Self>, position: u64, record: EntryRecord) -> Result<Option<Sample>, TakeError> {
        let max_held = self.core.topic.segment.config().max_held;
        if self.core.held() >= max_held {
            return Err(TakeError::HeldLimit { max_held });
        }
        let words = self.segment.chunk_words(record.chunk);
        let holder = self.core.slot;
        let pinned = self.pins.acquire(
            record.chunk,
            || words.try_pin(holder, record.generation),
            || words.has_generation(record.generation),
        );
        if !pinned {
            return Ok(None);
        }
        self.core.set_held(true);
        Ok(Some(Sample::new(self.clone(), record.chunk, record.length, position, record.timestamp_ns)))
    }

    /// A sample of chunk `chunk` goes: unpins it (the shared bit drops with the last local
    /// pin).
    pub(super) fn release(&self, chunk: u32) {
        let words = self.segment.chunk_words(chunk);
        let holder = self.core.slot;
        self.pins.release(chunk, || words.release(holder));
        self.core.set_held(false);
    }
}

#[cfg(test)]
mod tests {
    /// Found by fuzzing: a reliable subscriber of a publisher whose count said `u64::MAX`
    /// overflowed computing its read position once it had moved past every message.
    #[test]
    fn the_read_position_saturates_at_the_last_position() {
        assert_eq!(super::read_position(0), 1);
        assert_eq!(super::read_position(u64::MAX - 1), u64::MAX);
        assert_eq!(super::read_position(u64::MAX), u64::MAX);
    }
}
