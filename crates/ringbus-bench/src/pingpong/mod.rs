//! The ping-pong benchmark (`ringbus bench pingpong`): the latency of one message when
//! nothing else is going on. Two threads (or, with `processes`, two processes) pinned to
//! two CPUs: the initiator publishes on `ping` and waits for the echo on `pong`; the echo
//! side waits on `ping` and publishes on `pong`. A round trip is timed from one
//! initiator publish to the next (one clock read per round), and one way is half of it.
//!
//! ```text
//! floor              two 64-bit words on two cache lines: each side stores the round on
//!                    its own line and spins on the other's; nothing else (the least one
//!                    message between two cores can cost here)
//! ringbus  never     loan_uninit(size) → publish; the other side spins on take() and
//!                    drops the sample (Wake::Never subscribers: nothing sleeps)
//! ringbus  on-data   the same, but the waiting side sleeps in receive() and each publish
//!                    wakes it (Wake::OnData): what a wake-up costs on top
//! ringbus-take-with  busy-poll read in place with take_with(): no pin, no store the
//!          never     publisher reads
//! ```
//!
//! Loans are not written: a 1 MiB message costs what an 8-byte one does if nothing is
//! copied. Rows: the round trip's p50 and p99 over the measured rounds and its mean, the
//! median of each over the passes, and one way = round trip ÷ 2; every ringbus row's
//! one-way p50 ÷ the floor's, paired within a pass (the floor is measured in every pass,
//! the order of the rows reversed on odd passes).
//!
//! Shared cache lines one message moves between the two cores, busy-poll, one direction
//! (publisher on one core, subscriber spinning on the other; payload not written or read;
//! lines that only one side writes and nobody else reads on this path, and lines both
//! only read, stay in their cache and are not counted):
//!
//! ```text
//!                                              take()   take_with()  (before: take())
//! publish  claim the next chunk: generation store  1        0            1
//!            (its chunk-word line; take()'s pin and release wrote it)
//!          log entry (seqlock: mark, fields, sequence) 1    1            1
//!          published count (own line)               0*      0*           1
//!          wake word bump (the topic's line)        1       1            1
//! take     wake word load                          (same line as the bump)
//!          published count load                    0       0            (same line)
//!          log entry load                          (same line as its write)
//!          pin: holder bit fetch_or, generation    (same chunk-word line)
//!          release on drop: holder bit fetch_and   (same chunk-word line)
//!          held / taken / lost / read mark         0 (the subscriber's own slot)
//! lines moved per message                          3        2            4
//! ```
//!
//! `*` the count is still stored and an idle subscriber still reads it when the entry shows
//! nothing new, so the line moves while the subscriber waits, not between the publish and
//! the take. The floor moves one line each way.

pub mod plot;
pub mod report;
mod run;
mod sides;
pub(crate) mod worker;

use crate::config::WorkerLauncher;
use crate::driver::{self, Bench, Passes, Progress};
use crate::named::named;
use anyhow::Result;
use std::fmt;
use std::path::{Path, PathBuf};

pub use report::PingpongRow;

/// Most measured rounds per run: every round's time is kept until the run ends.
pub const MAX_ROUNDS: u64 = 50_000_000;

named! {
    /// What moves the message.
    pub enum Variant("variant") {
        /// Two words on two cache lines and nothing else.
        Floor = "floor",
        /// A ringbus topic each way, read with `take()` (or `receive()`): a pinned sample.
        Ringbus = "ringbus",
        /// The same, busy-poll only, read in place with `take_with()`: no pin.
        RingbusTakeWith = "ringbus-take-with",
    }
}

named! {
    /// How the waiting side waits.
    pub enum WakeMode("wake") {
        /// Spins on `take()` (a `Wake::Never` subscriber): busy-poll.
        Never = "never",
        /// Sleeps in `receive()` (a `Wake::OnData` subscriber) and is woken by the publish.
        OnData = "on-data",
    }
}

impl WakeMode {
    /// The subscribers' wake mode.
    pub fn wake(self) -> ringbus::Wake {
        match self {
            WakeMode::Never => ringbus::Wake::Never,
            WakeMode::OnData => ringbus::Wake::OnData,
        }
    }
}

/// One measured configuration: a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    pub variant: Variant,
    pub wake: WakeMode,
    /// Bytes per message (0 for the floor).
    pub payload_bytes: u64,
}

