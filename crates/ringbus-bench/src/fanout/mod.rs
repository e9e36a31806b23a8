//! The fan-out benchmark: one publisher (this process) and N subscriber processes blocked
//! waiting, for each transport, through the same harness — Agnocast's "publish latency and
//! end-to-end latency vs subscriber count" experiment.
//!
//! Per scenario: a fresh directory under the run's tmpfs directory (ringbus root, results
//! file, slot ring); subscriber processes started and waited for (ready, and for ringbus
//! asleep); `warmup + count` ticks at `rate_hz`, each publishing one message per topic:
//!
//! ```text
//! c = counter.start(); t0 = monotonic_ns(); publish(topic, seq, t0); t1 = monotonic_ns();
//! syscalls = counter.since(c)          // the counter's own reads are outside t0..t1
//! ```
//! The first topic's `t0` of a tick is the tick's start, from which the *tick e2e* is
//! measured (with several topics, a message's own `t0` is later by the publishes before it).
//! then the subscribers exit after the last message and their results file is read.
//!
//! With `repeat` > 1 the whole list of scenarios runs again, pass after pass, every other
//! pass backwards (see [`Bench::plan`] below); each scenario's passes are summed up by
//! `row::combine`, and its ratios paired within a pass (`row::fill_ratios`).
//!
//! Each side also reads what it spent over the measured messages (`getrusage`: the
//! publishing thread, each subscriber process): the row's `cost` (`cost.rs`).
//!
//! `ringbus-reliable` is the ringbus scenario with the first `config.reliable` subscribers
//! reliable: its row adds how many measured publishes waited for one of them to take a
//! message (read from the publishers' stats at the end of warm-up and at the end), and its
//! ratios to the lossy ringbus row of the same pass (`reliable`).

mod cost;
pub mod plot;
mod reliable;
pub mod report;
mod results;
mod row;
pub(crate) mod subscriber;
pub mod verdict;

pub use cost::Cost;
pub use reliable::Reliable;
pub use row::Row;

use crate::config::{FanoutConfig, Scenario};
use crate::driver::{self, Bench, Passes, Progress};
use crate::interrupt;
use crate::launch::{Launch, Workers};
use crate::pace::Pacer;
use crate::rundir::SHM;
use crate::transports::{self, Fanout};
use crate::usage::Usage;
use crate::worker_main::WorkerJob;
use anyhow::Result;
use results::ResultsFile;
use ringbus::diagnostics::{monotonic_ns, SyscallCounter};
use row::PublishSamples;
use std::path::Path;
use std::time::Duration;
use subscriber::SubscriberSpec;

/// How long subscribers get to start and settle.
const READY_LIMIT: Duration = Duration::from_secs(30);
/// How long subscribers get to receive the last message once it is published.
const EXIT_LIMIT: Duration = Duration::from_secs(30);

/// The rows measured, and what could not be.
#[derive(Debug, Default)]
pub struct Outcome {
    pub rows: Vec<Row>,
    pub skipped: Vec<(Scenario, String)>,
    /// Why system calls were not counted, if they were not.
    pub syscalls_unavailable: Option<String>,
}

/// Runs every scenario of `config` in turn, in `config.repeat` passes.
pub fn run(config: &FanoutConfig, progress: &mut dyn Progress) -> Result<Outcome> {
    let mut bench = FanoutBench { config, counter: None, syscalls_unavailable: None, runs: 0 };
    let outcome = driver::run(&mut bench, progress)?;
    Ok(Outcome { rows: outcome.rows, skipped: outcome.skipped, syscalls_unavailable: bench.syscalls_unavailable })
}

struct FanoutBench<'a> {
    config: &'a FanoutConfig,
    /// This thread's system-call counter, if the machine lets us count.
    counter: Option<SyscallCounter>,
    syscalls_unavailable: Option<String>,
    /// Runs started: makes system-wide names (message queues) unique to a run.
    runs: usize,
}

impl Bench for FanoutBench<'_> {
    type Point = Scenario;
    type Measured = Row;
    type Row = Row;

    const RUN: &'static str = "scenario";

    fn passes(&self) -> u32 {
        self.config.repeat
    }

    /// Every other pass backwards, so that a pass starts with the scenario the previous one
    /// ended with (no light scenario right after the heaviest, 128 processes leaving 1 MiB
    /// rings behind, which slowed the first scenario of every pass several-fold), and each
    /// pair of transports runs in both orders. (The other benches' `driver::alternating`
    /// reverses only the variants within each group, so every pass would still start with
    /// the lightest group.)
    fn plan(&self, pass: u32) -> Vec<Scenario> {
        driver::backwards_on_odd(pass, &self.config.scenarios)
    }

    fn files(&self) -> Option<&Path> {
        Some(Path::new(SHM))
    }

    fn ticks(&self) -> u64 {
        self.config.warmup + self.config.count
    }

    fn start(&mut self, progress: &mut dyn Progress) -> Result<()> {
        match SyscallCounter::for_this_thread() {
            Ok(c) => self.counter = Some(c),
            Err(e) => {
                progress.note(&format!("warning: system calls will not be counted (reported as n/a): {e}"));
                self.syscalls_unavailable = Some(e.to_string());
            }
        }
        Ok(())
    }

    fn measure(&mut self, s: &Scenario, dir: &Path, progress: &mut dyn Progress) -> Result<Row> {
        let tag = format!("{}-{}", std::process::id(), self.runs);
        self.runs += 1;
        run_scenario(s, dir, &tag, self.config, self.counter.as_ref(), progress)
    }

    fn rows(&self, measured: &Passes<Scenario, Row>) -> Vec<Row> {
        measured.rows(|_, passes| row::combine(passes))
    }

    fn ratios(&self, measured: &Passes<Scenario, Row>, rows: &mut [Row]) {
        row::fill_ratios(measured, rows);
    }
}

