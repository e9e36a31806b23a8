//! The job-token benchmark (the seed's build-tool case): P worker processes share T
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
mod rows;
mod scenario;
pub(crate) mod worker;

use crate::config::WorkerLauncher;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

pub use rows::TokensRow;

/// Names of the latches under each run's root.
pub(crate) const START_LATCH: &str = "bench/start";
pub(crate) const DONE_LATCH: &str = "bench/done";
/// Name of the semaphore under each run's root.
pub(crate) const SEMAPHORE: &str = "bench/tokens";

/// Most worker processes one run may start.
pub const MAX_WORKERS: u32 = 1024;
/// Most tokens: what one pipe page holds (the pipe is filled without blocking).
pub const MAX_TOKENS: u32 = 4096;

/// How workers share their tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mechanism {
    /// GNU make's jobserver: poll a shared pipe, read a byte, write it back.
    Pipe,
    /// `ringbus::Semaphore`: wait, post.
    Semaphore,
}

impl Mechanism {
    pub const ALL: [Mechanism; 2] = [Mechanism::Pipe, Mechanism::Semaphore];

    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Pipe => "pipe",
            Mechanism::Semaphore => "semaphore",
        }
    }
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mechanism {
    type Err = String;
    fn from_str(s: &str) -> Result<Mechanism, String> {
        Mechanism::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown mechanism {s:?}; choose from pipe, semaphore"))
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

/// One (workers, mechanism) run of a repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub mechanism: Mechanism,
    pub workers: u32,
    pub repetition: u32,
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} workers={} (run {})", self.mechanism, self.workers, self.repetition + 1)
    }
}

/// What the bench tells the user while it runs.
pub use crate::runs::Progress;

/// Every run, repetition-major; within a repetition worker counts in the order given,
/// and the mechanisms' order alternates between repetitions so neither always goes first.
pub fn plan(config: &TokensConfig) -> Vec<Run> {
    crate::runs::alternating(config.repeat, &config.workers, &config.mechanisms)
        .into_iter()
        .map(|(repetition, workers, mechanism)| Run { mechanism, workers, repetition })
        .collect()
}

/// Runs every run of `config` in turn; one row per (workers, mechanism), with ratios.
pub fn run(config: &TokensConfig, progress: &mut dyn Progress<Run>) -> Result<Vec<TokensRow>> {
    let measured =
        crate::runs::measure_all(&config.dir, &plan(config), progress, |r, dir| scenario::measure(r, config, dir))?;
    Ok(rows::rows(config, &measured))
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
        let runs = plan(&config);
        let names: Vec<String> = runs.iter().map(|r| format!("{}{}", r.mechanism, r.workers)).collect();
        assert_eq!(
            names,
            ["pipe8", "semaphore8", "pipe16", "semaphore16", "semaphore8", "pipe8", "semaphore16", "pipe16"]
        );
    }
}
