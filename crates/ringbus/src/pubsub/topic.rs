//! Joining and leaving a topic: open-or-create, slot claiming, and tear-down by the last
//! one out.
//!
//! Every publisher and subscriber opens the topic file itself, so it has its own open file
//! description and its own OFD locks. Byte 0 is the topic's control lock, held briefly to
//! join and to leave; the first byte of each slot is that slot's liveness lock, held for
//! as long as the slot is in use. A slot whose state is not `Free` but whose lock nobody
//! holds belongs to a dead process, and whoever takes the lock next reclaims it.
//!
//! The last participant to leave (no slot alive) removes the topic and its publisher
//! files; an opener that finds the file it opened already unlinked starts over.

use super::settings::{file_name, TopicBuilder};
use crate::error::{io_err, OpenError};
use crate::open_wait::{self, JoinDeadline};
use crate::shm::header::SegmentKind;
use crate::shm::segment::{self, header_error};
use crate::shm::topic::{PayloadType, SlotState, TopicLayout, TopicSegment};
use crate::shm::{Region, Root};
use crate::sys;
use std::fs::File;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// The most waits one subscriber is counted in at once that a reclaimer believes: one per
/// wait set it is attached to (a wait set may hold two for a moment) and one `receive`.
const MAX_SLEEPS_PER_SUBSCRIBER: u32 = 1024;

/// Publisher or subscriber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Publisher,
    Subscriber,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Publisher => "publisher",
            Role::Subscriber => "subscriber",
        }
    }
}

const CONTROL_BYTE: u64 = 0;
const JOIN_ATTEMPTS: u32 = 100;

/// One participant's open topic.
#[derive(Debug)]
pub(crate) struct TopicHandle {
    pub root: Root,
    pub name: String,
    pub file_name: String,
    pub path: PathBuf,
    pub file: File,
    pub segment: TopicSegment,
    pub topic_id: u64,
    pub payload: PayloadType,
}

impl TopicHandle {
    /// Opens or creates the topic and claims a slot of `role`. `claim(handle, slot,
    /// reclaimed)` initialises the slot under the control lock; `reclaimed` says its
    /// previous owner died without leaving.
    pub(crate) fn join<T>(
        builder: &TopicBuilder,
        role: Role,
        claim: impl FnOnce(&TopicHandle, u32, bool) -> Result<T, OpenError>,
    ) -> Result<(TopicHandle, u32, T), OpenError> {
        let root = builder.node.root().clone();
        let (name, file_name) = file_name(&builder.name)?;
        let path = root.topic_path(&file_name);
        let mut claim = Some(claim);
        let deadline = builder.open_wait.start();
        for _ in 0..JOIN_ATTEMPTS {
            let Some(handle) = Self::open_or_create(builder, deadline, &root, (&name, &file_name), &path)? else {
                continue;
            };
            let claimed = handle.claim_slot(role, claim.take().expect("claimed once"));
            if claimed.is_err() {
                // Nothing half-created stays behind: a topic this failed join created (or
                // found unused) goes again.
                handle.tear_down_if_unused();
            }
            handle.unlock(CONTROL_BYTE);
            return claimed.map(|(slot, t)| (handle, slot, t));
        }
        Err(OpenError::Io {
            action: "join",
            path,
            source: std::io::Error::other("the topic kept being torn down while joining"),
        })
    }

    /// Returns the topic with its control lock held, or `None` to retry (it was torn down
    /// or created concurrently).
    fn open_or_create(
        builder: &TopicBuilder,
        deadline: JoinDeadline<'_>,
        root: &Root,
        (name, file_name): (&str, &str),
        path: &Path,
    ) -> Result<Option<TopicHandle>, OpenError> {
        if let Some(opened) = segment::open(path, SegmentKind::Topic, true)? {
            deadline.lock(&opened.file, CONTROL_BYTE, path)?;
            if segment::is_unlinked(&opened.file, path)? {
                return Ok(None);
            }
            let h = Self::from_opened(root, file_name, path, opened)?;
            if h.name != name {
                return Err(OpenError::Foreign {
                    path: path.to_path_buf(),
                    reason: format!("it holds topic {:?}, not {name:?}", h.name),
                });
            }
            builder.settings.check_against(name, h.segment.config(), &h.payload)?;
            return Ok(Some(h));
        }
        let (config, payload) = builder.settings.resolve()?;
        let layout = TopicLayout { config };
        let topic_id = sys::random::u64().map_err(io_err("create", path))?;
        let init = |r: &Region| layout.init(r, topic_id, name, &payload);
        // The creator holds the control lock from birth (see `segment::create`).
        Ok(segment::create(root, path, layout.total_bytes(), init)?.map(|c| TopicHandle {
            root: root.clone(),
            name: name.into(),
            file_name: file_name.into(),
            path: path.to_path_buf(),
            file: c.file,
            segment: TopicSegment::new(c.region, layout),
            topic_id,
            payload,
        }))
    }

