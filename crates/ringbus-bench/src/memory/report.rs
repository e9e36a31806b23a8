//! The memory bench's results: a row per scenario (peaks, the limit as measured, what a
//! preallocated pool would reserve, computed), a row per latency point (medians over the
//! repetitions, on-demand ÷ preallocated ratios paired within a repetition), markdown
//! tables, target lines and JSON.

use super::run::Ran;
use super::{LatencyPoint, Scenario, Variant, LATENCY_MAX_PAYLOAD_BYTES, TARGET_RATIO};
use crate::config::format_size;
use crate::driver::Passes;
use crate::report::{bytes, num, times, verdict, Table};
use crate::stats::{histogram, median_finite, us};
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// One memory scenario.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryRow {
    pub scenario: Scenario,
    pub messages: u64,
    pub rate_hz: f64,
    pub subscribers: u32,
    /// How long the holding subscriber kept each sample.
    pub hold_ms: Option<u64>,
    /// The seed of the message sizes (`None`: every message the same size).
    pub seed: Option<u64>,
    pub smallest_bytes: u64,
    pub largest_bytes: u64,
    pub max_payload_bytes: u64,
    pub depth: u32,
    pub max_held: u32,
    pub chunks: u32,
    /// What the root's files held before the first loan (topic, nodes, the publisher's log).
    pub reserved_start_bytes: u64,
    /// Peak of Σ st_blocks × 512 over the root's files, sampled after every publish.
    pub reserved_peak_bytes: u64,
    /// Peak of `Publisher::reserved_payload_bytes()`, sampled alike.
    pub reserved_payload_peak_bytes: u64,
    /// Peak of the log's messages + the loan + samples held past the log.
    pub in_flight_peak_bytes: u64,
    pub held_past_log_peak_bytes: u64,
    pub reserved_vs_in_flight: f64,
    /// The limit, as text and in bytes at this run's peak in flight.
    pub limit: String,
    pub limit_bytes: u64,
    pub within_limit: bool,
    /// chunks × chunk stride of a preallocated pool of the same topic: computed, not measured.
    pub preallocated_bytes_computed: u64,
    /// What size classes would reserve for the same stream: a model (`size_classes`).
    pub size_classes_model_bytes: u64,
    /// Exact system calls of `loan_uninit()` + `publish()` (reserving and trimming memory
    /// included): the mean and the most; `None` where they cannot be counted.
    pub syscalls_per_publish: Option<f64>,
    pub syscalls_max: Option<u64>,
    pub lost: u64,
}

/// One variant at one message size.
#[derive(Debug, Clone, Serialize)]
pub struct LatencyRow {
    pub variant: Variant,
    pub payload_bytes: u64,
    pub max_payload_bytes: u64,
    pub rate_hz: f64,
    /// Timed messages per repetition (warm-up excluded).
    pub messages: u64,
    pub repetitions: u32,
    pub publish_p50_us: f64,
    pub publish_p99_us: f64,
    pub e2e_p50_us: f64,
    pub e2e_p99_us: f64,
    /// On-demand rows: ÷ the preallocated row's, the median of the ratios within a repetition.
    pub publish_p50_vs_preallocated: Option<f64>,
    pub e2e_p50_vs_preallocated: Option<f64>,
    /// On-demand rows: both ratios within the target.
    pub within_target: Option<bool>,
    /// Exact system calls of `loan_uninit()` + `publish()`: the median over the repetitions
    /// of their mean, and the most; `None` where they cannot be counted.
    pub syscalls_per_publish: Option<f64>,
    pub syscalls_max: Option<u64>,
    pub lost: u64,
}

fn lost(ran: &Ran) -> u64 {
    ran.received.iter().map(|r| r.lost).sum()
}

