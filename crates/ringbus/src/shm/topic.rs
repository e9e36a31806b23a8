//! The topic segment: configuration, payload type, wake words and the slot tables.
//!
//! ```text
//!    0 TopicHeader (512 B): SegmentHeader, topic id, TopicConfig, payload type, name
//!  512 wake word, sleepers count, relay token, reliable count (one cache line, see below)
//!  576 reliable set: one bit per subscriber slot (1024 bits)
//!  704 PublisherSlot  × max_publishers   (128 B each: identity line, counters line)
//!      SubscriberSlot × max_subscribers  (64 B each)
//! ```
//! The wake words share a line on purpose: each side of the wake
//! protocol touches both (publisher: bump word, read sleepers; sleeper: bump sleepers, read
//! word), so one line costs one cache-line transfer per operation where two lines cost two.
//! A publisher's counters live on their own line so that writing them on every publish
//! does not evict the occupancy word every subscriber reads on every take.
//! ```text
//! ```
//! Liveness: the owner of slot *i* holds an OFD write lock on the first byte of the slot;
//! byte 0 of the file is the topic's control lock (join / leave / tear-down).

use super::header::{corrupt, HeaderError, SegmentHeader, SegmentKind};
use super::{Region, Shared};
use crate::notify::WakeWords;
use crate::sync::{AtomicU32, AtomicU64, Ordering};
use std::mem::{offset_of, size_of};

/// Most publishers a topic admits (`max_publishers`).
pub const MAX_PUBLISHERS: u32 = 64;
/// Most subscribers a topic admits (`max_subscribers`).
pub const MAX_SUBSCRIBERS: u32 = 1024;
/// Largest `depth` (log entries per publisher, a power of two).
pub const MAX_DEPTH: u32 = 1 << 16;
/// Largest `max_held` (samples one subscriber may hold).
pub const MAX_HELD: u32 = 256;
/// Largest `max_payload_bytes` (1 GiB).
pub const MAX_PAYLOAD_BYTES: u64 = 1 << 30;
/// Most payload chunks per publisher (`chunks`).
pub const MAX_CHUNKS: u32 = 1 << 20;
pub(crate) const MAX_NAME_BYTES: usize = 128;
/// The topic header's name field (names are at most 100 bytes; the header is 512).
const TOPIC_NAME_BYTES: usize = 112;
const _: () = assert!(super::root::MAX_TOPIC_NAME_BYTES <= TOPIC_NAME_BYTES);
/// Largest `pool_bytes`, a publisher's memory budget (16 TiB, also the largest publisher
/// segment).
pub const MAX_POOL_BYTES: u64 = 1 << 44;
pub(crate) const MAX_TYPE_NAME_BYTES: usize = 256;

/// The layout-relevant configuration of a topic, as stored in its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct TopicConfig {
    pub max_publishers: u32,
    pub max_subscribers: u32,
    pub depth: u32,
    pub history: u32,
    pub max_held: u32,
    pub chunk_count: u32,
    pub max_payload_bytes: u64,
    /// Most bytes of payload memory one publisher may hold at once (on-demand pools).
    pub pool_bytes: u64,
    /// 1: every chunk's memory is reserved when the publisher is created (a fixed pool);
    /// 0: a chunk holds memory only for the messages lent in it (see `pool::extents`).
    pub preallocate: u32,
    pub reserved0: u32,
}
const _: () = assert!(size_of::<TopicConfig>() == 48);

/// A configuration value out of its documented range.
pub(crate) type ConfigFault = (&'static str, u64, &'static str);

impl TopicConfig {
    /// Chunks needed so a publisher can always allocate: the log, every subscriber's
    /// held samples, and the loan in progress.
    pub(crate) fn default_chunk_count(depth: u32, max_subscribers: u32, max_held: u32) -> u64 {
        depth as u64 + max_subscribers as u64 * max_held as u64 + 1
    }

