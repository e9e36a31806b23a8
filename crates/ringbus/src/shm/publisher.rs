//! A publisher's segment: its broadcast log, the chunk words, and the payload chunks.
//!
//! ```text
//!    0 PublisherHeader (192 B): SegmentHeader, topic id, slot, incarnation, geometry
//!  192 published: u64          (own cache line; positions < published are readable)
//!  256 LogEntry × depth        (32 B each)
//!      -- page boundary --
//!      room doorbell (word u32, pad, sleepers u64; one cache line): reliable subscribers
//!                                  ring it after taking, when the publisher waits for room
//!      read positions × max_subscribers (u64, position + 1 of the next message a
//!                                  reliable subscriber takes, 0: none; a line each)
//!      chunk words × chunk_count  (generation u32, pad, holder bits u64 × holder_words),
//!                                  one cache line apart
//!      (the room doorbell, read positions and chunk words are mapped read-write by
//!      subscribers)
//!      -- page boundary --
//!      payload chunks × chunk_count (chunk_stride each); mapped read-only by subscribers
//! ```
//! The whole file is mapped once (read-write by the publisher, read-only by subscribers) and
//! the chunk-word range a second time read-write, so a subscriber can pin chunks but never
//! write a payload or a log entry.
//!
//! Memory: everything before the payload is reserved when the segment is created. The
//! payload area is reserved too when the topic preallocates; otherwise it is a hole, each
//! chunk page-aligned, and the publisher reserves and trims each chunk's extent as it lends
//! it (`pool::extents` decides, [`PublisherSegment::fit`] makes the call). A subscriber only
//! reads bytes a log entry names, which the publisher reserved before writing them.

use super::header::{corrupt, HeaderError, SegmentHeader, SegmentKind};
use super::log_entry::LogEntry;
use super::topic::TopicConfig;
use super::{Region, Shared};
use crate::error::OpenError;
use crate::notify::doorbell::Doorbell;
use crate::pool::allocator::ChunkAllocator;
use crate::pool::extents::Fit;
use crate::pool::ChunkWords;
use crate::ring::log::EntryWords;
use crate::sync::{AtomicU32, AtomicU64, Ordering};
use crate::sys;
use std::fs::File;
use std::mem::{offset_of, size_of};
use std::os::fd::AsFd;
use std::path::Path;

const PAGE: u64 = 4096;
const LINE: u64 = 64;
const PUBLISHED_OFFSET: usize = 192;
/// In the read-write range: the room doorbell, then the read positions.
const ROOM_WORD_OFFSET: usize = 0;
const ROOM_SLEEPERS_OFFSET: usize = 8;
const READ_POSITIONS_OFFSET: u64 = LINE;
const LOG_OFFSET: u64 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct PublisherGeometry {
    pub depth: u32,
    pub chunk_count: u32,
    pub holder_words: u32,
    /// 1: the whole payload area is reserved at creation; 0: chunk by chunk, on demand.
    pub preallocate: u32,
    pub chunk_stride: u64,
    pub max_payload_bytes: u64,
    pub log_offset: u64,
    pub control_offset: u64,
    /// Where the chunk words start, from `control_offset`.
    pub chunk_words_offset: u64,
    pub control_stride: u64,
    pub payload_offset: u64,
    pub total_bytes: u64,
    /// Most payload bytes reserved at once (on demand only).
    pub pool_bytes: u64,
}

#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct PublisherHeader {
    pub common: SegmentHeader,
    pub topic_id: u64,
    pub slot: u32,
    pub incarnation: u32,
    pub geometry: PublisherGeometry,
    pub reserved: [u8; 24],
}

const _: () = assert!(offset_of!(PublisherHeader, topic_id) == 64);
const _: () = assert!(offset_of!(PublisherHeader, slot) == 72);
const _: () = assert!(offset_of!(PublisherHeader, geometry) == 80);
const _: () = assert!(size_of::<PublisherGeometry>() == 88);
const _: () = assert!(size_of::<PublisherHeader>() == PUBLISHED_OFFSET);

// SAFETY: repr(C), integers and byte arrays only.
unsafe impl Shared for PublisherHeader {}

fn round_up(v: u64, to: u64) -> u64 {
    v.div_ceil(to) * to
}

