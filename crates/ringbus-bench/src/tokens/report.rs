//! The token bench's results as markdown (a row per run, then the semaphore ÷ pipe ratios
//! against the targets) and as JSON.

use super::{Mechanism, TokensRow};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

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
    let mut out = String::from(
        "| workers | tokens | mechanism | jobs | wall s | user CPU s | sys CPU s | ctx switches/job \
         | failed takes | futex wake calls | woken | max holders |\n\
         |--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.2} | {} | {} | {} | {} |",
            r.workers,
            r.tokens,
            r.mechanism,
            r.jobs,
            r.wall_s,
            r.user_cpu_s,
            r.sys_cpu_s,
            r.ctx_switches_per_job,
            opt(r.failed_takes),
            opt(r.wake_calls),
            opt(r.woken),
            r.max_holders,
        );
    }
    out
}

/// Whether one semaphore row meets the targets; `None` below [`TARGET_MIN_WORKERS`] or
/// without a pipe row to compare with.
pub fn target_met(r: &TokensRow) -> Option<bool> {
    let (sys, wall) = (r.sys_cpu_vs_pipe?, r.wall_vs_pipe?);
    (r.workers >= TARGET_MIN_WORKERS).then_some(sys <= TARGET_SYS_RATIO && wall <= TARGET_WALL_RATIO)
}

/// Per worker count: semaphore ÷ pipe for system CPU and wall time, and the targets.
pub fn ratios(rows: &[TokensRow]) -> String {
    let mut out = format!(
        "| workers | sys CPU semaphore ÷ pipe | wall semaphore ÷ pipe \
         | target (from {TARGET_MIN_WORKERS} workers: sys ≤ {TARGET_SYS_RATIO}×, wall ≤ {TARGET_WALL_RATIO}×) |\n\
         |--:|--:|--:|---|\n"
    );
    let ratio = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:.2}×"));
    for r in rows.iter().filter(|r| r.mechanism == Mechanism::Semaphore) {
        let target = match target_met(r) {
            None => "—",
            Some(true) => "met",
            Some(false) => "not met",
        };
        let _ =
            writeln!(out, "| {} | {} | {} | {target} |", r.workers, ratio(r.sys_cpu_vs_pipe), ratio(r.wall_vs_pipe));
    }
    out
}

/// Writes the rows as a JSON array.
pub fn write_json(rows: &[TokensRow], path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(rows)?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}