fn run_scenario(
    s: &Scenario,
    dir: &Path,
    tag: &str,
    config: &FanoutConfig,
    counter: Option<&SyscallCounter>,
    progress: &mut dyn Progress,
) -> Result<Row> {
    let messages = config.warmup + config.count;
    let (warmup, all) = (config.warmup as usize, usize::try_from(messages)?);
    let (mut fanout, handoffs) = transports::setup(s, dir, tag, config)?;
    if handoffs.is_empty() {
        // The idle floor: only the paced publishing loop, nobody to receive.
        let samples = publish_all(fanout.as_mut(), s, config, counter, progress)?;
        return Ok(row::row(s, config.rate_hz, warmup, all, &samples, None));
    }
    let results_path = dir.join("results");
    let results = ResultsFile::create(&results_path, s.subs as usize, all)?;
    let mut launches = Vec::with_capacity(handoffs.len());
    let mut child_ends = Vec::new();
    for (i, h) in handoffs.into_iter().enumerate() {
        let spec = SubscriberSpec {
            index: i as u32,
            subs: s.subs,
            topics: s.topics,
            payload_bytes: s.payload_bytes,
            transport: s.transport,
            messages,
            warmup: config.warmup,
            results: results_path.clone(),
            endpoint: h.endpoint,
        };
        launches.push(Launch::new(WorkerJob::Fanout(spec), h.inherit.into_iter().collect())?);
        child_ends.extend(h.child_end);
    }
    let mut workers = Workers::spawn(&config.worker, "subscriber", launches)?;
    drop(child_ends);
    let hint = "try fewer --subs or --topics";
    workers.wait_ready(&|| results.ready(), s.subs as u64, &|| fanout.settled(), READY_LIMIT, hint)?;
    fanout.all_ready();
    let samples = publish_all(fanout.as_mut(), s, config, counter, progress)?;
    let hint = "they had not received the last message; some messages were lost, \
                or the machine is overloaded (try a lower --rate)";
    workers.wait_exit(EXIT_LIMIT, hint)?;
    Ok(row::row(s, config.rate_hz, warmup, all, &samples, Some(&results)))
}

/// The paced publishing loop; only `publish` sits between t0 and t1.
fn publish_all(
    fanout: &mut dyn Fanout,
    s: &Scenario,
    config: &FanoutConfig,
    counter: Option<&SyscallCounter>,
    progress: &mut dyn Progress,
) -> Result<PublishSamples> {
    let mut samples = PublishSamples::new(counter.is_some());
    let mut pacer = Pacer::new(config.rate_hz);
    let mut blocked_in_warmup = None;
    let mut cpu_in_warmup = (config.warmup == 0).then(Usage::of_thread).transpose()?;
    for seq in 0..config.warmup + config.count {
        interrupt::check()?;
        if seq == config.warmup {
            blocked_in_warmup = fanout.blocked();
            cpu_in_warmup = Some(Usage::of_thread()?);
        }
        pacer.wait();
        let warm = seq < config.warmup;
        let mut tick_start = None;
        for topic in 0..s.topics {
            let all_asleep = fanout.asleep(topic).map(|n| n >= s.subs_of(topic));
            let start = counter.map(SyscallCounter::start).transpose()?;
            let t0 = monotonic_ns();
            samples.add_tick_offset(t0 - *tick_start.get_or_insert(t0));
            fanout.publish(topic, seq, t0, warm)?;
            let t1 = monotonic_ns();
            let syscalls = match (counter, start) {
                (Some(c), Some(start)) => Some(c.since(start)?),
                _ => None,
            };
            if !warm {
                samples.add(t1 - t0, syscalls, all_asleep);
            }
        }
        progress.tick();
    }
    samples.blocked = fanout.blocked().zip(blocked_in_warmup).map(|(all, warmup)| all.since(warmup));
    samples.cpu = cpu_in_warmup.map(|warmup| Usage::of_thread().map(|all| all.since(warmup))).transpose()?;
    Ok(samples)
}
