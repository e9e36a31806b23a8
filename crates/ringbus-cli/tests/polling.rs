//! Runs the built `ringbus` binary on a quick polling run and checks what it reports: a
//! row for both scenarios in both styles; the polling style costs publishers no wake
//! system call and wakes only for its timer; the callback style makes publishers wake it
//! and wakes more often; nothing is left in the root. Behaviour (counts) only, no timing.

mod common;

use common::*;
use serde_json::Value;
use std::time::Duration;

/// The bench must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(180);
/// The node's timer rate.
const TIMER_HZ: f64 = 10.0;

fn row<'a>(rows: &'a [Value], scenario: &str, style: &str) -> &'a Value {
    let found: Vec<&Value> = rows.iter().filter(|r| r["scenario"] == scenario && r["style"] == style).collect();
    assert_eq!(found.len(), 1, "one {scenario} {style} row in {rows:#?}");
    found[0]
}

#[test]
fn a_quick_run_shows_polling_costs_no_wake_calls_and_wakes_only_for_the_timer() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let json = scratch.path().join("polling.json");
    let plot = scratch.path().join("polling.svg");
    let (json_arg, plot_arg) = (json.to_str().unwrap(), plot.to_str().unwrap());
    let args = ["bench", "polling", "--quick", "--duration", "1", "--json", json_arg, "--plot", plot_arg];
    let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    assert!(run.stdout.contains("| scenario | style | cpu ms (user+sys) |"), "markdown table:\n{}", run.stdout);
    assert!(run.stdout.contains("- scaled: polling ÷ callback: CPU "), "ratio lines:\n{}", run.stdout);
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"), "plot written");
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "files left in the root");

    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.len(), 4, "{rows:#?}");
    for r in &rows {
        for key in ["cpu_s", "wakeups_per_s", "duration_s", "cpu_user_s", "cpu_sys_s"] {
            assert!(r[key].as_f64().is_some_and(|v| v >= 0.0), "{key} of {r}");
        }
        for key in ["voluntary_ctx_switches", "publisher_wake_syscalls", "timer_calls", "messages_published"] {
            assert!(r[key].is_u64(), "{key} of {r}");
        }
        assert_eq!(r["repeat"], 1, "{r}");
    }
    for scenario in ["three-topics", "scaled"] {
        let (callback, polling) = (row(&rows, scenario, "callback"), row(&rows, scenario, "polling"));
        let seconds = polling["duration_s"].as_f64().unwrap();
        let polling_wakeups = polling["wakeups_per_s"].as_f64().unwrap();
        assert_eq!(polling["publisher_wake_syscalls"], 0, "a Wake::Never subscriber cost a wake call: {polling}");
        // The timer and nothing else: its rate, plus the slack the bench allows its timer.
        let limit = TIMER_HZ + (2.0 + seconds.ceil()) / seconds;
        assert!(polling_wakeups <= limit, "more than {limit} wake-ups/s: {polling}");
        assert!(polling["cpu_vs_callback"].is_number(), "{polling}");
        assert!(callback["publisher_wake_syscalls"].as_u64().unwrap() > 0, "publishers never woke it: {callback}");
        assert!(callback["wakeups_per_s"].as_f64().unwrap() > polling_wakeups, "{callback} vs {polling}");
        assert!(callback["cpu_vs_callback"].is_null(), "{callback}");
    }
}

#[test]
fn bad_options_fail_with_a_message_that_says_what_to_write() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let run = ringbus(&["bench", "polling", "--scenario", "nope"], Some(root.path()), &scratch, WATCHDOG);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("three-topics, scaled"), "{}", run.stderr);
    let run = ringbus(&["bench", "polling", "--size", "8"], Some(root.path()), &scratch, WATCHDOG);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("16 B to 64KiB"), "{}", run.stderr);
    let run = ringbus(&["bench", "polling", "--duration", "0"], Some(root.path()), &scratch, WATCHDOG);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("0.5 s to 3600 s"), "{}", run.stderr);
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "nothing created");
}

#[test]
fn help_says_what_is_measured() {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["bench", "polling", "--help"], None, &scratch, WATCHDOG);
    assert!(run.status.success(), "{}", run.stderr);
    for needle in ["Wake::OnData", "Wake::Never", "getrusage(RUSAGE_SELF)", "--json <FILE>", "--plot <FILE.svg>"] {
        assert!(run.stdout.contains(needle), "{needle} missing from:\n{}", run.stdout);
    }
}