    /// The liveness lock byte of a slot.
    pub(crate) fn lock_byte(&self, role: Role, slot: u32) -> u64 {
        match role {
            Role::Publisher => self.segment.publisher_offset(slot),
            Role::Subscriber => self.segment.subscriber_offset(slot),
        }
    }

    fn slot_count(&self, role: Role) -> u32 {
        match role {
            Role::Publisher => self.segment.config().max_publishers,
            Role::Subscriber => self.segment.config().max_subscribers,
        }
    }

    /// The raw state of a slot (publisher slots: the state half of the occupancy word).
    fn slot_state(&self, role: Role, slot: u32) -> u32 {
        match role {
            Role::Publisher => self.segment.publisher(slot).occupancy() as u32,
            Role::Subscriber => self.segment.subscriber(slot).state(),
        }
    }

    fn claim_slot<T>(
        &self,
        role: Role,
        claim: impl FnOnce(&TopicHandle, u32, bool) -> Result<T, OpenError>,
    ) -> Result<(u32, T), OpenError> {
        for slot in self.claim_order(role) {
            let byte = self.lock_byte(role, slot);
            if !sys::lock::try_lock(self.file.as_fd(), byte).map_err(io_err("lock", &self.path))? {
                continue;
            }
            let reclaimed = self.slot_state(role, slot) != SlotState::Free as u32;
            return match claim(self, slot, reclaimed) {
                Ok(t) => Ok((slot, t)),
                Err(e) => {
                    self.unlock(byte);
                    Err(e)
                }
            };
        }
        Err(OpenError::TooMany { topic: self.name.clone(), role: role.name(), limit: self.slot_count(role) })
    }

