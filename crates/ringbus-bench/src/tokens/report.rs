//! The token bench's results as markdown: a row per run, then the semaphore ÷ pipe ratios
//! against the targets.

use super::{Mechanism, TokensRow};
use crate::report::{times, verdict, Table};

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