/// The bytes between two chunks: the largest payload rounded up to the payload type's
/// alignment (64 bytes to a page) when preallocated, to whole pages on demand (so that each
/// chunk's memory is reserved and given back on its own).
pub(crate) fn chunk_stride(max_payload_bytes: u64, payload_align: u32, preallocate: bool) -> u64 {
    let align = if preallocate { (payload_align as u64).clamp(64, PAGE) } else { PAGE };
    round_up(max_payload_bytes, align)
}

impl PublisherGeometry {
    /// The geometry for a topic configuration; all sizes checked for overflow.
    pub(crate) fn new(config: &TopicConfig, payload_align: u32) -> Option<PublisherGeometry> {
        let holder_words = config.max_subscribers.div_ceil(64);
        let control_stride = round_up(8 + 8 * holder_words as u64, 64);
        let chunk_stride = chunk_stride(config.max_payload_bytes, payload_align, config.preallocate != 0);
        let log_bytes = config.depth as u64 * size_of::<LogEntry>() as u64;
        let control_offset = round_up(LOG_OFFSET + log_bytes, PAGE);
        let chunk_words_offset = READ_POSITIONS_OFFSET + LINE * config.max_subscribers as u64;
        let payload_offset =
            round_up(control_offset + chunk_words_offset + control_stride * config.chunk_count as u64, PAGE);
        let total_bytes = chunk_stride.checked_mul(config.chunk_count as u64)?.checked_add(payload_offset)?;
        (total_bytes <= 1 << 44).then_some(PublisherGeometry {
            depth: config.depth,
            chunk_count: config.chunk_count,
            holder_words,
            preallocate: config.preallocate,
            chunk_stride,
            max_payload_bytes: config.max_payload_bytes,
            log_offset: LOG_OFFSET,
            control_offset,
            chunk_words_offset,
            control_stride,
            payload_offset,
            total_bytes,
            pool_bytes: config.pool_bytes,
        })
    }

    fn control_bytes(&self) -> u64 {
        self.payload_offset - self.control_offset
    }

    /// Bytes reserved when the segment is created: all of it when preallocated, else
    /// everything before the payload.
    pub(crate) fn reserved_at_creation(&self) -> u64 {
        if self.preallocate != 0 {
            self.total_bytes
        } else {
            self.payload_offset
        }
    }

    /// Whether chunks get their memory when lent (not at creation).
    pub(crate) fn on_demand(&self) -> bool {
        self.preallocate == 0
    }
}

/// A chunk claimed by its publisher and not yet published: the proof of exclusive access
/// to its payload. Made only by [`PublisherSegment::claim`].
#[derive(Debug)]
pub(crate) struct ClaimedChunk {
    pub chunk: u32,
    pub generation: u32,
}

/// A mapped publisher segment (the publisher's own, or a subscriber's view of it).
#[derive(Debug)]
pub(crate) struct PublisherSegment {
    data: Region,
    control: Region,
    pub geometry: PublisherGeometry,
    /// The owning publisher's file, to reserve and trim chunk memory (`None` in a
    /// subscriber's view).
    file: Option<File>,
}

impl PublisherSegment {
    /// Whether its file was found shorter than its mappings (see `sys::truncation`).
    #[inline]
    pub(crate) fn truncated(&self) -> bool {
        self.data.truncated() || self.control.truncated()
    }

    fn new(
        file: File,
        owned: bool,
        path: &Path,
        data: Region,
        geometry: PublisherGeometry,
    ) -> Result<PublisherSegment, OpenError> {
        let control = super::segment::map_range(&file, path, geometry.control_offset, geometry.control_bytes(), true)?;
        Ok(PublisherSegment { data, control, geometry, file: owned.then_some(file) })
    }

    /// Creates the segment for `slot`/`incarnation` at `path`.
    pub(crate) fn create(
        root: &super::Root,
        path: &Path,
        geometry: PublisherGeometry,
        topic_id: u64,
        slot: u32,
        incarnation: u32,
    ) -> Result<PublisherSegment, OpenError> {
        let init = |r: &Region| {
            let header = PublisherHeader {
                common: SegmentHeader::new(
                    SegmentKind::Publisher,
                    size_of::<PublisherHeader>() as u32,
                    geometry.total_bytes,
                ),
                topic_id,
                slot,
                incarnation,
                geometry,
                reserved: [0; 24],
            };
            r.write_plain(0, header);
        };
        let created =
            super::segment::create_sparse(root, path, geometry.total_bytes, geometry.reserved_at_creation(), init)?;
        let created = created.ok_or_else(|| OpenError::Io {
            action: "create",
            path: path.to_path_buf(),
            source: std::io::Error::from(std::io::ErrorKind::AlreadyExists),
        })?;
        Self::new(created.file, true, path, created.region, geometry)
    }

