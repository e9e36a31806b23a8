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
//! pass backwards (`pass_order`); ratios are taken within a pass and each scenario's
//! passes are summed up by `stats::combine`.

use crate::config::{FanoutConfig, Scenario};
use crate::interrupt;
use crate::launch::{Launch, Workers};
use crate::results::ResultsFile;
use crate::rundir::{RunDir, SHM};
use crate::runs;
use crate::stats::{self, PublishSamples, Row};
use crate::transports::{self, Fanout, Skip};
use crate::worker_main::{WorkerJob, WorkerSpec};
use anyhow::Result;
use ringbus::diagnostics::{monotonic_ns, SyscallCounter};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long subscribers get to start and settle.
const READY_LIMIT: Duration = Duration::from_secs(30);
/// How long subscribers get to receive the last message once it is published.
const EXIT_LIMIT: Duration = Duration::from_secs(30);

/// What the bench tells the user while it runs.
pub trait Progress {
    /// Scenario `index` of `total` starts; it will publish `ticks` ticks.
    fn scenario(&mut self, index: usize, total: usize, scenario: &Scenario, ticks: u64);
    /// One tick was published.
    fn tick(&mut self);
    /// A warning or a skipped row, with the reason.
    fn note(&mut self, text: &str);
}

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
    let run_dir = RunDir::create(Path::new(SHM), &mut |text| progress.note(text))?;
    let mut outcome = Outcome::default();
    let counter = match SyscallCounter::for_this_thread() {
        Ok(c) => Some(c),
        Err(e) => {
            progress.note(&format!("warning: system calls will not be counted (reported as n/a): {e}"));
            outcome.syscalls_unavailable = Some(e.to_string());
            None
        }
    };
    // Per scenario, its row of each pass, ratios filled within the pass.
    let mut measured: Vec<Vec<Row>> = vec![Vec::new(); config.scenarios.len()];
    for repetition in 0..config.repeat as usize {
        let (scenarios, mut rows): (Vec<usize>, Vec<Row>) =
            run_pass(config, repetition, &run_dir, counter.as_ref(), &mut outcome, progress)?.into_iter().unzip();
        stats::fill_ratios(&mut rows);
        for (k, row) in scenarios.into_iter().zip(rows) {
            measured[k].push(row);
        }
    }
    run_dir.close()?;
    outcome.rows = measured.iter().filter(|m| !m.is_empty()).map(|m| stats::combine(m)).collect();
    Ok(outcome)
}

/// Runs pass `repetition` of every scenario not skipped yet (a skip is recorded in
/// `outcome`); returns the rows measured, each with the index of its scenario.
fn run_pass(
    config: &FanoutConfig,
    repetition: usize,
    run_dir: &RunDir,
    counter: Option<&SyscallCounter>,
    outcome: &mut Outcome,
    progress: &mut dyn Progress,
) -> Result<Vec<(usize, Row)>> {
    let n = config.scenarios.len();
    let mut rows = Vec::new();
    for (step, k) in pass_order(n, repetition).enumerate() {
        let s = &config.scenarios[k];
        interrupt::check()?;
        if outcome.skipped.iter().any(|(skipped, _)| skipped == s) {
            continue;
        }
        let index = repetition * n + step;
        progress.scenario(index, n * config.repeat as usize, s, config.warmup + config.count);
        let dir = run_dir.path().join(format!("s{index}"));
        let tag = format!("{}-{index}", std::process::id());
        match runs::in_fresh_dir(&dir, |dir| run_scenario(s, dir, &tag, config, counter, progress)) {
            Ok(row) => rows.push((k, row)),
            Err(e) => match e.downcast::<Skip>() {
                Ok(skip) => {
                    progress.note(&format!("skipped {s}: {skip}"));
                    outcome.skipped.push((*s, skip.0));
                }
                Err(e) => return Err(e.context(format!("scenario {s}"))),
            },
        }
    }
    Ok(rows)
}

/// The scenarios of pass `repetition` in the order they run: every other pass backwards,
/// so that a pass starts with the scenario the previous one ended with (no light scenario
/// right after the heaviest, 128 processes leaving 1 MiB rings behind, which slowed the
/// first scenario of every pass several-fold), and each pair of transports runs in both
/// orders. (`runs::alternating`, which the other benches use, reverses only the variants
/// within each group, so every pass would still start with the lightest group.)
fn pass_order(n: usize, repetition: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |i| if repetition.is_multiple_of(2) { i } else { n - 1 - i })
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
    let (mut fanout, handoffs) = transports::setup(s, dir, tag, config.direct_wakes)?;
    if handoffs.is_empty() {
        // The idle floor: only the paced publishing loop, nobody to receive.
        let samples = publish_all(fanout.as_mut(), s, config, counter, progress)?;
        return Ok(stats::row(s, config.rate_hz, warmup, all, &samples, None));
    }
    let results_path = dir.join("results");
    let results = ResultsFile::create(&results_path, s.subs as usize, all)?;
    let mut launches = Vec::with_capacity(handoffs.len());
    let mut child_ends = Vec::new();
    for (i, h) in handoffs.into_iter().enumerate() {
        let spec = WorkerSpec {
            index: i as u32,
            subs: s.subs,
            topics: s.topics,
            payload_bytes: s.payload_bytes,
            transport: s.transport,
            messages,
            results: results_path.clone(),
            parent_pid: std::process::id(),
            endpoint: h.endpoint,
        };
        let arg = serde_json::to_string(&WorkerJob::Fanout(spec))?;
        launches.push(Launch { arg, inherit: h.inherit.into_iter().collect() });
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
    Ok(stats::row(s, config.rate_hz, warmup, all, &samples, Some(&results)))
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
    let period = Duration::from_secs_f64(1.0 / config.rate_hz);
    let mut next = Instant::now();
    for seq in 0..config.warmup + config.count {
        interrupt::check()?;
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        }
        // Late (the previous tick overran): start the next period now rather than burst.
        next = (next + period).max(Instant::now());
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
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::pass_order;

    #[test]
    fn every_other_pass_runs_backwards_and_starts_where_the_last_one_ended() {
        let passes: Vec<Vec<usize>> = (0..3).map(|r| pass_order(4, r).collect()).collect();
        assert_eq!(passes, [vec![0, 1, 2, 3], vec![3, 2, 1, 0], vec![0, 1, 2, 3]]);
    }
}
