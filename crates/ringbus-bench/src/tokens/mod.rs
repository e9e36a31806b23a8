//! The job-token benchmark (a parallel build tool's case): P worker processes share T
//! tokens and run J short jobs, each holding a token while it runs, once through GNU
//! make's jobserver pipe and once through a [`ringbus::Semaphore`], in the same
//! invocation.
//!
//! Per run: a fresh directory (ringbus root, board) under the bench's run directory;
//! P workers started and waited for (all on the board, about to wait on the start latch);
//! then
//!
//! ```text
//! t0 = monotonic_ns(); start.set()          // every worker leaves the latch
//! worker: usage0 = getrusage(SELF); while claim() < J { take; job; give }
//!         end = monotonic_ns(); usage = getrusage(SELF) - usage0; record; last one: done.set()
//! wall = max(end) - t0                      // one clock for every process
//! ```
//! so process start-up and exit are in no figure, for either protocol. Afterwards every
//! token must be back (bytes in the pipe, the semaphore's value), the workers' job counts
//! must add up to exactly J, and no more than T workers may ever have held a token at once.

mod board;
pub(crate) mod jobserver;
pub mod plot;
pub mod report;

mod scenario;
pub(crate) mod worker;

use crate::config::WorkerLauncher;
use crate::driver::{self, Bench, Passes, Progress};
use crate::named::named;
use anyhow::Result;
use scenario::Measurement;
use std::fmt;
use std::path::{Path, PathBuf};

pub use report::TokensRow;

/// Names of the latches under each run's root.
pub(crate) const START_LATCH: &str = "bench/start";
pub(crate) const DONE_LATCH: &str = "bench/done";
/// Name of the semaphore under each run's root.
pub(crate) const SEMAPHORE: &str = "bench/tokens";

/// Most worker processes one run may start.
pub const MAX_WORKERS: u32 = 1024;
/// Most tokens: what one pipe page holds (the pipe is filled without blocking).
pub const MAX_TOKENS: u32 = 4096;

named! {
    /// How workers share their tokens.
    pub enum Mechanism("mechanism") {
        /// GNU make's jobserver: poll a shared pipe, read a byte, write it back.
        Pipe = "pipe",
        /// `ringbus::Semaphore`: wait, post.
        Semaphore = "semaphore",
    }
}

/// A whole token run.
#[derive(Debug, Clone)]
pub struct TokensConfig {
    /// Worker process counts to sweep.
    pub workers: Vec<u32>,
    pub mechanisms: Vec<Mechanism>,
    pub tokens: u32,
    /// Jobs per run, shared by its workers.
    pub jobs: u64,
    /// Length of one job (a CPU-bound spin).
    pub job_us: u64,
    /// Runs of each (workers, mechanism); rows report the median.
    pub repeat: u32,
    /// Where the run directory is created (tmpfs).
    pub dir: PathBuf,
    pub worker: WorkerLauncher,
}

/// A point of the sweep: P workers sharing the tokens through one mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub mechanism: Mechanism,
    pub workers: u32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} workers={}", self.mechanism, self.workers)
    }
}

/// Every pass: worker counts in the order given, the mechanisms' order alternating between
/// passes so neither always goes first; one row per point, the medians of its runs, with
/// the semaphore ÷ pipe ratios paired within a pass.
impl Bench for TokensConfig {
    type Point = Point;
    type Measured = Measurement;
    type Row = TokensRow;

    fn passes(&self) -> u32 {
        self.repeat
    }

    fn plan(&self, pass: u32) -> Vec<Point> {
        driver::alternating(pass, &self.workers, &self.mechanisms, |workers, mechanism| Point { mechanism, workers })
    }

    fn files(&self) -> Option<&Path> {
        Some(&self.dir)
    }

    fn measure(&mut self, point: &Point, dir: &Path, _: &mut dyn Progress) -> Result<Measurement> {
        scenario::measure(point, self, dir)
    }

    fn rows(&self, measured: &Passes<Point, Measurement>) -> Vec<TokensRow> {
        measured.rows(|point, runs| report::row(self, point, runs))
    }

    fn ratios(&self, measured: &Passes<Point, Measurement>, rows: &mut [TokensRow]) {
        report::fill_ratios(measured, rows);
    }
}

/// Runs every run of `config` in turn; one row per (workers, mechanism), with ratios.
pub fn run(config: &TokensConfig, progress: &mut dyn Progress) -> Result<Vec<TokensRow>> {
    Ok(driver::run(&mut config.clone(), progress)?.rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mechanisms_parse_by_name_and_alternate_between_repetitions() {
        for m in Mechanism::ALL {
            assert_eq!(m.name().parse::<Mechanism>(), Ok(m));
        }
        assert!("futex".parse::<Mechanism>().unwrap_err().contains("semaphore"));
        let config = TokensConfig {
            workers: vec![8, 16],
            mechanisms: Mechanism::ALL.to_vec(),
            tokens: 2,
            jobs: 10,
            job_us: 1,
            repeat: 2,
            dir: PathBuf::from("/nonexistent"),
            worker: WorkerLauncher { program: PathBuf::from("/bin/false"), args: vec![] },
        };
        let runs: Vec<Point> = (0..config.repeat).flat_map(|pass| config.plan(pass)).collect();
        let names: Vec<String> = runs.iter().map(|r| format!("{}{}", r.mechanism, r.workers)).collect();
        assert_eq!(
            names,
            ["pipe8", "semaphore8", "pipe16", "semaphore16", "semaphore8", "pipe8", "semaphore16", "pipe16"]
        );
    }
}