    pub(crate) fn check(&self) -> Result<(), ConfigFault> {
        let c = self;
        let bad = |field, value: u64, reason| Err((field, value, reason));
        if !(1..=MAX_PUBLISHERS).contains(&c.max_publishers) {
            return bad("max_publishers", c.max_publishers as u64, "must be 1..=64");
        }
        if !(1..=MAX_SUBSCRIBERS).contains(&c.max_subscribers) {
            return bad("max_subscribers", c.max_subscribers as u64, "must be 1..=1024");
        }
        if !c.depth.is_power_of_two() || c.depth > MAX_DEPTH {
            return bad("depth", c.depth as u64, "must be a power of two from 1 to 65536");
        }
        if c.history > c.depth {
            return bad("history", c.history as u64, "must not exceed depth");
        }
        if !(1..=MAX_HELD).contains(&c.max_held) {
            return bad("max_held", c.max_held as u64, "must be 1..=256");
        }
        if !(1..=MAX_PAYLOAD_BYTES).contains(&c.max_payload_bytes) {
            return bad("max_payload_bytes", c.max_payload_bytes, "must be 1..=1 GiB");
        }
        if c.chunk_count <= c.depth || c.chunk_count > MAX_CHUNKS {
            return bad("chunks", c.chunk_count as u64, "must exceed depth and be at most 2^20");
        }
        if c.preallocate > 1 {
            return bad("preallocate", c.preallocate as u64, "must be 0 or 1");
        }
        if c.reserved0 != 0 {
            return bad("reserved topic configuration bytes", c.reserved0 as u64, "must be 0");
        }
        if c.pool_bytes < c.max_payload_bytes || c.pool_bytes > MAX_POOL_BYTES {
            return bad("pool_bytes", c.pool_bytes, "must be at least max_payload_bytes and at most 16 TiB");
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct TopicHeader {
    pub common: SegmentHeader,
    pub topic_id: u64,
    pub config: TopicConfig,
    pub type_size: u64,
    pub type_align: u32,
    pub type_name_len: u32,
    pub type_name: [u8; MAX_TYPE_NAME_BYTES],
    pub name_len: u32,
    pub reserved0: u32,
    pub name: [u8; TOPIC_NAME_BYTES],
}

const _: () = assert!(offset_of!(TopicHeader, topic_id) == 64);
const _: () = assert!(offset_of!(TopicHeader, config) == 72);
const _: () = assert!(offset_of!(TopicHeader, type_size) == 120);
const _: () = assert!(offset_of!(TopicHeader, type_name) == 136);
const _: () = assert!(offset_of!(TopicHeader, name_len) == 392);
const _: () = assert!(offset_of!(TopicHeader, name) == 400);
const _: () = assert!(size_of::<TopicHeader>() == 512);

// SAFETY: repr(C), integers and byte arrays only.
unsafe impl Shared for TopicHeader {}

const WAKE_OFFSET: usize = 512;
const SLEEPERS_OFFSET: usize = 516;
const RELAY_TOKEN_OFFSET: usize = 520;
/// How many subscribers are reliable (on the wake line: a publisher reads it on every loan).
const RELIABLE_COUNT_OFFSET: usize = 524;
/// One bit per subscriber slot: which are reliable (see `pubsub::backpressure`).
const RELIABLE_SET_OFFSET: usize = 576;
const RELIABLE_SET_WORDS: usize = (MAX_SUBSCRIBERS as usize).div_ceil(64);
const SLOTS_OFFSET: usize = RELIABLE_SET_OFFSET + 8 * RELIABLE_SET_WORDS;
const PUBLISHER_SLOT_BYTES: usize = 128;
const SUBSCRIBER_SLOT_BYTES: usize = 64;

/// Slot states. A non-free slot whose lock byte nobody holds belongs to a dead process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum SlotState {
    Free = 0,
    Active = 1,
}

impl TryFrom<u32> for SlotState {
    type Error = u32;
    fn try_from(v: u32) -> Result<Self, u32> {
        match v {
            0 => Ok(SlotState::Free),
            1 => Ok(SlotState::Active),
            other => Err(other),
        }
    }
}

/// One publisher's entry in the topic. Only its owner writes it (and whoever reclaims it,
/// under its lock).
#[repr(C, align(64))]
pub(crate) struct PublisherSlot {
    /// `incarnation << 32 | state`: one load tells a subscriber whether to (re)attach.
    occupancy: AtomicU64,
    node_id: AtomicU64,
    pid: AtomicU32,
    reserved0: [AtomicU32; 11],
    // Second cache line: counters, written by the publisher on every publish.
    publishes: AtomicU64,
    wake_syscalls: AtomicU64,
    wakes_skipped: AtomicU64,
    /// Payload bytes published (for rates in `ringbus top`).
    payload_bytes: AtomicU64,
    /// Loans that waited for a reliable subscriber to make room, and the time they waited.
    blocked: AtomicU64,
    blocked_ns: AtomicU64,
    reserved1: [AtomicU64; 2],
}
const _: () = assert!(size_of::<PublisherSlot>() == PUBLISHER_SLOT_BYTES);
const _: () = assert!(offset_of!(PublisherSlot, pid) == 16);
const _: () = assert!(offset_of!(PublisherSlot, publishes) == 64);
const _: () = assert!(offset_of!(PublisherSlot, payload_bytes) == 88);
// SAFETY: repr(C), fixed-width atomics only.
unsafe impl Shared for PublisherSlot {}

/// What a publisher slot says, read field by field (for inspection; not one instant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PublisherSnapshot {
    pub node_id: u64,
    pub pid: u32,
    pub publishes: u64,
    pub wake_syscalls: u64,
    pub wakes_skipped: u64,
    pub payload_bytes: u64,
    pub blocked: u64,
    pub blocked_ns: u64,
}

impl PublisherSlot {
    /// The occupancy word (see [`decode_occupancy`]).
    #[inline]
    pub(crate) fn occupancy(&self) -> u64 {
        // Acquire: pairs with the Release stores of `activate` and `release`: whoever sees
        // an incarnation sees its segment file complete, and everything it published.
        self.occupancy.load(Ordering::Acquire)
    }