pub(super) fn memory_row(scenario: Scenario, seed: u64, ran: &Ran) -> MemoryRow {
    let (p, shape, limit) = (&ran.published, scenario.shape(), scenario.limit());
    let limit_bytes = limit.bytes(p.in_flight_peak_bytes);
    MemoryRow {
        scenario,
        messages: p.messages,
        rate_hz: shape.rate_hz,
        subscribers: shape.subscribers,
        hold_ms: shape.hold_ms,
        seed: (shape.min_bytes != shape.max_bytes).then_some(seed),
        smallest_bytes: p.smallest_bytes,
        largest_bytes: p.largest_bytes,
        max_payload_bytes: shape.max_payload_bytes,
        depth: p.depth,
        max_held: p.max_held,
        chunks: p.chunks,
        reserved_start_bytes: p.reserved_start_bytes,
        reserved_peak_bytes: p.reserved_peak_bytes,
        reserved_payload_peak_bytes: p.reserved_payload_peak_bytes,
        in_flight_peak_bytes: p.in_flight_peak_bytes,
        held_past_log_peak_bytes: p.held_past_log_peak_bytes,
        reserved_vs_in_flight: p.reserved_peak_bytes as f64 / p.in_flight_peak_bytes as f64,
        limit: limit.to_string(),
        limit_bytes,
        within_limit: p.reserved_peak_bytes <= limit_bytes,
        preallocated_bytes_computed: p.preallocated_bytes,
        size_classes_model_bytes: super::size_classes::reserved(
            scenario.sizes(seed).iter().take(p.messages as usize),
            p.depth,
            shape.max_payload_bytes,
        ),
        syscalls_per_publish: p.syscalls.map(|s| s.per_publish()),
        syscalls_max: p.syscalls.map(|s| s.max),
        lost: lost(ran),
    }
}

/// p50 and p99 of one run, µs.
#[derive(Debug, Clone, Copy)]
struct Latencies {
    publish_p50_us: f64,
    publish_p99_us: f64,
    e2e_p50_us: f64,
    e2e_p99_us: f64,
}

fn latencies(ran: &Ran) -> Latencies {
    let (mut publish, mut e2e) = (histogram(), histogram());
    for &ns in &ran.published.publish_ns {
        publish.saturating_record(ns.max(1));
    }
    for &ns in ran.received.iter().flat_map(|r| &r.e2e_ns) {
        e2e.saturating_record(ns.max(1));
    }
    Latencies {
        publish_p50_us: us(&publish, 0.5),
        publish_p99_us: us(&publish, 0.99),
        e2e_p50_us: us(&e2e, 0.5),
        e2e_p99_us: us(&e2e, 0.99),
    }
}

/// The row of `point`: each figure the median over its repetitions.
pub(super) fn latency_row(point: LatencyPoint, runs: &[&Ran]) -> LatencyRow {
    let each: Vec<Latencies> = runs.iter().map(|r| latencies(r)).collect();
    let median = |f: fn(&Latencies) -> f64| median_finite(each.iter().map(f));
    LatencyRow {
        variant: point.variant,
        payload_bytes: point.load.payload_bytes,
        max_payload_bytes: LATENCY_MAX_PAYLOAD_BYTES,
        rate_hz: point.load.rate_hz,
        messages: runs.first().map_or(0, |r| r.published.publish_ns.len() as u64),
        repetitions: runs.len() as u32,
        publish_p50_us: median(|l| l.publish_p50_us),
        publish_p99_us: median(|l| l.publish_p99_us),
        e2e_p50_us: median(|l| l.e2e_p50_us),
        e2e_p99_us: median(|l| l.e2e_p99_us),
        publish_p50_vs_preallocated: None,
        e2e_p50_vs_preallocated: None,
        within_target: None,
        syscalls_per_publish: Some(median_finite(
            runs.iter().filter_map(|r| r.published.syscalls).map(|s| s.per_publish()),
        ))
        .filter(|v| v.is_finite()),
        syscalls_max: runs.iter().filter_map(|r| r.published.syscalls).map(|s| s.max).max(),
        lost: runs.iter().map(|r| lost(r)).sum(),
    }
}

/// Fills the on-demand rows' ratios (each paired within a repetition) and their verdict.
pub(super) fn fill_ratios(measured: &Passes<LatencyPoint, Ran>, rows: &mut [LatencyRow]) {
    for (row, point) in rows.iter_mut().zip(measured.points()) {
        if point.variant != Variant::OnDemand {
            continue;
        }
        let baseline = LatencyPoint { variant: Variant::Preallocated, ..point };
        row.publish_p50_vs_preallocated = measured.paired(&point, &baseline, |r| latencies(r).publish_p50_us);
        row.e2e_p50_vs_preallocated = measured.paired(&point, &baseline, |r| latencies(r).e2e_p50_us);
        let within = |ratio: Option<f64>| ratio.map(|r| r <= TARGET_RATIO);
        row.within_target =
            within(row.publish_p50_vs_preallocated).zip(within(row.e2e_p50_vs_preallocated)).map(|(a, b)| a && b);
    }
}

