//! Runs the built `ringbus` binary on a quick token run and checks what it reports: a row
//! for both mechanisms and every worker count, exactly the jobs asked for, no herd from the
//! semaphore, and nothing left in the root. Behaviour only, no timing.

mod common;

use common::*;
use serde_json::Value;
use std::time::Duration;

/// The bench must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(180);

#[test]
fn a_quick_token_run_reports_both_mechanisms_exact_jobs_and_leaves_nothing() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("tokens.json");
    let plot = scratch.path().join("tokens.svg");
    let args = ["bench", "tokens", "--quick", "--json", json.to_str().unwrap(), "--plot", plot.to_str().unwrap()];
    let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    assert!(run.stdout.contains("| 16 | 2 | semaphore | 400 |"), "markdown table:\n{}", run.stdout);
    assert!(run.stdout.contains("sys CPU semaphore ÷ pipe"), "ratio table:\n{}", run.stdout);
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"), "plot written");
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");

    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.len(), 4, "{rows:#?}");
    for workers in [8, 16] {
        for mechanism in ["pipe", "semaphore"] {
            let found: Vec<&Value> =
                rows.iter().filter(|r| r["workers"] == workers && r["mechanism"] == mechanism).collect();
            assert_eq!(found.len(), 1, "one {mechanism} row for {workers} workers in {rows:#?}");
        }
    }
    for r in &rows {
        assert_eq!(r["jobs"], 400, "{r}");
        assert_eq!(r["tokens"], 2, "{r}");
        assert!(r["max_holders"].as_u64().is_some_and(|n| (1..=2).contains(&n)), "{r}");
        for key in ["wall_s", "user_cpu_s", "sys_cpu_s", "ctx_switches_per_job"] {
            assert!(r[key].as_f64().is_some_and(|v| v >= 0.0), "{key} of {r}");
        }
        if r["mechanism"] == "semaphore" {
            let (calls, woken) = (r["wake_calls"].as_u64().unwrap(), r["woken"].as_u64().unwrap());
            assert!(woken <= calls, "a semaphore post woke more than one sleeper: {r}");
            assert!(r["sys_cpu_vs_pipe"].is_number() || r["sys_cpu_vs_pipe"].is_null(), "{r}");
        } else {
            assert!(r["failed_takes"].is_u64() && r["wake_calls"].is_null(), "{r}");
        }
    }
}

#[test]
fn jobs_are_counted_exactly_whatever_the_split() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("tokens.json");
    let args =
        ["bench", "tokens", "--workers", "3", "--tokens", "1", "--jobs", "101", "--job-us", "0", "--repeat", "2"];
    let run =
        ringbus(&[&args[..], &["--json", json.to_str().unwrap()]].concat(), Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    for r in &rows {
        assert_eq!(
            (r["jobs"].as_u64(), r["repeat"].as_u64(), r["max_holders"].as_u64()),
            (Some(101), Some(2), Some(1))
        );
    }
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");
}

#[test]
fn bad_options_fail_with_a_message_that_says_what_to_write() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let run = ringbus(&["bench", "tokens", "--mechanisms", "futex"], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("pipe, semaphore"), "{}", run.stderr);
    let run = ringbus(&["bench", "tokens", "--workers", "0"], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("1 to 1024"), "{}", run.stderr);
}
