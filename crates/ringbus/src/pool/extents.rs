//! How much memory each chunk of an on-demand pool holds, which chunk a loan should get,
//! and when memory is given back.
//!
//! A publisher's payload area is a sparse file: every chunk has room for the topic's
//! largest message, but holds memory only for its *extent* (a prefix of the chunk, in
//! whole pages). The policy:
//! - **Lend the chunk that fits.** The chunk ready for the next loan is used when its
//!   extent holds the loan without being more than twice as large; otherwise the free chunk
//!   that holds it with the least to spare is taken, or, if none does, the largest (the
//!   least to reserve). A stream of mixed sizes thus finds chunks already sized for each.
//! - **Grow before writing.** A chunk whose extent is too small reserves the missing pages
//!   first (`fallocate`), so a full tmpfs fails the loan, never a write with `SIGBUS`.
//! - **Give back only what is idle, and only in bulk.** When the pool holds more than
//!   twice the bytes in flight plus [`SLACK`] (checked with arithmetic on every loan and
//!   publish, no system call), idle memory is given back (holes punched) until it holds at
//!   most [`TRIM_TO`] of that: first the chunks nobody uses, largest first, then the pages
//!   of logged chunks beyond their message. Punching a page that is used again costs a page
//!   fault in every process that maps it, so it is not done loan by loan.
//!
//! In flight = the payload bytes of the messages in the log (any subscriber can still
//! take them) plus the loan being made. Held samples that left the log keep their chunks
//! (a held chunk cannot be claimed, so it is never trimmed) but are not counted.
//!
//! Why not size classes (a pool of chunks per power of two): each class must keep enough
//! chunks for its own peak, the peaks of different classes come at different times and add
//! up, and a message is rounded up to twice its size at worst. An extent is rounded up to
//! a page, and a chunk serves any size. `ringbus bench memory` prints a model of size
//! classes beside what the extents hold on the same streams (BENCHMARKS.md, "Memory").
//!
//! This module only decides; the publisher segment (`shm::publisher`) makes the calls.
//! All bookkeeping is process-local: only the owning publisher reserves or trims.

/// Extents are whole pages.
pub(crate) const PAGE: u64 = 4096;

/// Memory the pool may hold beyond twice the bytes in flight before idle memory is given
/// back.
pub(crate) const SLACK: u64 = 2 << 20;

/// Giving back stops once the pool holds at most this share (in eighths) of the limit
/// `2 × in flight + SLACK`, so that it does not start again at the next publish.
pub(crate) const TRIM_TO_EIGHTHS: u64 = 6;

/// A byte range of a chunk, from its start, in whole pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pages {
    pub from: u64,
    pub to: u64,
}

/// What to do to a chunk's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Reserve these pages.
    Grow(Pages),
    /// Give these pages back (their bytes read as zeros afterwards).
    Trim(Pages),
}

/// Why a loan cannot have the memory it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverBudget {
    /// Bytes the pool would hold, and the budget.
    pub reserved: u64,
    pub budget: u64,
}

/// The extent of every chunk of one publisher, their sum, and the bytes in flight.
#[derive(Debug)]
pub(crate) struct ChunkExtents {
    extent: Vec<u64>,
    /// Payload bytes of the message at each log index (0 before the first lap).
    logged: Vec<u64>,
    logged_bytes: u64,
    reserved: u64,
    budget: u64,
    /// Bytes of a chunk.
    chunk_bytes: u64,
}

fn pages(len: u64) -> u64 {
    len.div_ceil(PAGE) * PAGE
}

impl ChunkExtents {
    /// `chunk_count` chunks of `chunk_bytes` (whole pages), none reserved, and a log of
    /// `depth` entries.
    pub(crate) fn new(chunk_count: u32, chunk_bytes: u64, depth: u32, budget: u64) -> ChunkExtents {
        debug_assert_eq!(chunk_bytes % PAGE, 0);
        ChunkExtents {
            extent: vec![0; chunk_count as usize],
            logged: vec![0; depth as usize],
            logged_bytes: 0,
            reserved: 0,
            budget,
            chunk_bytes,
        }
    }

    /// Pages a loan of `len` bytes needs (an empty one still takes a page).
    fn need(&self, len: u64) -> u64 {
        pages(len.max(1)).min(self.chunk_bytes)
    }

