//! The polling benchmark: a node that receives topics and processes them in a 10 Hz timer,
//! as a typical ROS 2 node does (`three-topics`: A at 10 Hz, B at 30 Hz, C at 50 Hz; or
//! `scaled`: 20 topics), once with per-message callbacks and once with the timer taking
//! what it needs, in the same invocation.
//!
//! Per run, in a fresh ringbus root under the bench's run directory:
//!
//! ```text
//! bench:  publishers of every topic; a feeder thread publishes them on absolute due times
//!         (t0 + k / rate, never drifting) for the whole run
//!         start ONE subscriber process (this binary re-executed) for the style under test
//! worker: inputs = executor.input(topic.wake(OnData | Never).subscriber())   <- the only difference
//!         timer(100 ms) { latest() of every input; publish D = their sum }
//!         ready.set(); start.wait(); drain what queued up before the start
//!         before = (publishers' counters via inspect, executor stats, getrusage(SELF))
//!         spin_for(duration)
//!         after  = (getrusage(SELF), executor stats, publishers' counters); write the result
//! bench:  wait for the worker to exit (bounded, noticing a failure, Ctrl-C); stop feeding
//! ```
//!
//! The counters are read inside the usage window's edges, so the reads cost the window
//! nothing. Every run is checked: the polling style must cost publishers no wake system
//! call and wake its thread only for its timer, and every run's timer must have run about
//! ten times a second.

mod feeder;
mod measure;
pub mod plot;
pub mod report;

mod schedule;
pub(crate) mod worker;

use crate::config::WorkerLauncher;
use crate::driver::{self, Bench, Passes, Progress};
use crate::named::named;
use anyhow::Result;
use measure::Measurement;
use std::fmt;
use std::path::{Path, PathBuf};

pub use report::PollingRow;

/// Names of the latches under each run's root: the subscriber sets `ready` once its
/// executor is built; the bench sets `start` to open the measured window.
pub(crate) const READY_LATCH: &str = "bench/ready";
pub(crate) const START_LATCH: &str = "bench/start";

/// The node's timer rate.
pub const TIMER_HZ: u64 = 10;
/// Payload sizes `--size` accepts: room for the sequence number and topic index, up to
/// what keeps 20 topics' chunk pools small.
pub const MIN_PAYLOAD_BYTES: u64 = 16;
pub const MAX_PAYLOAD_BYTES: u64 = 64 << 10;

named! {
    /// Which node is measured.
    pub enum Scenario("scenario") {
        /// Three topics: A at 10 Hz, B at 30 Hz, C at 50 Hz (90 messages/s).
        ThreeTopics = "three-topics",
        /// 20 topics at rates spread evenly from 100 to 1000 Hz (about 11 000 messages/s).
        Scaled = "scaled",
    }
}

/// One input topic of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicRate {
    pub name: String,
    /// Messages per 1000 s (millihertz): exact integer due times for fractional rates.
    pub rate_mhz: u64,
}

impl Scenario {
    /// The input topics and their rates.
    pub fn topics(self) -> Vec<TopicRate> {
        let topic = |name: String, rate_mhz: u64| TopicRate { name, rate_mhz };
        match self {
            Scenario::ThreeTopics => {
                [("a", 10), ("b", 30), ("c", 50)].into_iter().map(|(name, hz)| topic(name.into(), hz * 1000)).collect()
            }
            Scenario::Scaled => (0..20u64).map(|i| topic(format!("t{i:02}"), 100_000 + i * 900_000 / 19)).collect(),
        }
    }

    /// Messages per second over all topics.
    pub fn rate_hz(self) -> f64 {
        self.topics().iter().map(|t| t.rate_mhz as f64 / 1000.0).sum()
    }
}

named! {
    /// How the node takes its messages: the subscribers' wake mode.
    pub enum Style("style") {
        /// `Wake::OnData`: the executor wakes for every message and queues it for the timer.
        Callback = "callback",
        /// `Wake::Never`: the timer reads shared memory; nothing else wakes the thread.
        Polling = "polling",
    }
}

