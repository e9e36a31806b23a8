//! The command ring algorithm: bounded, SPSC or MPSC, with cached peer positions, over any
//! [`Slots`] — shared memory in real use, plain atomics under loom.
//!
//! Positions are monotonic `u64`s; the slot of position `p` is `p mod capacity`. The shared
//! *tail* is the next position producers claim, the shared *head* the next one the
//! consumer reads. Each side keeps a process-local copy of the other's position and loads
//! the shared one — a cache line the other core owns: an expensive remote read — only
//! when its copy says there is not enough room (producer) or data (consumer) for the
//! request. A cached copy is never ahead of the truth (positions only grow), so a
//! stale one can only under-estimate the room, never overwrite an unread command.
//!
//! SPSC: the producer owns the tail (a Release store publishes the commands written before
//! it). MPSC: producers claim positions with a compare-and-swap on the tail, then write
//! each command and mark its slot with `position + 1` (Release); the consumer takes a
//! slot when its mark says the command of the position it wants is there.
//!
//! MPSC and crashes: a producer killed between its claim and its marks leaves claimed
//! positions that will never be marked, and a consumer waiting for them would wait
//! forever. So each producer *announces* a claim in its own claim word before making it
//! (the tail it claims from; [`NO_CLAIM`] when it is not claiming or writing), with a
//! `SeqCst` fence between the two. A consumer stalled at a claimed, unmarked head loads
//! the tail, fences, and asks for the lowest claim announced by a producer that is alive
//! (the caller checks liveness): every position below both the tail and that floor was
//! claimed by a producer that is dead, and it skips the unmarked ones
//! ([`ConsumerSide::skip_abandoned`]). A live producer's claim is never skipped: if its
//! compare-and-swap is in the tail the consumer loaded, the fences order its announcement
//! before the consumer's look; if it has withdrawn it (Release, after its marks), the
//! consumer sees the marks.
//!
//! Every position read from shared memory is checked against what this side knows: a
//! head outside `[cached head, tail]` or a tail outside `[cached tail, head + capacity]`
//! comes from a buggy or hostile peer and is reported, never used. So is any position
//! above [`MAX_POSITION`], which no queue reaches: every position a side holds stays far
//! enough below `u64::MAX` that adding a capacity or a count to it cannot overflow.

use crate::sync::{fence, AtomicU64, Ordering};
use std::ops::Range;

/// A producer's claim word when it is not claiming or writing.
pub(crate) const NO_CLAIM: u64 = u64::MAX;

/// The largest position accepted from shared memory: 2^63 − 1, which a queue pushing
/// 10^9 commands a second reaches in 292 years.
pub(crate) const MAX_POSITION: u64 = u64::MAX >> 1;

/// The commands' storage as the algorithm sees it: `capacity` (a power of two) slots, each
/// with a mark word. Moving commands in and out is the caller's: the algorithm hands out
/// slot indexes and runs ([`ProducerSide::push_with`], [`ConsumerSide::pop_with`]), so the
/// same algorithm serves commands of a Rust type ([`Slots`]) and of a size known only at
/// run time (bytes, for other languages).
pub(crate) trait Ring {
    fn capacity(&self) -> u64;
    /// The mark of slot `index` (MPSC: `position + 1` of the command it holds).
    fn mark(&self, index: usize) -> &AtomicU64;
}

/// Slots holding commands of type `T`.
pub(crate) trait Slots<T: Copy>: Ring {
    fn write(&self, index: usize, value: &T);
    fn read(&self, index: usize) -> T;

    /// Writes `values` into consecutive slots from `index` (no wrap: the caller splits).
    fn write_run(&self, index: usize, values: &[T]) {
        for (i, v) in values.iter().enumerate() {
            self.write(index + i, v);
        }
    }

    /// Reads consecutive slots from `index` into `out` (no wrap).
    fn read_run(&self, index: usize, out: &mut [T]) {
        for (i, v) in out.iter_mut().enumerate() {
            *v = self.read(index + i);
        }
    }
}

/// `count` positions from `position` as at most two runs of consecutive slots (the ring
/// wraps at most once): the first run's slot and length; the second run starts at slot 0.
#[inline]
fn runs(position: u64, count: usize, capacity: u64) -> (usize, usize) {
    let first = index(position, capacity);
    (first, count.min(capacity as usize - first))
}

/// The shared positions.
#[derive(Clone, Copy)]
pub(crate) struct Positions<'a> {
    pub tail: &'a AtomicU64,
    pub head: &'a AtomicU64,
    /// An MPSC producer's own claim word (see the module doc); `None` for the others.
    pub claim: Option<&'a AtomicU64>,
}

