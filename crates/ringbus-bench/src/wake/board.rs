//! The board: one small file shared by the bench (the waker) and the waiter of one
//! backend's run. It holds the futex words the waiter sleeps on, the waker's `t0` of the
//! wake in flight, the waiter's handshake flags and, after a header of 128 bytes, one
//! latency slot per wake. Every field is an atomic, so an all-zero file is a valid board.
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
use anyhow::{ensure, Context, Result};
use memmap2::MmapRaw;
use std::fs::OpenOptions;
use std::mem::{offset_of, size_of};
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

#[repr(C)]
struct Header {
    words: [AtomicU32; WAITV_WORDS],
    asleep: AtomicU32,
    ready: AtomicU32,
    done: AtomicU32,
    pid: AtomicU32,
    t0_ns: AtomicU64,
    cpu_us: AtomicU64,
    _reserved: [AtomicU64; 8],
}

const HEADER_BYTES: usize = 128;
const _: () = assert!(size_of::<Header>() == HEADER_BYTES);
const _: () = assert!(offset_of!(Header, asleep) == 32);
const _: () = assert!(offset_of!(Header, t0_ns) == 48);
const _: () = assert!(offset_of!(Header, cpu_us) == 56);

#[derive(Debug)]
pub(crate) struct Board {
    map: MmapRaw,
    /// Latency slots (warm-up and measured wakes).
    wakes: usize,
}

impl Board {
    fn bytes(wakes: usize) -> Result<usize> {
        wakes
            .checked_mul(8)
            .and_then(|n| n.checked_add(HEADER_BYTES))
            .ok_or_else(|| anyhow::anyhow!("{wakes} wakes is too many"))
    }

    /// The bench's side: creates the board, zeroed, with `wakes` slots.
    pub(crate) fn create(path: &Path, wakes: usize) -> Result<Board> {
        let bytes = Self::bytes(wakes)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        file.set_len(bytes as u64).with_context(|| {
            format!("cannot size {} to {bytes} bytes; is /dev/shm full? (df -h /dev/shm)", path.display())
        })?;
        Self::map(path, &file, wakes)
    }

    /// The waiter's side: maps the board the bench created.
    pub(crate) fn open(path: &Path, wakes: usize) -> Result<Board> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Self::map(path, &file, wakes)
    }

    fn map(path: &Path, file: &std::fs::File, wakes: usize) -> Result<Board> {
        let bytes = Self::bytes(wakes)?;
        let actual = file.metadata()?.len();
        ensure!(actual == bytes as u64, "{} is {actual} bytes, expected {bytes}", path.display());
        let map = MmapRaw::map_raw(file).with_context(|| format!("cannot mmap {}", path.display()))?;
        ensure!(map.len() == bytes, "{} changed size while being mapped", path.display());
        Ok(Board { map, wakes })
    }

    fn header(&self) -> &Header {
        // SAFETY: the mapping is page-aligned and at least HEADER_BYTES long (checked in
        // `map`); `Header` is all atomics, valid for any bytes (zero included), and only
        // ever accessed through them; the reference borrows `self`, which owns the mapping.
        unsafe { &*self.map.as_mut_ptr().cast::<Header>() }
    }

    fn slots(&self) -> &[AtomicU64] {
        // SAFETY: the mapping is `HEADER_BYTES + 8 * wakes` bytes (checked in `map`), so
        // the slots start 8-aligned at HEADER_BYTES and fit; atomics are valid for any
        // bytes and every process accesses the file only through atomics; the slice
        // borrows `self`, which owns the mapping.
        unsafe { std::slice::from_raw_parts(self.map.as_mut_ptr().add(HEADER_BYTES).cast::<AtomicU64>(), self.wakes) }
    }

    /// The futex words.
    pub(crate) fn words(&self) -> &[AtomicU32; WAITV_WORDS] {
        &self.header().words
    }

    /// The waiter (process `pid`) has attached everything and is about to wait for wake 0.
    pub(crate) fn mark_ready(&self, pid: u32) {
        self.header().pid.store(pid, Ordering::Relaxed);
        // Release: the bench's Acquire load sees the waiter set up, and its pid.
        self.header().ready.store(1, Ordering::Release);
    }

    /// The waiter's pid, once it is ready.
    pub(crate) fn ready(&self) -> Option<u32> {
        (self.header().ready.load(Ordering::Acquire) == 1).then(|| self.header().pid.load(Ordering::Relaxed))
    }

    /// The waiter is about to sleep for wake `seq`, having recorded every wake before it.
    pub(crate) fn mark_asleep(&self, seq: usize) {
        // Release: pairs with the bench's Acquire in `asleep_for`; publishes the slots
        // recorded before it.
        self.header().asleep.store(seq as u32 + 1, Ordering::Release);
    }

    /// Whether the waiter announced it sleeps for wake `seq`.
    pub(crate) fn asleep_for(&self, seq: usize) -> bool {
        self.header().asleep.load(Ordering::Acquire) == seq as u32 + 1
    }

    /// The bench: wake in flight started at `t0_ns`. Must precede the word's Release store.
    pub(crate) fn set_t0(&self, t0_ns: u64) {
        // Relaxed: published by the Release store to the word that follows.
        self.header().t0_ns.store(t0_ns, Ordering::Relaxed);
    }

    /// The waiter: `t0` of the wake it just saw (its Acquire load of the word came first).
    pub(crate) fn t0(&self) -> u64 {
        self.header().t0_ns.load(Ordering::Relaxed)
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
        self.header().cpu_us.store(cpu_us, Ordering::Relaxed);
        // Release: pairs with `done`'s Acquire; publishes the CPU time and every slot.
        self.header().done.store(1, Ordering::Release);
    }

    /// The waiter's CPU µs over the measured wakes, once it is done.
    pub(crate) fn done(&self) -> Option<u64> {
        (self.header().done.load(Ordering::Acquire) == 1).then(|| self.header().cpu_us.load(Ordering::Relaxed))
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