    /// Whether `chunk` holds a loan of `len` bytes without being more than twice as large.
    #[inline]
    pub(crate) fn snug(&self, chunk: u32, len: u64) -> bool {
        let (have, need) = (self.extent[chunk as usize], self.need(len));
        have >= need && have <= 2 * need
    }

    /// Among `candidates`, those better than `current` for `len` bytes, best first: the
    /// ones that hold it with the least to spare, then the ones that lack the least.
    pub(crate) fn better_fits(&self, current: u32, candidates: impl Iterator<Item = u32>, len: u64) -> Vec<u32> {
        let need = self.need(len);
        // Lower is better: a chunk that holds the loan ranks by its spare pages, one that
        // does not ranks after all of those, by what it lacks.
        let rank = |chunk: u32| {
            let have = self.extent[chunk as usize];
            if have >= need {
                (0, have - need)
            } else {
                (1, need - have)
            }
        };
        let bar = rank(current);
        let mut better: Vec<(u32, (u8, u64))> = candidates.map(|c| (c, rank(c))).filter(|&(_, r)| r < bar).collect();
        better.sort_unstable_by_key(|&(_, r)| r);
        better.into_iter().map(|(c, _)| c).collect()
    }

    /// The pages `chunk` must reserve to hold `len` bytes (`None`: it holds them), refused
    /// past the budget.
    pub(crate) fn grow(&self, chunk: u32, len: u64) -> Result<Option<Fit>, OverBudget> {
        let (have, need) = (self.extent[chunk as usize], self.need(len));
        if have >= need {
            return Ok(None);
        }
        let reserved = self.reserved + (need - have);
        if reserved > self.budget {
            return Err(OverBudget { reserved, budget: self.budget });
        }
        Ok(Some(Fit::Grow(Pages { from: have, to: need })))
    }

    /// The trim that empties `chunk`, if it holds anything.
    pub(crate) fn empty(&self, chunk: u32) -> Option<Fit> {
        let have = self.extent[chunk as usize];
        (have > 0).then_some(Fit::Trim(Pages { from: 0, to: have }))
    }

    /// The trim of the pages of `chunk` beyond a message of `len` bytes, if any.
    pub(crate) fn beyond(&self, chunk: u32, len: u64) -> Option<Fit> {
        let (have, keep) = (self.extent[chunk as usize], self.need(len));
        (have > keep).then_some(Fit::Trim(Pages { from: keep, to: have }))
    }

    /// A change was made: `chunk` now holds the grown pages, or no longer the trimmed.
    pub(crate) fn done(&mut self, chunk: u32, fit: Fit) {
        let extent = &mut self.extent[chunk as usize];
        match fit {
            Fit::Grow(p) => {
                self.reserved += p.to - *extent;
                *extent = p.to;
            }
            Fit::Trim(p) => {
                self.reserved -= *extent - p.from;
                *extent = p.from;
            }
        }
    }

    /// A message of `len` bytes entered log index `index` (replacing the one there).
    #[inline]
    pub(crate) fn log(&mut self, index: usize, len: u64) {
        let replaced = std::mem::replace(&mut self.logged[index], len);
        self.logged_bytes = self.logged_bytes - replaced + len;
    }

    /// The payload bytes of the message at log index `index`.
    pub(crate) fn logged_at(&self, index: usize) -> u64 {
        self.logged[index]
    }

    /// Whether the pool holds more than twice the bytes in flight (with a loan of `lent`
    /// bytes being made) plus [`SLACK`], after reserving `extra` more.
    #[inline]
    pub(crate) fn over_limit(&self, extra: u64, lent: u64) -> bool {
        self.reserved + extra > self.limit(lent)
    }

    /// Whether giving back can stop (the pool is at most [`TRIM_TO_EIGHTHS`] of the limit).
    pub(crate) fn trimmed_enough(&self, lent: u64) -> bool {
        self.reserved <= self.limit(lent) / 8 * TRIM_TO_EIGHTHS
    }

    fn limit(&self, lent: u64) -> u64 {
        2 * (self.logged_bytes + lent) + SLACK
    }

