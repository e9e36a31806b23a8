//! The token bench's rows — per (workers, mechanism) the median of its runs, the semaphore
//! rows' ratios against the pipe runs of the same worker count, paired within a pass — as
//! markdown: a row per point, then the semaphore ÷ pipe ratios against their targets.

use super::scenario::Measurement;
use super::{Mechanism, Point, TokensConfig};
use crate::driver::Passes;
use crate::report::{times, verdict, Table};
use crate::stats::{median, median_of};
use serde::Serialize;

/// One (workers, mechanism) result. Every figure is the median over `repeat` runs (the
/// lower middle one for an even count); CPU time and context switches are summed over
/// the workers, from the start signal to the end of each worker's loop.
#[derive(Debug, Clone, Serialize)]
pub struct TokensRow {
    pub mechanism: Mechanism,
    pub workers: u32,
    pub tokens: u32,
    /// Jobs run in each run (checked to be exactly the number asked for).
    pub jobs: u64,
    pub job_us: u64,
    pub repeat: u32,
    pub wall_s: f64,
    pub user_cpu_s: f64,
    pub sys_cpu_s: f64,
    pub voluntary_ctx_switches: u64,
    pub involuntary_ctx_switches: u64,
    /// (voluntary + involuntary) / jobs.
    pub ctx_switches_per_job: f64,
    /// Most workers holding a token at once (at most `tokens`; checked).
    pub max_holders: u64,
    /// Pipe: reads that lost the race for the byte `poll` announced.
    pub failed_takes: Option<u64>,
    /// Semaphore: `FUTEX_WAKE` calls made by `post`.
    pub wake_calls: Option<u64>,
    /// Semaphore: sleepers those calls woke (`woken <= wake_calls`: never a herd).
    pub woken: Option<u64>,
    /// Semaphore: posts that found nobody asleep and made no system call.
    pub quiet_posts: Option<u64>,
    /// Semaphore rows: system CPU ÷ the pipe's at the same worker count in the same pass,
    /// the median over the passes.
    pub sys_cpu_vs_pipe: Option<f64>,
    /// Semaphore rows: wall time ÷ the pipe's at the same worker count in the same pass,
    /// the median over the passes.
    pub wall_vs_pipe: Option<f64>,
}

/// The row of `point`, from its runs.
pub(crate) fn row(config: &TokensConfig, point: &Point, runs: &[&Measurement]) -> TokensRow {
    let first = runs[0];
    let med_o = |f: &dyn Fn(&Measurement) -> Option<u64>| {
        runs.iter().map(|m| f(m)).collect::<Option<Vec<u64>>>().filter(|v| !v.is_empty()).map(median)
    };
    let switches = median_of(runs, |m| m.usage.switches());
    TokensRow {
        mechanism: point.mechanism,
        workers: point.workers,
        tokens: config.tokens,
        jobs: first.jobs,
        job_us: config.job_us,
        repeat: runs.len() as u32,
        wall_s: median_of(runs, wall_s),
        user_cpu_s: median_of(runs, |m| m.usage.user_us) as f64 / 1e6,
        sys_cpu_s: median_of(runs, sys_cpu_s),
        voluntary_ctx_switches: median_of(runs, |m| m.usage.voluntary),
        involuntary_ctx_switches: median_of(runs, |m| m.usage.involuntary),
        ctx_switches_per_job: switches as f64 / first.jobs as f64,
        max_holders: median_of(runs, |m| m.max_holders),
        failed_takes: med_o(&|m| m.failed_takes),
        wake_calls: med_o(&|m| m.wake.map(|w| w.wake_calls)),
        woken: med_o(&|m| m.wake.map(|w| w.woken)),
        quiet_posts: med_o(&|m| m.wake.map(|w| w.skipped)),
        sys_cpu_vs_pipe: None,
        wall_vs_pipe: None,
    }
}

/// A run's wall time, in seconds.
fn wall_s(m: &Measurement) -> f64 {
    m.wall_ns as f64 / 1e9
}

/// A run's system CPU time over the workers, in seconds.
fn sys_cpu_s(m: &Measurement) -> f64 {
    m.usage.sys_us as f64 / 1e6
}

/// Semaphore rows: system CPU and wall time ÷ the pipe's at the same worker count, paired
/// within a pass.
pub(crate) fn fill_ratios(measured: &Passes<Point, Measurement>, rows: &mut [TokensRow]) {
    for r in rows.iter_mut().filter(|r| r.mechanism == Mechanism::Semaphore) {
        let point = Point { mechanism: r.mechanism, workers: r.workers };
        let pipe = Point { mechanism: Mechanism::Pipe, workers: r.workers };
        r.sys_cpu_vs_pipe = measured.paired(&point, &pipe, sys_cpu_s);
        r.wall_vs_pipe = measured.paired(&point, &pipe, wall_s);
    }
}

/// The targets apply from this many workers on.
pub const TARGET_MIN_WORKERS: u32 = 16;
/// Target: semaphore system CPU at most this fraction of the pipe's.
pub const TARGET_SYS_RATIO: f64 = 0.5;
/// Target: semaphore wall time at most this fraction of the pipe's.
pub const TARGET_WALL_RATIO: f64 = 1.0;

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "".into(), |v| v.to_string())
}

