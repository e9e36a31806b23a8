//! Reliable subscribers: a publisher never overwrites a message that a live reliable
//! subscriber has not taken.
//!
//! Each reliable subscriber keeps, in every publisher segment it reads, its *read
//! position* (position + 1 of the next message it takes; 0 while it reads none), and the
//! topic keeps the set of reliable subscriber slots. Publishing position `p` overwrites
//! the log entry of `p − depth`, so it is allowed when every reliable read position
//! `v` has `v − 1 + depth > p`. The publisher caches the first position that is *not*
//! known to be allowed ([`Room::until`]) and looks at the read positions again only when it
//! gets there — about once every `depth` messages while the subscribers keep up.
//!
//! When there is no room, the publisher waits on the segment's room doorbell
//! (`notify::doorbell`): a reliable subscriber stores its read position, then rings —
//! one fence and one load, and a system call only when the publisher is asleep. So neither
//! side makes a system call until the ring is actually full. A waiting publisher looks at
//! the laggard's liveness lock at least every [`LIVENESS_CHECK`]: a dead subscriber is
//! reclaimed (its bit cleared) and stops holding anyone back.

use super::topic::TopicHandle;
use crate::shm::publisher::PublisherSegment;
use std::time::Duration;

/// What a publisher's loan does when a reliable subscriber has not taken the message it
/// would overwrite (it is `depth` messages behind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenFull {
    /// Fail at once with [`crate::LoanError::Full`].
    Fail,
    /// Wait for room, at most this long (`None`: as long as it takes), then fail with
    /// [`crate::LoanError::Full`]. A subscriber that dies stops holding the publisher back.
    Wait(Option<Duration>),
}

/// The longest a waiting publisher sleeps before it looks whether the subscriber it waits
/// for is still alive (a dead process rings no doorbell).
pub(crate) const LIVENESS_CHECK: Duration = Duration::from_millis(10);

/// The publisher's bit in its room doorbell's sleepers (it is the only waiter).
pub(crate) const PUBLISHER_WAITER: u64 = 1;

/// A publisher's cached view of the room its reliable subscribers leave.
#[derive(Debug, Default)]
pub(crate) struct Room {
    /// Positions below this may be published without looking again.
    until: u64,
}

/// The reliable subscriber that holds a position back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Laggard {
    pub slot: u32,
}

impl Room {
    /// Whether publishing `position` is known to be allowed (no shared-memory read but the
    /// topic's reliable count, on a line the publish writes anyway).
    #[inline]
    pub(crate) fn allows(&self, topic: &TopicHandle, position: u64) -> bool {
        position < self.until || topic.segment.reliable_set().count() == 0
    }

    /// Looks at the read positions: allows `position` or names the subscriber that holds it
    /// back. `next` is the publisher's next position (the room is cached from there).
    pub(crate) fn look(
        &mut self,
        topic: &TopicHandle,
        segment: &PublisherSegment,
        next: u64,
        position: u64,
    ) -> Result<(), Laggard> {
        let (until, laggard) = room_until(topic, segment, next);
        self.until = until;
        match laggard {
            Some(slot) if position >= until => Err(Laggard { slot }),
            _ => Ok(()),
        }
    }
}

/// The first position the reliable subscribers do not allow, and the one that sets it.
/// With none reading this publisher, it looks again `depth` messages on (a reliable
/// subscriber may join meanwhile).
pub(crate) fn room_until(topic: &TopicHandle, segment: &PublisherSegment, next: u64) -> (u64, Option<u32>) {
    let depth = segment.geometry.depth as u64;
    let mut room = (next + depth, None);
    for slot in topic.segment.reliable_readers() {
        // Acquire: pairs with the subscriber's Release store after it moved past messages.
        let read = segment.read_position(slot).load(crate::sync::Ordering::Acquire);
        if read == 0 {
            continue; // not reading this publisher yet
        }
        let until = (read - 1).saturating_add(depth);
        if until <= room.0 {
            room = (until, Some(slot));
        }
    }
    room
}