impl Positions<'_> {
    /// The consumer's position, as a producer opening the queue checks it.
    pub(crate) fn head_now(&self) -> Result<u64, BadPosition> {
        // Acquire: pairs with the consumer's Release store after a pop.
        check("consumer position", self.head.load(Ordering::Acquire), 0, MAX_POSITION)
    }

    /// `(tail, head)` now, for diagnostics (two loads, not one instant).
    #[cfg(not(loom))]
    pub(crate) fn snapshot(&self) -> (u64, u64) {
        (self.tail.load(Ordering::Relaxed), self.head.load(Ordering::Relaxed))
    }
}

/// One producer or several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Spsc,
    Mpsc,
}

/// A position read from shared memory that cannot be true.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadPosition {
    pub what: &'static str,
    pub found: u64,
    /// The range it had to be in.
    pub low: u64,
    pub high: u64,
}

fn check(what: &'static str, found: u64, low: u64, high: u64) -> Result<u64, BadPosition> {
    if (low..=high).contains(&found) {
        Ok(found)
    } else {
        Err(BadPosition { what, found, low, high })
    }
}

#[inline]
fn index(position: u64, capacity: u64) -> usize {
    (position & (capacity - 1)) as usize
}

/// A producer's process-local side.
#[derive(Debug, Clone)]
pub(crate) struct ProducerSide {
    pub mode: Mode,
    /// SPSC: the next position to write (we own the shared tail).
    pub tail: u64,
    pub cached_head: u64,
    /// Off: load the shared head on every push (the uncached baseline of benchmarks).
    pub cache: bool,
    /// Loads of the shared head so far.
    pub head_reads: u64,
}

impl ProducerSide {
    pub(crate) fn new(mode: Mode, positions: Positions<'_>) -> Result<ProducerSide, BadPosition> {
        // Acquire: pairs with the consumer's Release head stores.
        let head = positions.head_now()?;
        let tail = check("producer position", positions.tail.load(Ordering::Acquire), head, MAX_POSITION)?;
        Ok(ProducerSide { mode, tail, cached_head: head, cache: true, head_reads: 0 })
    }

    /// Room for `want` commands after `tail`, loading the shared head only if the cached
    /// one leaves too little (or the cache is off). `None` (MPSC only): the head is past
    /// `tail` — other producers claimed and the consumer read beyond it since we loaded
    /// it — so the caller loads the tail again. Out of line: the SPSC fast path
    /// (`push_spsc`) comes here only when its cached head shows too little room.
    #[inline(never)]
    fn room(
        &mut self,
        positions: Positions<'_>,
        capacity: u64,
        tail: u64,
        want: u64,
    ) -> Result<Option<u64>, BadPosition> {
        check("producer position", tail, self.cached_head, MAX_POSITION)?;
        // Zero if the cached head is too stale for this tail (MPSC: other producers
        // claimed with a fresher head).
        let cached_free = (self.cached_head + capacity).saturating_sub(tail);
        if self.cache && cached_free >= want {
            return Ok(Some(cached_free));
        }
        // Acquire: pairs with the consumer's Release store, so the slots it freed are
        // read before we overwrite them.
        let head = positions.head.load(Ordering::Acquire);
        self.head_reads += 1;
        if self.mode == Mode::Mpsc && head > tail {
            // The tail only grows: the consumer cannot be past the tail as it is now.
            self.cached_head =
                check("consumer position", head, self.cached_head, positions.tail.load(Ordering::Relaxed))?;
            return Ok(None);
        }
        self.cached_head = check("consumer position", head, self.cached_head, tail)?;
        check("producer position", tail, head, head + capacity)?;
        Ok(Some(head + capacity - tail))
    }

    /// Pushes as many of `items` as fit; returns how many.
    #[inline]
    pub(crate) fn push<T: Copy>(
        &mut self,
        positions: Positions<'_>,
        slots: &impl Slots<T>,
        items: &[T],
    ) -> Result<usize, BadPosition> {
        self.push_with(positions, slots, items.len(), |slot, run| slots.write_run(slot, &items[run]))
    }

    /// Pushes as many of `want` commands as fit; returns how many. `write(slot, run)`
    /// copies the commands `run` (indexes into the caller's `want`) into consecutive slots
    /// from `slot`, before they are published.
    #[inline]
    pub(crate) fn push_with(
        &mut self,
        positions: Positions<'_>,
        ring: &impl Ring,
        want: usize,
        write: impl FnMut(usize, Range<usize>),
    ) -> Result<usize, BadPosition> {
        match self.mode {
            Mode::Spsc => self.push_spsc(positions, ring, want, write),
            Mode::Mpsc => self.push_mpsc(positions, ring, want, write),
        }
    }