impl Point {
    /// The floor row's point.
    pub const FLOOR: Point = Point { variant: Variant::Floor, wake: WakeMode::Never, payload_bytes: 0 };
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.variant {
            Variant::Floor => f.write_str("floor"),
            v => write!(f, "{v} {} {}", self.wake, crate::config::format_size(self.payload_bytes)),
        }
    }
}

/// A whole ping-pong run.
#[derive(Debug, Clone)]
pub struct PingpongConfig {
    pub wakes: Vec<WakeMode>,
    pub sizes: Vec<u64>,
    /// Measured round trips per busy-poll run (the floor's too).
    pub rounds: u64,
    /// Measured round trips per on-data run (each is two wake-ups).
    pub on_data_rounds: u64,
    /// Passes over every row.
    pub repeat: u32,
    /// The initiator's CPU and the echo side's.
    pub cpus: (u32, u32),
    /// The echo side is another process (else a thread).
    pub processes: bool,
    /// Where the run directory is created (tmpfs).
    pub dir: PathBuf,
    pub worker: WorkerLauncher,
}

impl PingpongConfig {
    /// Measured rounds of a run of `point`.
    pub fn rounds_of(&self, point: &Point) -> u64 {
        match point.wake {
            WakeMode::Never => self.rounds,
            WakeMode::OnData => self.on_data_rounds,
        }
    }

    /// Unmeasured rounds first: a tenth of the measured ones, at least 100.
    pub fn warmup_of(&self, point: &Point) -> u64 {
        (self.rounds_of(point) / 10).max(100)
    }
}

/// Every pass: the floor, then every wake mode at every size, in reverse on odd passes.
impl Bench for PingpongConfig {
    type Point = Point;
    type Measured = run::Measurement;
    type Row = PingpongRow;

    fn passes(&self) -> u32 {
        self.repeat
    }

    fn plan(&self, pass: u32) -> Vec<Point> {
        let ringbus = driver::alternating(0, &self.wakes, &self.sizes, |wake, payload_bytes| {
            let variants = match wake {
                WakeMode::Never => vec![Variant::Ringbus, Variant::RingbusTakeWith],
                WakeMode::OnData => vec![Variant::Ringbus],
            };
            variants.into_iter().map(move |variant| Point { variant, wake, payload_bytes })
        });
        driver::backwards_on_odd(pass, &[vec![Point::FLOOR], ringbus.into_iter().flatten().collect()].concat())
    }

    fn files(&self) -> Option<&Path> {
        Some(&self.dir)
    }

    fn measure(&mut self, point: &Point, dir: &Path, _: &mut dyn Progress) -> Result<run::Measurement> {
        run::measure(self, point, dir)
    }

    fn rows(&self, measured: &Passes<Point, run::Measurement>) -> Vec<PingpongRow> {
        measured.rows(|point, runs| report::row(self, point, runs))
    }

    fn ratios(&self, measured: &Passes<Point, run::Measurement>, rows: &mut [PingpongRow]) {
        report::fill_ratios(measured, rows);
    }
}

/// Runs every pass of `config`: one row per point, ratios filled.
pub fn run(config: &PingpongConfig, progress: &mut dyn Progress) -> Result<Vec<PingpongRow>> {
    Ok(driver::run(&mut config.clone(), progress)?.rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_measures_the_floor_and_every_row_in_turn() {
        let config = PingpongConfig {
            wakes: vec![WakeMode::Never, WakeMode::OnData],
            sizes: vec![8, 4096],
            rounds: 1000,
            on_data_rounds: 10,
            repeat: 2,
            cpus: (0, 1),
            processes: false,
            dir: PathBuf::from("/nonexistent"),
            worker: WorkerLauncher { program: PathBuf::from("/bin/false"), args: vec![] },
        };
        let names = |pass| config.plan(pass).iter().map(|p| p.to_string()).collect::<Vec<_>>();
        let first = [
            "floor",
            "ringbus never 8B",
            "ringbus-take-with never 8B",
            "ringbus never 4KiB",
            "ringbus-take-with never 4KiB",
            "ringbus on-data 8B",
            "ringbus on-data 4KiB",
        ];
        assert_eq!(names(0), first);
        assert_eq!(names(1), first.iter().rev().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!((config.warmup_of(&Point::FLOOR), config.rounds_of(&Point::FLOOR)), (100, 1000));
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
        }
        assert_eq!("on-data".parse::<WakeMode>(), Ok(WakeMode::OnData));
    }
}