    /// Owner, under the slot's lock: takes the slot as `incarnation` (counters zeroed), after
    /// its segment file is complete.
    pub(crate) fn activate(&self, node_id: u64, pid: u32, incarnation: u32) {
        self.node_id.store(node_id, Ordering::Relaxed);
        self.pid.store(pid, Ordering::Relaxed);
        for counter in [
            &self.publishes,
            &self.wake_syscalls,
            &self.wakes_skipped,
            &self.payload_bytes,
            &self.blocked,
            &self.blocked_ns,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
        // Release: pairs with the Acquire in `occupancy`.
        self.occupancy.store(occupancy(incarnation, SlotState::Active), Ordering::Release);
    }

    /// Owner, after each publish: writes its occupancy word back if someone else changed
    /// it (a scribble would otherwise make subscribers that join later look for a file
    /// that does not exist, and never read this publisher). One load when nothing changed.
    #[inline]
    pub(crate) fn reassert(&self, incarnation: u32) {
        let word = occupancy(incarnation, SlotState::Active);
        if self.occupancy.load(Ordering::Relaxed) != word {
            // Release: as in `activate`.
            self.occupancy.store(word, Ordering::Release);
        }
    }

    /// Owner, leaving: marks the slot free (its segment file stays for subscribers to
    /// drain).
    pub(crate) fn release(&self, incarnation: u32) {
        // Release: pairs with the Acquire in `occupancy`.
        self.occupancy.store(occupancy(incarnation, SlotState::Free), Ordering::Release);
    }

    /// Owner: the counters after a publish (plain stores, no read-modify-write).
    #[inline]
    pub(crate) fn record_publish(&self, publishes: u64, payload_bytes: u64) {
        self.publishes.store(publishes, Ordering::Relaxed);
        self.payload_bytes.store(payload_bytes, Ordering::Relaxed);
    }

    /// Owner: how many publishes made the wake system call (`woke`) or skipped it.
    #[inline]
    pub(crate) fn record_wakes(&self, woke: bool, count: u64) {
        let counter = if woke { &self.wake_syscalls } else { &self.wakes_skipped };
        counter.store(count, Ordering::Relaxed);
    }

    /// Owner: how many loans waited for room, and for how long in all.
    pub(crate) fn record_blocked(&self, blocked: u64, blocked_ns: u64) {
        self.blocked.store(blocked, Ordering::Relaxed);
        self.blocked_ns.store(blocked_ns, Ordering::Relaxed);
    }

    /// The line the counters live on (to prefetch before a publish).
    #[inline]
    pub(crate) fn counters_line(&self) -> *const u8 {
        (&self.publishes as *const AtomicU64).cast()
    }

    pub(crate) fn snapshot(&self) -> PublisherSnapshot {
        PublisherSnapshot {
            node_id: self.node_id.load(Ordering::Relaxed),
            pid: self.pid.load(Ordering::Relaxed),
            publishes: self.publishes.load(Ordering::Relaxed),
            wake_syscalls: self.wake_syscalls.load(Ordering::Relaxed),
            wakes_skipped: self.wakes_skipped.load(Ordering::Relaxed),
            payload_bytes: self.payload_bytes.load(Ordering::Relaxed),
            blocked: self.blocked.load(Ordering::Relaxed),
            blocked_ns: self.blocked_ns.load(Ordering::Relaxed),
        }
    }
}

fn occupancy(incarnation: u32, state: SlotState) -> u64 {
    (incarnation as u64) << 32 | state as u64
}

/// Splits an occupancy word; an unknown state is corruption.
pub(crate) fn decode_occupancy(word: u64) -> Result<(u32, SlotState), u32> {
    Ok(((word >> 32) as u32, SlotState::try_from(word as u32)?))
}

/// One subscriber's entry in the topic.
#[repr(C, align(64))]
pub(crate) struct SubscriberSlot {
    state: AtomicU32,
    wake_mode: AtomicU32,
    node_id: AtomicU64,
    taken: AtomicU64,
    lost: AtomicU64,
    /// How many times this subscriber is counted in the topic's sleepers right now (see
    /// `notify::protocol`): one per wait of it in progress — `receive`, or each wait set
    /// it is armed in. Non-zero: asleep.
    sleeping: AtomicU32,
    pid: AtomicU32,
    held: AtomicU32,
    /// The topic's wake word as it would read had every message this subscriber has
    /// moved past (taken, lost or skipped) just been published: `wake word − read_mark`
    /// is its lag. Written by the subscriber; only diagnostics read it.
    read_mark: AtomicU32,
    /// 1: a reliable subscriber (publishers never overwrite what it has not taken).
    reliable: AtomicU32,
    reserved: [AtomicU32; 3],
}
const _: () = assert!(size_of::<SubscriberSlot>() == SUBSCRIBER_SLOT_BYTES);
const _: () = assert!(offset_of!(SubscriberSlot, sleeping) == 32);
const _: () = assert!(offset_of!(SubscriberSlot, read_mark) == 44);
// SAFETY: repr(C), fixed-width atomics only.
unsafe impl Shared for SubscriberSlot {}

/// The reliable subscribers of a topic. A slot's bit is set by its owner once it has
/// written its read positions, and cleared by its owner when it leaves or by whoever
/// reclaims it dead (under the slot's lock); the count follows the bits.
#[derive(Clone, Copy)]
pub(crate) struct ReliableSet<'a> {
    count: &'a AtomicU32,
    bits: &'a [AtomicU64],
    max_subscribers: u32,
}

impl<'a> ReliableSet<'a> {
    /// How many subscribers are reliable (a publisher's first look, on every loan).
    #[inline]
    pub(crate) fn count(&self) -> u32 {
        // Acquire: pairs with the Release in `insert`: a publisher that sees the count sees
        // the read positions the subscriber wrote before.
        self.count.load(Ordering::Acquire)
    }

