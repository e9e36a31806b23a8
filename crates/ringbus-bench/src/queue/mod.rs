//! The command-queue benchmark (`ringbus bench queue`): what a push of a
//! fixed-size command into a bounded SPSC ring costs, with the producer's copy of the
//! consumer's position cached (loaded only when the copy says the ring is full) and
//! uncached (loaded on every call — a read of a cache line the consumer's core owns), with
//! rtrb and crossbeam's `ArrayQueue` as anchors, in the same invocation.
//!
//! ```text
//! variant            ring                          consumer                  pinned
//! cached             ringbus SPSC queue, cache on   another PROCESS (worker)  producer CPU P,
//! uncached           same, set_head_cache(false)    another PROCESS (worker)  consumer CPU C
//! cached-inprocess   ringbus SPSC queue, cache on   another THREAD            (--cpus P,C)
//! polling            same as cached, queue created  another PROCESS (worker)
//!                    with Wake::Never (never rung)
//! polling-uncached   polling, set_head_cache(false) another PROCESS (worker)
//! polling-inprocess  polling, cache on              another THREAD
//! rtrb               rtrb::RingBuffer               another THREAD
//! arrayqueue         crossbeam ArrayQueue (MPMC)    another THREAD
//! ```
//!
//! A queue that may have a sleeping consumer pays a full memory fence on every push (the
//! doorbell's store→load check for sleepers); the `polling` variants measure the same
//! queue created `Wake::Never`, whose consumer never sleeps — like rtrb's, which has no
//! way to sleep at all.
//!
//! Per run, in a fresh directory of the bench's run directory: the consumer pins itself,
//! says it is ready, and spins (never sleeps) popping up to 64 commands per call and
//! checking every sequence number; the producer pins itself, lets the consumer start,
//! pushes `warmup` unmeasured commands, then times `commands` pushes, `batch` per call. A
//! call that finds the ring full is retried at once and its time counts: then the
//! consumer's speed is the limit. Rows are per (variant, batch), the median over
//! `repeat` runs, the variants' order alternating between repetitions.

mod command;
pub(crate) mod consumer;
pub(crate) mod drive;
mod endpoints;
mod measure;
pub mod plot;
pub mod report;

pub mod service;

use crate::config::WorkerLauncher;
use crate::driver::{self, Bench, Passes, Progress};
use crate::named::named;
use anyhow::Result;
use measure::Measurement;
use std::fmt;
use std::path::{Path, PathBuf};

pub use drive::POP_BATCH;
pub use report::QueueRow;

/// Bytes of the command pushed (a `#[repr(C)]` struct of four `u64`s).
pub const COMMAND_BYTES: usize = std::mem::size_of::<command::Command>();
/// The ring sizes `--capacity` accepts: what a ringbus queue accepts.
pub const MIN_CAPACITY: u32 = 2;
pub const MAX_CAPACITY: u32 = 1 << 24;
/// Measured commands per run `--commands` accepts.
pub const MIN_COMMANDS: u64 = 1000;
pub const MAX_COMMANDS: u64 = 1_000_000_000;

/// Latches under each cross-process run's root: the consumer sets `ready` once pinned
/// with its queue open; the producer sets `start` once pinned.
pub(crate) const READY_LATCH: &str = "bench/ready";
pub(crate) const START_LATCH: &str = "bench/start";
/// The queue's name under each run's root.
pub(crate) const QUEUE: &str = "bench/commands";

named! {
    /// One row: a ring, and where its consumer runs.
    pub enum Variant("variant") {
        /// ringbus SPSC queue, producer caching the consumer's position; consumer process.
        Cached = "cached",
        /// The same, with the cache switched off at run time; consumer process.
        Uncached = "uncached",
        /// ringbus SPSC queue, cache on, consumer thread: like for like with the anchors.
        CachedInprocess = "cached-inprocess",
        /// ringbus SPSC queue created with `Wake::Never`, cache on; consumer process.
        Polling = "polling",
        /// The same, cache off; consumer process.
        PollingUncached = "polling-uncached",
        /// The same, cache on; consumer thread: like for like with the anchors.
        PollingInprocess = "polling-inprocess",
        /// rtrb's SPSC ring buffer, consumer thread.
        Rtrb = "rtrb",
        /// crossbeam-queue's bounded MPMC `ArrayQueue`, consumer thread.
        ArrayQueue = "arrayqueue",
    }
}

impl Variant {
    /// Whether the consumer is another process (else a thread of this one).
    pub fn cross_process(self) -> bool {
        matches!(self, Variant::Cached | Variant::Uncached | Variant::Polling | Variant::PollingUncached)
    }

    /// Whether the ring is ringbus's (it counts loads of the consumer's position).
    pub fn ringbus(self) -> bool {
        self.wake().is_some()
    }

