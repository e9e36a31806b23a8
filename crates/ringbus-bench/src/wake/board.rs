//! The board: one small file shared by the bench (the waker) and the waiter of one
//! backend's run (see [`crate::shm`]). It holds the futex words the waiter sleeps on, the
//! waker's `t0` of the wake in flight, the waiter's handshake flags and, after a header of
//! 128 bytes, one latency slot per wake. Every field is an atomic, so an all-zero file is a
//! valid board; the first 48 bytes are read as 32-bit words, the rest as 64-bit words.
//!
//! ```text
//! bytes   0..32   words: 8 × u32 futex words (the waiter attaches the first 1 or 8)
//! bytes  32..48   asleep (sequence + 1 of the wake the waiter is about to sleep for),
//!                 ready, done, the waiter's pid (u32 each)
//! bytes  48..64   t0_ns (the wake in flight), waiter CPU µs over the measured wakes
//! bytes 64..128   reserved, zero
//! bytes 128..     one u64 per wake: its latency in ns, 0 until recorded
//! ```

use super::WAITV_WORDS;
use crate::shm::SharedWords;
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// 32-bit words (`SharedWords::words32`): the futex words, then the handshake.
const ASLEEP: usize = WAITV_WORDS;
const READY: usize = ASLEEP + 1;
const DONE: usize = ASLEEP + 2;
const PID: usize = ASLEEP + 3;
/// 64-bit words (`SharedWords::words`), after the 32-bit ones: none overlaps another.
const T0_NS: usize = 6;
const CPU_US: usize = 7;
const HEADER_WORDS: usize = 16;
const _: () = assert!(ASLEEP * 4 == 32 && PID * 4 + 4 == 48 && T0_NS * 8 == 48 && CPU_US * 8 == 56);
const _: () = assert!(HEADER_WORDS * 8 == 128);

#[derive(Debug)]
pub(crate) struct Board {
    shared: SharedWords,
    /// Latency slots (warm-up and measured wakes).
    wakes: usize,
}

impl Board {
    /// 64-bit words of a board with `wakes` slots.
    fn len(wakes: usize) -> Result<usize> {
        let len = wakes.checked_add(HEADER_WORDS).filter(|n| n.checked_mul(8).is_some());
        len.with_context(|| format!("{wakes} wakes is too many"))
    }

    /// The bench's side: creates the board, zeroed, with `wakes` slots.
    pub(crate) fn create(path: &Path, wakes: usize) -> Result<Board> {
        Ok(Board { shared: SharedWords::create(path, Self::len(wakes)?)?, wakes })
    }

    /// The waiter's side: maps the board the bench created.
    pub(crate) fn open(path: &Path, wakes: usize) -> Result<Board> {
        Ok(Board { shared: SharedWords::open(path, Self::len(wakes)?)?, wakes })
    }

    fn word32(&self, i: usize) -> &AtomicU32 {
        &self.shared.words32()[i]
    }

    fn word(&self, i: usize) -> &AtomicU64 {
        &self.shared.words()[i]
    }

    fn slots(&self) -> &[AtomicU64] {
        &self.shared.words()[HEADER_WORDS..]
    }

    /// The futex words.
    pub(crate) fn words(&self) -> &[AtomicU32; WAITV_WORDS] {
        self.shared.words32()[..WAITV_WORDS].try_into().expect("the header holds the futex words")
    }

    /// The waiter (process `pid`) has attached everything and is about to wait for wake 0.
    pub(crate) fn mark_ready(&self, pid: u32) {
        self.word32(PID).store(pid, Ordering::Relaxed);
        // Release: the bench's Acquire load sees the waiter set up, and its pid.
        self.word32(READY).store(1, Ordering::Release);
    }

    /// The waiter's pid, once it is ready.
    pub(crate) fn ready(&self) -> Option<u32> {
        (self.word32(READY).load(Ordering::Acquire) == 1).then(|| self.word32(PID).load(Ordering::Relaxed))
    }

    /// The waiter is about to sleep for wake `seq`, having recorded every wake before it.
    pub(crate) fn mark_asleep(&self, seq: usize) {
        // Release: pairs with the bench's Acquire in `asleep_for`; publishes the slots
        // recorded before it.
        self.word32(ASLEEP).store(seq as u32 + 1, Ordering::Release);
    }

    /// Whether the waiter announced it sleeps for wake `seq`.
    pub(crate) fn asleep_for(&self, seq: usize) -> bool {
        self.word32(ASLEEP).load(Ordering::Acquire) == seq as u32 + 1
    }

    /// The bench: wake in flight started at `t0_ns`. Must precede the word's Release store.
    pub(crate) fn set_t0(&self, t0_ns: u64) {
        // Relaxed: published by the Release store to the word that follows.
        self.word(T0_NS).store(t0_ns, Ordering::Relaxed);
    }

    /// The waiter: `t0` of the wake it just saw (its Acquire load of the word came first).
    pub(crate) fn t0(&self) -> u64 {
        self.word(T0_NS).load(Ordering::Relaxed)
    }

    /// The waiter: wake `seq` took `ns` (at least 1: 0 means "not recorded").
    pub(crate) fn record(&self, seq: usize, ns: u64) -> Result<()> {
        let slot = self.slots().get(seq).with_context(|| format!("wake {seq} beyond the board's {}", self.wakes))?;
        slot.store(ns.max(1), Ordering::Relaxed);
        Ok(())
    }

    /// Wake `seq`'s latency, if recorded.
    pub(crate) fn latency(&self, seq: usize) -> Option<u64> {
        self.slots().get(seq).map(|s| s.load(Ordering::Relaxed)).filter(|&ns| ns > 0)
    }

    /// The waiter leaves its CPU time and says it is done.
    pub(crate) fn finish(&self, cpu_us: u64) {
        self.word(CPU_US).store(cpu_us, Ordering::Relaxed);
        // Release: pairs with `done`'s Acquire; publishes the CPU time and every slot.
        self.word32(DONE).store(1, Ordering::Release);
    }

    /// The waiter's CPU µs over the measured wakes, once it is done.
    pub(crate) fn done(&self) -> Option<u64> {
        (self.word32(DONE).load(Ordering::Acquire) == 1).then(|| self.word(CPU_US).load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_and_the_waiter_share_the_board() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("board");
        let bench = Board::create(&path, 3).unwrap();
        let waiter = Board::open(&path, 3).unwrap();
        assert!(Board::open(&path, 4).is_err(), "size mismatch is refused");
        assert!(Board::create(&path, 3).is_err(), "an existing board is not reused");
        assert_eq!(bench.ready(), None);
        waiter.mark_ready(7);
        assert_eq!(bench.ready(), Some(7));
        waiter.mark_asleep(1);
        assert!(bench.asleep_for(1) && !bench.asleep_for(0));
        bench.set_t0(42);
        bench.words()[7].fetch_add(1, Ordering::Release);
        assert_eq!((waiter.t0(), waiter.words()[7].load(Ordering::Acquire)), (42, 1));
        waiter.record(2, 0).unwrap();
        assert!(waiter.record(3, 5).is_err());
        assert_eq!((bench.latency(0), bench.latency(2), bench.latency(3)), (None, Some(1), None));
        assert_eq!(bench.done(), None);
        waiter.finish(17);
        assert_eq!(bench.done(), Some(17));
    }
}