impl Style {
    /// The subscribers' wake mode: the one line that differs between the styles.
    pub fn wake(self) -> ringbus::Wake {
        match self {
            Style::Callback => ringbus::Wake::OnData,
            Style::Polling => ringbus::Wake::Never,
        }
    }
}

/// A whole polling run.
#[derive(Debug, Clone)]
pub struct PollingConfig {
    pub scenarios: Vec<Scenario>,
    pub payload_bytes: u64,
    /// The measured window of every run.
    pub duration_ns: u64,
    /// Runs of each (scenario, style); rows report the median.
    pub repeat: u32,
    /// Where the run directory is created (tmpfs).
    pub dir: PathBuf,
    pub worker: WorkerLauncher,
}

/// A point of the sweep: one node style in one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub scenario: Scenario,
    pub style: Style,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.scenario, self.style)
    }
}

/// Every pass: the scenarios in the order given, the styles' order alternating between
/// passes so neither always goes first; one row per point, the medians of its runs, with
/// the polling ÷ callback ratios paired within a pass.
impl Bench for PollingConfig {
    type Point = Point;
    type Measured = Measurement;
    type Row = PollingRow;

    fn passes(&self) -> u32 {
        self.repeat
    }

    fn plan(&self, pass: u32) -> Vec<Point> {
        driver::alternating(pass, &self.scenarios, &Style::ALL, |scenario, style| Point { scenario, style })
    }

    fn files(&self) -> Option<&Path> {
        Some(&self.dir)
    }

    fn measure(&mut self, point: &Point, dir: &Path, _: &mut dyn Progress) -> Result<Measurement> {
        measure::measure(point, self, dir)
    }

    fn rows(&self, measured: &Passes<Point, Measurement>) -> Vec<PollingRow> {
        measured.rows(|point, runs| report::row(self, point, runs))
    }

    fn ratios(&self, measured: &Passes<Point, Measurement>, rows: &mut [PollingRow]) {
        report::fill_ratios(measured, rows);
    }
}

/// Runs every run of `config` in turn; one row per (scenario, style), with ratios.
pub fn run(config: &PollingConfig, progress: &mut dyn Progress) -> Result<Vec<PollingRow>> {
    Ok(driver::run(&mut config.clone(), progress)?.rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_have_their_rates_and_parse_by_name() {
        for s in Scenario::ALL {
            assert_eq!(s.name().parse::<Scenario>(), Ok(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
        }
        assert!("nope".parse::<Scenario>().unwrap_err().contains("three-topics, scaled"));
        let rates: Vec<u64> = Scenario::ThreeTopics.topics().iter().map(|t| t.rate_mhz).collect();
        assert_eq!(rates, [10_000, 30_000, 50_000]);
        let scaled = Scenario::Scaled.topics();
        assert_eq!((scaled.len(), scaled[0].rate_mhz, scaled[19].rate_mhz), (20, 100_000, 1_000_000));
        assert!(scaled.windows(2).all(|w| w[1].rate_mhz > w[0].rate_mhz));
        assert!((Scenario::Scaled.rate_hz() - 11_000.0).abs() < 1.0, "{}", Scenario::Scaled.rate_hz());
        assert_eq!(serde_json::to_value(Style::Polling).unwrap(), "polling");
    }

    #[test]
    fn styles_alternate_between_repetitions() {
        let config = PollingConfig {
            scenarios: Scenario::ALL.to_vec(),
            payload_bytes: 256,
            duration_ns: 1,
            repeat: 2,
            dir: PathBuf::from("/nonexistent"),
            worker: WorkerLauncher { program: PathBuf::from("/bin/false"), args: vec![] },
        };
        let names: Vec<String> = (0..2).flat_map(|pass| config.plan(pass)).map(|p| p.to_string()).collect();
        assert_eq!(
            names,
            [
                "three-topics callback",
                "three-topics polling",
                "scaled callback",
                "scaled polling",
                "three-topics polling",
                "three-topics callback",
                "scaled polling",
                "scaled callback"
            ]
        );
    }
}
