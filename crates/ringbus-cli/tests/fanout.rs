//! Runs the built `ringbus` binary on a tiny fan-out and checks what it reports: every
//! row, every message, and the exact system calls per publish. Behaviour only, no timing.

mod common;

use common::*;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// The bench must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(120);

fn row<'a>(rows: &'a [Value], transport: &str) -> &'a Value {
    let found: Vec<&Value> = rows.iter().filter(|r| r["transport"] == transport).collect();
    assert_eq!(found.len(), 1, "expected one {transport} row in {rows:#?}");
    found[0]
}

/// Runs `ringbus bench fanout` at 100 Hz, 10 messages of 64 bytes, with `options`; checks
/// it succeeded and returns its output and the rows of its JSON.
fn tiny_fanout(options: &[&str]) -> (Run, Vec<Value>) {
    let scratch = tempfile::tempdir().unwrap();
    let json: PathBuf = scratch.path().join("fanout.json");
    let mut args = vec!["bench", "fanout", "--count", "10", "--rate", "100", "--size", "64"];
    args.extend_from_slice(options);
    args.extend_from_slice(&["--json", json.to_str().unwrap()]);
    let run = ringbus(&args, None, &scratch, WATCHDOG);
    assert!(run.status.success(), "ringbus failed ({}):\n{}\n{}", run.status, run.stdout, run.stderr);
    let rows = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (run, rows)
}

#[test]
fn a_tiny_fanout_reports_every_row_and_exact_syscalls() {
    let transports = "ringbus,ringbus-polling,eventfd,idle-floor";
    let (run, rows) = tiny_fanout(&["--subs", "2", "--repeat", "2", "--transports", transports]);
    assert!(run.stdout.contains("| ringbus | 2 | 1 | 64B | 20 |"), "markdown table:\n{}", run.stdout);
    assert_eq!(rows.len(), 4, "{rows:#?}");
    let floor = row(&rows, "idle-floor");
    assert!(floor["publish_p50_us"].as_f64().is_some_and(|v| v > 0.0), "{floor}");
    assert!(floor["e2e_p50_us"].is_null(), "no subscriber, no end-to-end figure: {floor}");
    assert_eq!(floor["lost"], 0, "{floor}");
    for r in rows.iter().filter(|r| r["transport"] != "idle-floor") {
        assert_eq!(r["subs"], 2);
        assert_eq!(r["topics"], 1);
        assert_eq!(r["payload_bytes"], 64);
        assert_eq!(r["messages"], 20, "10 in each of 2 passes");
        assert_eq!(r["repetitions"], 2);
        for key in
            ["publish_p50_us", "publish_p99_us", "e2e_p50_us", "e2e_p99_us", "last_e2e_p50_us", "last_e2e_p99_us"]
        {
            assert!(r[key].as_f64().is_some_and(|v| v > 0.0), "{key} of {r}");
        }
        // One topic: a tick's start is the message's own publish.
        assert_eq!(r["tick_e2e_p50_us"], r["e2e_p50_us"], "{r}");
        // Every side did some work for its messages (the kernel counts CPU time exactly).
        for key in ["publisher_cpu_us_per_message", "subscribers_cpu_us_per_message"] {
            assert!(r[key].as_f64().is_some_and(|v| v > 0.0), "{key} of {r}");
        }
        assert!(r["wakeups_per_delivery"].as_f64().is_some_and(|v| v >= 0.0), "{r}");
    }
    assert!(floor["subscribers_cpu_us_per_message"].is_null(), "nobody receives: {floor}");
    let ringbus = row(&rows, "ringbus");
    assert!(ringbus["publish_p50_vs_eventfd"].as_f64().is_some(), "ratio column filled: {ringbus}");
    assert!(ringbus["subscribers_cpu_vs_eventfd"].as_f64().is_some_and(|v| v > 0.0), "{ringbus}");
    assert!(ringbus["total_cpu_vs_eventfd"].as_f64().is_some_and(|v| v > 0.0), "{ringbus}");
    assert!(run.stdout.contains("subs CPU µs/msg"), "cost columns in the table:\n{}", run.stdout);
    for r in [ringbus, row(&rows, "ringbus-polling")] {
        assert!(r["publish_p50_vs_idle_floor"].as_f64().is_some_and(|v| v > 0.0), "ratio to the floor: {r}");
    }

    if let Some(line) = run.stderr.lines().find(|l| l.contains("system calls will not be counted")) {
        eprintln!("skipping the system-call assertions: {line}");
        assert!(ringbus["syscalls_per_publish"].is_null());
        return;
    }
    // Subscribers asleep: one futex call per publish, whatever their number. (A publish that
    // found a subscriber still awake on a loaded machine is counted by the bench; only then
    // may the mean drop below 1, never the maximum above it.)
    assert_eq!(ringbus["syscalls_max"], 1, "{ringbus}");
    if ringbus["publishes_not_all_asleep"] == 0 {
        assert_eq!(ringbus["syscalls_per_publish"], 1.0, "{ringbus}");
    } else {
        eprintln!("some publishes found a subscriber awake: {ringbus}");
    }
    // Nobody sleeps: no system call at all; nor in the floor's loop.
    assert_eq!(floor["syscalls_max"], 0, "{floor}");
    let polling = row(&rows, "ringbus-polling");
    assert_eq!(polling["syscalls_per_publish"], 0.0, "{polling}");
    assert_eq!(polling["syscalls_max"], 0, "{polling}");
    // One write() per subscriber.
    let eventfd = row(&rows, "eventfd");
    assert_eq!(eventfd["syscalls_per_publish"], 2.0, "{eventfd}");
    assert_eq!(eventfd["syscalls_max"], 2, "{eventfd}");
}

