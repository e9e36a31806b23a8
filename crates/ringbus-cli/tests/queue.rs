//! Runs the built `ringbus` binary on a quick `bench queue` run and checks what it reports: a row
//! for every variant × batch, every command checked by the consumer, the uncached producer
//! loading the consumer's position once per push call and the cached one on fewer than 5%
//! of pushes, and nothing left in the root. Behaviour (counts) only, no timing.

mod common;

use common::*;
use serde_json::Value;
use std::time::Duration;

/// The bench must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(180);
const VARIANTS: [&str; 8] = [
    "cached",
    "uncached",
    "cached-inprocess",
    "polling",
    "polling-uncached",
    "polling-inprocess",
    "rtrb",
    "arrayqueue",
];
/// Each cached cross-process variant and its uncached twin.
const TWINS: [(&str, &str); 2] = [("cached", "uncached"), ("polling", "polling-uncached")];
const BATCHES: [u64; 3] = [1, 8, 64];
/// --quick: measured commands per run, and the unmeasured warm-up before them.
const COMMANDS: u64 = 200_000;
const WARMUP: u64 = 20_000;

fn row<'a>(rows: &'a [Value], variant: &str, batch: u64) -> &'a Value {
    let found: Vec<&Value> = rows.iter().filter(|r| r["variant"] == variant && r["batch"] == batch).collect();
    assert_eq!(found.len(), 1, "one {variant} batch {batch} row in {rows:#?}");
    found[0]
}

fn f(r: &Value, key: &str) -> f64 {
    r[key].as_f64().unwrap_or_else(|| panic!("{key} of {r}"))
}

#[test]
fn a_quick_run_checks_every_command_and_counts_head_reads_per_push_call() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("queue.json");
    let plot = scratch.path().join("queue.svg");
    let args = ["bench", "queue", "--quick", "--json", json.to_str().unwrap(), "--plot", plot.to_str().unwrap()];
    let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    assert!(run.stdout.contains("| variant | consumer | batch | ns/push p50 |"), "markdown table:\n{}", run.stdout);
    assert!(run.stdout.contains("- batch 1: cached ÷ uncached "), "ratio lines:\n{}", run.stdout);
    assert!(run.stdout.contains("cached-inprocess ÷ rtrb "), "ratio lines:\n{}", run.stdout);
    assert!(run.stdout.contains("polling ÷ polling-uncached "), "ratio lines:\n{}", run.stdout);
    assert!(run.stdout.contains("polling-inprocess ÷ rtrb "), "ratio lines:\n{}", run.stdout);
    assert!(run.stdout.contains("target: cached ≤ 0.6× uncached"), "targets:\n{}", run.stdout);
    assert!(run.stdout.contains("target: polling ≤ 0.6× polling-uncached"), "targets:\n{}", run.stdout);
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"), "plot written");
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");

    let mut rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // The service round trips: one more row, timed over every call (2000 in quick mode).
    let service = rows.pop().expect("the service row comes last");
    assert_eq!((&service["variant"], &service["calls"]), (&"service".into(), &2000.into()), "{service}");
    let (p50, p99, max) = (f(&service, "rtt_p50_us"), f(&service, "rtt_p99_us"), f(&service, "rtt_max_us"));
    assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{service}");
    assert!(run.stdout.contains("### Request/response round trip"), "{}", run.stdout);
    assert_eq!(rows.len(), VARIANTS.len() * BATCHES.len(), "{rows:#?}");
    for variant in VARIANTS {
        for batch in BATCHES {
            let r = row(&rows, variant, batch);
            assert_eq!((r["commands"].as_u64(), r["repeat"].as_u64()), (Some(COMMANDS), Some(1)), "{r}");
            // The consumer saw every sequence number once, in order, intact (the bench fails otherwise).
            assert_eq!(r["commands_checked"].as_u64(), Some(COMMANDS + WARMUP), "{r}");
            assert!(f(r, "ns_per_push") > 0.0, "{r}");
            let calls = f(r, "push_calls_per_push");
            assert!(calls >= 1.0 / batch as f64, "fewer push calls than batches: {r}");
            assert!(f(r, "full_retries_per_push") >= 0.0, "{r}");
            let ringbus = !["rtrb", "arrayqueue"].contains(&variant);
            assert_eq!(r["head_reads_per_push"].is_null(), !ringbus, "head reads only for ringbus: {r}");
            assert_eq!(r["head_reads_not_full_per_push"].is_null(), !ringbus, "{r}");
            let in_thread = variant.ends_with("inprocess") || !ringbus;
            assert_eq!(r["consumer"], if in_thread { "thread" } else { "process" }, "{r}");
        }
    }
    for (batch, (cached, uncached)) in BATCHES.into_iter().flat_map(|b| TWINS.map(|t| (b, t))) {
        let (cached, uncached) = (row(&rows, cached, batch), row(&rows, uncached, batch));
        // Without the cache: exactly one load per push call — 1/batch per command, plus one per
        // call that found the ring full or pushed only part of its batch.
        let uncached_reads = f(uncached, "head_reads_per_push");
        assert_eq!(uncached_reads, f(uncached, "push_calls_per_push"), "{uncached}");
        assert!(uncached_reads >= 1.0 / batch as f64, "{uncached}");
        if f(uncached, "push_calls_per_push") == 1.0 / batch as f64 {
            assert_eq!(uncached_reads, 1.0 / batch as f64, "no retries: exactly 1/batch: {uncached}");
        }
        let uncached_pushing = f(uncached, "head_reads_not_full_per_push");
        assert!(uncached_pushing >= 1.0 / batch as f64, "{uncached}");
        // Any call that finds the ring full loads the head, cache or not, and how many do
        // depends on the consumer's speed (this is a debug build); the loads made by calls
        // that pushed are what the cache cuts, whatever the speed.
        let (cached_reads, cached_pushing) =
            (f(cached, "head_reads_per_push"), f(cached, "head_reads_not_full_per_push"));
        assert!(cached_pushing <= cached_reads, "{cached}");
        assert!(cached_pushing < 0.05, "the cached producer loaded the head on 5% of its pushes or more: {cached}");
        if batch <= 8 {
            // 1/batch > 5%; at 64, a ring kept full needs a fresh head for every batch, cache or not.
            assert!(cached_pushing < uncached_pushing, "{cached} vs {uncached}");
        }
        assert!(cached["vs_uncached"].as_f64().is_some_and(|v| v > 0.0), "{cached}");
        for inprocess in ["cached-inprocess", "polling-inprocess"] {
            assert!(row(&rows, inprocess, batch)["vs_rtrb"].as_f64().is_some_and(|v| v > 0.0));
        }
    }
}