fn pass(ok: bool) -> String {
    if ok { "pass" } else { "fail" }.into()
}

fn syscalls(per_publish: Option<f64>, max: Option<u64>) -> String {
    match (per_publish, max) {
        (Some(mean), Some(max)) => format!("{mean:.2} (max {max})"),
        _ => "n/a".into(),
    }
}

/// One row per scenario.
pub fn memory_markdown(rows: &[MemoryRow]) -> String {
    Table::<MemoryRow>::new()
        .text("scenario", |r| r.scenario.to_string())
        .number("msgs", |r| r.messages.to_string())
        .number("sizes", |r| match r.scenario.shape() {
            s if s.min_bytes == s.max_bytes => format_size(s.min_bytes),
            s => format!("{}–{}", format_size(s.min_bytes), format_size(s.max_bytes)),
        })
        .number("reserved peak", |r| bytes(r.reserved_peak_bytes))
        .number("publisher's payload peak", |r| bytes(r.reserved_payload_peak_bytes))
        .number("in flight peak", |r| bytes(r.in_flight_peak_bytes))
        .number("of which held past the log", |r| bytes(r.held_past_log_peak_bytes))
        .number("reserved ÷ in flight", |r| format!("{}×", num(r.reserved_vs_in_flight)))
        .text("limit", |r| r.limit.clone())
        .text("check", |r| pass(r.within_limit))
        .number("preallocated would reserve (computed)", |r| bytes(r.preallocated_bytes_computed))
        .number("size classes would reserve (model)", |r| bytes(r.size_classes_model_bytes))
        .number("syscalls/publish", |r| syscalls(r.syscalls_per_publish, r.syscalls_max))
        .number("lost", |r| r.lost.to_string())
        .markdown(rows)
}

/// One row per (size, variant).
pub fn latency_markdown(rows: &[LatencyRow]) -> String {
    Table::<LatencyRow>::new()
        .number("payload", |r| format_size(r.payload_bytes))
        .text("variant", |r| r.variant.to_string())
        .number("msgs", |r| r.messages.to_string())
        .number("reps", |r| r.repetitions.to_string())
        .number("publish p50 µs", |r| num(r.publish_p50_us))
        .number("publish p99 µs", |r| num(r.publish_p99_us))
        .number("e2e p50 µs", |r| num(r.e2e_p50_us))
        .number("e2e p99 µs", |r| num(r.e2e_p99_us))
        .number("publish p50 ÷ preallocated", |r| times(r.publish_p50_vs_preallocated, ""))
        .number("e2e p50 ÷ preallocated", |r| times(r.e2e_p50_vs_preallocated, ""))
        .text(format!("≤ {TARGET_RATIO}×"), |r| r.within_target.map_or_else(String::new, pass))
        .number("syscalls/publish", |r| syscalls(r.syscalls_per_publish, r.syscalls_max))
        .number("lost", |r| r.lost.to_string())
        .markdown(rows)
}

/// The latency target as measured, one line per message size.
pub fn targets(rows: &[LatencyRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            let met = r.within_target?;
            Some(format!(
                "target: on demand within {TARGET_RATIO}× of preallocated at p50, {} messages — measured publish {}, \
                 end to end {}: {}",
                format_size(r.payload_bytes),
                times(r.publish_p50_vs_preallocated, "n/a"),
                times(r.e2e_p50_vs_preallocated, "n/a"),
                verdict(met)
            ))
        })
        .collect()
}