#[test]
fn with_several_topics_a_tick_e2e_counts_from_the_first_publish_of_the_tick() {
    let (run, rows) = tiny_fanout(&["--subs", "3", "--topics", "3", "--transports", "ringbus,eventfd"]);
    assert!(run.stdout.contains("tick e2e p50 µs"), "the tick columns appear with several topics:\n{}", run.stdout);
    for r in &rows {
        assert_eq!((r["topics"].as_u64(), r["lost"].as_u64()), (Some(3), Some(0)), "{r}");
        // Topics 1 and 2 start later than the tick, never earlier: every tick e2e is at
        // least the same message's own e2e, so its percentiles are too.
        for q in ["p50", "p99"] {
            let (own, tick) =
                (r[format!("e2e_{q}_us")].as_f64().unwrap(), r[format!("tick_e2e_{q}_us")].as_f64().unwrap());
            assert!(tick >= own, "tick e2e {q} {tick} < own {own}: {r}");
        }
    }
    let ringbus = row(&rows, "ringbus");
    assert!(ringbus["tick_e2e_p50_vs_eventfd"].as_f64().is_some_and(|v| v > 0.0), "{ringbus}");
    assert!(row(&rows, "eventfd")["tick_e2e_p50_vs_eventfd"].is_null());
}

#[test]
fn reliable_subscribers_get_their_own_row_beside_ringbus_and_lose_nothing() {
    let options = ["--subs", "2", "--repeat", "2", "--reliable", "1", "--transports", "ringbus,eventfd"];
    let (run, rows) = tiny_fanout(&options);
    let transports: Vec<&str> = rows.iter().map(|r| r["transport"].as_str().unwrap()).collect();
    assert_eq!(transports, ["ringbus", "ringbus-reliable", "eventfd"], "measured right after ringbus");
    assert!(run.stdout.contains("| ringbus-reliable | 2 | 1 | 64B | 20 |"), "markdown table:\n{}", run.stdout);
    assert!(
        run.stdout.contains("| reliable subs | blocked | publish p50 / ringbus | e2e p50 / ringbus |"),
        "{}",
        run.stdout
    );
    for r in &rows {
        assert_eq!((r["messages"].as_u64(), r["lost"].as_u64()), (Some(20), Some(0)), "nothing lost: {r}");
    }
    let reliable = row(&rows, "ringbus-reliable");
    assert_eq!(reliable["reliable_subs"], 1, "{reliable}");
    let blocked = reliable["blocked"].as_u64().expect("the publisher's waits are reported");
    assert!(blocked <= 20 && reliable["blocked_ns"].as_u64().is_some(), "{reliable}");
    for key in ["publish_p50_vs_ringbus", "e2e_p50_vs_ringbus", "publish_p50_vs_eventfd", "e2e_p50_vs_eventfd"] {
        assert!(reliable[key].as_f64().is_some_and(|v| v > 0.0), "{key} of {reliable}");
    }
    for r in [row(&rows, "ringbus"), row(&rows, "eventfd")] {
        assert!(r.get("reliable_subs").is_none() && r.get("blocked").is_none(), "lossy rows unchanged: {r}");
    }
    if blocked > 0 || run.stderr.contains("system calls will not be counted") {
        return;
    }
    // Keeping up, the reliable subscriber costs the publisher no system call: one futex
    // call per publish, as for ringbus.
    assert_eq!(reliable["syscalls_max"], 1, "{reliable}");
}

#[test]
fn bad_options_fail_with_a_message_that_says_what_to_write() {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["bench", "fanout", "--size", "1MB"], None, &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("1MiB"), "{}", run.stderr);
    let run = ringbus(&["bench", "fanout", "--transports", "tcp"], None, &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("ringbus-polling"), "{}", run.stderr);
    let run = ringbus(&["bench", "fanout", "--subs", "1,4", "--reliable", "2"], None, &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("smallest --subs"), "{}", run.stderr);
    let run = ringbus(&["bench", "fanout", "--transports", "ringbus-reliable"], None, &scratch, WATCHDOG);
    assert!(!run.status.success());
    assert!(run.stderr.contains("--reliable 1"), "{}", run.stderr);
}

