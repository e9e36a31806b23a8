//! Runs into rows: one per (variant, batch), the median of its repetitions, with the
//! ratios the issue asks for — cached ÷ uncached, and in-process ÷ rtrb — per batch, for
//! both kinds of queue (one whose consumer may sleep, one created `Wake::Never`).

use super::measure::Measurement;
use super::{Point, QueueConfig, Variant};
use crate::driver::Passes;
use crate::stats::median;
use serde::Serialize;

/// One (variant, batch) result: each figure is the median over `repeat` runs (the lower
/// middle one for an even count), each run's figure divided by its measured commands.
#[derive(Debug, Clone, Serialize)]
pub struct QueueRow {
    pub variant: Variant,
    /// Commands per push call.
    pub batch: u32,
    /// Where the consumer ran: "process" or "thread".
    pub consumer: &'static str,
    pub capacity: u32,
    /// Measured commands per run (after `warmup` unmeasured ones).
    pub commands: u64,
    pub warmup: u64,
    pub repeat: u32,
    /// The producer's wall time for all measured pushes, divided by their number.
    pub ns_per_push: f64,
    pub ns_per_push_min: f64,
    pub ns_per_push_max: f64,
    /// Loads of the consumer's shared position per command pushed (ringbus only), all of
    /// them: a call that finds the ring full has loaded it too.
    pub head_reads_per_push: Option<f64>,
    /// The loads made by calls that pushed something (all loads minus one per full retry),
    /// per command: what the cache saves while the consumer keeps up (ringbus only).
    pub head_reads_not_full_per_push: Option<f64>,
    /// Push calls per command: `1 / batch`, plus full retries and partial pushes.
    pub push_calls_per_push: f64,
    /// Calls that found the ring full, per command.
    pub full_retries_per_push: f64,
    /// Commands the consumer checked over all runs (warm-up included): each sequence
    /// number once, in order, intact — a run fails otherwise.
    pub commands_checked: u64,
    pub producer_cpu: u32,
    pub consumer_cpu: u32,
    /// cached and polling rows: ns per push ÷ their uncached twin's at the same batch —
    /// the median over repetitions of the ratio within each (the two runs are adjacent
    /// in time, so a slow stretch of the machine slows both).
    pub vs_uncached: Option<f64>,
    /// cached-inprocess and polling-inprocess rows: the same against rtrb.
    pub vs_rtrb: Option<f64>,
}

/// The row of `point`, from its runs.
pub(crate) fn row(config: &QueueConfig, point: &Point, runs: &[&Measurement]) -> QueueRow {
    let n = config.commands as f64;
    let per_push = |f: &dyn Fn(&Measurement) -> u64| median(runs.iter().map(|m| f(m) as f64 / n).collect());
    let ns: Vec<f64> = runs.iter().map(|m| m.pushed.elapsed_ns as f64 / n).collect();
    let head_reads: Option<Vec<f64>> = runs.iter().map(|m| m.pushed.head_reads.map(|r| r as f64 / n)).collect();
    let not_full = |m: &&Measurement| m.pushed.head_reads.map(|r| r.saturating_sub(m.pushed.full_retries) as f64 / n);
    let head_reads_not_full: Option<Vec<f64>> = runs.iter().map(not_full).collect();
    QueueRow {
        variant: point.variant,
        batch: point.batch,
        consumer: if point.variant.cross_process() { "process" } else { "thread" },
        capacity: config.capacity,
        commands: config.commands,
        warmup: config.warmup,
        repeat: runs.len() as u32,
        ns_per_push: median(ns.clone()),
        ns_per_push_min: ns.iter().copied().fold(f64::INFINITY, f64::min),
        ns_per_push_max: ns.iter().copied().fold(0.0, f64::max),
        head_reads_per_push: head_reads.map(median),
        head_reads_not_full_per_push: head_reads_not_full.map(median),
        push_calls_per_push: per_push(&|m| m.pushed.calls),
        full_retries_per_push: per_push(&|m| m.pushed.full_retries),
        commands_checked: runs.iter().map(|m| m.consumed.received).sum(),
        producer_cpu: config.cpus.0,
        consumer_cpu: config.cpus.1,
        vs_uncached: None,
        vs_rtrb: None,
    }
}