    /// Adds `slot` (its owner, after writing its read positions).
    pub(crate) fn insert(&self, slot: u32) {
        let (word, bit) = crate::pool::pin::split(slot);
        if self.bits[word].fetch_or(bit, Ordering::Release) & bit == 0 {
            self.count.fetch_add(1, Ordering::Release);
        }
    }

    /// Removes `slot` (its owner leaving, or a reclaimer under the slot's lock).
    pub(crate) fn remove(&self, slot: u32) {
        let (word, bit) = crate::pool::pin::split(slot);
        if self.bits[word].fetch_and(!bit, Ordering::AcqRel) & bit != 0 {
            self.count.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// The reliable slots now (a bit past `max_subscribers`, which only a bad peer could
    /// set, is ignored).
    pub(crate) fn slots(self) -> impl Iterator<Item = u32> + 'a {
        let max = self.max_subscribers;
        self.bits.iter().enumerate().flat_map(move |(w, word)| {
            // Acquire: pairs with the Release in `insert`.
            let mut bits = word.load(Ordering::Acquire);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let bit = bits.trailing_zeros();
                    bits &= bits - 1;
                    w as u32 * 64 + bit
                })
            })
            .filter(move |&slot| slot < max)
        })
    }
}

/// What a subscriber slot says, read field by field (for inspection; not one instant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SubscriberSnapshot {
    pub wake_mode: u32,
    pub node_id: u64,
    pub pid: u32,
    pub taken: u64,
    pub lost: u64,
    pub held: u32,
    pub sleeping: u32,
    pub read_mark: u32,
    pub reliable: bool,
}

