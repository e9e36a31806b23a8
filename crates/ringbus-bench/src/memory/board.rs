//! The board of a run, a file of the run's directory (outside the ringbus root, so it is
//! not counted as the root's memory) shared by its processes:
//!
//! ```text
//! word 0       subscribers ready (opened, about to wait for the first message)
//! words 1..    one per sample a subscriber may hold: 0, or (position + 1) << 32 | length
//! ```
//!
//! The holding subscriber lists each sample it keeps, from just after taking it until just
//! after dropping it; the publisher reads the list after every publish to count the held
//! samples that already left its log. Each entry is one atomic word: never read torn.

use crate::shm::SharedWords;
use anyhow::{anyhow, ensure, Result};
use std::path::Path;
use std::sync::atomic::Ordering;

const READY: usize = 0;
const HELD: usize = 1;
/// Room for as many samples as one subscriber may ever hold (a topic's `max_held` is at
/// most 256).
const ENTRIES: usize = 256;

#[derive(Debug)]
pub(crate) struct Board {
    shared: SharedWords,
}

impl Board {
    /// The bench's side: a zeroed board.
    pub(crate) fn create(path: &Path) -> Result<Board> {
        Ok(Board { shared: SharedWords::create(path, HELD + ENTRIES)? })
    }

    /// A worker's side: the board the bench created.
    pub(crate) fn open(path: &Path) -> Result<Board> {
        Ok(Board { shared: SharedWords::open(path, HELD + ENTRIES)? })
    }

    /// A subscriber is about to wait for the first message.
    pub(crate) fn mark_ready(&self) {
        // Release: whoever sees the count sees the subscriber's topic open.
        self.shared.words()[READY].fetch_add(1, Ordering::Release);
    }

    pub(crate) fn ready(&self) -> u64 {
        self.shared.words()[READY].load(Ordering::Acquire)
    }

    /// Lists a held sample; returns its entry, for [`Board::release`].
    pub(crate) fn hold(&self, position: u64, len: u64) -> Result<usize> {
        ensure!(position < u32::MAX as u64 && len <= u32::MAX as u64, "message {position} ({len} bytes) does not fit");
        let entry = ((position + 1) << 32) | len;
        let held = &self.shared.words()[HELD..];
        let free = held.iter().position(|w| w.compare_exchange(0, entry, Ordering::Relaxed, Ordering::Relaxed).is_ok());
        free.map(|i| HELD + i).ok_or_else(|| anyhow!("more samples held than the board has room for ({})", held.len()))
    }

    /// The sample listed at `entry` was dropped.
    pub(crate) fn release(&self, entry: usize) {
        self.shared.words()[entry].store(0, Ordering::Relaxed);
    }

    /// Bytes of the held samples whose position is below `position`.
    pub(crate) fn held_below(&self, position: u64) -> u64 {
        let entries = self.shared.words()[HELD..].iter().map(|w| w.load(Ordering::Relaxed)).filter(|&e| e != 0);
        entries.filter(|e| (e >> 32) - 1 < position).map(|e| e & u32::MAX as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_samples_are_listed_counted_below_a_position_and_released() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("board");
        let bench = Board::create(&path).unwrap();
        let holder = Board::open(&path).unwrap();
        holder.mark_ready();
        assert_eq!(bench.ready(), 1);
        let a = holder.hold(0, 100).unwrap();
        let b = holder.hold(7, 5).unwrap();
        for position in 8..8 + ENTRIES as u64 - 2 {
            holder.hold(position, 0).unwrap();
        }
        assert!(holder.hold(1000, 1).is_err(), "no room left");
        assert!(holder.hold(1 << 32, 1).is_err(), "a position too far to list");
        assert_eq!((bench.held_below(0), bench.held_below(1), bench.held_below(8)), (0, 100, 105));
        holder.release(a);
        assert_eq!(bench.held_below(8), 5);
        holder.release(b);
        assert_eq!(bench.held_below(u64::MAX), 0, "the other entries hold 0 bytes");
        std::fs::write(dir.path().join("short"), [0u8; 64]).unwrap();
        assert!(Board::open(&dir.path().join("short")).is_err(), "the size is checked");
    }
}
