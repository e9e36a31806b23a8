//! The header every segment starts with, and its contract.
//!
//! ```text
//!  0  magic "RINGBUS\0"     8  layout_version   12 kind        16 header_bytes
//! 20  reserved (0)         24  segment_bytes    32 creator_pid 36 reserved (0) ...
//! 60  state  <- written last by the creator (Release), read first by openers (Acquire)
//! ```
//! Segments are built under a temporary name and renamed into place only once the state
//! word says `Ready`, so an opener never sees a half-built segment; the state word still
//! guards against a foreign or truncated file and against a later `Corrupt` marking.

use super::Region;
use crate::error::Corruption;
use crate::sync::{AtomicU32, Ordering};
use std::mem::offset_of;

pub(crate) const MAGIC: [u8; 8] = *b"RINGBUS\0";
/// Bumped on every change of any shared-memory layout in this crate (3: MPSC queue
/// producer entries with claim words; 4: a queue's positions and doorbells 128 bytes
/// apart; 5: a queue's wake policy in its configuration; 6: a topic's relay word and
/// relay-pending flag replaced by one relay token, with its own protocol; 7: a subscriber
/// slot's `sleeping` mark counts registrations instead of being a flag; 8: a topic's memory
/// settings, `pool_bytes` and `preallocate`, in its configuration and a publisher's geometry;
/// 9: reliable subscribers — a topic's reliable set, a publisher segment's room doorbell and
/// read positions, blocked counters).
pub const LAYOUT_VERSION: u32 = 9;

/// What a segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum SegmentKind {
    Topic = 1,
    Publisher = 2,
    Node = 3,
    Latch = 4,
    Semaphore = 5,
    Queue = 6,
}

impl TryFrom<u32> for SegmentKind {
    type Error = u32;
    fn try_from(v: u32) -> Result<Self, u32> {
        match v {
            1 => Ok(SegmentKind::Topic),
            2 => Ok(SegmentKind::Publisher),
            3 => Ok(SegmentKind::Node),
            4 => Ok(SegmentKind::Latch),
            5 => Ok(SegmentKind::Semaphore),
            6 => Ok(SegmentKind::Queue),
            other => Err(other),
        }
    }
}

/// The state word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum SegmentState {
    Initializing = 0,
    Ready = 1,
}

impl TryFrom<u32> for SegmentState {
    type Error = u32;
    fn try_from(v: u32) -> Result<Self, u32> {
        match v {
            0 => Ok(SegmentState::Initializing),
            1 => Ok(SegmentState::Ready),
            other => Err(other),
        }
    }
}

#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct SegmentHeader {
    pub magic: [u8; 8],
    pub layout_version: u32,
    pub kind: u32,
    pub header_bytes: u32,
    pub reserved0: u32,
    pub segment_bytes: u64,
    pub creator_pid: u32,
    pub reserved1: [u8; 24],
    /// Accessed only as an atomic, through [`state_word`].
    pub state: u32,
}

const _: () = assert!(std::mem::size_of::<SegmentHeader>() == 64);
const _: () = assert!(offset_of!(SegmentHeader, layout_version) == 8);
const _: () = assert!(offset_of!(SegmentHeader, kind) == 12);
const _: () = assert!(offset_of!(SegmentHeader, segment_bytes) == 24);
const _: () = assert!(offset_of!(SegmentHeader, creator_pid) == 32);
const _: () = assert!(offset_of!(SegmentHeader, state) == 60);

// SAFETY: repr(C), integers and byte arrays only, no padding-dependent invariants.
unsafe impl super::Shared for SegmentHeader {}

/// Why a header was refused, before it is attached to a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HeaderError {
    Foreign(String),
    Version(u32),
    Corrupted(Corruption),
}

fn state_word(region: &Region) -> &AtomicU32 {
    region.get::<AtomicU32>(offset_of!(SegmentHeader, state))
}

impl SegmentHeader {
    pub(crate) fn new(kind: SegmentKind, header_bytes: u32, segment_bytes: u64) -> SegmentHeader {
        SegmentHeader {
            magic: MAGIC,
            layout_version: LAYOUT_VERSION,
            kind: kind as u32,
            header_bytes,
            reserved0: 0,
            segment_bytes,
            creator_pid: crate::sys::fs::pid(),
            reserved1: [0; 24],
            state: SegmentState::Initializing as u32,
        }
    }