/// Cached rows: ns per push ÷ their baseline's (the uncached twin, or rtrb) at the same
/// batch, paired within a pass (both push the same number of commands).
pub(crate) fn fill_ratios(measured: &Passes<Point, Measurement>, rows: &mut [QueueRow]) {
    for r in rows.iter_mut() {
        let Some(baseline) = r.variant.baseline() else { continue };
        let (point, base) = (Point { variant: r.variant, batch: r.batch }, Point { variant: baseline, batch: r.batch });
        let value = measured.paired(&point, &base, |m| m.pushed.elapsed_ns as f64);
        match baseline {
            Variant::Rtrb => r.vs_rtrb = value,
            _ => r.vs_uncached = value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WorkerLauncher;
    use crate::driver::Bench;
    use crate::queue::command::Checker;
    use crate::queue::drive::Pushed;
    use std::path::PathBuf;

    fn measured(
        variant: Variant,
        batch: u32,
        repetition: u32,
        elapsed_ns: u64,
        calls: u64,
    ) -> (u32, Point, Measurement) {
        let head_reads = variant.ringbus().then_some(calls / 10);
        let pushed = Pushed { elapsed_ns, calls, full_retries: calls / 100, head_reads };
        let consumed = Checker { received: 1100, mismatches: 0, first_mismatch: None };
        (repetition, Point { variant, batch }, Measurement { pushed, consumed })
    }

    #[test]
    fn rows_are_medians_per_command_with_ratios_paired_per_repetition() {
        let config = QueueConfig {
            variants: Variant::ALL.to_vec(),
            batches: vec![1, 8],
            capacity: 1024,
            commands: 1000,
            warmup: 100,
            repeat: 3,
            cpus: (0, 1),
            dir: PathBuf::new(),
            worker: WorkerLauncher { program: PathBuf::new(), args: vec![] },
        };
        let m = Passes::new(vec![
            measured(Variant::Cached, 1, 0, 30_000, 1000),
            measured(Variant::Cached, 1, 1, 10_000, 1200),
            measured(Variant::Cached, 1, 2, 20_000, 1100),
            measured(Variant::Uncached, 1, 0, 40_000, 1000),
            measured(Variant::Uncached, 1, 1, 40_000, 1000),
            measured(Variant::Uncached, 1, 2, 20_000, 1000),
            measured(Variant::CachedInprocess, 1, 0, 9_000, 1000),
            measured(Variant::Rtrb, 1, 0, 6_000, 1000),
            measured(Variant::ArrayQueue, 8, 0, 12_000, 125),
        ]);
        let mut rows = config.rows(&m);
        config.ratios(&m, &mut rows);
        let names: Vec<String> = rows.iter().map(|r| format!("{} {}", r.variant, r.batch)).collect();
        assert_eq!(names, ["cached 1", "uncached 1", "cached-inprocess 1", "rtrb 1", "arrayqueue 8"]);
        let cached = &rows[0];
        assert_eq!((cached.ns_per_push, cached.ns_per_push_min, cached.ns_per_push_max), (20.0, 10.0, 30.0));
        assert_eq!((cached.push_calls_per_push, cached.head_reads_per_push), (1.1, Some(0.11)));
        assert_eq!(cached.head_reads_not_full_per_push, Some(0.099));
        assert_eq!((cached.repeat, cached.commands_checked, cached.consumer), (3, 3300, "process"));
        // Paired per repetition: 30/40, 10/40, 20/20 → median 0.75 (the medians' ratio, 20/40,
        // would pair runs from different moments).
        assert_eq!((cached.vs_uncached, rows[1].vs_uncached), (Some(0.75), None));
        assert_eq!(rows[2].vs_rtrb, Some(1.5));
        assert_eq!((rows[3].head_reads_per_push, rows[3].consumer), (None, "thread"));
        assert_eq!((rows[4].push_calls_per_push, rows[4].full_retries_per_push), (0.125, 0.001));
    }
}
