//! A publisher's payload memory on demand: which chunk a loan gets, reserving its pages,
//! and giving idle memory back — the plan of `pool::extents`, carried out on the
//! publisher's segment. Absent when the topic preallocates.

use crate::error::LoanError;
use crate::pool::allocator::ChunkAllocator;
use crate::pool::extents::{ChunkExtents, Fit};
use crate::shm::publisher::{ClaimedChunk, PublisherGeometry, PublisherSegment};
use std::path::PathBuf;

/// The extents of one publisher's chunks and the calls that change them.
#[derive(Debug)]
pub(crate) struct PayloadMemory {
    extents: ChunkExtents,
    /// The root directory (to say how much room is left when the filesystem is full).
    root: PathBuf,
}

impl PayloadMemory {
    /// `None` when the pool is preallocated.
    pub(crate) fn new(geometry: &PublisherGeometry, root: PathBuf) -> Option<PayloadMemory> {
        let g = geometry;
        g.on_demand().then(|| PayloadMemory {
            extents: ChunkExtents::new(g.chunk_count, g.chunk_stride, g.depth, g.pool_bytes),
            root,
        })
    }

    /// Makes `claim` ready for a loan of `len` bytes: it may be swapped for a free chunk
    /// that fits better, and its missing pages are reserved. On error the chunk is given
    /// back. No system call when the chunk fits already.
    #[inline]
    pub(crate) fn prepare(
        &mut self,
        segment: &PublisherSegment,
        allocator: &mut ChunkAllocator,
        claim: ClaimedChunk,
        len: u64,
    ) -> Result<ClaimedChunk, LoanError> {
        if self.extents.snug(claim.chunk, len) {
            return Ok(claim);
        }
        self.refit(segment, allocator, claim, len)
    }

    #[cold]
    fn refit(
        &mut self,
        segment: &PublisherSegment,
        allocator: &mut ChunkAllocator,
        mut claim: ClaimedChunk,
        len: u64,
    ) -> Result<ClaimedChunk, LoanError> {
        // A few tries: the best candidates may be held by a subscriber.
        for chunk in self.extents.better_fits(claim.chunk, allocator.idle_chunks(), len).into_iter().take(4) {
            allocator.take_idle(chunk);
            match segment.claim_chunk(chunk) {
                Some(better) => {
                    allocator.give_back(std::mem::replace(&mut claim, better).chunk);
                    break;
                }
                None => allocator.defer(chunk),
            }
        }
        match self.reserve(segment, allocator, &claim, len) {
            Ok(()) => Ok(claim),
            Err(e) => {
                allocator.give_back(claim.chunk);
                Err(e)
            }
        }
    }

    /// Reserves the pages `claim` lacks for `len` bytes, giving idle memory back first when
    /// the pool would hold too much, and again when the filesystem is full.
    fn reserve(
        &mut self,
        segment: &PublisherSegment,
        allocator: &ChunkAllocator,
        claim: &ClaimedChunk,
        len: u64,
    ) -> Result<(), LoanError> {
        let crowded = match self.extents.grow(claim.chunk, len) {
            Ok(None) => return Ok(()),
            Ok(Some(Fit::Grow(p))) => self.extents.over_limit(p.to - p.from, len),
            Ok(Some(Fit::Trim(_))) => unreachable!("growing never trims"),
            Err(_) => true,
        };
        if crowded {
            self.give_back_idle(segment, allocator, len, false);
        }
        let fit = self.extents.grow(claim.chunk, len).map_err(|over| LoanError::PoolBudget {
            requested: len,
            pool_bytes: over.budget,
            reserved_bytes: over.reserved,
        })?;
        let Some(fit) = fit else { return Ok(()) };
        let mut result = segment.fit(claim, fit);
        if is_full(&result) {
            self.give_back_idle(segment, allocator, len, true);
            result = segment.fit(claim, fit);
        }
        match result {
            Ok(()) => {
                self.extents.done(claim.chunk, fit);
                Ok(())
            }
            Err(_) if is_full(&result) => Err(LoanError::NoSpace {
                requested: len,
                free_bytes: crate::sys::fs::space(&self.root).map_or(0, |s| s.free_bytes),
            }),
            Err(e) => Err(LoanError::Reserve { requested: len, reason: e.to_string() }),
        }
    }

    /// A message of `len` bytes was published at log index `index`; gives idle memory back
    /// if the pool now holds more than the bytes in flight allow.
    #[inline]
    pub(crate) fn logged(&mut self, segment: &PublisherSegment, allocator: &ChunkAllocator, index: usize, len: u64) {
        self.extents.log(index, len);
        if self.extents.over_limit(0, 0) {
            self.give_back_idle(segment, allocator, 0, false);
        }
    }

    /// Gives back the memory of idle chunks (largest first; each claimed first, so that no
    /// subscriber is reading it: one still held is skipped), then of logged chunks beyond their message, until the
    /// pool is back under its limit — or all of it, with `everything`.
    #[cold]
    fn give_back_idle(&mut self, segment: &PublisherSegment, allocator: &ChunkAllocator, lent: u64, everything: bool) {
        let done = |e: &ChunkExtents| !everything && e.trimmed_enough(lent);
        let mut idle: Vec<u32> = allocator.idle_chunks().filter(|&c| self.extents.extent(c) > 0).collect();
        idle.sort_unstable_by_key(|&c| std::cmp::Reverse(self.extents.extent(c)));
        for chunk in idle {
            if done(&self.extents) {
                return;
            }
            let (Some(fit), Some(claim)) = (self.extents.empty(chunk), segment.claim_chunk(chunk)) else {
                continue;
            };
            if segment.fit(&claim, fit).is_ok() {
                self.extents.done(chunk, fit);
            }
        }
        for index in 0..segment.geometry.depth as usize {
            if done(&self.extents) {
                return;
            }
            let Some(chunk) = allocator.in_log_at(index) else { continue };
            let len = self.extents.logged_at(index);
            if let Some(fit) = self.extents.beyond(chunk, len) {
                if segment.trim_beyond(chunk, len, fit).is_ok() {
                    self.extents.done(chunk, fit);
                }
            }
        }
    }

    /// Where the bookkeeping a loan of `chunk` and its publish at log `index` read lives
    /// (to prefetch it with the shared-memory lines).
    #[inline]
    pub(crate) fn lines(&self, chunk: u32, index: usize) -> [*const u64; 2] {
        self.extents.lines(chunk, index)
    }

    /// Bytes of payload memory held now.
    pub(crate) fn reserved(&self) -> u64 {
        self.extents.reserved()
    }
}

fn is_full(result: &std::io::Result<()>) -> bool {
    matches!(result, Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT)))
}
