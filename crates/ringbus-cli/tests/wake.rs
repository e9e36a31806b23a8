//! Runs the built `ringbus` binary on a quick wake run and checks what it reports: one row
//! per WaitSet backend (or a stated reason it was skipped), exactly the wakes asked for,
//! p50 ≤ p99, and nothing left in the root. Behaviour only, no timing.

mod common;

use common::*;
use serde_json::Value;
use std::time::Duration;

/// The bench must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(120);

#[test]
fn a_quick_wake_run_reports_every_backend_with_the_wakes_asked_for_and_leaves_nothing() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("wake.json");
    let plot = scratch.path().join("wake.svg");
    let args = ["bench", "wake", "--quick", "--json", json.to_str().unwrap(), "--plot", plot.to_str().unwrap()];
    let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    assert!(run.stdout.contains("| backend | words | fds | wakes |"), "markdown table:\n{}", run.stdout);
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"), "plot written");
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");

    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for (backend, words, fds) in [("futex", 1, 0), ("futex_waitv", 8, 0), ("io_uring", 1, 1), ("epoll", 1, 1)] {
        let found: Vec<&Value> = rows.iter().filter(|r| r["backend"] == backend).collect();
        if found.is_empty() && backend != "futex" {
            // Only a machine that refuses the backend (seccomp, io_uring_disabled) may skip it, and says so.
            assert!(run.stdout.contains(&format!("skipped {backend}: ")), "no {backend} row in\n{}", run.stdout);
            continue;
        }
        assert_eq!(found.len(), 1, "one {backend} row in {rows:#?}");
        let r = found[0];
        assert_eq!((r["words"].as_u64(), r["fds"].as_u64()), (Some(words), Some(fds)), "{r}");
        assert_eq!(r["wakes"], 300, "{r}");
        let (p50, p99) = (r["wake_p50_us"].as_f64().unwrap(), r["wake_p99_us"].as_f64().unwrap());
        assert!(0.0 < p50 && p50 <= p99, "{r}");
        assert!(r["waiter_cpu_us_per_wake"].as_f64().is_some_and(|v| v >= 0.0), "{r}");
        assert!(r["p50_vs_futex"].as_f64().is_some_and(|v| v > 0.0), "{r}");
        assert!(r["wakes_not_asleep"].as_u64().is_some_and(|n| n <= 300), "{r}");
    }
    assert_eq!(rows.iter().filter(|r| r["backend"] == "futex").count(), 1, "the futex baseline is never skipped");
}

#[test]
fn a_chosen_backend_and_count_are_what_runs() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("wake.json");
    let args = [
        "bench",
        "wake",
        "--backends",
        "futex_waitv",
        "--count",
        "17",
        "--warmup",
        "0",
        "--rate",
        "2000",
        "--cpus",
        "0,0",
    ];
    let run =
        ringbus(&[&args[..], &["--json", json.to_str().unwrap()]].concat(), Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!((rows[0]["backend"].as_str(), rows[0]["wakes"].as_u64()), (Some("futex_waitv"), Some(17)));
    assert!(rows[0]["p50_vs_futex"].is_null(), "no futex row to compare with: {}", rows[0]);
    assert_eq!((rows[0]["waker_cpu"].as_u64(), rows[0]["waiter_cpu"].as_u64()), (Some(0), Some(0)));
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");
}

#[test]
fn bad_options_fail_with_a_message_that_says_what_to_write() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let run = ringbus(&["bench", "wake", "--backends", "kqueue"], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("futex, futex_waitv, io_uring, epoll"), "{}", run.stderr);
    let run = ringbus(&["bench", "wake", "--count", "0"], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("1 to 1000000"), "{}", run.stderr);
    let run = ringbus(&["bench", "wake", "--cpus", "0,100000"], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    let run = ringbus(&["bench", "wake", "--help"], Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success() && run.stdout.contains("ringbus bench wake --quick"), "{}", run.stdout);
}