    /// Where `chunk`'s extent and log index `index`'s length live (to prefetch them).
    #[inline]
    pub(crate) fn lines(&self, chunk: u32, index: usize) -> [*const u64; 2] {
        [&self.extent[chunk as usize], &self.logged[index]]
    }

    /// The extent of `chunk` (to order the chunks to give back).
    pub(crate) fn extent(&self, chunk: u32) -> u64 {
        self.extent[chunk as usize]
    }

    /// Bytes reserved across the pool.
    pub(crate) fn reserved(&self) -> u64 {
        self.reserved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grow(e: &mut ChunkExtents, chunk: u32, len: u64) {
        let fit = e.grow(chunk, len).unwrap().unwrap();
        e.done(chunk, fit);
    }

    #[test]
    fn grows_whole_pages_within_the_budget() {
        let mut e = ChunkExtents::new(3, 16 * PAGE, 4, 20 * PAGE);
        assert_eq!(e.grow(0, 5), Ok(Some(Fit::Grow(Pages { from: 0, to: PAGE }))));
        grow(&mut e, 0, 5);
        assert_eq!(e.grow(0, 0), Ok(None), "an empty message still uses its page");
        grow(&mut e, 0, PAGE + 1);
        grow(&mut e, 1, 16 * PAGE);
        assert_eq!(e.reserved(), 18 * PAGE);
        assert_eq!(e.grow(2, 2 * PAGE), Ok(Some(Fit::Grow(Pages { from: 0, to: 2 * PAGE }))), "exactly the budget");
        assert_eq!(e.grow(2, 2 * PAGE + 1), Err(OverBudget { reserved: 21 * PAGE, budget: 20 * PAGE }));
        assert_eq!(e.beyond(1, 3 * PAGE), Some(Fit::Trim(Pages { from: 3 * PAGE, to: 16 * PAGE })));
        e.done(1, Fit::Trim(Pages { from: 3 * PAGE, to: 16 * PAGE }));
        assert_eq!(e.reserved(), 5 * PAGE);
        assert_eq!(e.empty(1), Some(Fit::Trim(Pages { from: 0, to: 3 * PAGE })));
        assert_eq!(e.empty(2), None);
    }

    #[test]
    fn a_loan_gets_the_free_chunk_that_holds_it_with_the_least_to_spare() {
        let mut e = ChunkExtents::new(4, 64 * PAGE, 4, 1 << 30);
        for (chunk, len) in [(0, 64 * PAGE), (1, 4 * PAGE), (2, PAGE)] {
            grow(&mut e, chunk, len);
        }
        assert!(e.snug(1, 3 * PAGE) && !e.snug(0, 3 * PAGE) && !e.snug(2, 3 * PAGE));
        let fits = |current, candidates: &[u32], len| e.better_fits(current, candidates.iter().copied(), len);
        assert_eq!(fits(0, &[2, 1, 3], 3 * PAGE), [1], "chunk 1 holds 3 pages with one to spare");
        assert_eq!(fits(1, &[2, 0, 3], 3 * PAGE), [] as [u32; 0], "the current chunk is the best");
        assert_eq!(fits(3, &[2, 1], 40 * PAGE), [1, 2], "none holds it: the largest lacks least");
        assert_eq!(fits(0, &[], PAGE), [] as [u32; 0]);
    }

    #[test]
    fn idle_memory_is_given_back_past_twice_what_is_in_flight() {
        let slack = SLACK / PAGE;
        let mut e = ChunkExtents::new(8, 4 * SLACK, 2, 1 << 40);
        e.log(0, 100 * PAGE);
        e.log(1, 100 * PAGE);
        grow(&mut e, 0, (400 + slack) * PAGE);
        assert!(!e.over_limit(0, 0), "exactly 2 × 200 pages + slack");
        assert!(e.over_limit(PAGE, 0));
        e.log(0, 0);
        e.log(1, 10 * PAGE);
        assert_eq!(e.logged_at(1), 10 * PAGE);
        assert!(e.over_limit(0, 0), "the large messages left the log");
        assert!(!e.over_limit(0, 190 * PAGE), "a large loan in progress counts as in flight");
        assert!(!e.trimmed_enough(0));
        e.done(0, e.beyond(0, 10 * PAGE).unwrap());
        assert!(e.trimmed_enough(0));
    }
}
