//! The memory benchmark (`ringbus bench memory`): how much shared memory a publisher's
//! chunks hold when each chunk gets memory as it is lent (a sparse payload area, whole
//! pages reserved and trimmed per loan), against what is actually in flight; and what that
//! costs in latency against a pool preallocated up front.
//!
//! Every run is real processes in a fresh ringbus root (a directory of the run directory
//! on tmpfs, removed afterwards): a publisher process and one or more subscriber processes
//! (this binary re-executed), the subscribers asleep in `receive()`.
//!
//! ```text
//! scenario    rate     sizes                   max_payload_bytes  subscribers
//! tiny        1000 Hz  5 B                     64 MiB             1
//! camera      30 Hz    100 KiB..6 MiB uniform  6 MiB              2, one holds each sample 100 ms
//! pointcloud  10 Hz    1..16 MiB uniform       16 MiB             1
//! ```
//!
//! Memory, sampled by the publisher after every publish (and once at the end):
//!
//! ```text
//! reserved   Σ st_blocks × 512 over every file of the root (what the kernel holds)
//! payload    Publisher::reserved_payload_bytes() (its own account of its chunks)
//! in flight  the last `depth` messages published (a subscriber can still take them)
//!            + the loan being written + samples a subscriber holds that left the log
//!            (the holder lists what it holds on a shared board; position < n - depth)
//! ```
//!
//! and the peak of each over the run, with the exact system calls of each loan and publish
//! where the machine can count them.
//!
//! Latency, on demand against `.preallocate(true)`, alternating between repetitions:
//! publish = `loan_uninit()` + `publish()` (the payload write between them left out), end
//! to end = from before the loan to the subscriber process holding the sample, its start
//! time carried in the first 8 payload bytes.

mod board;
pub mod plot;
pub(crate) mod publisher;
pub mod report;
mod run;
mod size_classes;
mod stream;
pub(crate) mod subscriber;

pub use report::{LatencyRow, MemoryRow};

use crate::config::{format_size, WorkerLauncher};
use crate::driver::{self, Bench, Passes, Progress};
use crate::named::named;
use anyhow::Result;
use run::{Ran, RunSpec};
use std::fmt;
use std::path::{Path, PathBuf};
use stream::{Sizes, TopicSpec};

pub const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

named! {
    /// A stream of messages, as a sensor would publish it.
    pub enum Scenario("scenario") {
        /// 5-byte messages at 1000 Hz on a topic whose largest message is 64 MiB.
        Tiny = "tiny",
        /// 30 Hz, 100 KiB to 6 MiB; two subscribers, one holding each sample 100 ms.
        Camera = "camera",
        /// 10 Hz, 1 to 16 MiB.
        Pointcloud = "pointcloud",
    }
}

named! {
    /// How a publisher's chunks get their memory.
    pub enum Variant("variant") {
        /// As each chunk is lent (the default for messages over a page).
        OnDemand = "on-demand",
        /// All of it when the publisher is created (`.preallocate(true)`).
        Preallocated = "preallocated",
    }
}

/// What a scenario publishes, and who takes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    pub max_payload_bytes: u64,
    pub rate_hz: f64,
    /// Message sizes, uniform in `min_bytes..=max_bytes`.
    pub min_bytes: u64,
    pub max_bytes: u64,
    pub subscribers: u32,
    /// How long the last subscriber holds each sample (the others drop it at once).
    pub hold_ms: Option<u64>,
    /// Samples one subscriber may hold (`None`: the topic's default).
    pub max_held: Option<u32>,
    pub messages: u64,
    pub quick_messages: u64,
}

/// The most a scenario's run may reserve: `in_flight_factor` × its peak in flight
/// + `plus_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub in_flight_factor: u64,
    pub plus_bytes: u64,
}

impl Limit {
    pub fn bytes(self, in_flight: u64) -> u64 {
        self.in_flight_factor * in_flight + self.plus_bytes
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.in_flight_factor {
            0 => write!(f, "≤ {}", format_size(self.plus_bytes)),
            k => write!(f, "≤ {k} × in flight + {}", format_size(self.plus_bytes)),
        }
    }
}