/// One line of the JSON array: a scenario's row or a latency row, told apart by `kind`.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum Line<'a> {
    Memory(&'a MemoryRow),
    Latency(&'a LatencyRow),
}

/// Writes every row as one JSON array: scenarios first (`"kind": "memory"`), then latency
/// rows (`"kind": "latency"`).
pub fn write_json(memory: &[MemoryRow], latency: &[LatencyRow], path: &Path) -> Result<()> {
    let lines: Vec<Line<'_>> = memory.iter().map(Line::Memory).chain(latency.iter().map(Line::Latency)).collect();
    crate::report::write_json(&lines, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::publisher::{Published, Syscalls};
    use crate::memory::subscriber::Received;
    use crate::memory::{LATENCY_LOADS, MIB};

    fn ran(publish_ns: Vec<u64>, e2e_ns: Vec<u64>) -> Ran {
        let published = Published {
            messages: 100,
            depth: 16,
            chunks: 81,
            preallocated_bytes: 81 * 16 * MIB,
            max_held: 4,
            in_flight_peak_bytes: 10 * MIB,
            reserved_peak_bytes: 21 * MIB,
            syscalls: Some(Syscalls { publishes: 4, total: 6, max: 3 }),
            publish_ns,
            ..Published::default()
        };
        Ran { published, received: vec![Received { lost: 1, e2e_ns, ..Received::default() }] }
    }

    #[test]
    fn a_scenario_row_holds_its_limit_as_measured() {
        let row = memory_row(Scenario::Pointcloud, 9, &ran(vec![], vec![]));
        assert_eq!(row.limit_bytes, 22 * MIB);
        assert!(row.within_limit);
        assert_eq!(row.reserved_vs_in_flight, 2.1);
        assert_eq!(row.preallocated_bytes_computed, 81 * 16 * MIB);
        assert_eq!((row.seed, row.lost), (Some(9), 1));
        let tiny = memory_row(Scenario::Tiny, 9, &ran(vec![], vec![]));
        assert!(!tiny.within_limit, "21 MiB is over 2 MiB");
        assert_eq!(tiny.seed, None, "every message is 5 bytes");
        let table = memory_markdown(&[row, tiny]);
        assert!(table.contains("| pointcloud | 100 | 1MiB–16MiB | 21.0 MiB |"), "{table}");
        assert!(table.contains("| ≤ 2 × in flight + 2MiB | pass | 1.27 GiB | 272 MiB | 1.50 (max 3) | 1 |"), "{table}");
        assert!(table.contains("| tiny | 100 | 5B |") && table.contains("| ≤ 2MiB | fail |"), "{table}");
    }

    #[test]
    fn latency_ratios_pair_the_variants_within_a_repetition() {
        let load = LATENCY_LOADS[0];
        let on_demand = LatencyPoint { variant: Variant::OnDemand, load };
        let preallocated = LatencyPoint { variant: Variant::Preallocated, ..on_demand };
        // Publish p50 per repetition: on demand 1.0, 3.0 µs against preallocated 1.0, 2.0.
        let runs = vec![
            (0, on_demand, ran(vec![1000; 9], vec![5000; 9])),
            (0, preallocated, ran(vec![1000; 9], vec![5000; 9])),
            (1, preallocated, ran(vec![2000; 9], vec![5000; 9])),
            (1, on_demand, ran(vec![3000; 9], vec![5000; 9])),
        ];
        let measured = Passes::new(runs);
        let mut rows = measured.rows(|&point, runs| latency_row(point, runs));
        fill_ratios(&measured, &mut rows);
        let r = &rows[0];
        assert_eq!((r.variant, r.messages, r.repetitions, r.lost), (Variant::OnDemand, 9, 2, 2));
        assert_eq!(r.publish_p50_us, 1.0, "the lower median of 1 and 3 µs");
        assert_eq!((r.publish_p50_vs_preallocated, r.e2e_p50_vs_preallocated), (Some(1.0), Some(1.0)));
        assert_eq!(r.within_target, Some(true), "lower median of 1.0 and 1.5");
        assert_eq!((rows[1].publish_p50_vs_preallocated, rows[1].within_target), (None, None));
        assert_eq!((r.syscalls_per_publish, r.syscalls_max), (Some(1.5), Some(3)));
        assert_eq!(targets(&rows).len(), 1);
        assert!(targets(&rows)[0].ends_with("publish 1.00×, end to end 1.00×: met"), "{:?}", targets(&rows));
        assert!(latency_markdown(&rows).contains("| 64B | on-demand | 9 | 2 | 1.00 |"));
    }

    #[test]
    fn json_lines_say_which_table_they_belong_to() {
        let memory = memory_row(Scenario::Tiny, 1, &ran(vec![], vec![]));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.json");
        write_json(&[memory], &[], &path).unwrap();
        let lines: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(lines[0]["kind"], "memory");
        assert_eq!(lines[0]["scenario"], "tiny");
        assert_eq!(lines[0]["reserved_peak_bytes"], 21 * MIB);
        assert_eq!(bytes(85), "85 B");
        assert_eq!(bytes(316 << 10), "316 KiB");
        assert_eq!(bytes(5 << 30), "5.00 GiB");
    }
}