    /// Writes the header with state `Initializing`; call [`SegmentHeader::publish`] last.
    #[cfg(test)]
    pub(crate) fn write(&self, region: &Region) {
        region.write_plain(0, *self);
    }

    /// Stores `Ready`. Release: pairs with the Acquire load in [`SegmentHeader::read`], so an
    /// opener that sees `Ready` sees every byte the creator wrote before.
    pub(crate) fn publish(region: &Region) {
        state_word(region).store(SegmentState::Ready as u32, Ordering::Release);
    }

    /// Reads the state word first, then copies and validates the rest.
    pub(crate) fn read(region: &Region, kind: SegmentKind) -> Result<SegmentHeader, HeaderError> {
        if region.len() < std::mem::size_of::<SegmentHeader>() {
            return Err(HeaderError::Foreign(format!("only {} bytes long", region.len())));
        }
        // Acquire: pairs with the creator's Release in `publish`.
        let state = state_word(region).load(Ordering::Acquire);
        let h: SegmentHeader = region.read_plain(0);
        if h.magic != MAGIC {
            return Err(HeaderError::Foreign("bad magic bytes".into()));
        }
        if h.layout_version != LAYOUT_VERSION {
            return Err(HeaderError::Version(h.layout_version));
        }
        match SegmentKind::try_from(h.kind) {
            Ok(k) if k == kind => {}
            Ok(k) => {
                return Err(HeaderError::Foreign(format!("a {k:?} segment where a {kind:?} segment was expected")))
            }
            Err(v) => return Err(corrupt("segment kind", v as u64, kind as u64)),
        }
        match SegmentState::try_from(state) {
            Ok(SegmentState::Ready) => {}
            Ok(SegmentState::Initializing) => return Err(corrupt("segment state (never finished)", state as u64, 1)),
            Err(v) => return Err(corrupt("segment state", v as u64, 1)),
        }
        if h.reserved0 != 0 || h.reserved1 != [0; 24] {
            return Err(corrupt("reserved header bytes", 1, 0));
        }
        if h.segment_bytes != region.len() as u64 {
            return Err(corrupt("segment length", region.len() as u64, h.segment_bytes));
        }
        Ok(h)
    }
}

pub(crate) fn corrupt(what: &'static str, found: u64, limit: u64) -> HeaderError {
    HeaderError::Corrupted(Corruption { what, found, limit })
}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    super::layout_facts!(SegmentHeader: magic, layout_version, kind, header_bytes, reserved0, segment_bytes, creator_pid, reserved1, state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready(len: usize) -> Region {
        let r = Region::heap(len);
        SegmentHeader::new(SegmentKind::Topic, 64, len as u64).write(&r);
        SegmentHeader::publish(&r);
        r
    }

    #[test]
    fn round_trip() {
        let r = ready(128);
        let h = SegmentHeader::read(&r, SegmentKind::Topic).unwrap();
        assert_eq!(h.segment_bytes, 128);
    }

    #[test]
    fn every_bad_field_is_a_typed_error() {
        let r = ready(128);
        assert!(matches!(SegmentHeader::read(&r, SegmentKind::Node), Err(HeaderError::Foreign(_))));
        r.write_plain::<u32>(8, 99);
        assert!(matches!(SegmentHeader::read(&r, SegmentKind::Topic), Err(HeaderError::Version(99))));
        r.write_plain::<u32>(8, LAYOUT_VERSION);
        r.write_plain::<u32>(60, 7);
        assert!(
            matches!(SegmentHeader::read(&r, SegmentKind::Topic), Err(HeaderError::Corrupted(c)) if c.what == "segment state")
        );
        r.write_plain::<u32>(60, 1);
        r.write_plain::<u8>(40, 1);
        assert!(matches!(SegmentHeader::read(&r, SegmentKind::Topic), Err(HeaderError::Corrupted(_))));
        r.write_plain::<u8>(40, 0);
        r.write_plain::<u8>(0, b'X');
        assert!(matches!(SegmentHeader::read(&r, SegmentKind::Topic), Err(HeaderError::Foreign(_))));
    }
}