impl Scenario {
    pub fn shape(self) -> Shape {
        match self {
            Scenario::Tiny => Shape {
                max_payload_bytes: 64 * MIB,
                rate_hz: 1000.0,
                min_bytes: 5,
                max_bytes: 5,
                subscribers: 1,
                hold_ms: None,
                max_held: None,
                messages: 5000,
                quick_messages: 500,
            },
            Scenario::Camera => Shape {
                max_payload_bytes: 6 * MIB,
                rate_hz: 30.0,
                min_bytes: 100 * KIB,
                max_bytes: 6 * MIB,
                subscribers: 2,
                hold_ms: Some(100),
                max_held: Some(8),
                messages: 300,
                quick_messages: 60,
            },
            Scenario::Pointcloud => Shape {
                max_payload_bytes: 16 * MIB,
                rate_hz: 10.0,
                min_bytes: MIB,
                max_bytes: 16 * MIB,
                subscribers: 1,
                hold_ms: None,
                max_held: None,
                messages: 100,
                quick_messages: 30,
            },
        }
    }

    /// The message sizes of a run drawn with `seed`.
    pub(crate) fn sizes(self, seed: u64) -> Sizes {
        let shape = self.shape();
        Sizes { min: shape.min_bytes, max: shape.max_bytes, seed }
    }

    /// What the run may reserve at its peak.
    pub fn limit(self) -> Limit {
        match self {
            Scenario::Tiny => Limit { in_flight_factor: 0, plus_bytes: 2 * MIB },
            Scenario::Camera | Scenario::Pointcloud => Limit { in_flight_factor: 2, plus_bytes: 2 * MIB },
        }
    }
}

/// One latency load: a message size and its pace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyLoad {
    pub payload_bytes: u64,
    pub rate_hz: f64,
    pub messages: u64,
    pub quick_messages: u64,
}

pub const LATENCY_LOADS: [LatencyLoad; 2] = [
    LatencyLoad { payload_bytes: 64, rate_hz: 1000.0, messages: 3000, quick_messages: 500 },
    LatencyLoad { payload_bytes: MIB, rate_hz: 200.0, messages: 1000, quick_messages: 200 },
];
/// Both latency topics' largest message.
pub const LATENCY_MAX_PAYLOAD_BYTES: u64 = MIB;
/// Unmeasured messages first in each latency run (every chunk in rotation gets its memory).
pub const LATENCY_WARMUP: u64 = 50;
/// Target: on demand at most this many times the preallocated p50 (publish and end to end).
pub const TARGET_RATIO: f64 = 1.1;

/// A whole memory run.
#[derive(Debug, Clone)]
pub struct MemoryConfig {
    pub scenarios: Vec<Scenario>,
    /// Seeds the message sizes of every scenario.
    pub seed: u64,
    /// The scenarios' topics' log depth (`None`: the default).
    pub depth: Option<u32>,
    /// Shorter runs (each shape's and load's `quick_messages`).
    pub quick: bool,
    /// Latency repetitions, each with both variants at both sizes; 0: no latency runs.
    pub repeat: u32,
    /// Where the run directory is created (tmpfs).
    pub dir: PathBuf,
    pub worker: WorkerLauncher,
}

/// The rows of both parts.
#[derive(Debug, Default)]
pub struct Outcome {
    pub memory: Vec<MemoryRow>,
    pub latency: Vec<LatencyRow>,
}

/// Runs every scenario, then the latency repetitions.
pub fn run(config: &MemoryConfig, progress: &mut dyn Progress) -> Result<Outcome> {
    let memory = driver::run(&mut Scenarios(config), progress)?.rows;
    let latency = driver::run(&mut Latency(config), progress)?.rows;
    Ok(Outcome { memory, latency })
}

impl MemoryConfig {
    fn messages(&self, full: u64, quick: u64) -> u64 {
        if self.quick {
            quick
        } else {
            full
        }
    }
}

/// The memory part: each scenario once.
struct Scenarios<'a>(&'a MemoryConfig);