    /// SPSC: the hot path of `ringbus bench queue`. The cached head and our tail are both
    /// process-local and checked when loaded (`cached_head ≤ tail ≤ cached_head +
    /// capacity`), so the common case — the cache shows room — reads no shared word.
    #[inline]
    fn push_spsc(
        &mut self,
        positions: Positions<'_>,
        ring: &impl Ring,
        want: usize,
        mut write: impl FnMut(usize, Range<usize>),
    ) -> Result<usize, BadPosition> {
        let capacity = ring.capacity();
        let want = want as u64;
        let cached_free = (self.cached_head + capacity).saturating_sub(self.tail);
        let free = if self.cache && cached_free >= want {
            cached_free
        } else {
            self.room(positions, capacity, self.tail, want)?.expect("SPSC: the tail is ours")
        };
        let n = free.min(want) as usize;
        if n == 0 {
            return Ok(0);
        }
        let (first, split) = runs(self.tail, n, capacity);
        write(first, 0..split);
        if split < n {
            write(0, split..n);
        }
        self.tail += n as u64;
        // Release: the consumer that sees the new tail (Acquire) sees the commands.
        positions.tail.store(self.tail, Ordering::Release);
        Ok(n)
    }

    fn push_mpsc(
        &mut self,
        positions: Positions<'_>,
        ring: &impl Ring,
        want: usize,
        mut write: impl FnMut(usize, Range<usize>),
    ) -> Result<usize, BadPosition> {
        let capacity = ring.capacity();
        let (tail, n) = self.claim(positions, capacity, want as u64)?;
        for i in 0..n as usize {
            let position = tail + i as u64;
            write(index(position, capacity), i..i + 1);
            // Release: the consumer that sees the mark (Acquire) sees the command.
            ring.mark(index(position, capacity)).store(position + 1, Ordering::Release);
        }
        // Release: a consumer that sees the claim withdrawn (Acquire) sees the marks.
        Self::claim_word(positions).store(NO_CLAIM, Ordering::Release);
        Ok(n as usize)
    }

    fn claim_word<'a>(positions: Positions<'a>) -> &'a AtomicU64 {
        positions.claim.expect("ringbus bug: an MPSC producer without its claim word")
    }

    /// MPSC: claims up to `want` positions with a compare-and-swap on the tail, each
    /// attempt announced first in this producer's claim word. Returns the first position
    /// and how many (0: full).
    fn claim(&mut self, positions: Positions<'_>, capacity: u64, want: u64) -> Result<(u64, u64), BadPosition> {
        let announced = Self::claim_word(positions);
        loop {
            let tail = positions.tail.load(Ordering::Relaxed);
            let Some(room) = self.room(positions, capacity, tail, want)? else {
                continue;
            };
            let n = room.min(want);
            if n == 0 {
                return Ok((tail, 0));
            }
            announced.store(tail, Ordering::Relaxed);
            // Pairs with the fence in `ConsumerSide::skip_abandoned`: a consumer whose
            // tail load sees this claim sees the announcement above.
            fence(Ordering::SeqCst);
            // Relaxed: the claim orders nothing else; each slot's mark publishes its command.
            if positions.tail.compare_exchange(tail, tail + n, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
                return Ok((tail, n));
            }
        }
    }

    /// Whether the shared head leaves room for one command now (for blocking pushes).
    #[cfg(not(loom))]
    pub(crate) fn has_room(&self, positions: Positions<'_>, capacity: u64) -> bool {
        let tail = match self.mode {
            Mode::Spsc => self.tail,
            Mode::Mpsc => positions.tail.load(Ordering::Relaxed),
        };
        positions.head.load(Ordering::Acquire).saturating_add(capacity) > tail
    }
}

/// The consumer's process-local side.
#[derive(Debug, Clone)]
pub(crate) struct ConsumerSide {
    pub mode: Mode,
    pub head: u64,
    /// SPSC: the producer's tail as last loaded.
    pub cached_tail: u64,
    pub cache: bool,
    /// Loads of the shared tail so far (SPSC).
    pub tail_reads: u64,
}

impl ConsumerSide {
    pub(crate) fn new(mode: Mode, positions: Positions<'_>) -> Result<ConsumerSide, BadPosition> {
        let head = positions.head_now()?;
        Ok(ConsumerSide { mode, head, cached_tail: head, cache: true, tail_reads: 0 })
    }

