//! Runs the built `ringbus` binary on a quick `bench memory` run and checks what it reports:
//! every scenario, with the sizes the design promises (5-byte messages on a 64 MiB topic
//! hold at most 2 MiB; the large streams at most twice what is in flight plus 2 MiB), the
//! memory backing everything in flight, the computed preallocated pool; both latency
//! variants at both sizes with their ratios; nothing left in the root. Sizes and counts
//! only, never times.

mod common;

use common::*;
use serde_json::Value;
use std::time::Duration;

/// The bench must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(240);
const MIB: u64 = 1 << 20;
/// --quick: messages per scenario, the default depth, and each latency run's messages.
const SCENARIOS: [(&str, u64); 3] = [("tiny", 500), ("camera", 60), ("pointcloud", 30)];
const DEPTH: u64 = 16;
const LATENCY: [(u64, u64); 2] = [(64, 500), (MIB, 200)];

fn u(r: &Value, key: &str) -> u64 {
    r[key].as_u64().unwrap_or_else(|| panic!("{key} of {r}"))
}

fn f(r: &Value, key: &str) -> f64 {
    r[key].as_f64().unwrap_or_else(|| panic!("{key} of {r}"))
}

#[test]
fn a_quick_run_reports_every_scenario_within_its_memory_limit_and_both_latency_variants() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("memory.json");
    let plot = scratch.path().join("memory.svg");
    let args = ["bench", "memory", "--quick", "--json", json.to_str().unwrap(), "--plot", plot.to_str().unwrap()];
    let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    assert!(run.stdout.contains("| scenario | msgs | sizes | reserved peak |"), "memory table:\n{}", run.stdout);
    assert!(run.stdout.contains("| payload | variant | msgs | reps |"), "latency table:\n{}", run.stdout);
    assert!(run.stdout.contains("target: on demand within 1.1× of preallocated"), "targets:\n{}", run.stdout);
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"), "plot written");
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");

    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let memory: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "memory").collect();
    let names: Vec<&str> = memory.iter().map(|r| r["scenario"].as_str().unwrap()).collect();
    assert_eq!(names, SCENARIOS.map(|(name, _)| name), "every scenario, once, in order");
    for (r, (name, messages)) in memory.iter().zip(SCENARIOS) {
        assert_eq!((u(r, "messages"), u(r, "depth")), (messages, DEPTH), "{name}: {r}");
        let (reserved, payload, in_flight) =
            (u(r, "reserved_peak_bytes"), u(r, "reserved_payload_peak_bytes"), u(r, "in_flight_peak_bytes"));
        assert!(in_flight > 0, "{name}: {r}");
        assert!(payload >= in_flight, "{name}: the memory backs every byte in flight: {r}");
        assert!(reserved >= payload, "{name}: the root's files hold the payload: {r}");
        let limit = if name == "tiny" { 2 * MIB } else { 2 * in_flight + 2 * MIB };
        assert_eq!(u(r, "limit_bytes"), limit, "{name}: {r}");
        assert!(reserved <= limit && r["within_limit"] == true, "{name} over its limit: {r}");
        let max_payload = u(r, "max_payload_bytes");
        assert_eq!(u(r, "preallocated_bytes_computed"), u(r, "chunks") * max_payload, "{name}: {r}");
        assert!(u(r, "preallocated_bytes_computed") > reserved, "{name}: {r}");
        assert!(u(r, "smallest_bytes") <= u(r, "largest_bytes") && u(r, "largest_bytes") <= max_payload, "{r}");
        assert!((f(r, "reserved_vs_in_flight") - reserved as f64 / in_flight as f64).abs() < 1e-9, "{r}");
        assert!(r["syscalls_per_publish"].is_null() || f(r, "syscalls_per_publish") >= 0.0, "{r}");
    }
    let tiny = memory[0];
    assert_eq!(u(tiny, "in_flight_peak_bytes"), (DEPTH + 1) * 5, "the log's 16 messages and the loan: {tiny}");
    assert_eq!((u(tiny, "max_payload_bytes"), tiny["seed"].is_null()), (64 * MIB, true), "{tiny}");
    let camera = memory[1];
    assert_eq!((u(camera, "subscribers"), u(camera, "hold_ms"), u(camera, "seed")), (2, 100, 1), "{camera}");
    assert_eq!((u(camera, "max_held"), u(camera, "chunks")), (8, DEPTH + 16 * 8 + 1), "{camera}");

    let latency: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "latency").collect();
    assert_eq!(latency.len(), 4, "two variants at two sizes: {latency:#?}");
    for (bytes, messages) in LATENCY {
        for variant in ["on-demand", "preallocated"] {
            let r = latency.iter().find(|r| r["variant"] == variant && u(r, "payload_bytes") == bytes);
            let r = r.unwrap_or_else(|| panic!("no {variant} {bytes} B row in {latency:#?}"));
            assert_eq!((u(r, "messages"), u(r, "repetitions"), u(r, "max_payload_bytes")), (messages, 3, MIB), "{r}");
            for (p50, p99) in [("publish_p50_us", "publish_p99_us"), ("e2e_p50_us", "e2e_p99_us")] {
                assert!(0.0 < f(r, p50) && f(r, p50) <= f(r, p99), "{r}");
            }
            let on_demand = variant == "on-demand";
            assert_eq!(r["publish_p50_vs_preallocated"].as_f64().is_some_and(|v| v > 0.0), on_demand, "{r}");
            assert_eq!(r["e2e_p50_vs_preallocated"].as_f64().is_some_and(|v| v > 0.0), on_demand, "{r}");
            assert_eq!(r["within_target"].is_boolean(), on_demand, "{r}");
        }
    }
}

#[test]
fn at_depth_2_the_held_camera_frames_outlast_the_log_and_count_as_in_flight() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("memory.json");
    let args = ["bench", "memory", "--quick", "--scenarios", "tiny,camera", "--depth", "2", "--repeat", "0", "--json"];
    let run = ringbus(&[&args[..], &[json.to_str().unwrap()]].concat(), Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["scenario"].as_str().unwrap()).collect();
    assert_eq!(names, ["tiny", "camera"], "{rows:#?}");
    assert!(rows.iter().all(|r| u(r, "depth") == 2), "{rows:#?}");
    assert_eq!(u(&rows[0], "in_flight_peak_bytes"), 3 * 5, "2 in the log and the loan: {}", rows[0]);
    // A frame held 100 ms at 30 Hz sees at least two more published: it left the log.
    let camera = &rows[1];
    let (held, in_flight) = (u(camera, "held_past_log_peak_bytes"), u(camera, "in_flight_peak_bytes"));
    assert!(0 < held && held < in_flight, "{camera}");
    assert!(u(camera, "reserved_payload_peak_bytes") >= in_flight, "{camera}");
    assert!(!run.stdout.contains("### Latency"), "{}", run.stdout);
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");
}

#[test]
fn bad_options_fail_with_a_message_that_says_what_to_write() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let run = ringbus(&["bench", "memory", "--scenarios", "lidar"], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("tiny, camera, pointcloud"), "{}", run.stderr);
    let run = ringbus(&["bench", "memory", "--depth", "3"], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("power of two"), "{}", run.stderr);
    let run = ringbus(&["bench", "memory", "--help"], Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success() && run.stdout.contains("ringbus bench memory --quick"), "{}", run.stdout);
    assert!(run.stdout.contains("COMPUTED, not measured"), "{}", run.stdout);
}
