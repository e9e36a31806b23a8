//! How much memory each chunk of an on-demand pool holds, and when to grow or trim it.
//!
//! A publisher's payload area is a sparse file: every chunk has room for the topic's
//! largest message, but holds memory only for the pages reserved in it. Before a chunk is
//! lent for `len` bytes, its reserved extent (a prefix of the chunk, in whole pages) must
//! cover `len`: the publisher reserves the missing pages (`fallocate`, so a full tmpfs is
//! an error on the loan, never a `SIGBUS` on a write). An extent much larger than the loan
//! is trimmed (hole punched) so that memory follows the messages actually in flight; the
//! slack below [`TRIM_FACTOR`] keeps a stream of similar sizes free of system calls.
//!
//! Why not size classes (a pool of chunks per power of two): each class must keep enough
//! chunks for its own peak, the peaks of different classes come at different times and
//! add up, and a message is rounded up to twice its size at worst. An extent is rounded
//! up to one page, and a chunk serves any size.
//!
//! This module only decides; the publisher segment (`shm::publisher`) makes the calls.
//! All bookkeeping is process-local: only the owning publisher reserves or trims.

/// Extents are whole pages.
pub(crate) const PAGE: u64 = 4096;

/// An extent is trimmed when it exceeds the loan by more than this factor.
pub(crate) const TRIM_FACTOR: u64 = 2;

/// What to do to a chunk's extent before lending it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// The extent fits: no system call.
    Keep,
    /// Reserve `[from, to)` of the chunk (bytes from its start).
    Grow { from: u64, to: u64 },
    /// Give back `[from, to)` of the chunk.
    Trim { from: u64, to: u64 },
}

/// Why a loan cannot have the memory it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverBudget {
    /// Bytes reserved across the pool, and the budget.
    pub reserved: u64,
    pub budget: u64,
}

/// The reserved extent of every chunk of one publisher, and their sum against a budget.
#[derive(Debug)]
pub(crate) struct ChunkExtents {
    extent: Vec<u64>,
    reserved: u64,
    budget: u64,
    /// Bytes of the largest chunk.
    chunk_bytes: u64,
}

fn pages(len: u64) -> u64 {
    len.div_ceil(PAGE) * PAGE
}

impl ChunkExtents {
    /// `chunk_count` chunks of `chunk_bytes` (a multiple of a page), none reserved.
    pub(crate) fn new(chunk_count: u32, chunk_bytes: u64, budget: u64) -> ChunkExtents {
        debug_assert_eq!(chunk_bytes % PAGE, 0);
        ChunkExtents { extent: vec![0; chunk_count as usize], reserved: 0, budget, chunk_bytes }
    }

    /// What lending `chunk` for `len` bytes needs. `Grow` is refused when it would exceed
    /// the budget.
    #[inline]
    pub(crate) fn plan(&self, chunk: u32, len: u64) -> Result<Fit, OverBudget> {
        let have = self.extent[chunk as usize];
        let need = pages(len.max(1)).min(self.chunk_bytes);
        if have < need {
            let reserved = self.reserved + (need - have);
            if reserved > self.budget {
                return Err(OverBudget { reserved, budget: self.budget });
            }
            Ok(Fit::Grow { from: have, to: need })
        } else if have > need.saturating_mul(TRIM_FACTOR) {
            Ok(Fit::Trim { from: need, to: have })
        } else {
            Ok(Fit::Keep)
        }
    }

    /// A planned change was made: `chunk` now holds `[0, to)` or `[0, from)`.
    pub(crate) fn done(&mut self, chunk: u32, fit: Fit) {
        let extent = &mut self.extent[chunk as usize];
        match fit {
            Fit::Keep => {}
            Fit::Grow { to, .. } => {
                self.reserved += to - *extent;
                *extent = to;
            }
            Fit::Trim { from, .. } => {
                self.reserved -= *extent - from;
                *extent = from;
            }
        }
    }

    /// Releasing all of `chunk` (to make room for another loan): the trim to do, if any.
    pub(crate) fn empty(&self, chunk: u32) -> Option<Fit> {
        let have = self.extent[chunk as usize];
        (have > 0).then_some(Fit::Trim { from: 0, to: have })
    }

    /// Bytes reserved across the pool.
    pub(crate) fn reserved(&self) -> u64 {
        self.reserved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_to_whole_pages_trims_only_far_above_and_keeps_the_sum() {
        let mut e = ChunkExtents::new(3, 16 * PAGE, 20 * PAGE);
        assert_eq!(e.plan(0, 5), Ok(Fit::Grow { from: 0, to: PAGE }));
        e.done(0, Fit::Grow { from: 0, to: PAGE });
        assert_eq!(e.plan(0, 0), Ok(Fit::Keep), "an empty message still uses its page");
        assert_eq!(e.plan(0, PAGE + 1), Ok(Fit::Grow { from: PAGE, to: 2 * PAGE }));
        e.done(0, Fit::Grow { from: PAGE, to: 2 * PAGE });
        e.done(1, e.plan(1, 16 * PAGE).unwrap());
        assert_eq!(e.reserved(), 18 * PAGE);
        assert_eq!(e.plan(1, 8 * PAGE), Ok(Fit::Keep), "within the trim factor");
        assert_eq!(e.plan(1, 7 * PAGE), Ok(Fit::Trim { from: 7 * PAGE, to: 16 * PAGE }));
        e.done(1, Fit::Trim { from: 7 * PAGE, to: 16 * PAGE });
        assert_eq!(e.reserved(), 9 * PAGE);
        assert_eq!(e.plan(2, 11 * PAGE), Ok(Fit::Grow { from: 0, to: 11 * PAGE }), "exactly the budget");
        assert_eq!(e.plan(2, 11 * PAGE + 1), Err(OverBudget { reserved: 21 * PAGE, budget: 20 * PAGE }));
        assert_eq!(e.empty(1), Some(Fit::Trim { from: 0, to: 7 * PAGE }));
        assert_eq!(e.empty(2), None);
    }
}
