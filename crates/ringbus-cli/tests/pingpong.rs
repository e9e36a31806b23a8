//! Runs the built `ringbus` binary on short ping-pong runs and checks what it reports: the
//! floor row and one row per wake mode and size, the rounds asked for, p50 ≤ p99, one way
//! = half the round trip, ratios to the floor, a plot, and nothing left in the root.
//! Behaviour only, no timing.

mod common;

use common::*;
use serde_json::Value;
use std::time::Duration;

/// The bench must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(120);

/// Runs `ringbus bench pingpong args... --json FILE` and returns its rows.
fn rows_of(args: &[&str]) -> (Vec<Value>, String) {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("pingpong.json");
    let args = [&["bench", "pingpong"], args, &["--json", json.to_str().unwrap()]].concat();
    let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");
    (serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap(), run.stdout)
}

fn f(r: &Value, field: &str) -> f64 {
    r[field].as_f64().unwrap_or_else(|| panic!("{field} in {r}"))
}

/// Every row: its rounds, p50 ≤ p99, one way = half the round trip, a ratio to the floor.
fn check_row(r: &Value, rounds: u64, echo: &str) {
    assert_eq!((r["rounds"].as_u64(), r["runs"].as_u64(), r["echo"].as_str()), (Some(rounds), Some(1), Some(echo)));
    let (p50, p99, mean) = (f(r, "round_trip_p50_ns"), f(r, "round_trip_p99_ns"), f(r, "round_trip_mean_ns"));
    assert!(0.0 < p50 && p50 <= p99 && mean > 0.0, "{r}");
    // Half the round trip (the mean is computed apart: equal up to rounding).
    let half = |one_way: &str, round_trip: f64| (f(r, one_way) - round_trip / 2.0).abs() <= round_trip * 1e-9;
    assert!(half("one_way_p50_ns", p50) && half("one_way_p99_ns", p99) && half("one_way_mean_ns", mean), "{r}");
    assert!(f(r, "p50_vs_floor") > 0.0 && f(r, "mean_vs_floor") > 0.0, "{r}");
    assert_eq!((r["initiator_cpu"].as_u64(), r["echo_cpu"].as_u64()), (Some(0), Some(1)), "{r}");
}

#[test]
fn a_quick_run_reports_the_floor_and_every_wake_mode_and_size() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let (json, plot) = (scratch.path().join("p.json"), scratch.path().join("p.svg"));
    let args = ["bench", "pingpong", "--quick", "--json", json.to_str().unwrap(), "--plot", plot.to_str().unwrap()];
    let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    assert!(run.stdout.contains("| variant | wake | payload | round trip p50 ns |"), "{}", run.stdout);
    assert!(run.stdout.contains("target: busy-poll one-way p50 ≤ 2.5× the cache-line floor"), "{}", run.stdout);
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"), "plot written");
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let shape: Vec<(String, String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["variant"].as_str().unwrap().into(),
                r["wake"].as_str().unwrap().into(),
                r["payload_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    let sizes = [8, 4096, 1 << 20];
    let busy = sizes.into_iter().flat_map(|s| [("ringbus", "never", s), ("ringbus-take-with", "never", s)]);
    let on_data = sizes.into_iter().map(|s| ("ringbus", "on-data", s));
    let expected: Vec<(String, String, u64)> = [("floor", "never", 0)]
        .into_iter()
        .chain(busy)
        .chain(on_data)
        .map(|(v, w, s)| (v.into(), w.into(), s))
        .collect();
    assert_eq!(shape, expected);
    for r in &rows {
        check_row(r, if r["wake"] == "on-data" { 500 } else { 20000 }, "thread");
    }
    assert_eq!(f(&rows[0], "p50_vs_floor"), 1.0, "the floor against itself");
}

#[test]
fn processes_run_the_rows_asked_for() {
    let args = [
        "--processes",
        "--wake",
        "never",
        "--size",
        "16",
        "--rounds",
        "3000",
        "--on-data-rounds",
        "7",
        "--repeat",
        "1",
    ];
    let (rows, stdout) = rows_of(&args);
    assert!(stdout.contains("echo end (a process)"), "{stdout}");
    let names: Vec<&str> = rows.iter().map(|r| r["variant"].as_str().unwrap()).collect();
    assert_eq!(names, ["floor", "ringbus", "ringbus-take-with"]);
    assert_eq!(rows[1]["payload_bytes"].as_u64(), Some(16));
    rows.iter().for_each(|r| check_row(r, 3000, "process"));
    let (rows, _) = rows_of(&[
        "--processes",
        "--wake",
        "on-data",
        "--size",
        "8",
        "--on-data-rounds",
        "50",
        "--rounds",
        "200",
        "--repeat",
        "1",
    ]);
    assert_eq!((rows[1]["wake"].as_str(), rows[1]["rounds"].as_u64()), (Some("on-data"), Some(50)));
    check_row(&rows[1], 50, "process");
}

#[test]
fn bad_options_fail_with_a_message_that_says_what_to_write() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let fails = |args: &[&str], says: &str| {
        let run = ringbus(&[&["bench", "pingpong"], args].concat(), Some(root.path()), &scratch, WATCHDOG);
        assert!(!run.status.success() && run.stderr.contains(says), "{args:?}: {}", run.stderr);
    };
    fails(&["--wake", "sometimes"], "never, on-data");
    fails(&["--cpus", "1,1"], "two different CPUs");
    fails(&["--size", "0"], "1 B to 1GiB");
    fails(&["--rounds", "0"], "0");
    let run = ringbus(&["bench", "pingpong", "--help"], Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success() && run.stdout.contains("ringbus bench pingpong --quick"), "{}", run.stdout);
}