    /// Opens the segment a topic slot points to, read-only but for the chunk words, and
    /// checks it is exactly the one expected (topic, slot, incarnation, geometry).
    pub(crate) fn open(
        path: &Path,
        expected: PublisherGeometry,
        topic_id: u64,
        slot: u32,
        incarnation: u32,
    ) -> Result<Option<PublisherSegment>, OpenError> {
        let Some(opened) = super::segment::open(path, SegmentKind::Publisher, false)? else {
            return Ok(None);
        };
        let check = |what, found: u64, want: u64| {
            if found == want {
                Ok(())
            } else {
                Err(corrupt(what, found, want))
            }
        };
        // First: the whole expected segment is there (the header is within it).
        check("publisher segment length", opened.region.len() as u64, expected.total_bytes)
            .map_err(|e| super::segment::header_error(path, e))?;
        let h: PublisherHeader = opened.region.read_plain(0);
        let verdict =
            check("publisher header size", opened.header.header_bytes as u64, size_of::<PublisherHeader>() as u64)
                .and(check("publisher topic id", h.topic_id, topic_id))
                .and(check("publisher slot", h.slot as u64, slot as u64))
                .and(check("publisher incarnation", h.incarnation as u64, incarnation as u64))
                .and(if h.geometry == expected { Ok(()) } else { Err(corrupt("publisher geometry", 0, 1)) })
                .and(check("reserved publisher header bytes", h.reserved.iter().any(|&b| b != 0) as u64, 0));
        verdict.map_err(|e: HeaderError| super::segment::header_error(path, e))?;
        Self::new(opened.file, false, path, opened.region, expected).map(Some)
    }

    /// Positions below this are published (the publisher's count, read by subscribers).
    #[inline]
    pub(crate) fn published(&self) -> u64 {
        // Acquire: pairs with the Release store of `set_published`: a subscriber that sees
        // the count sees the entry and every byte written into the chunk before it.
        self.published_word().load(Ordering::Acquire)
    }

    /// The owning publisher, after writing a message's entry and payload: `count` messages
    /// are published.
    #[inline]
    pub(crate) fn set_published(&self, count: u64) {
        // Release: pairs with the Acquire load of `published`.
        self.published_word().store(count, Ordering::Release);
    }

    /// Where the count lives (to prefetch before a publish).
    #[inline]
    pub(crate) fn published_line(&self) -> *const u8 {
        (self.published_word() as *const AtomicU64).cast()
    }

    #[inline]
    fn published_word(&self) -> &AtomicU64 {
        self.data.get(PUBLISHED_OFFSET)
    }