#[test]
fn the_futex_floor_delivers_everything_with_one_call_and_gives_ringbus_its_ratio() {
    // Topic 0 has three subscribers (more than the two a publish wakes itself: the relay
    // wakes the third), topic 1 has two.
    let (run, rows) = tiny_fanout(&["--subs", "5", "--topics", "2", "--transports", "ringbus,futex,eventfd"]);
    assert!(run.stdout.contains("| e2e p50 / futex |"), "the futex column appears:\n{}", run.stdout);
    let futex = row(&rows, "futex");
    assert_eq!((futex["messages"].as_u64(), futex["lost"].as_u64()), (Some(10), Some(0)), "{futex}");
    assert!(futex["e2e_p50_vs_eventfd"].as_f64().is_some_and(|v| v > 0.0), "{futex}");
    assert!(futex["e2e_p50_vs_futex"].is_null(), "{futex}");
    let ringbus = row(&rows, "ringbus");
    assert!(ringbus["e2e_p50_vs_futex"].as_f64().is_some_and(|v| v > 0.0), "{ringbus}");
    if run.stderr.contains("system calls will not be counted") {
        return;
    }
    assert_eq!(futex["syscalls_max"], 1, "one wake call per publish, relay or not: {futex}");
}

/// A figure as the report prints it: `1234`, `12.3`, `1.23`.
fn num(v: f64) -> String {
    match v {
        v if v >= 100.0 => format!("{v:.0}"),
        v if v >= 10.0 => format!("{v:.1}"),
        v => format!("{v:.2}"),
    }
}

#[test]
fn the_verdict_reads_its_figures_from_the_run_and_the_table_goes_to_a_file() {
    let scratch = tempfile::tempdir().unwrap();
    let markdown = scratch.path().join("fanout.md");
    let transports = "ringbus,ringbus-polling,futex,eventfd,idle-floor";
    let (run, rows) =
        tiny_fanout(&["--subs", "1,2", "--transports", transports, "--markdown", markdown.to_str().unwrap()]);
    // Stdout: the verdict and where the table is, short and narrow; the table is in the file,
    // followed by the same verdict.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("Verdict of this run (64B messages, 100 Hz, 1 pass):"), "{}", run.stdout);
    assert!(lines.len() <= 25 && lines.iter().all(|l| l.chars().count() <= 100), "{}", run.stdout);
    assert!(
        lines.last().unwrap().starts_with(&format!("Full table: {} (JSON: ", markdown.display())),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("| transport |"), "no table on stdout:\n{}", run.stdout);
    let file = std::fs::read_to_string(&markdown).unwrap();
    assert!(file.contains("| ringbus | 1 | 1 | 64B | 10 |"), "{file}");
    assert!(file.trim_end().ends_with(lines[lines.len() - 2]), "the file ends with the verdict:\n{file}");

    // Every figure quoted is this run's, as its JSON has it.
    let text = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = |transport: &str, subs: u64| {
        rows.iter().find(|r| r["transport"] == transport && r["subs"] == subs).unwrap_or_else(|| panic!("{rows:#?}"))
    };
    let f = |r: &Value, key: &str| r[key].as_f64().unwrap_or_else(|| panic!("{key} of {r}"));
    let (r1, r2) = (at("ringbus", 1), at("ringbus", 2));
    let publish = format!("ringbus {}, {} µs;", num(f(r1, "publish_p50_us")), num(f(r2, "publish_p50_us")));
    assert!(text.contains(&publish), "{publish:?} not in:\n{}", run.stdout);
    let e2e = format!(
        "ringbus ÷ eventfd: {:.2}× at N = 1, {:.2}× at 2.",
        f(r1, "e2e_p50_vs_eventfd"),
        f(r2, "e2e_p50_vs_eventfd")
    );
    assert!(text.contains(&e2e), "{e2e:?} not in:\n{}", run.stdout);
    let floor = [f(r1, "e2e_p50_vs_futex"), f(r2, "e2e_p50_vs_futex")];
    let (lo, hi) = (floor[0].min(floor[1]), floor[0].max(floor[1]));
    let floor =
        if format!("{lo:.2}") == format!("{hi:.2}") { format!("{lo:.2}×") } else { format!("{lo:.2}–{hi:.2}×") };
    assert!(text.contains(&format!("takes): {floor}.")), "{floor:?} not in:\n{}", run.stdout);
    let polling = [f(at("ringbus-polling", 1), "e2e_p50_us"), f(at("ringbus-polling", 2), "e2e_p50_us")];
    let (lo, hi) = (num(polling[0].min(polling[1])), num(polling[0].max(polling[1])));
    let quoted = if lo == hi { format!("e2e p50 of {lo} µs") } else { format!("e2e p50 of {lo}–{hi} µs") };
    assert!(text.contains(&quoted), "{quoted:?} not in:\n{}", run.stdout);
    assert!(text.contains("System calls per publish: "), "{}", run.stdout);
}