    /// Slots in the order to try them. Publisher slots never used come first: a departed
    /// publisher's file stays (and its unread messages stay readable) until its slot is
    /// claimed again, so reuse waits until every slot has been used once.
    fn claim_order(&self, role: Role) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.slot_count(role)).collect();
        if role == Role::Publisher {
            order.sort_by_key(|&slot| self.publisher_occupancy(slot) >> 32 != 0);
            // stable
        }
        order
    }

    /// Whether the slot's state is non-free and its lock held by another open file.
    pub(crate) fn is_alive(&self, role: Role, slot: u32) -> bool {
        self.slot_state(role, slot) != SlotState::Free as u32
            && sys::lock::is_locked(self.file.as_fd(), self.lock_byte(role, slot)).unwrap_or(true)
    }

    /// Whether a non-free slot's owner is dead; if so, runs `reclaim` holding its lock.
    pub(crate) fn with_dead_slot(&self, role: Role, slot: u32, reclaim: impl FnOnce()) {
        let byte = self.lock_byte(role, slot);
        if self.slot_state(role, slot) == SlotState::Free as u32 {
            return;
        }
        if let Ok(true) = sys::lock::try_lock(self.file.as_fd(), byte) {
            if self.slot_state(role, slot) != SlotState::Free as u32 {
                reclaim();
            }
            self.unlock(byte);
        }
    }

    /// If nobody owns the slot (its lock is free, whatever its state word says), runs
    /// `reclaim(occupied)` holding its lock; `occupied`: the state is not `Free`.
    pub(crate) fn with_unowned_slot(&self, role: Role, slot: u32, reclaim: impl FnOnce(bool)) {
        let byte = self.lock_byte(role, slot);
        if let Ok(true) = sys::lock::try_lock(self.file.as_fd(), byte) {
            reclaim(self.slot_state(role, slot) != SlotState::Free as u32);
            self.unlock(byte);
        }
    }

    fn unlock(&self, byte: u64) {
        // Unlocking a byte we hold cannot fail for a valid open file.
        let _ = sys::lock::unlock(self.file.as_fd(), byte);
    }

    /// Leaves the slot: `release` marks it free under the control lock; the last one out
    /// tears the topic down. A control lock held too long by someone else (see
    /// `open_wait`) leaves the tear-down to the next one out.
    pub(crate) fn leave(&self, role: Role, slot: u32, release: impl FnOnce(&TopicHandle)) {
        let locked = open_wait::lock_to_leave(&self.file, CONTROL_BYTE);
        release(self);
        self.unlock(self.lock_byte(role, slot));
        if locked {
            self.tear_down_if_unused();
            self.unlock(CONTROL_BYTE);
        }
    }

    /// With the control lock held: removes the topic and all its publisher files if no slot
    /// is alive. Returns whether it did.
    pub(crate) fn tear_down_if_unused(&self) -> bool {
        if !self.is_unused() {
            return false;
        }
        let prefix = Root::publisher_prefix(&self.file_name, self.topic_id);
        for entry in self.root.entries().into_iter().filter(|e| e.starts_with(&prefix)) {
            segment::remove(&self.root.path().join(entry));
        }
        segment::remove(&self.path);
        true
    }

    /// Whether no slot is owned and the file is still in place (what tear-down checks).
    /// Asked of every slot's lock, whatever its state word says: a live participant whose
    /// word a peer scribbled to `Free` still keeps the topic up.
    pub(crate) fn is_unused(&self) -> bool {
        let c = self.segment.config();
        let owned = |role, slot| sys::lock::is_locked(self.file.as_fd(), self.lock_byte(role, slot)).unwrap_or(true);
        let any_owned = (0..c.max_publishers).any(|s| owned(Role::Publisher, s))
            || (0..c.max_subscribers).any(|s| owned(Role::Subscriber, s));
        !any_owned && !segment::is_unlinked(&self.file, &self.path).unwrap_or(true)
    }

    /// A publisher slot's occupancy word: its incarnation and state, which
    /// [`decode_occupancy`](crate::shm::topic::decode_occupancy) splits. Subscribers
    /// compare the raw word on every take and decode it only when it moved.
    pub(crate) fn publisher_occupancy(&self, slot: u32) -> u64 {
        self.segment.publisher(slot).occupancy()
    }

    /// Locks the control byte for an out-of-band sweep (`clean`); `false` if it is busy.
    pub(crate) fn try_lock_control(&self) -> bool {
        matches!(sys::lock::try_lock(self.file.as_fd(), CONTROL_BYTE), Ok(true))
    }

    /// Opens an existing topic file for a sweep, without joining.
    pub(crate) fn open_for_sweep(root: &Root, file_name: &str) -> Result<Option<TopicHandle>, OpenError> {
        let path = root.topic_path(file_name);
        let Some(opened) = segment::open(&path, SegmentKind::Topic, true)? else {
            return Ok(None);
        };
        Self::from_opened(root, file_name, &path, opened).map(Some)
    }

    /// Validates an opened topic segment and makes a handle of it.
    fn from_opened(
        root: &Root,
        file_name: &str,
        path: &Path,
        opened: segment::Opened,
    ) -> Result<TopicHandle, OpenError> {
        let (header, layout, name, payload) = TopicLayout::read(&opened.region).map_err(|e| header_error(path, e))?;
        Ok(TopicHandle {
            root: root.clone(),
            name,
            file_name: file_name.into(),
            path: path.to_path_buf(),
            file: opened.file,
            segment: TopicSegment::new(opened.region, layout),
            topic_id: header.topic_id,
            payload,
        })
    }

    /// Takes back what a subscriber slot whose owner died left in the topic: its sleepers
    /// registrations and its place among the reliable subscribers. Call holding the slot's
    /// lock.
    pub(crate) fn reclaim_subscriber(&self, slot: u32) {
        self.reclaim_sleeper(slot);
        self.segment.reliable_set().remove(slot);
    }

    /// Takes back the sleepers count of a subscriber slot whose owner died asleep (its
    /// `sleeping` mark counts how often it was registered). A mark above
    /// [`MAX_SLEEPS_PER_SUBSCRIBER`] is a scribble and is not taken back: a sleepers count
    /// left too high costs wake calls that find nobody, one too low would lose wake-ups.
    fn reclaim_sleeper(&self, slot: u32) {
        let registered = self.segment.subscriber(slot).take_sleep_mark();
        if (1..=MAX_SLEEPS_PER_SUBSCRIBER).contains(&registered) {
            self.segment.wake_words().forget_sleepers(registered);
        }
    }

    pub(crate) fn release_control(&self) {
        self.unlock(CONTROL_BYTE);
    }
}