    /// The log entry at `index` (`< depth`).
    #[inline]
    pub(crate) fn entry(&self, index: usize) -> EntryWords<'_> {
        self.entry_at(index).words()
    }

    /// Where the entry at `index` lives (to prefetch it).
    #[inline]
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    pub(crate) fn entry_at(&self, index: usize) -> &LogEntry {
        assert!(index < self.geometry.depth as usize);
        self.data.get(self.geometry.log_offset as usize + index * size_of::<LogEntry>())
    }

    /// The pin words of `chunk`, which must be `< chunk_count` (validated by the caller).
    #[inline]
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    pub(crate) fn chunk_words(&self, chunk: u32) -> ChunkWords<'_> {
        assert!(chunk < self.geometry.chunk_count);
        let base = (self.geometry.chunk_words_offset + chunk as u64 * self.geometry.control_stride) as usize;
        ChunkWords {
            generation: self.control.get::<AtomicU32>(base),
            holders: self.control.slice::<AtomicU64>(base + 8, self.geometry.holder_words as usize),
        }
    }

    /// The doorbell reliable subscribers ring after taking, which a publisher waiting for
    /// room sleeps on (`notify::doorbell`; the publisher is its only waiter, bit 1).
    #[inline]
    pub(crate) fn room_doorbell(&self) -> Doorbell<'_> {
        Doorbell {
            word: self.control.get(ROOM_WORD_OFFSET),
            sleepers: self.control.get(ROOM_SLEEPERS_OFFSET),
            polling: false,
        }
    }

    /// Subscriber slot `slot`'s read position in this publisher's stream: position + 1 of
    /// the next message it takes, 0 while it reads none (`slot < max_subscribers`,
    /// validated by the caller).
    #[inline]
    pub(crate) fn read_position(&self, slot: u32) -> &AtomicU64 {
        self.control.get((READ_POSITIONS_OFFSET + LINE * slot as u64) as usize)
    }

    #[inline]
    fn payload_offset(&self, chunk: u32, len: u64) -> usize {
        assert!(chunk < self.geometry.chunk_count && len <= self.geometry.max_payload_bytes);
        (self.geometry.payload_offset + chunk as u64 * self.geometry.chunk_stride) as usize
    }

    /// The first `len` payload bytes of `chunk` (bounds asserted; callers validate first).
    pub(crate) fn payload(&self, chunk: u32, len: u64) -> &[u8] {
        self.data.bytes(self.payload_offset(chunk, len), len as usize)
    }

    /// Writable payload of a chunk this publisher claimed.
    ///
    /// # Safety
    /// The caller must have claimed `chunk` (`ChunkWords::try_claim`) and not yet published
    /// it, and must not create a second slice of it.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(crate) unsafe fn payload_mut(&self, chunk: u32, len: u64) -> &mut [u8] {
        // SAFETY: a claimed, unpublished chunk is ours alone (the caller's contract).
        unsafe { self.data.bytes_mut(self.payload_offset(chunk, len), len as usize) }
    }

    /// Clears subscriber slot `holder`'s bit in every chunk: reclaiming what a dead
    /// subscriber pinned (idempotent; see `pool::pin`).
    pub(crate) fn release_holder_everywhere(&self, holder: u32) {
        for chunk in 0..self.geometry.chunk_count {
            self.chunk_words(chunk).release(holder);
        }
    }

    /// The subscriber slots whose bit is set in some chunk, one bit per slot as in the
    /// chunk words (bits past the topic's last slot included: only a scribble sets those).
    pub(crate) fn holders(&self) -> Vec<u64> {
        let mut union = vec![0u64; self.geometry.holder_words as usize];
        for chunk in 0..self.geometry.chunk_count {
            for (u, h) in union.iter_mut().zip(self.chunk_words(chunk).holders) {
                *u |= h.load(Ordering::Relaxed);
            }
        }
        union
    }

    /// Claims a chunk for a new message through the allocator (see `pool::pin`).
    #[inline]
    pub(crate) fn claim(&self, allocator: &mut ChunkAllocator) -> Option<ClaimedChunk> {
        allocator
            .acquire(|chunk| self.chunk_words(chunk).try_claim())
            .map(|(chunk, generation)| ClaimedChunk { chunk, generation })
    }

    /// Claims one given chunk if nobody holds it (to give its memory back while it is free).
    pub(crate) fn claim_chunk(&self, chunk: u32) -> Option<ClaimedChunk> {
        self.chunk_words(chunk).try_claim().map(|generation| ClaimedChunk { chunk, generation })
    }

    /// The writable payload of a claimed chunk; the `&mut ClaimedChunk` is the proof that
    /// nobody else can see or write these bytes.
    #[inline]
    pub(crate) fn claimed_bytes<'a>(&'a self, claim: &'a mut ClaimedChunk, len: u64) -> &'a mut [u8] {
        // SAFETY: `claim` was made by `claim()` for a chunk that no subscriber holds and whose
        // new generation is not yet in any log entry, so no subscriber can pin it; the
        // exclusive borrow of the claim makes this the only slice of it.
        unsafe { self.payload_mut(claim.chunk, len) }
    }

    /// Reserves or gives back the pages of a claimed chunk that `fit` names (a system call;
    /// the plan is `pool::extents`'). Trimming zeroes bytes, hence the claim.
    pub(crate) fn fit(&self, claim: &ClaimedChunk, fit: Fit) -> std::io::Result<()> {
        self.fit_chunk(claim.chunk, fit)
    }

    /// Gives back the pages of a chunk in the log beyond its message's `len` bytes (which
    /// subscribers may be reading: they read nothing past `len`).
    pub(crate) fn trim_beyond(&self, chunk: u32, len: u64, fit: Fit) -> std::io::Result<()> {
        match fit {
            Fit::Trim(p) if p.from >= len => self.fit_chunk(chunk, fit),
            _ => unreachable!("ringbus bug: {fit:?} would touch a logged message of {len} bytes"),
        }
    }

    fn fit_chunk(&self, chunk: u32, fit: Fit) -> std::io::Result<()> {
        let file = self.file.as_ref().expect("only the owning publisher reserves chunk memory");
        let base = self.payload_offset(chunk, 0) as u64;
        match fit {
            Fit::Grow(p) => sys::fs::reserve_range(file.as_fd(), base + p.from, p.to - p.from),
            Fit::Trim(p) => sys::fs::release_range(file.as_fd(), base + p.from, p.to - p.from),
        }
    }

    #[inline]
    pub(crate) fn payload_address(&self, chunk: u32) -> usize {
        self.data.address(self.payload_offset(chunk, 0))
    }
}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    let mut facts = super::layout_facts!(PublisherGeometry: depth, chunk_count, holder_words, preallocate, chunk_stride, max_payload_bytes, log_offset, control_offset, chunk_words_offset, control_stride, payload_offset, total_bytes, pool_bytes);
    facts.extend(super::layout_facts!(PublisherHeader: common, topic_id, slot, incarnation, geometry, reserved));
    let config = super::topic::sample_config();
    let g = PublisherGeometry::new(&config, 16).expect("a valid sample");
    facts.extend([
        ("published", PUBLISHED_OFFSET as u64),
        ("log", LOG_OFFSET),
        ("sample chunk stride", g.chunk_stride),
        ("sample control offset", g.control_offset),
        ("sample control stride", g.control_stride),
        ("sample chunk words", g.chunk_words_offset),
        ("room word", ROOM_WORD_OFFSET as u64),
        ("room sleepers", ROOM_SLEEPERS_OFFSET as u64),
        ("read positions", READ_POSITIONS_OFFSET),
        ("sample payload offset", g.payload_offset),
        ("sample publisher bytes", g.total_bytes),
    ]);
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_is_page_aligned_and_bounded() {
        let c = TopicConfig {
            max_publishers: 1,
            max_subscribers: 130,
            depth: 16,
            history: 0,
            max_held: 2,
            chunk_count: 277,
            max_payload_bytes: 100,
            pool_bytes: 1 << 20,
            preallocate: 1,
            reserved0: 0,
        };
        let g = PublisherGeometry::new(&c, 8).unwrap();
        assert_eq!(g.holder_words, 3);
        assert_eq!(g.control_stride, 64);
        assert_eq!(g.chunk_stride, 128);
        assert_eq!(g.control_offset % PAGE, 0);
        assert_eq!(g.payload_offset % PAGE, 0);
        assert_eq!(g.total_bytes, g.payload_offset + 277 * 128);
        let on_demand = PublisherGeometry::new(&TopicConfig { preallocate: 0, ..c }, 8).unwrap();
        assert_eq!(on_demand.chunk_stride, PAGE, "on demand, each chunk is whole pages");
        assert_eq!(on_demand.reserved_at_creation(), on_demand.payload_offset);
        assert_eq!(g.reserved_at_creation(), g.total_bytes);
        let huge = TopicConfig { max_payload_bytes: 1 << 30, chunk_count: 1 << 20, ..c };
        assert_eq!(PublisherGeometry::new(&huge, 1), None, "2^50 bytes is refused, not wrapped");
    }
}

