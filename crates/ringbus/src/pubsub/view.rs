//! A subscriber's side of the data path: its slot ([`SubscriberCore`]), its mapping of one
//! publisher ([`PublisherView`]) and the zero-copy [`Sample`].

use super::topic::{Role, TopicHandle};
use crate::error::{Corruption, OpenError, TakeError, ViewError};
use crate::pool::local::LocalPins;
use crate::ring::log::EntryRecord;
use crate::shm::pod::{self, Pod};
use crate::shm::publisher::{PublisherGeometry, PublisherSegment};
use crate::Node;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// A subscriber's slot in the topic. Lives as long as the subscriber or any of its
/// samples; the slot is released when the last of them goes.
#[derive(Debug)]
pub(crate) struct SubscriberCore {
    pub topic: TopicHandle,
    pub slot: u32,
    /// The previous owner of the slot died: clear its holder bits in every segment we
    /// attach before pinning anything there.
    pub reclaimed: bool,
    held: AtomicU32,
    /// The topic's wake word as loaded just before a look that found nothing new, or
    /// [`NEVER_DRAINED`]: a [`WaitSet`](crate::WaitSet) sleeps on the word while it still
    /// holds this value (a publish after that look bumped it).
    drained_at: AtomicU64,
    _node: Node,
}

/// `drained_at` before the first look that found nothing.
const NEVER_DRAINED: u64 = u64::MAX;

impl SubscriberCore {
    pub(crate) fn new(topic: TopicHandle, slot: u32, reclaimed: bool, node: Node) -> SubscriberCore {
        SubscriberCore {
            topic,
            slot,
            reclaimed,
            held: AtomicU32::new(0),
            drained_at: AtomicU64::new(NEVER_DRAINED),
            _node: node,
        }
    }

    pub(crate) fn held(&self) -> u32 {
        self.held.load(Ordering::Relaxed)
    }

    /// The topic's wake word now; load it *before* looking for data.
    pub(crate) fn wake_word_now(&self) -> u32 {
        self.topic.segment.wake_words().word_now()
    }

    /// Records that a look started at wake word `word` found nothing new.
    pub(crate) fn drained(&self, word: u32) {
        self.drained_at.store(word as u64, Ordering::Relaxed);
    }

    /// The wake word value to sleep on: `None` if something may have arrived since the
    /// last look that found nothing (or there was none yet).
    pub(crate) fn sleep_value(&self) -> Option<u32> {
        let drained = self.drained_at.load(Ordering::Relaxed);
        (drained != NEVER_DRAINED && drained as u32 == self.wake_word_now()).then_some(drained as u32)
    }

    /// Counts this subscriber in the topic's sleepers; returns the wake word to sleep on.
    pub(crate) fn register_sleeper(&self) -> u32 {
        let t = &self.topic.segment;
        t.wake_words().register(t.subscriber(self.slot).sleep_mark())
    }

    pub(crate) fn unregister_sleeper(&self) {
        let t = &self.topic.segment;
        t.wake_words().unregister(t.subscriber(self.slot).sleep_mark())
    }

    /// After being woken: wakes the topic's other sleepers if a publish left the relay token.
    pub(crate) fn relay(&self) {
        self.topic.segment.wake_words().relay()
    }

    /// The topic's wake word itself (to sleep on).
    pub(crate) fn wake_word(&self) -> &std::sync::atomic::AtomicU32 {
        self.topic.segment.wake_words().word
    }

    fn set_held(&self, delta_up: bool) {
        let held = if delta_up {
            self.held.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            self.held.fetch_sub(1, Ordering::Relaxed) - 1
        };
        self.topic.segment.subscriber(self.slot).record_held(held);
    }
}

impl Drop for SubscriberCore {
    fn drop(&mut self) {
        let slot = self.slot;
        self.topic.leave(Role::Subscriber, slot, |t| {
            t.segment.subscriber(slot).release();
        });
    }
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

    /// Positions below this are published.
    pub(crate) fn published(&self) -> u64 {
        // Acquire: pairs with the publisher's Release store after writing the entry.
        self.segment.published()
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
        Ok(Some(Sample {
            view: self.clone(),
            chunk: record.chunk,
            len: record.length,
            position,
            timestamp_ns: record.timestamp_ns,
        }))
    }
}

/// Identifies one publisher of a topic over its lifetime: its slot and incarnation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PublisherId {
    pub slot: u32,
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
    fn drop(&mut self) {
        let words = self.view.segment.chunk_words(self.chunk);
        let holder = self.view.core.slot;
        self.view.pins.release(self.chunk, || words.release(holder));
        self.view.core.set_held(false);
    }
}
