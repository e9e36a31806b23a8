//! The queue bench's rows — per (variant, batch) the median of its runs, with the ratios
//! we set targets on (cached ÷ uncached, in-process ÷ rtrb, paired within a pass) for
//! both kinds of queue, one whose consumer may sleep and one created `Wake::Never` — as a
//! markdown table, the ratio lines per batch, the targets as measured, and JSON.

use super::measure::Measurement;
use super::{Point, QueueConfig, Variant};
use crate::driver::Passes;
use crate::report::{num, significant, times, verdict, Table};
use crate::stats::median;
use anyhow::Result;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

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

/// Target: cached ns/push at most this fraction of uncached at batch 1.
pub const TARGET_CACHED_VS_UNCACHED: f64 = 0.6;
/// Target: the cached producer loads the consumer's position on fewer than this share of pushes.
pub const TARGET_HEAD_READS_PER_PUSH: f64 = 0.05;

/// A value with three significant digits however small (`0.000977`, not `0.00`).
fn sig(v: f64) -> String {
    significant(v, 3, 0)
}

/// One row per (variant, batch).
pub fn markdown(rows: &[QueueRow]) -> String {
    let or_dash = |v: Option<f64>| v.map_or_else(|| "—".into(), sig);
    Table::<QueueRow>::new()
        .text("variant", |r| r.variant.to_string())
        .text("consumer", |r| r.consumer.to_string())
        .number("batch", |r| r.batch.to_string())
        .number("ns/push p50", |r| num(r.ns_per_push))
        .number("ns/push min–max", |r| format!("{}–{}", num(r.ns_per_push_min), num(r.ns_per_push_max)))
        .number("head reads/push", move |r| or_dash(r.head_reads_per_push))
        .number("head reads/push, ring not full", move |r| or_dash(r.head_reads_not_full_per_push))
        .number("push calls/push", |r| sig(r.push_calls_per_push))
        .number("full retries/push", |r| sig(r.full_retries_per_push))
        .number("commands checked", |r| r.commands_checked.to_string())
        .markdown(rows)
}

/// Per batch: each cached ringbus variant ÷ its baseline (its uncached twin, or rtrb),
/// where both were measured.
pub fn ratios(rows: &[QueueRow]) -> String {
    let mut out = String::new();
    let mut batches: Vec<u32> = Vec::new();
    for r in rows {
        if !batches.contains(&r.batch) {
            batches.push(r.batch);
        }
    }
    for batch in batches {
        let parts: Vec<String> = rows
            .iter()
            .filter(|r| r.batch == batch)
            .filter_map(|r| {
                let ratio = r.vs_uncached.or(r.vs_rtrb)?;
                Some(format!("{} ÷ {} {}", r.variant, r.variant.baseline()?, times(Some(ratio), "n/a")))
            })
            .collect();
        if !parts.is_empty() {
            let _ = writeln!(out, "- batch {batch}: {}", parts.join("; "));
        }
    }
    out
}

/// `batch 1: 0.240%, batch 64: 6.00%: not met at batch 64`, against the head-reads target.
fn shares(per_batch: &[(u32, f64)]) -> String {
    let each: Vec<String> = per_batch.iter().map(|(b, v)| format!("batch {b}: {}%", sig(v * 100.0))).collect();
    let missed: Vec<String> =
        per_batch.iter().filter(|(_, v)| *v >= TARGET_HEAD_READS_PER_PUSH).map(|(b, _)| b.to_string()).collect();
    let how = if missed.is_empty() { "met".into() } else { format!("not met at batch {}", missed.join(", ")) };
    format!("{}: {how}", each.join(", "))
}

/// The queue's three targets, as measured (those the rows allow judging), for each kind
/// of queue measured: one whose consumer may sleep (cached), one created `Wake::Never`
/// (polling).
pub fn targets(rows: &[QueueRow]) -> Vec<String> {
    let mut out = Vec::new();
    for variant in [Variant::Cached, Variant::Polling] {
        let batch1 = rows.iter().find(|r| r.variant == variant && r.batch == 1);
        if let (Some(r), Some(baseline)) = (batch1, variant.baseline()) {
            if let Some(ratio) = r.vs_uncached {
                out.push(format!(
                    "target: {variant} ≤ {TARGET_CACHED_VS_UNCACHED}× {baseline} ns/push at batch 1, consumer process \
                     on CPU {} — measured {ratio:.2}×: {}",
                    r.consumer_cpu,
                    verdict(ratio <= TARGET_CACHED_VS_UNCACHED)
                ));
            }
        }
        let cached: Vec<&QueueRow> = rows.iter().filter(|r| r.variant == variant).collect();
        let all: Vec<(u32, f64)> = cached.iter().filter_map(|r| Some((r.batch, r.head_reads_per_push?))).collect();
        let not_full: Vec<(u32, f64)> =
            cached.iter().filter_map(|r| Some((r.batch, r.head_reads_not_full_per_push?))).collect();
        if !all.is_empty() {
            out.push(format!(
                "target: {variant} head reads < {}% of pushes — all loads: {}; loads by calls that pushed \
                 (not the retries of a full ring): {}",
                TARGET_HEAD_READS_PER_PUSH * 100.0,
                shares(&all),
                shares(&not_full)
            ));
        }
    }
    for variant in [Variant::CachedInprocess, Variant::PollingInprocess] {
        let inprocess: Vec<(u32, f64)> =
            rows.iter().filter(|r| r.variant == variant).filter_map(|r| Some((r.batch, r.vs_rtrb?))).collect();
        if inprocess.is_empty() {
            continue;
        }
        let each: Vec<String> = inprocess.iter().map(|(b, v)| format!("batch {b}: {v:.2}×")).collect();
        let missed: Vec<String> = inprocess.iter().filter(|(_, v)| *v > 1.0).map(|(b, _)| b.to_string()).collect();
        let how = if missed.is_empty() { "met".into() } else { format!("not met at batch {}", missed.join(", ")) };
        out.push(format!(
            "target: ringbus in-process SPSC at least rtrb's throughput ({variant} ÷ rtrb ns/push ≤ 1) — {}: {how}",
            each.join(", ")
        ));
    }
    out
}

