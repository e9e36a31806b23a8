//! The wake-latency benchmark: what multiplexing costs. One waiter process per backend
//! (this binary re-executed) sleeps in a [`ringbus::WaitSet`]; the bench process wakes the
//! waiters in turn through shared-memory words, `--count` times each, one wake every
//! `1/--rate` s, and each waiter records how long each wake took to reach it. Taking turns
//! wake by wake (rather than backend after backend) puts every backend through the same
//! spells of a noisy machine.
//!
//! Rows, in the same run:
//!
//! ```text
//! futex        1 word                         FUTEX_WAIT
//! futex_waitv  8 words, a different one woken each time (round-robin)
//! io_uring     1 word + a bound UDP socket that never receives (FUTEX_WAITV + POLL_ADD)
//! epoll        the same sources, epoll backend (helper thread in futex_waitv → eventfd)
//! ```
//!
//! One wake, after the waiter was seen asleep in the kernel (its flag on the board, then
//! `S` in `/proc/<pid>/stat`):
//!
//! ```text
//! bench:  t0 = monotonic_ns(); board.t0 = t0; word += 1 (Release); ringbus::wake(word, 1)
//! waiter: wait() returns the Word event; latency = monotonic_ns() - board.t0
//! ```
//!
//! so a latency is the whole path a user sees: the wake system call, the scheduler, the
//! backend's return path and the wait set's bookkeeping. Waiter CPU per wake is its
//! `getrusage(RUSAGE_SELF)` user + system time (all its threads) over the measured wakes,
//! divided by their number.

mod board;
pub mod plot;
pub mod report;
mod scenario;
pub(crate) mod waiter;

use crate::config::WorkerLauncher;
use crate::driver::{self, Bench, Passes, Progress};
use crate::named::named;
use anyhow::Result;
use ringbus::waitset::Backend;
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// Most measured (or warm-up) wakes per backend: the board holds one slot per wake.
pub const MAX_COUNT: u64 = 1_000_000;
/// Words the futex_waitv row attaches.
pub const WAITV_WORDS: usize = 8;

named! {
    /// One row: a wait-set backend with its sources.
    pub enum WakeBackend("backend") {
        /// One word, plain `FUTEX_WAIT`: the baseline.
        Futex = "futex",
        /// Eight words through `futex_waitv`.
        FutexWaitv = "futex_waitv",
        /// One word and a socket, io_uring.
        IoUring = "io_uring",
        /// One word and a socket, epoll.
        Epoll = "epoll",
    }
}

impl WakeBackend {
    /// The wait-set backend this row forces.
    pub fn backend(self) -> Backend {
        match self {
            WakeBackend::Futex | WakeBackend::FutexWaitv => Backend::Futex,
            WakeBackend::IoUring => Backend::IoUring,
            WakeBackend::Epoll => Backend::Epoll,
        }
    }

    /// Shared-memory words the waiter attaches.
    pub fn words(self) -> usize {
        match self {
            WakeBackend::FutexWaitv => WAITV_WORDS,
            _ => 1,
        }
    }

    /// Fds the waiter attaches (a UDP socket that never receives).
    pub fn fds(self) -> usize {
        match self {
            WakeBackend::IoUring | WakeBackend::Epoll => 1,
            _ => 0,
        }
    }
}

/// A whole wake run.
#[derive(Debug, Clone)]
pub struct WakeConfig {
    pub backends: Vec<WakeBackend>,
    /// Measured wakes per backend.
    pub count: u64,
    /// Unmeasured wakes first (page faults, cold caches, the first arming).
    pub warmup: u64,
    /// Wakes per second over all backends (they take turns).
    pub rate_hz: f64,
    /// Pins the bench (the waker) and the waiter to these CPUs; `None`: the scheduler
    /// places them, and whether a wake crosses CPUs varies from run to run.
    pub cpus: Option<(u32, u32)>,
    /// Where the run directory is created (tmpfs).
    pub dir: PathBuf,
    pub worker: WorkerLauncher,
}

