//! [`SubscriberCore`]: a subscriber's slot in the topic and its part of the wake protocol
//! (what a wait set registers and sleeps on), shared by the subscriber, its samples and
//! the wait sets it is attached to.

use super::topic::{Role, TopicHandle};
use crate::Node;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

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

    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    pub(super) fn set_held(&self, delta_up: bool) {
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