impl SubscriberSlot {
    /// The raw state (see [`SlotState`]).
    pub(crate) fn state(&self) -> u32 {
        // Acquire: pairs with the Release stores of `activate` and `release`.
        self.state.load(Ordering::Acquire)
    }

    /// Owner, under the slot's lock: takes the slot (counters zeroed).
    pub(crate) fn activate(&self, wake_mode: u32, reliable: bool, node_id: u64, pid: u32) {
        self.wake_mode.store(wake_mode, Ordering::Relaxed);
        self.reliable.store(reliable as u32, Ordering::Relaxed);
        self.node_id.store(node_id, Ordering::Relaxed);
        self.pid.store(pid, Ordering::Relaxed);
        self.taken.store(0, Ordering::Relaxed);
        self.lost.store(0, Ordering::Relaxed);
        self.held.store(0, Ordering::Relaxed);
        // Release: pairs with the Acquire in `state` of sweeps and reclaimers.
        self.state.store(SlotState::Active as u32, Ordering::Release);
    }

    /// Owner, leaving: marks the slot free.
    pub(crate) fn release(&self) {
        self.held.store(0, Ordering::Relaxed);
        // Release: pairs with the Acquire in `state` of whoever claims the slot next.
        self.state.store(SlotState::Free as u32, Ordering::Release);
    }

    /// Owner: how many samples it holds now.
    pub(crate) fn record_held(&self, held: u32) {
        self.held.store(held, Ordering::Relaxed);
    }

    /// Owner: its counters after a take (plain stores).
    pub(crate) fn record_counters(&self, taken: u64, lost: u64, read_mark: u32) {
        self.taken.store(taken, Ordering::Relaxed);
        self.lost.store(lost, Ordering::Relaxed);
        self.read_mark.store(read_mark, Ordering::Relaxed);
    }

    /// The count of this subscriber's registrations in the topic's sleepers, which the
    /// wake protocol keeps (`WakeWords::register`).
    pub(crate) fn sleep_mark(&self) -> &AtomicU32 {
        &self.sleeping
    }

    /// Whether its sleep mark says it is counted in the topic's sleepers (one load).
    pub(crate) fn says_asleep(&self) -> bool {
        self.sleeping.load(Ordering::Relaxed) != 0
    }

    /// A reclaimer, under the slot's lock: takes the dead owner's registrations back
    /// (returns how many the mark said).
    pub(crate) fn take_sleep_mark(&self) -> u32 {
        self.sleeping.swap(0, Ordering::Relaxed)
    }

    pub(crate) fn snapshot(&self) -> SubscriberSnapshot {
        SubscriberSnapshot {
            wake_mode: self.wake_mode.load(Ordering::Relaxed),
            node_id: self.node_id.load(Ordering::Relaxed),
            pid: self.pid.load(Ordering::Relaxed),
            taken: self.taken.load(Ordering::Relaxed),
            lost: self.lost.load(Ordering::Relaxed),
            held: self.held.load(Ordering::Relaxed),
            sleeping: self.sleeping.load(Ordering::Relaxed),
            read_mark: self.read_mark.load(Ordering::Relaxed),
            reliable: self.reliable.load(Ordering::Relaxed) == 1,
        }
    }
}

/// The payload type a topic was created for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PayloadType {
    pub name: String,
    pub size: u64,
    pub align: u32,
}

impl PayloadType {
    pub(crate) fn bytes() -> PayloadType {
        PayloadType { name: "bytes".into(), size: 1, align: 1 }
    }