/// One measured backend.
#[derive(Debug, Clone, Serialize)]
pub struct WakeRow {
    pub backend: WakeBackend,
    pub words: u32,
    pub fds: u32,
    /// Measured wakes (warm-up excluded).
    pub wakes: u64,
    /// Wakes per second over all backends of the run.
    pub rate_hz: f64,
    pub wake_p50_us: f64,
    pub wake_p99_us: f64,
    /// This row's p50 divided by the futex row's of the same run.
    pub p50_vs_futex: Option<f64>,
    /// The waiter's user + system CPU over the measured wakes, per wake.
    pub waiter_cpu_us_per_wake: f64,
    /// Measured wakes sent although the waiter was not seen asleep in the kernel in time.
    pub wakes_not_asleep: u64,
    /// The CPUs the waker and the waiter were pinned to, if they were.
    pub waker_cpu: Option<u32>,
    pub waiter_cpu: Option<u32>,
}

/// What a run produced: the rows, and the backends this machine refused, with why.
#[derive(Debug, Default)]
pub struct Outcome {
    pub rows: Vec<WakeRow>,
    pub skipped: Vec<(WakeBackend, String)>,
}

/// Measures every backend of `config` in one run, in a fresh run directory removed at the
/// end. With `config.cpus`, the calling thread (the waker) stays pinned to its CPU afterwards.
pub fn run(config: &WakeConfig, progress: &mut dyn Progress) -> Result<Outcome> {
    let mut bench = WakeBench { config, backends: Vec::new(), skipped: Vec::new() };
    let rows = driver::run(&mut bench, progress)?.rows;
    Ok(Outcome { rows, skipped: bench.skipped })
}

/// The one run: every backend this machine allows, measured together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Backends;

impl fmt::Display for Backends {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("wakes")
    }
}

struct WakeBench<'a> {
    config: &'a WakeConfig,
    /// The backends this machine allows, and those it refused.
    backends: Vec<WakeBackend>,
    skipped: Vec<(WakeBackend, String)>,
}

/// One pass of one run, the backends taking turns wake by wake within it; ratios against
/// the futex backend of that pass.
impl Bench for WakeBench<'_> {
    type Point = Backends;
    type Measured = Vec<WakeRow>;
    type Row = WakeRow;

    const RUN: &'static str = "";

    fn passes(&self) -> u32 {
        1
    }

    fn plan(&self, _: u32) -> Vec<Backends> {
        if self.backends.is_empty() {
            Vec::new()
        } else {
            vec![Backends]
        }
    }

    fn files(&self) -> Option<&Path> {
        Some(&self.config.dir)
    }

    fn start(&mut self, _: &mut dyn Progress) -> Result<()> {
        if let Some((waker, _)) = self.config.cpus {
            waiter::pin_this_thread(waker)?;
        }
        for &backend in &self.config.backends {
            match scenario::probe(backend) {
                Ok(()) => self.backends.push(backend),
                Err(why) => self.skipped.push((backend, why)),
            }
        }
        Ok(())
    }

    fn measure(&mut self, _: &Backends, dir: &Path, progress: &mut dyn Progress) -> Result<Vec<WakeRow>> {
        scenario::measure(&self.backends, self.config, dir, progress)
    }

    fn rows(&self, measured: &Passes<Backends, Vec<WakeRow>>) -> Vec<WakeRow> {
        measured.of(&Backends).into_iter().flatten().cloned().collect()
    }

    fn ratios(&self, measured: &Passes<Backends, Vec<WakeRow>>, rows: &mut [WakeRow]) {
        report::fill_ratios(measured, rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_parse_by_name_and_say_what_they_attach() {
        for b in WakeBackend::ALL {
            assert_eq!(b.name().parse::<WakeBackend>(), Ok(b));
            assert_eq!(serde_json::to_value(b).unwrap(), b.name());
        }
        assert!("uring".parse::<WakeBackend>().unwrap_err().contains("io_uring"));
        let shape: Vec<_> = WakeBackend::ALL.iter().map(|b| (b.words(), b.fds())).collect();
        assert_eq!(shape, [(1, 0), (8, 0), (1, 1), (1, 1)]);
        assert_eq!(WakeBackend::Epoll.backend(), Backend::Epoll);
    }
}