    /// Commands ready at the head, at most `want` (SPSC: from the cached tail, reloaded
    /// only if it shows too few).
    fn ready(&mut self, positions: Positions<'_>, ring: &impl Ring, want: u64) -> Result<u64, BadPosition> {
        let capacity = ring.capacity();
        match self.mode {
            Mode::Spsc => {
                if !self.cache || self.cached_tail - self.head < want {
                    // Acquire: pairs with the producer's Release tail store.
                    let tail = positions.tail.load(Ordering::Acquire);
                    self.tail_reads += 1;
                    self.cached_tail = check("producer position", tail, self.cached_tail, self.head + capacity)?;
                }
                Ok((self.cached_tail - self.head).min(want))
            }
            Mode::Mpsc => {
                let mut n = 0;
                while n < want {
                    let position = self.head + n;
                    // Acquire: pairs with the producer's Release mark.
                    if ring.mark(index(position, capacity)).load(Ordering::Acquire) != position + 1 {
                        break;
                    }
                    n += 1;
                }
                Ok(n)
            }
        }
    }

    /// Pops up to `out.len()` commands; returns how many.
    pub(crate) fn pop<T: Copy>(
        &mut self,
        positions: Positions<'_>,
        slots: &impl Slots<T>,
        out: &mut [T],
    ) -> Result<usize, BadPosition> {
        self.pop_with(positions, slots, out.len(), |slot, run| slots.read_run(slot, &mut out[run]))
    }

    /// Pops up to `want` commands; returns how many. `read(slot, run)` copies consecutive
    /// slots from `slot` into the commands `run` (indexes into the caller's `want`), before
    /// the slots are given back to the producers.
    pub(crate) fn pop_with(
        &mut self,
        positions: Positions<'_>,
        ring: &impl Ring,
        want: usize,
        mut read: impl FnMut(usize, Range<usize>),
    ) -> Result<usize, BadPosition> {
        let capacity = ring.capacity();
        let n = self.ready(positions, ring, want as u64)?;
        if n > 0 {
            let (first, split) = runs(self.head, n as usize, capacity);
            read(first, 0..split);
            if split < n as usize {
                read(0, split..n as usize);
            }
            self.head += n;
            // Release: the producer that loads this head (Acquire) writes those slots
            // only after we have read them.
            positions.head.store(self.head, Ordering::Release);
        }
        Ok(n as usize)
    }

    /// Pops one command, if one is ready.
    #[cfg(not(loom))]
    pub(crate) fn pop_one<T: Copy>(
        &mut self,
        positions: Positions<'_>,
        slots: &impl Slots<T>,
    ) -> Result<Option<T>, BadPosition> {
        if self.ready(positions, slots, 1)? == 0 {
            return Ok(None);
        }
        let command = slots.read(index(self.head, slots.capacity()));
        self.head += 1;
        // Release: as in `pop`.
        positions.head.store(self.head, Ordering::Release);
        Ok(Some(command))
    }

    /// MPSC: whether the head's command is not there although its position was claimed
    /// (a producer is writing it — or died before marking it). Loads the tail.
    #[cfg(not(loom))]
    pub(crate) fn stalled(&self, positions: Positions<'_>, ring: &impl Ring) -> bool {
        self.mode == Mode::Mpsc && !self.has_data(positions, ring) && positions.tail.load(Ordering::Relaxed) > self.head
    }

    /// MPSC: skips the commands at the head whose producers died between claiming and
    /// marking them: positions before the tail, not marked, and below `live_floor()` —
    /// the lowest claim announced by a producer that is alive ([`NO_CLAIM`] if none).
    /// Returns how many it skipped; stops at the first marked command.
    pub(crate) fn skip_abandoned(
        &mut self,
        positions: Positions<'_>,
        ring: &impl Ring,
        live_floor: impl FnOnce() -> u64,
    ) -> Result<u64, BadPosition> {
        let capacity = ring.capacity();
        let tail = check("producer position", positions.tail.load(Ordering::Relaxed), self.head, self.head + capacity)?;
        // Pairs with the fence between a producer's announcement and its claim: every
        // claim in `tail` was announced before `live_floor` looks.
        fence(Ordering::SeqCst);
        let end = tail.min(live_floor());
        let mut skipped = 0;
        // Acquire: pairs with the Release mark (a producer that withdrew its claim marked).
        while self.head < end && ring.mark(index(self.head, capacity)).load(Ordering::Acquire) != self.head + 1 {
            self.head += 1;
            skipped += 1;
        }
        if skipped > 0 {
            // Release: as in `pop`.
            positions.head.store(self.head, Ordering::Release);
        }
        Ok(skipped)
    }

    /// Whether a command is ready now (loads only).
    #[cfg(not(loom))]
    pub(crate) fn has_data(&self, positions: Positions<'_>, ring: &impl Ring) -> bool {
        match self.mode {
            Mode::Spsc => positions.tail.load(Ordering::Acquire) > self.head,
            Mode::Mpsc => {
                let capacity = ring.capacity();
                ring.mark(index(self.head, capacity)).load(Ordering::Acquire) == self.head + 1
            }
        }
    }
}

#[cfg(test)]
mod tests;
