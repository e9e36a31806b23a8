//! The board: one small file shared by the bench and the token workers of one run, as
//! 64-bit atomic words (see [`crate::shm`]). Workers claim jobs from it, count the token
//! holders on it and, when done, leave their own record on it for the bench to sum.
//!
//! ```text
//! words  0..8    ready (workers waiting for the start), finished (workers that left a record)
//! words  8..16   next job to claim (its own cache line: claimed by every worker per job)
//! words 16..24   holders now, most holders at once (its own cache line)
//! words 24..     one record of 8 words per worker:
//!                jobs, user µs, system µs, voluntary and involuntary context switches,
//!                end (CLOCK_MONOTONIC ns), failed takes, reserved
//! ```

use crate::shm::SharedWords;
use crate::usage::Usage;
use anyhow::{ensure, Result};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

const READY: usize = 0;
const FINISHED: usize = 1;
const NEXT_JOB: usize = 8;
const HOLDERS: usize = 16;
const MAX_HOLDERS: usize = 17;
const HEADER_WORDS: usize = 24;
const RECORD_WORDS: usize = 8;

/// What one worker did between the start signal and leaving its loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct WorkerRecord {
    pub jobs: u64,
    pub usage: Usage,
    /// `monotonic_ns()` when it left its loop.
    pub end_ns: u64,
    /// Pipe: reads that found the token gone although `poll` said the pipe was readable.
    pub failed_takes: u64,
}

#[derive(Debug)]
pub(crate) struct Board {
    shared: SharedWords,
    workers: usize,
}

impl Board {
    fn words(workers: usize) -> Result<usize> {
        workers
            .checked_mul(RECORD_WORDS)
            .and_then(|n| n.checked_add(HEADER_WORDS))
            .ok_or_else(|| anyhow::anyhow!("{workers} workers is too many"))
    }

    /// The bench's side: creates the board, zeroed.
    pub(crate) fn create(path: &Path, workers: usize) -> Result<Board> {
        Ok(Board { shared: SharedWords::create(path, Self::words(workers)?)?, workers })
    }

    /// A worker's side: maps the board the bench created.
    pub(crate) fn open(path: &Path, workers: usize) -> Result<Board> {
        Ok(Board { shared: SharedWords::open(path, Self::words(workers)?)?, workers })
    }

    fn word(&self, i: usize) -> &AtomicU64 {
        &self.shared.words()[i]
    }

    /// A worker announces it is about to wait for the start.
    pub(crate) fn mark_ready(&self) {
        // Release: the bench's Acquire load of the count sees the worker set up.
        self.word(READY).fetch_add(1, Ordering::Release);
    }

    pub(crate) fn ready(&self) -> u64 {
        self.word(READY).load(Ordering::Acquire)
    }

    /// Claims the next job; the job exists if the index is below the run's job count.
    pub(crate) fn claim(&self) -> u64 {
        // Relaxed: only the uniqueness of the index matters.
        self.word(NEXT_JOB).fetch_add(1, Ordering::Relaxed)
    }

    /// Indices claimed so far (jobs claimed, plus one failed claim per finished worker).
    pub(crate) fn claimed(&self) -> u64 {
        self.word(NEXT_JOB).load(Ordering::Relaxed)
    }

    /// A worker took a token. Relaxed suffices: every update of one word is seen in one
    /// order, and a correct protocol orders a give (after `release`) before the next take.
    pub(crate) fn hold(&self) {
        let now = self.word(HOLDERS).fetch_add(1, Ordering::Relaxed) + 1;
        self.word(MAX_HOLDERS).fetch_max(now, Ordering::Relaxed);
    }

    /// A worker is about to give its token back.
    pub(crate) fn release(&self) {
        self.word(HOLDERS).fetch_sub(1, Ordering::Relaxed);
    }

    /// The most workers that held a token at the same time: at most the token count.
    pub(crate) fn max_holders(&self) -> u64 {
        self.word(MAX_HOLDERS).load(Ordering::Relaxed)
    }

    /// Leaves worker `index`'s record; returns whether it was the last worker to finish.
    pub(crate) fn finish(&self, index: usize, r: &WorkerRecord) -> Result<bool> {
        ensure!(index < self.workers, "worker index {index} out of range ({} workers)", self.workers);
        let base = HEADER_WORDS + index * RECORD_WORDS;
        let u = &r.usage;
        let fields = [r.jobs, u.user_us, u.sys_us, u.voluntary, u.involuntary, r.end_ns, r.failed_takes];
        for (k, v) in fields.into_iter().enumerate() {
            self.word(base + k).store(v, Ordering::Relaxed);
        }
        // AcqRel: releases this record to whoever sees the count (the bench, via the last
        // worker's latch); acquires the other workers' records for the last one.
        Ok(self.word(FINISHED).fetch_add(1, Ordering::AcqRel) + 1 == self.workers as u64)
    }

    /// Workers that left their record.
    pub(crate) fn finished(&self) -> u64 {
        self.word(FINISHED).load(Ordering::Acquire)
    }

    /// Worker `index`'s record (zero until it finished).
    pub(crate) fn record(&self, index: usize) -> WorkerRecord {
        let base = HEADER_WORDS + index * RECORD_WORDS;
        let w = |k: usize| self.word(base + k).load(Ordering::Relaxed);
        let usage = Usage { user_us: w(1), sys_us: w(2), voluntary: w(3), involuntary: w(4) };
        WorkerRecord { jobs: w(0), usage, end_ns: w(5), failed_takes: w(6) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_and_the_bench_share_the_board() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("board");
        let bench = Board::create(&path, 2).unwrap();
        let worker = Board::open(&path, 2).unwrap();
        worker.mark_ready();
        assert_eq!(bench.ready(), 1);
        assert_eq!((worker.claim(), worker.claim(), bench.claimed()), (0, 1, 2));
        worker.hold();
        worker.hold();
        worker.release();
        worker.hold();
        assert_eq!(bench.max_holders(), 2);
        let usage = Usage { user_us: 1, sys_us: 2, voluntary: 3, involuntary: 4 };
        let r = WorkerRecord { jobs: 7, usage, end_ns: 9, failed_takes: 11 };
        assert!(!worker.finish(1, &r).unwrap());
        assert_eq!(bench.record(1), r);
        assert_eq!(bench.record(0), WorkerRecord::default());
        assert!(worker.finish(0, &r).unwrap(), "the second of two finishes last");
        assert_eq!(bench.finished(), 2);
        assert!(worker.finish(2, &r).is_err());
        assert!(Board::open(&path, 3).is_err(), "size mismatch is refused");
    }
}