#[test]
fn bad_options_fail_with_exit_2_and_say_what_to_write() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let cases: [(&[&str], &str); 5] = [
        (&["--batch", "0"], "must be 1 to the ring's capacity"),
        (&["--cpus", "0,99"], "CPU 99 does not exist"),
        (&["--batch", "2048"], "--batch 2048: larger than the ring (--capacity 1024)"),
        (&["--capacity", "1000"], "power of two from 2 to 16777216"),
        (&["--variants", "disruptor"], "cached, uncached, cached-inprocess, polling, polling-uncached"),
    ];
    for (extra, needle) in cases {
        let run = ringbus(&[&["bench", "queue"], extra].concat(), Some(root.path()), &scratch, WATCHDOG);
        assert_eq!(run.status.code(), Some(2), "{extra:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{extra:?}: {needle:?} missing from {}", run.stderr);
    }
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "nothing created");
}

#[test]
fn help_says_what_is_measured() {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["bench", "queue", "--help"], None, &scratch, WATCHDOG);
    assert!(run.status.success(), "{}", run.stderr);
    for needle in ["set_head_cache(false)", "push_partial_slice", "ArrayQueue", "--cpus <P,C>", "--json <FILE>"] {
        assert!(run.stdout.contains(needle), "{needle} missing from:\n{}", run.stdout);
    }
    let old_name = ringbus(&["bench", "ring", "--help"], None, &scratch, WATCHDOG);
    assert_eq!(old_name.stdout, run.stdout, "`bench ring` is `bench queue` under its old name");
    let bench = ringbus(&["bench", "--help"], None, &scratch, WATCHDOG);
    assert!(bench.stdout.contains("Command queue push cost"), "{}", bench.stdout);
    assert!(bench.stdout.contains("[alias: ring]"), "{}", bench.stdout);
}