    /// The payload type record of `T` (its name cut to the stored length, on a character
    /// boundary).
    pub(crate) fn of<T>() -> PayloadType {
        let full = std::any::type_name::<T>();
        let mut end = full.len().min(MAX_TYPE_NAME_BYTES);
        while !full.is_char_boundary(end) {
            end -= 1;
        }
        PayloadType {
            name: full[..end].to_string(),
            size: size_of::<T>() as u64,
            align: std::mem::align_of::<T>() as u32,
        }
    }
}

/// Offsets of a topic segment with a given configuration (process-local, from validated
/// values only).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TopicLayout {
    pub config: TopicConfig,
}

impl TopicLayout {
    pub(crate) fn total_bytes(&self) -> u64 {
        (self.subscriber_slot_offset(0) + SUBSCRIBER_SLOT_BYTES * self.config.max_subscribers as usize) as u64
    }

    #[inline]
    pub(crate) fn publisher_slot_offset(&self, slot: u32) -> usize {
        assert!(slot < self.config.max_publishers);
        SLOTS_OFFSET + PUBLISHER_SLOT_BYTES * slot as usize
    }

    pub(crate) fn subscriber_slot_offset(&self, slot: u32) -> usize {
        assert!(slot < self.config.max_subscribers);
        SLOTS_OFFSET
            + PUBLISHER_SLOT_BYTES * self.config.max_publishers as usize
            + SUBSCRIBER_SLOT_BYTES * slot as usize
    }

    /// Writes a fresh topic header (state still Initializing).
    pub(crate) fn init(&self, region: &Region, topic_id: u64, name: &str, payload: &PayloadType) {
        let mut header = TopicHeader {
            common: SegmentHeader::new(SegmentKind::Topic, size_of::<TopicHeader>() as u32, self.total_bytes()),
            topic_id,
            config: self.config,
            type_size: payload.size,
            type_align: payload.align,
            type_name_len: payload.name.len() as u32,
            type_name: [0; MAX_TYPE_NAME_BYTES],
            name_len: name.len() as u32,
            reserved0: 0,
            name: [0; TOPIC_NAME_BYTES],
        };
        header.type_name[..payload.name.len()].copy_from_slice(payload.name.as_bytes());
        header.name[..name.len()].copy_from_slice(name.as_bytes());
        region.write_plain(0, header);
    }

    /// Reads and validates a topic header; the returned layout is safe to index with.
    pub(crate) fn read(region: &Region) -> Result<(TopicHeader, TopicLayout, String, PayloadType), HeaderError> {
        let common = SegmentHeader::read(region, SegmentKind::Topic)?;
        if (common.header_bytes as usize) != size_of::<TopicHeader>() || region.len() < size_of::<TopicHeader>() {
            return Err(corrupt("topic header size", common.header_bytes as u64, size_of::<TopicHeader>() as u64));
        }
        let h: TopicHeader = region.read_plain(0);
        h.config.check().map_err(|(what, value, _)| corrupt(what, value, 0))?;
        let layout = TopicLayout { config: h.config };
        if layout.total_bytes() != region.len() as u64 {
            return Err(corrupt("topic segment length", region.len() as u64, layout.total_bytes()));
        }
        if h.reserved0 != 0 {
            return Err(corrupt("reserved topic header bytes", h.reserved0 as u64, 0));
        }
        let name = text(&h.name, h.name_len, "topic name length")?;
        let type_name = text(&h.type_name, h.type_name_len, "payload type name length")?;
        let payload = PayloadType { name: type_name, size: h.type_size, align: h.type_align };
        Ok((h, layout, name, payload))
    }

    #[inline]
    fn wake_words<'r>(&self, region: &'r Region) -> WakeWords<'r> {
        // One bounds check for the three consecutive words (a subscriber reaches them
        // several times per message).
        const _: () = assert!(SLEEPERS_OFFSET == WAKE_OFFSET + 4 && RELAY_TOKEN_OFFSET == WAKE_OFFSET + 8);
        let [word, sleepers, relay_token] = region.slice::<AtomicU32>(WAKE_OFFSET, 3) else {
            unreachable!("a slice of 3 has 3 elements")
        };
        WakeWords { word, sleepers, relay_token }
    }

    #[inline]
    fn publisher_slot<'r>(&self, region: &'r Region, slot: u32) -> &'r PublisherSlot {
        region.get(self.publisher_slot_offset(slot))
    }

    #[inline]
    fn subscriber_slot<'r>(&self, region: &'r Region, slot: u32) -> &'r SubscriberSlot {
        region.get(self.subscriber_slot_offset(slot))
    }
}