#[cfg(all(test, not(miri)))] // real files: not under Miri
mod files {
    use super::*;
    use std::os::unix::fs::OpenOptionsExt;

    /// Found by fuzzing: a publisher file of 64 bytes, a valid segment header saying so,
    /// made a subscriber read the 192-byte publisher header past its end (a panic). A
    /// publisher segment shorter (or longer) than its topic's geometry is refused first.
    #[test]
    fn a_segment_of_the_wrong_length_is_refused_before_its_header_is_read() {
        let dir = tempfile::tempdir_in("/dev/shm").unwrap();
        let config = super::super::topic::sample_config();
        let geometry = PublisherGeometry::new(&config, 8).unwrap();
        for len in [64, 4096, geometry.total_bytes - 64] {
            let r = Region::heap(len as usize);
            SegmentHeader::new(SegmentKind::Publisher, size_of::<PublisherHeader>() as u32, len).write(&r);
            SegmentHeader::publish(&r);
            let path = dir.path().join(format!("pub.{len}"));
            let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path).unwrap();
            std::io::Write::write_all(&mut file, r.bytes(0, len as usize)).unwrap();
            let e = PublisherSegment::open(&path, geometry, 0, 0, 1).unwrap_err();
            assert!(
                matches!(&e, OpenError::Corrupted { corruption, .. } if corruption.what == "publisher segment length"),
                "{e}"
            );
        }
    }
}