/// One row per (workers, mechanism).
pub fn markdown(rows: &[TokensRow]) -> String {
    Table::<TokensRow>::new()
        .number("workers", |r| r.workers.to_string())
        .number("tokens", |r| r.tokens.to_string())
        .text("mechanism", |r| r.mechanism.to_string())
        .number("jobs", |r| r.jobs.to_string())
        .number("wall s", |r| format!("{:.3}", r.wall_s))
        .number("user CPU s", |r| format!("{:.3}", r.user_cpu_s))
        .number("sys CPU s", |r| format!("{:.3}", r.sys_cpu_s))
        .number("ctx switches/job", |r| format!("{:.2}", r.ctx_switches_per_job))
        .number("failed takes", |r| opt(r.failed_takes))
        .number("futex wake calls", |r| opt(r.wake_calls))
        .number("woken", |r| opt(r.woken))
        .number("max holders", |r| r.max_holders.to_string())
        .markdown(rows)
}

/// Whether one semaphore row meets the targets; `None` below [`TARGET_MIN_WORKERS`] or
/// without a pipe row to compare with.
pub fn target_met(r: &TokensRow) -> Option<bool> {
    let (sys, wall) = (r.sys_cpu_vs_pipe?, r.wall_vs_pipe?);
    (r.workers >= TARGET_MIN_WORKERS).then_some(sys <= TARGET_SYS_RATIO && wall <= TARGET_WALL_RATIO)
}

/// Per worker count: semaphore ÷ pipe for system CPU and wall time, and the targets.
pub fn ratios(rows: &[TokensRow]) -> String {
    let target =
        format!("target (from {TARGET_MIN_WORKERS} workers: sys ≤ {TARGET_SYS_RATIO}×, wall ≤ {TARGET_WALL_RATIO}×)");
    Table::<TokensRow>::new()
        .number("workers", |r| r.workers.to_string())
        .number("sys CPU semaphore ÷ pipe", |r| times(r.sys_cpu_vs_pipe, "n/a"))
        .number("wall semaphore ÷ pipe", |r| times(r.wall_vs_pipe, "n/a"))
        .text(target, |r| target_met(r).map_or("—", verdict).into())
        .markdown(rows.iter().filter(|r| r.mechanism == Mechanism::Semaphore))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WorkerLauncher;
    use crate::driver::{Bench, Passes};
    use crate::usage::Usage;
    use ringbus::WakeStats;
    use std::path::PathBuf;

    fn measured(mechanism: Mechanism, workers: u32, pass: u32, sys_us: u64, wall_ns: u64) -> (u32, Point, Measurement) {
        let semaphore = mechanism == Mechanism::Semaphore;
        let m = Measurement {
            jobs: 100,
            wall_ns,
            usage: Usage { user_us: 10, sys_us, voluntary: 50, involuntary: 25 },
            max_holders: 2,
            failed_takes: (!semaphore).then_some(7),
            wake: semaphore.then_some(WakeStats { wake_calls: 9, woken: 8, skipped: 91 }),
        };
        (pass, Point { mechanism, workers }, m)
    }

    #[test]
    fn rows_are_medians_with_ratios_paired_within_a_pass() {
        let config = TokensConfig {
            workers: vec![8],
            mechanisms: Mechanism::ALL.to_vec(),
            tokens: 2,
            jobs: 100,
            job_us: 50,
            repeat: 3,
            dir: PathBuf::new(),
            worker: WorkerLauncher { program: PathBuf::new(), args: vec![] },
        };
        let m = Passes::new(vec![
            measured(Mechanism::Pipe, 8, 0, 400_000, 2_000_000_000),
            measured(Mechanism::Pipe, 8, 1, 100_000, 1_000_000_000),
            measured(Mechanism::Pipe, 8, 2, 200_000, 3_000_000_000),
            measured(Mechanism::Semaphore, 8, 0, 300_000, 3_000_000_000),
            measured(Mechanism::Semaphore, 8, 1, 50_000, 500_000_000),
            measured(Mechanism::Semaphore, 8, 2, 20_000, 1_500_000_000),
        ]);
        let mut rows = config.rows(&m);
        config.ratios(&m, &mut rows);
        assert_eq!(rows.len(), 2);
        let (pipe, sem) = (&rows[0], &rows[1]);
        assert_eq!((pipe.repeat, pipe.sys_cpu_s, pipe.wall_s), (3, 0.2, 2.0));
        assert_eq!((pipe.failed_takes, pipe.wake_calls, pipe.sys_cpu_vs_pipe), (Some(7), None, None));
        assert_eq!(pipe.ctx_switches_per_job, 0.75);
        assert_eq!((sem.wake_calls, sem.woken, sem.quiet_posts, sem.failed_takes), (Some(9), Some(8), Some(91), None));
        // Semaphore ÷ pipe within each pass: sys 0.3/0.4, 0.05/0.1, 0.02/0.2 → 0.75, 0.5, 0.1;
        // wall 3/2, 0.5/1, 1.5/3 → 1.5, 0.5, 0.5: medians 0.5 and 0.5. The medians' ratios,
        // 0.05/0.2 = 0.25 and 1.5/2 = 0.75, would pair runs of different passes.
        assert_eq!((sem.repeat, sem.sys_cpu_s, sem.wall_s), (3, 0.05, 1.5));
        assert_eq!((sem.sys_cpu_vs_pipe, sem.wall_vs_pipe), (Some(0.5), Some(0.5)));
        assert_eq!(median(vec![4, 1, 3, 2]), 2, "lower middle of an even count");
    }
}
