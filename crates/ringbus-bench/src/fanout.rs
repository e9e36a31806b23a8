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
//! then the subscribers exit after the last message and their results file is read.

use crate::config::{FanoutConfig, Scenario};
use crate::interrupt;
use crate::results::ResultsFile;
use crate::stats::{self, PublishSamples, Row};
use crate::transports::{self, Fanout, Skip};
use crate::worker::WorkerSpec;
use crate::workers::Workers;
use anyhow::{Context, Result};
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

/// Where runs keep their files; each run's directory is `ringbus-bench-<random>`.
const SHM: &str = "/dev/shm";
const RUN_PREFIX: &str = "ringbus-bench-";

/// A run holds an exclusive `flock` on this file in its directory for as long as it lives;
/// the kernel drops it when the process dies, however it dies.
const LOCK_FILE: &str = "lock";

/// Opens `dir/lock` and tries to lock it exclusively; `Some(file)` holds the lock.
fn try_lock(dir: &Path) -> Option<std::fs::File> {
    let file =
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(dir.join(LOCK_FILE));
    let file = file.ok()?;
    // SAFETY: flock on an fd we own; LOCK_NB makes it return at once.
    let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    locked.then_some(file)
}

/// Removes the directories of earlier runs that no live process holds (runs killed with
/// SIGKILL, the one exit that leaves no chance to clean up; their subscribers died with
/// them). Lock files younger than a few seconds are left alone: their run may be between
/// creating and locking it.
fn sweep_stale_runs(progress: &mut dyn Progress) {
    let Ok(entries) = std::fs::read_dir(SHM) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let age = std::fs::metadata(path.join(LOCK_FILE)).and_then(|m| m.modified()).map(|t| t.elapsed());
        let old = matches!(age, Ok(Ok(age)) if age > Duration::from_secs(5));
        if !entry.file_name().to_string_lossy().starts_with(RUN_PREFIX) || !old {
            continue;
        }
        if let Some(_lock) = try_lock(&path) {
            if std::fs::remove_dir_all(&path).is_ok() {
                progress.note(&format!("removed {}, left by a bench run that was killed", path.display()));
            }
        }
    }
}

/// Runs every scenario of `config` in turn.
pub fn run(config: &FanoutConfig, progress: &mut dyn Progress) -> Result<Outcome> {
    sweep_stale_runs(progress);
    let run_dir = tempfile::Builder::new()
        .prefix(RUN_PREFIX)
        .tempdir_in(SHM)
        .context("cannot create a directory in /dev/shm; the bench needs a tmpfs there (docker: --shm-size)")?;
    let _lock = try_lock(run_dir.path()).context("cannot lock the bench's directory in /dev/shm")?;
    let mut outcome = Outcome::default();
    let counter = match SyscallCounter::for_this_thread() {
        Ok(c) => Some(c),
        Err(e) => {
            progress.note(&format!("warning: system calls will not be counted (reported as n/a): {e}"));
            outcome.syscalls_unavailable = Some(e.to_string());
            None
        }
    };
    let total = config.scenarios.len();
    for (k, s) in config.scenarios.iter().enumerate() {
        interrupt::check()?;
        progress.scenario(k, total, s, config.warmup + config.count);
        let dir = run_dir.path().join(format!("s{k}"));
        std::fs::create_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let tag = format!("{}-{k}", std::process::id());
        match run_scenario(s, &dir, &tag, config, counter.as_ref(), progress) {
            Ok(row) => outcome.rows.push(row),
            Err(e) => match e.downcast::<Skip>() {
                Ok(skip) => {
                    progress.note(&format!("skipped {s}: {skip}"));
                    outcome.skipped.push((*s, skip.0));
                }
                Err(e) => return Err(e.context(format!("scenario {s}"))),
            },
        }
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    run_dir.close().context("cannot remove the bench's directory in /dev/shm")?;
    stats::fill_ratios(&mut outcome.rows);
    Ok(outcome)
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
    let results_path = dir.join("results");
    let results = ResultsFile::create(&results_path, s.subs as usize, usize::try_from(messages)?)?;
    let (mut fanout, handoffs) = transports::setup(s, dir, tag)?;
    let mut specs = Vec::with_capacity(handoffs.len());
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
        specs.push((spec, h.inherit));
        child_ends.extend(h.child_end);
    }
    let mut workers = Workers::spawn(&config.worker, specs)?;
    drop(child_ends);
    workers.wait_ready(&results, s.subs as u64, &|| fanout.settled(), READY_LIMIT)?;
    fanout.all_ready();
    let samples = publish_all(fanout.as_mut(), s, config, counter, progress)?;
    workers.wait_exit(EXIT_LIMIT)?;
    let (warmup, messages) = (config.warmup as usize, messages as usize);
    Ok(stats::row(s, config.rate_hz, warmup, messages, &samples, &results))
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
        for topic in 0..s.topics {
            let all_asleep = fanout.asleep(topic).map(|n| n >= s.subs_of(topic));
            let start = counter.map(SyscallCounter::start).transpose()?;
            let t0 = monotonic_ns();
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
