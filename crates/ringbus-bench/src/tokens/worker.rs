//! A token worker process: announces itself on the board, waits for the start latch,
//! then claims jobs until none is left — take a token, spin for the job's length, give
//! the token back — and leaves on the board its job count and the CPU time and context
//! switches it used from the start to the end of its loop. The last worker to finish sets
//! the done latch.

use super::board::{Board, WorkerRecord};
use super::jobserver::{TokenEndpoint, Tokens};
use super::{DONE_LATCH, START_LATCH};
use crate::usage::Usage;
use anyhow::{Context, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::{Latch, Root};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything one token worker needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TokensWorkerSpec {
    pub index: u32,
    pub workers: u32,
    /// Jobs in the whole run, shared by all workers.
    pub jobs: u64,
    /// Length of one job.
    pub job_ns: u64,
    /// The run's ringbus root (latches, semaphore).
    pub root: PathBuf,
    pub board: PathBuf,
    pub tokens: TokenEndpoint,
}

/// One job: a CPU-bound spin of `ns` on the monotonic clock (read through the vDSO, no
/// system call), like compiling a tiny file.
fn job(ns: u64) {
    let start = monotonic_ns();
    while monotonic_ns().wrapping_sub(start) < ns {
        std::hint::spin_loop();
    }
}

/// Runs one token worker.
pub(crate) fn run(spec: &TokensWorkerSpec) -> Result<()> {
    let board = Board::open(&spec.board, spec.workers as usize)?;
    let root = Root::open(&spec.root).context("cannot open the bench's ringbus root")?;
    let mut tokens = Tokens::open(&root, &spec.tokens)?;
    let start = Latch::open(&root, START_LATCH).context("cannot open the start latch")?;
    let done = Latch::open(&root, DONE_LATCH).context("cannot open the done latch")?;
    board.mark_ready();
    start.wait(None).map_err(|e| anyhow::anyhow!("waiting for the start: {e}"))?;
    let before = Usage::of_self()?;
    let mut jobs = 0;
    while board.claim() < spec.jobs {
        tokens.take()?;
        board.hold();
        job(spec.job_ns);
        board.release();
        tokens.give()?;
        jobs += 1;
    }
    let end_ns = monotonic_ns();
    let usage = Usage::of_self()?.since(before);
    let record = WorkerRecord { jobs, usage, end_ns, failed_takes: tokens.failed_takes().unwrap_or(0) };
    if board.finish(spec.index as usize, &record)? {
        done.set();
    }
    Ok(())
}