/// A mapped topic segment: its region and the layout validated when it was opened (or
/// written when it was created). Everything in it is reached through here.
#[derive(Debug)]
pub(crate) struct TopicSegment {
    region: Region,
    layout: TopicLayout,
}

impl TopicSegment {
    /// Whether its file was found shorter than its mapping (see `sys::truncation`).
    #[inline]
    pub(crate) fn truncated(&self) -> bool {
        self.region.truncated()
    }

    /// `layout` must be what [`TopicLayout::read`] returned for `region`, or what
    /// [`TopicLayout::init`] wrote into it.
    pub(crate) fn new(region: Region, layout: TopicLayout) -> TopicSegment {
        TopicSegment { region, layout }
    }

    #[inline]
    pub(crate) fn config(&self) -> &TopicConfig {
        &self.layout.config
    }

    #[inline]
    pub(crate) fn wake_words(&self) -> WakeWords<'_> {
        self.layout.wake_words(&self.region)
    }

    #[inline]
    pub(crate) fn publisher(&self, slot: u32) -> &PublisherSlot {
        self.layout.publisher_slot(&self.region, slot)
    }

    /// Which subscribers are reliable: a count (on the wake line) and one bit per slot.
    #[inline]
    pub(crate) fn reliable_set(&self) -> ReliableSet<'_> {
        ReliableSet {
            count: self.region.get(RELIABLE_COUNT_OFFSET),
            bits: self.region.slice(RELIABLE_SET_OFFSET, self.layout.config.max_subscribers.div_ceil(64) as usize),
            max_subscribers: self.layout.config.max_subscribers,
        }
    }

    #[inline]
    pub(crate) fn subscriber(&self, slot: u32) -> &SubscriberSlot {
        self.layout.subscriber_slot(&self.region, slot)
    }

    /// The reliable subscribers a publisher waits for: the slots in the reliable set that
    /// are taken. A bit of a free slot is ignored: an owner sets its bit after taking its
    /// slot and clears it before leaving, so only a bad peer leaves one there, and no
    /// reclaim would ever clear it (there is no dead owner to reclaim).
    pub(crate) fn reliable_readers(&self) -> impl Iterator<Item = u32> + '_ {
        // Acquire (in `state`): pairs with the Release of `SubscriberSlot::activate`, which
        // comes before the owner's `ReliableSet::insert`.
        self.reliable_set().slots().filter(|&slot| self.subscriber(slot).state() != SlotState::Free as u32)
    }

    /// Where a publisher slot starts (its first byte is the slot's liveness lock).
    pub(crate) fn publisher_offset(&self, slot: u32) -> u64 {
        self.layout.publisher_slot_offset(slot) as u64
    }

    /// Where a subscriber slot starts (its first byte is the slot's liveness lock).
    pub(crate) fn subscriber_offset(&self, slot: u32) -> u64 {
        self.layout.subscriber_slot_offset(slot) as u64
    }
}

fn text(bytes: &[u8], len: u32, what: &'static str) -> Result<String, HeaderError> {
    let s = bytes.get(..len as usize).ok_or(corrupt(what, len as u64, bytes.len() as u64))?;
    String::from_utf8(s.to_vec()).map_err(|_| corrupt(what, len as u64, 0))
}