/// Writes the rows as a JSON array; the service round trip, if measured, is one more row
/// with `variant` = `"service"` (its push fields null).
pub fn write_json(rows: &[QueueRow], service: Option<&super::service::ServiceRow>, path: &Path) -> Result<()> {
    let mut all = serde_json::to_value(rows)?;
    if let (Some(row), Some(array)) = (service, all.as_array_mut()) {
        let mut value = serde_json::to_value(row)?;
        value["variant"] = "service".into();
        value["batch"] = 1.into();
        value["ns_per_push"] = serde_json::Value::Null;
        value["head_reads_per_push"] = serde_json::Value::Null;
        array.push(value);
    }
    crate::report::write_json(&all, path)
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

    fn row(variant: Variant, batch: u32, ns: f64, head_reads: Option<f64>) -> QueueRow {
        let not_full = head_reads.map(|v| v / 2.0);
        QueueRow {
            variant,
            batch,
            consumer: if variant.cross_process() { "process" } else { "thread" },
            capacity: 1024,
            commands: 1000,
            warmup: 100,
            repeat: 1,
            ns_per_push: ns,
            ns_per_push_min: ns,
            ns_per_push_max: ns,
            head_reads_per_push: head_reads,
            head_reads_not_full_per_push: not_full,
            push_calls_per_push: 1.0 / batch as f64,
            full_retries_per_push: 0.0,
            commands_checked: 1100,
            producer_cpu: 0,
            consumer_cpu: 1,
            vs_uncached: None,
            vs_rtrb: None,
        }
    }

    #[test]
    fn small_values_keep_three_significant_digits() {
        assert_eq!(
            (sig(0.0009765625), sig(0.125), sig(1.0), sig(12.34), sig(250.0)),
            ("0.000977".into(), "0.125".into(), "1.00".into(), "12.3".into(), "250".into())
        );
        assert_eq!((sig(0.0), sig(f64::NAN)), ("0".into(), "n/a".into()));
    }

    #[test]
    fn targets_and_ratios_read_the_rows() {
        let mut rows = vec![
            row(Variant::Cached, 1, 5.0, Some(0.001)),
            row(Variant::Uncached, 1, 10.0, Some(1.0)),
            row(Variant::CachedInprocess, 1, 6.0, Some(0.001)),
            row(Variant::Rtrb, 1, 4.0, None),
            row(Variant::Cached, 64, 2.0, Some(0.06)),
        ];
        rows[0].vs_uncached = Some(0.5);
        rows[2].vs_rtrb = Some(1.5);
        let mut polling = row(Variant::PollingInprocess, 1, 3.0, Some(0.0));
        polling.vs_rtrb = Some(0.75);
        rows.push(polling);
        assert_eq!(
            ratios(&rows),
            "- batch 1: cached ÷ uncached 0.50×; cached-inprocess ÷ rtrb 1.50×; polling-inprocess ÷ rtrb 0.75×\n"
        );
        let t = targets(&rows);
        assert_eq!(t.len(), 4, "{t:?}");
        assert!(t[0].starts_with("target: cached ≤ 0.6× uncached"), "{}", t[0]);
        assert!(t[0].ends_with("measured 0.50×: met"), "{}", t[0]);
        assert!(t[1].contains("all loads: batch 1: 0.100%, batch 64: 6.00%: not met at batch 64;"), "{}", t[1]);
        assert!(t[1].ends_with("full ring): batch 1: 0.0500%, batch 64: 3.00%: met"), "{}", t[1]);
        assert!(t[2].ends_with("batch 1: 1.50×: not met at batch 1"), "{}", t[2]);
        assert!(t[3].contains("(polling-inprocess ÷ rtrb ns/push ≤ 1) — batch 1: 0.75×: met"), "{}", t[3]);
        let table = markdown(&rows);
        assert!(table.contains("| rtrb | thread | 1 | 4.00 | 4.00–4.00 | — | — | 1.00 | 0 | 1100 |"), "{table}");
        assert!(targets(&rows[3..4]).is_empty());
    }
}
