//! The queue bench's results: a markdown table, the ratio lines per batch, the issue's
//! targets as measured, and JSON.

use super::{QueueRow, Variant};
use crate::report::{num, times, verdict, Table};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// Target: cached ns/push at most this fraction of uncached at batch 1.
pub const TARGET_CACHED_VS_UNCACHED: f64 = 0.6;
/// Target: the cached producer loads the consumer's position on fewer than this share of pushes.
pub const TARGET_HEAD_READS_PER_PUSH: f64 = 0.05;

/// A value with three significant digits however small (`0.000977`, not `0.00`).
pub(crate) fn sig(v: f64) -> String {
    match v {
        v if !v.is_finite() => "n/a".into(),
        0.0 => "0".into(),
        v if v >= 100.0 => format!("{v:.0}"),
        v => {
            let decimals = (2 - v.log10().floor() as i32).clamp(0, 12) as usize;
            format!("{v:.decimals$}")
        }
    }
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

/// The three targets, as measured (those the rows allow judging), for each kind
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