/// The configuration the layout-version test measures sample offsets with.
#[cfg(test)]
pub(crate) fn sample_config() -> TopicConfig {
    TopicConfig {
        max_publishers: 3,
        max_subscribers: 70,
        depth: 8,
        history: 2,
        max_held: 2,
        chunk_count: 200,
        max_payload_bytes: 100,
        pool_bytes: 1 << 20,
        preallocate: 0,
        reserved0: 0,
    }
}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    let mut facts = super::layout_facts!(TopicConfig: max_publishers, max_subscribers, depth, history, max_held, chunk_count, max_payload_bytes, pool_bytes, preallocate, reserved0);
    facts.extend(super::layout_facts!(TopicHeader: common, topic_id, config, type_size, type_align, type_name_len, type_name, name_len, reserved0, name));
    facts.extend(super::layout_facts!(PublisherSlot: occupancy, node_id, pid, reserved0, publishes, wake_syscalls, wakes_skipped, payload_bytes, blocked, blocked_ns, reserved1));
    facts.extend(super::layout_facts!(SubscriberSlot: state, wake_mode, node_id, taken, lost, sleeping, pid, held, read_mark, reliable, reserved));
    let sample = TopicLayout { config: sample_config() };
    facts.extend([
        ("wake word", WAKE_OFFSET as u64),
        ("sleepers", SLEEPERS_OFFSET as u64),
        ("relay token", RELAY_TOKEN_OFFSET as u64),
        ("reliable count", RELIABLE_COUNT_OFFSET as u64),
        ("reliable set", RELIABLE_SET_OFFSET as u64),
        ("slots", SLOTS_OFFSET as u64),
        ("sample subscriber slot 2", sample.subscriber_slot_offset(2) as u64),
        ("sample topic bytes", sample.total_bytes()),
        ("slot state active", SlotState::Active as u64),
        ("occupancy", occupancy(5, SlotState::Active)),
    ]);
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> TopicConfig {
        TopicConfig {
            max_publishers: 2,
            max_subscribers: 3,
            depth: 4,
            history: 1,
            max_held: 1,
            chunk_count: 8,
            max_payload_bytes: 64,
            pool_bytes: 1 << 20,
            preallocate: 1,
            reserved0: 0,
        }
    }

    #[test]
    fn init_then_read_on_a_heap_segment() {
        let layout = TopicLayout { config: config() };
        let r = Region::heap(layout.total_bytes() as usize);
        layout.init(&r, 42, "a/b", &PayloadType::bytes());
        SegmentHeader::publish(&r);
        let (h, l, name, payload) = TopicLayout::read(&r).unwrap();
        assert_eq!((h.topic_id, l.config, name.as_str(), payload), (42, config(), "a/b", PayloadType::bytes()));
        assert_eq!(layout.subscriber_slot_offset(0), 704 + 2 * 128);
        assert_eq!(layout.total_bytes(), 704 + 2 * 128 + 3 * 64);
    }

    #[test]
    fn corrupted_config_and_lengths_are_refused() {
        let layout = TopicLayout { config: config() };
        let r = Region::heap(layout.total_bytes() as usize);
        layout.init(&r, 42, "t", &PayloadType::bytes());
        SegmentHeader::publish(&r);
        r.write_plain::<u32>(offset_of!(TopicHeader, config) + 8, 3); // depth 3
        assert!(matches!(TopicLayout::read(&r), Err(HeaderError::Corrupted(c)) if c.what == "depth"));
        r.write_plain::<u32>(offset_of!(TopicHeader, config) + 8, 4);
        r.write_plain::<u32>(offset_of!(TopicHeader, name_len), 4000);
        assert!(matches!(TopicLayout::read(&r), Err(HeaderError::Corrupted(c)) if c.what == "topic name length"));
    }

    /// Found by fuzzing: a scribbled reliable bit of a free subscriber slot made every
    /// publisher wait, forever and spinning, for a reader nobody could reclaim.
    #[test]
    fn a_reliable_bit_of_a_free_slot_is_no_reader() {
        let layout = TopicLayout { config: config() };
        let r = Region::heap(layout.total_bytes() as usize);
        layout.init(&r, 42, "t", &PayloadType::bytes());
        let segment = TopicSegment::new(r, layout);
        segment.subscriber(1).activate(0, true, 7, 1);
        segment.reliable_set().insert(1);
        segment.reliable_set().insert(2); // slot 2 is free
        assert_eq!(segment.reliable_set().slots().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(segment.reliable_readers().collect::<Vec<_>>(), [1]);
        segment.subscriber(1).release();
        assert_eq!(segment.reliable_readers().count(), 0);
    }

    #[test]
    fn occupancy_round_trips_and_rejects_unknown_states() {
        assert_eq!(decode_occupancy(occupancy(7, SlotState::Active)), Ok((7, SlotState::Active)));
        assert_eq!(decode_occupancy(5), Err(5));
    }
}
