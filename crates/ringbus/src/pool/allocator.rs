//! The publisher's process-local chunk allocator.
//!
//! Every chunk is in exactly one of: the free stack, the deferred list (was held by a
//! subscriber when last tried), the log (its message can still be taken), or the loan in
//! progress. The free stack is LIFO, so the most recently freed — cache-warm — chunk is
//! reused first. All vectors are sized once at creation: no allocation on the publish path.

const NONE: u32 = u32::MAX;

#[derive(Debug)]
pub(crate) struct ChunkAllocator {
    free: Vec<u32>,
    deferred: Vec<u32>,
    /// The chunk each log index refers to (`NONE` before the first lap).
    in_log: Vec<u32>,
}

impl ChunkAllocator {
    pub(crate) fn new(chunk_count: u32, depth: u32) -> ChunkAllocator {
        ChunkAllocator {
            free: (0..chunk_count).rev().collect(),
            deferred: Vec::with_capacity(chunk_count as usize),
            in_log: vec![NONE; depth as usize],
        }
    }

    /// Finds a chunk `try_claim` accepts (nobody holds it). Returns `(chunk, generation)`.
    #[inline]
    pub(crate) fn acquire(&mut self, mut try_claim: impl FnMut(u32) -> Option<u32>) -> Option<(u32, u32)> {
        while let Some(chunk) = self.free.pop() {
            if let Some(generation) = try_claim(chunk) {
                return Some((chunk, generation));
            }
            self.deferred.push(chunk);
        }
        let found = self.deferred.iter().enumerate().find_map(|(i, &c)| try_claim(c).map(|g| (i, c, g)));
        found.map(|(i, chunk, generation)| {
            self.deferred.swap_remove(i);
            (chunk, generation)
        })
    }

    /// The chunk that publishing at log index `index` will free (and, the free stack
    /// being LIFO, most likely claim again as the next spare).
    #[inline]
    pub(crate) fn in_log_at(&self, index: usize) -> Option<u32> {
        Some(self.in_log[index]).filter(|&c| c != NONE)
    }

    /// Gives back a chunk that was acquired but not published.
    pub(crate) fn give_back(&mut self, chunk: u32) {
        self.free.push(chunk);
    }

    /// Records that `chunk` now backs log index `index`; the chunk it replaces is freed.
    #[inline]
    pub(crate) fn enter_log(&mut self, index: usize, chunk: u32) {
        let replaced = std::mem::replace(&mut self.in_log[index], chunk);
        if replaced != NONE {
            self.free.push(replaced);
        }
    }

    /// Chunks not in the log and not deferred (for tests and stats).
    pub(crate) fn free_count(&self) -> usize {
        self.free.len()
    }

    /// The chunks neither in the log nor lent: free, or deferred (a subscriber held them
    /// when last tried) — to choose among, or to give their memory back.
    pub(crate) fn idle_chunks(&self) -> impl Iterator<Item = u32> + '_ {
        self.free.iter().chain(&self.deferred).copied()
    }

    /// Takes `chunk`, one of [`ChunkAllocator::idle_chunks`], out of its list.
    pub(crate) fn take_idle(&mut self, chunk: u32) {
        if let Some(i) = self.free.iter().position(|&c| c == chunk) {
            self.free.remove(i);
        } else if let Some(i) = self.deferred.iter().position(|&c| c == chunk) {
            self.deferred.swap_remove(i);
        }
    }

    /// An idle chunk taken out that a subscriber turned out to hold.
    pub(crate) fn defer(&mut self, chunk: u32) {
        self.deferred.push(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_the_most_recently_freed_chunk_and_defers_held_ones() {
        let mut a = ChunkAllocator::new(4, 2);
        let held = [false, true, false, false];
        let (c0, _) = a.acquire(|c| (!held[c as usize]).then_some(1)).unwrap();
        assert_eq!(c0, 0);
        a.enter_log(0, c0);
        let (c1, _) = a.acquire(|c| (!held[c as usize]).then_some(1)).unwrap();
        assert_eq!(c1, 2, "chunk 1 is held, so it is deferred and 2 is used");
        a.enter_log(1, c1);
        let (c2, _) = a.acquire(|c| (!held[c as usize]).then_some(1)).unwrap();
        a.enter_log(0, c2); // replaces chunk 0, which becomes free again
        assert_eq!(a.acquire(|c| (!held[c as usize]).then_some(1)).map(|x| x.0), Some(0));
        assert_eq!(a.acquire(|c| (!held[c as usize]).then_some(1)), None);
        assert_eq!(a.acquire(|_| Some(1)).map(|x| x.0), Some(1), "deferred chunk retried once released");
    }
}