impl Bench for Scenarios<'_> {
    type Point = Scenario;
    type Measured = Ran;
    type Row = MemoryRow;

    const RUN: &'static str = "scenario";

    fn passes(&self) -> u32 {
        1
    }

    fn plan(&self, _: u32) -> Vec<Scenario> {
        self.0.scenarios.clone()
    }

    fn files(&self) -> Option<&Path> {
        Some(&self.0.dir)
    }

    fn start(&mut self, progress: &mut dyn Progress) -> Result<()> {
        if let Err(e) = ringbus::diagnostics::SyscallCounter::for_this_thread() {
            progress.note(&format!("warning: system calls will not be counted (reported as n/a): {e}"));
        }
        Ok(())
    }

    fn measure(&mut self, scenario: &Scenario, dir: &Path, _: &mut dyn Progress) -> Result<Ran> {
        let shape = scenario.shape();
        let spec = RunSpec {
            topic: TopicSpec {
                name: format!("memory/{scenario}"),
                max_payload_bytes: shape.max_payload_bytes,
                depth: self.0.depth,
                max_held: shape.max_held,
                preallocate: false,
            },
            sizes: scenario.sizes(self.0.seed),
            rate_hz: shape.rate_hz,
            messages: self.0.messages(shape.messages, shape.quick_messages),
            warmup: 0,
            subscribers: shape.subscribers,
            hold_ms: shape.hold_ms,
            timed: false,
        };
        run::run(&spec, dir, &self.0.worker)
    }

    fn rows(&self, measured: &Passes<Scenario, Ran>) -> Vec<MemoryRow> {
        measured.rows(|&scenario, runs| report::memory_row(scenario, self.0.seed, runs[0]))
    }
}

/// A point of the latency part: one variant at one load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyPoint {
    pub variant: Variant,
    pub load: LatencyLoad,
}

impl fmt::Display for LatencyPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.variant, format_size(self.load.payload_bytes))
    }
}

/// The latency part: `repeat` passes, the variants' order alternating between them.
struct Latency<'a>(&'a MemoryConfig);

impl Bench for Latency<'_> {
    type Point = LatencyPoint;
    type Measured = Ran;
    type Row = LatencyRow;

    fn passes(&self) -> u32 {
        self.0.repeat
    }

    fn plan(&self, pass: u32) -> Vec<LatencyPoint> {
        driver::alternating(pass, &LATENCY_LOADS, &Variant::ALL, |load, variant| LatencyPoint { variant, load })
    }

    fn files(&self) -> Option<&Path> {
        Some(&self.0.dir)
    }

    fn measure(&mut self, point: &LatencyPoint, dir: &Path, _: &mut dyn Progress) -> Result<Ran> {
        let bytes = point.load.payload_bytes;
        let spec = RunSpec {
            topic: TopicSpec {
                name: "memory/latency".into(),
                max_payload_bytes: LATENCY_MAX_PAYLOAD_BYTES,
                depth: None,
                max_held: None,
                preallocate: point.variant == Variant::Preallocated,
            },
            sizes: Sizes { min: bytes, max: bytes, seed: 0 },
            rate_hz: point.load.rate_hz,
            messages: LATENCY_WARMUP + self.0.messages(point.load.messages, point.load.quick_messages),
            warmup: LATENCY_WARMUP,
            subscribers: 1,
            hold_ms: None,
            timed: true,
        };
        run::run(&spec, dir, &self.0.worker)
    }

    fn rows(&self, measured: &Passes<LatencyPoint, Ran>) -> Vec<LatencyRow> {
        measured.rows(|&point, runs| report::latency_row(point, runs))
    }

    fn ratios(&self, measured: &Passes<LatencyPoint, Ran>, rows: &mut [LatencyRow]) {
        report::fill_ratios(measured, rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_and_variants_parse_by_name_and_limits_read_as_written() {
        for s in Scenario::ALL {
            assert_eq!(s.name().parse::<Scenario>(), Ok(s));
            let shape = s.shape();
            assert!(shape.min_bytes <= shape.max_bytes && shape.max_bytes <= shape.max_payload_bytes, "{s}");
            assert!(shape.quick_messages < shape.messages, "{s}");
        }
        assert!("lidar".parse::<Scenario>().unwrap_err().contains("tiny, camera, pointcloud"));
        assert_eq!(Variant::ALL.map(|v| v.name()), ["on-demand", "preallocated"]);
        assert_eq!(Scenario::Tiny.limit().to_string(), "≤ 2MiB");
        assert_eq!(Scenario::Tiny.limit().bytes(10 * MIB), 2 * MIB);
        assert_eq!(Scenario::Camera.limit().to_string(), "≤ 2 × in flight + 2MiB");
        assert_eq!(Scenario::Camera.limit().bytes(10 * MIB), 22 * MIB);
    }
}