    /// How a ringbus variant's queue is created (`None`: not a ringbus queue).
    pub fn wake(self) -> Option<ringbus::Wake> {
        match self {
            Variant::Cached | Variant::Uncached | Variant::CachedInprocess => Some(ringbus::Wake::OnData),
            Variant::Polling | Variant::PollingUncached | Variant::PollingInprocess => Some(ringbus::Wake::Never),
            Variant::Rtrb | Variant::ArrayQueue => None,
        }
    }

    /// Whether the producer loads the consumer's position on every push call.
    pub fn uncached(self) -> bool {
        matches!(self, Variant::Uncached | Variant::PollingUncached)
    }

    /// For a cached ringbus variant, the variant it is compared with: its uncached twin
    /// across processes, rtrb in-process.
    pub fn baseline(self) -> Option<Variant> {
        match self {
            Variant::Cached => Some(Variant::Uncached),
            Variant::Polling => Some(Variant::PollingUncached),
            Variant::CachedInprocess | Variant::PollingInprocess => Some(Variant::Rtrb),
            _ => None,
        }
    }
}

/// A whole queue run.
#[derive(Debug, Clone)]
pub struct QueueConfig {
    pub variants: Vec<Variant>,
    /// Commands per push call.
    pub batches: Vec<u32>,
    /// Commands the ring holds (a power of two).
    pub capacity: u32,
    /// Measured commands per run.
    pub commands: u64,
    /// Unmeasured commands pushed first in every run.
    pub warmup: u64,
    /// Runs of each (variant, batch); rows report the median.
    pub repeat: u32,
    /// The producer's CPU and the consumer's.
    pub cpus: (u32, u32),
    /// Where the run directory is created (tmpfs).
    pub dir: PathBuf,
    pub worker: WorkerLauncher,
}

/// A point of the sweep: one ring (with where its consumer runs) at one batch size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub variant: Variant,
    pub batch: u32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} batch {}", self.variant, self.batch)
    }
}

/// Every pass: the batches in the order given, the variants' order reversed on odd passes
/// so no variant always goes first; one row per point, the medians of its runs, each ratio
/// paired within a pass.
impl Bench for QueueConfig {
    type Point = Point;
    type Measured = Measurement;
    type Row = QueueRow;

    fn passes(&self) -> u32 {
        self.repeat
    }

    fn plan(&self, pass: u32) -> Vec<Point> {
        driver::alternating(pass, &self.batches, &self.variants, |batch, variant| Point { variant, batch })
    }

    fn files(&self) -> Option<&Path> {
        Some(&self.dir)
    }

    fn measure(&mut self, point: &Point, dir: &Path, _: &mut dyn Progress) -> Result<Measurement> {
        measure::measure(point, self, dir)
    }

    fn rows(&self, measured: &Passes<Point, Measurement>) -> Vec<QueueRow> {
        measured.rows(|point, runs| report::row(self, point, runs))
    }

    fn ratios(&self, measured: &Passes<Point, Measurement>, rows: &mut [QueueRow]) {
        report::fill_ratios(measured, rows);
    }
}

/// Runs every run of `config` in turn; one row per (variant, batch), ratios filled.
pub fn run(config: &QueueConfig, progress: &mut dyn Progress) -> Result<Vec<QueueRow>> {
    Ok(driver::run(&mut config.clone(), progress)?.rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_by_name_and_serialize_as_named() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
            assert_eq!(serde_json::to_value(v).unwrap(), v.name());
        }
        assert!("ringbus".parse::<Variant>().unwrap_err().contains("cached, uncached, cached-inprocess, polling"));
        let remote: Vec<_> = Variant::ALL.iter().map(|v| (v.cross_process(), v.ringbus(), v.uncached())).collect();
        let (t, f) = (true, false);
        assert_eq!(remote, [(t, t, f), (t, t, t), (f, t, f), (t, t, f), (t, t, t), (f, t, f), (f, f, f), (f, f, f)]);
        assert_eq!(COMMAND_BYTES, 32);
    }

    #[test]
    fn the_plan_alternates_the_variants_within_each_batch() {
        let config = QueueConfig {
            variants: vec![Variant::Cached, Variant::Rtrb],
            batches: vec![1, 64],
            capacity: 1024,
            commands: 1000,
            warmup: 0,
            repeat: 2,
            cpus: (0, 1),
            dir: PathBuf::from("/nonexistent"),
            worker: WorkerLauncher { program: PathBuf::from("/bin/false"), args: vec![] },
        };
        let names: Vec<String> = (0..2).flat_map(|pass| config.plan(pass)).map(|p| p.to_string()).collect();
        let (first, second) = names.split_at(4);
        assert_eq!(first, ["cached batch 1", "rtrb batch 1", "cached batch 64", "rtrb batch 64"]);
        assert_eq!(second, ["rtrb batch 1", "cached batch 1", "rtrb batch 64", "cached batch 64"]);
    }
}
