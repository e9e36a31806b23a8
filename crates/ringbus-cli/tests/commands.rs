//! `ringbus list / info / echo / pub / hz / clean` against live processes: each test starts
//! real publishers and subscribers (this process, and `ringbus` commands in the
//! background), then checks the commands' `--json` output and exit codes exactly.

mod common;

use common::{json, ringbus, wait_until, Background};
use ringbus::Wake;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

fn node(root: &Path) -> ringbus::Node {
    ringbus::Node::with_root("test", root).unwrap()
}

fn lines(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}"))).collect()
}

/// The subscriber row of process `pid` in `ringbus info --json`.
fn subscriber_of(info: &Value, pid: u32) -> Value {
    let subs = info["subscribers"].as_array().unwrap();
    subs.iter().find(|s| s["pid"] == pid).unwrap_or_else(|| panic!("no subscriber of pid {pid}: {info}")).clone()
}

#[test]
fn info_figures_match_what_was_published_and_consumed_exactly() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let mut publisher = node.topic("sensors/imu").max_payload_bytes(256).depth(64).publisher().unwrap();
    let mut polling = node.topic("sensors/imu").wake(Wake::Never).subscriber().unwrap();
    let echo = Background::start(&["echo", "sensors/imu", "--json"], root.path(), &scratch, "echo");
    wait_until(LIMIT, "echo subscribed", || {
        json(&["info", "sensors/imu", "--json"], root.path(), &scratch)["subscribers"].as_array().unwrap().len() == 2
    });
    for i in 0..10u8 {
        publisher.publish_copy(&vec![b'a' + i; 10 + i as usize]).unwrap();
    }
    for _ in 0..3 {
        polling.take().unwrap().unwrap();
    }
    wait_until(LIMIT, "echo printed 10 messages", || echo.stdout().lines().count() == 10);

    let info = json(&["info", "/sensors/imu", "--json"], root.path(), &scratch);
    assert_eq!(info["name"], "sensors/imu");
    assert_eq!((info["publishes"].as_u64(), info["payload_bytes"].as_u64()), (Some(10), Some((10..20).sum())));
    assert_eq!(info["settings"]["max_payload_bytes"], 256);
    assert_eq!(info["settings"]["depth"], 64);
    let p = &info["publishers"][0];
    assert_eq!((p["pid"].as_u64(), p["alive"].as_bool()), (Some(std::process::id() as u64), Some(true)));
    assert_eq!(p["wake_syscalls"].as_u64().unwrap() + p["wakes_skipped"].as_u64().unwrap(), 10);
    let mine = subscriber_of(&info, std::process::id());
    assert_eq!(
        (&mine["wake"], &mine["taken"], &mine["lag"], &mine["lost"]),
        (&"never".into(), &3.into(), &7.into(), &0.into())
    );
    let theirs = subscriber_of(&info, echo.pid());
    assert_eq!((&theirs["wake"], &theirs["taken"], &theirs["lost"]), (&"on_data".into(), &10.into(), &0.into()));
    assert_eq!(theirs["lag"], 0, "echo drained the topic and went back to sleep");

    let echoed = lines(&echo.stdout());
    let positions: Vec<u64> = echoed.iter().map(|v| v["position"].as_u64().unwrap()).collect();
    assert_eq!(positions, (0..10).collect::<Vec<_>>());
    assert_eq!(echoed[2]["text"], "cccccccccccc");

    let list = json(&["list", "--json"], root.path(), &scratch);
    assert_eq!(list["topics"][0]["name"], "sensors/imu");
    let nodes: Vec<&str> = list["nodes"].as_array().unwrap().iter().map(|n| n["name"].as_str().unwrap()).collect();
    assert_eq!(nodes.len(), 2);
    assert!(nodes.contains(&"test") && nodes.contains(&"ringbus-echo"), "{nodes:?}");
    let human = ringbus(&["info", "sensors/imu"], Some(root.path()), &scratch, LIMIT);
    assert!(human.status.success() && human.stdout.contains("SUBSCRIBERS") && human.stdout.contains("never"));
    echo.signal(libc::SIGTERM);
}

#[test]
fn pub_delivers_arguments_files_and_hex_and_echo_counts_with_history() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let mut sub = node.topic("cmd").max_payload_bytes(64).history(4).subscriber().unwrap();
    let file = scratch.path().join("frame.bin");
    std::fs::write(&file, [0u8, 1, 2, 255]).unwrap();
    let file = file.to_str().unwrap();
    for args in [
        &["pub", "cmd", "hello", "--count", "2"][..],
        &["pub", "cmd", "--file", file],
        &["pub", "cmd", "--hex", "de ad"],
    ] {
        let run = ringbus(args, Some(root.path()), &scratch, LIMIT);
        assert!(run.status.success(), "{args:?}: {}", run.stderr);
    }
    // Each `pub` took a slot never used before, so what the departed ones sent is still
    // readable; publishers are read round-robin, each in order.
    let mut got: Vec<Vec<u8>> = std::iter::from_fn(|| sub.take().unwrap().map(|s| s.to_vec())).collect();
    got.sort();
    assert_eq!(got, [vec![0, 1, 2, 255], b"hello".to_vec(), b"hello".to_vec(), vec![0xde, 0xad]]);

    // A late echo gets the history a topic keeps (up to 4 per publisher here).
    let mut publisher = node.topic("hist").history(4).publisher().unwrap();
    for word in ["one", "two", "three"] {
        publisher.publish_copy(word.as_bytes()).unwrap();
    }
    let run = ringbus(&["echo", "hist", "--count", "3", "--json"], Some(root.path()), &scratch, LIMIT);
    assert!(run.status.success(), "{}", run.stderr);
    let texts: Vec<Value> = lines(&run.stdout).iter().map(|v| v["text"].clone()).collect();
    assert_eq!(texts, ["one", "two", "three"]);

    // From stdin.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ringbus"))
        .args(["pub", "cmd", "-"])
        .env("RINGBUS_ROOT", root.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"from stdin").unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(&*sub.take().unwrap().expect("the stdin message"), b"from stdin");

    let too_big = ringbus(&["pub", "cmd", &"x".repeat(65)], Some(root.path()), &scratch, LIMIT);
    assert_eq!(too_big.status.code(), Some(1));
    assert!(too_big.stderr.contains("max_payload_bytes of 64"), "{}", too_big.stderr);
    let bad_hex = ringbus(&["pub", "cmd", "--hex", "xyz"], Some(root.path()), &scratch, LIMIT);
    assert_eq!(bad_hex.status.code(), Some(1));
    assert!(bad_hex.stderr.contains("non-hex character"), "{}", bad_hex.stderr);
}

#[test]
fn pub_creates_topics_with_the_settings_given_and_refuses_ones_that_differ() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let mut publisher = Background::start(
        &["pub", "wide", "x", "--max-subscribers", "64", "--depth", "64", "--history", "4", "--wait-subscribers", "1"],
        root.path(),
        &scratch,
        "pub",
    );
    let root_handle = ringbus::Root::open(root.path()).unwrap();
    wait_until(LIMIT, "the topic created by pub", || ringbus::inspect::topic(&root_handle, "wide").unwrap().is_some());
    let node = node(root.path());
    let mut sub = node.topic("wide").subscriber().unwrap();
    assert!(publisher.wait(LIMIT).success());
    assert_eq!(&*sub.take().unwrap().expect("the message"), b"x");
    let info = json(&["info", "wide", "--json"], root.path(), &scratch);
    let settings = &info["settings"];
    assert_eq!(
        (&settings["max_subscribers"], &settings["depth"], &settings["history"]),
        (&64.into(), &64.into(), &4.into())
    );

    // The topic exists now (the subscriber holds it): a setting that differs is an error.
    for (flag, value) in
        [("--depth", "16"), ("--max-subscribers", "16"), ("--history", "0"), ("--max-payload-bytes", "64")]
    {
        let run = ringbus(&["pub", "wide", "y", flag, value], Some(root.path()), &scratch, LIMIT);
        assert_eq!(run.status.code(), Some(1), "{flag} {value}: {}", run.stderr);
        let field = flag.trim_start_matches("--").replace('-', "_");
        assert!(run.stderr.contains(&field), "{flag}: {}", run.stderr);
    }
    let same = ringbus(&["pub", "wide", "z", "--depth", "64"], Some(root.path()), &scratch, LIMIT);
    assert!(same.status.success(), "{}", same.stderr);
    assert_eq!(&*sub.take().unwrap().expect("the matching publish"), b"z");
    // A value no topic accepts is refused while parsing, before any topic is looked at.
    let bad = ringbus(&["pub", "other", "x", "--depth", "3"], Some(root.path()), &scratch, LIMIT);
    assert_eq!(bad.status.code(), Some(2));
    assert!(bad.stderr.contains("power of two"), "{}", bad.stderr);
}

#[test]
fn info_shows_each_publishers_memory_on_demand_and_preallocated() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let mut lazy = node.topic("lazy").max_payload_bytes(8 << 20).publisher().unwrap();
    let mut fixed = node.topic("fixed").max_payload_bytes(64 << 10).preallocate(true).publisher().unwrap();
    for _ in 0..3 {
        lazy.publish_copy(&[7; 10_000]).unwrap();
        fixed.publish_copy(&[7; 10_000]).unwrap();
    }
    let lazy = json(&["info", "lazy", "--json"], root.path(), &scratch);
    let memory = &lazy["publishers"][0]["memory"];
    assert_eq!(memory["preallocated"], false, "{lazy}");
    assert_eq!(memory["in_log_bytes"], 30_000, "{lazy}");
    // Three messages of 10 000 bytes: three chunks of three pages each, plus the spare
    // chunk claimed for the next loan (it keeps the pages of the chunk it last carried).
    let reserved = memory["reserved_bytes"].as_u64().unwrap();
    assert!((3 * 12_288..=4 * 12_288).contains(&reserved), "{lazy}");
    assert!(lazy["segment_bytes"].as_u64().unwrap() < 1 << 20, "8 MiB chunks hold only what was sent: {lazy}");
    let fixed = json(&["info", "fixed", "--json"], root.path(), &scratch);
    assert_eq!(fixed["settings"]["preallocate"], true);
    let chunks = fixed["settings"]["chunks"].as_u64().unwrap();
    assert_eq!(fixed["publishers"][0]["memory"]["reserved_bytes"], chunks * (64 << 10), "{fixed}");
    let human = ringbus(&["info", "lazy"], Some(root.path()), &scratch, LIMIT);
    assert!(human.stdout.contains("on demand, at most 1.0 GiB per publisher"), "{}", human.stdout);
    let budget = ringbus(
        &["pub", "big", "x", "--max-payload-bytes", "4096", "--pool-bytes", "100"],
        Some(root.path()),
        &scratch,
        LIMIT,
    );
    assert_eq!(budget.status.code(), Some(1));
    assert!(budget.stderr.contains("pool_bytes"), "{}", budget.stderr);
}

#[test]
fn a_burst_from_pub_reaches_a_reliable_echo_whole() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let _topic = node.topic("burst").max_payload_bytes(64).subscriber().unwrap(); // default depth 16
    let mut echo =
        Background::start(&["echo", "burst", "--reliable", "--count", "5000", "--json"], root.path(), &scratch, "echo");
    let root_handle = ringbus::Root::open(root.path()).unwrap();
    wait_until(LIMIT, "the reliable echo", || {
        ringbus::inspect::topic(&root_handle, "burst").unwrap().is_some_and(|t| t.reliable_subscribers == 1)
    });
    let run = ringbus(&["pub", "burst", "m", "--count", "5000"], Some(root.path()), &scratch, LIMIT);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(echo.wait(LIMIT).success());
    let printed = lines(&echo.stdout());
    assert_eq!(printed.len(), 5000, "every message of the burst, none lost");
    let info = json(&["info", "burst", "--json"], root.path(), &scratch);
    assert_eq!(info["reliable_subscribers"], 0, "the echo that left holds nobody back");
    let mixed = ringbus(&["echo", "burst", "--reliable", "--latest"], Some(root.path()), &scratch, LIMIT);
    assert_eq!(mixed.status.code(), Some(2), "{}", mixed.stderr);
}

#[test]
fn extreme_numbers_are_refused_with_exit_2_never_a_panic() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    for args in [
        &["pub", "t", "x", "--rate", "1e-300"][..],
        &["pub", "t", "x", "--rate", "1e-19"],
        &["pub", "t", "x", "--rate", "inf"],
        &["pub", "t", "x", "--timeout", "1e19"],
        &["pub", "t", "x", "--timeout", "1e300"],
        &["echo", "t", "--timeout", "nan"],
        &["hz", "t", "--every", "1e300"],
        &["hz", "t", "--timeout=-1"],
        &["echo", "t", "--timeout", "0ms"],
        &["echo", "t", "--timeout", "1d"],
        &["echo", "t", "--timeout", "1ns"],
        &["echo", "t", "--timeout", "2 min"],
        &["echo", "t", "--timeout", "infs"],
        &["pub", "t", "x", "--timeout", "300000h"],
        &["hz", "t", "--every", "5x"],
        &["hz", "t", "--every", "ms"],
        &["top", "--once", "--interval", "50ms"],
        &["top", "--once", "--interval", "2h"],
        &["pub", "t", "x", "--max-payload-bytes", "0"],
        &["pub", "t", "x", "--max-payload-bytes", "1073741825"],
        &["pub", "t", "x", "--max-subscribers", "0"],
        &["pub", "t", "x", "--max-subscribers", "4294967296"],
        &["pub", "t", "x", "--depth", "0"],
        &["pub", "t", "x", "--depth", "3"],
        &["pub", "t", "x", "--depth", "131072"],
        &["pub", "t", "x", "--history", "65537"],
        &["pub", "t", "x", "--pool-bytes", "0"],
        &["pub", "t", "x", "--pool-bytes", "18446744073709551616"],
        &["pub", "t", "x", "--wait-subscribers", "1025"],
        &["pub", "t", "x", "--count", "0"],
        &["echo", "t", "--count", "0"],
        &["hz", "t", "--count", "0"],
        &["route", "--endpoint", "gcs=udp-in:127.0.0.1:0", "--expiry-ms", "0"],
    ] {
        let run = ringbus(args, Some(root.path()), &scratch, LIMIT);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("invalid value") && !run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    }
    let zero = ringbus(&["pub", "t", "x", "--max-payload-bytes", "0"], Some(root.path()), &scratch, LIMIT);
    assert!(zero.stderr.contains("from 1 to 1073741824"), "the refusal gives the range: {}", zero.stderr);
    let day = ringbus(&["echo", "t", "--timeout", "1d"], Some(root.path()), &scratch, LIMIT);
    assert!(
        day.stderr.contains("from above 0 s to 1e9 s") && day.stderr.contains("500ms, 1s, 2m"),
        "the refusal gives the range and the units: {}",
        day.stderr
    );
}

#[test]
fn durations_are_seconds_or_carry_a_unit() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    // No topic "t" appears, so each command waits out its timeout: exit 4, not 2 (refused).
    for args in [
        &["echo", "t", "--timeout", "0.3"][..],
        &["echo", "t", "--timeout", "300ms"],
        &["echo", "t", "--timeout", "0.005m"],
        &["hz", "t", "--timeout", "1s", "--every", "2m"],
        &["hz", "t", "--timeout", " 200 ms ", "--every", "0.5h"],
    ] {
        let started = std::time::Instant::now();
        let run = ringbus(args, Some(root.path()), &scratch, LIMIT);
        assert_eq!(run.status.code(), Some(4), "{args:?}: {}", run.stderr);
        assert!(started.elapsed() < Duration::from_secs(10), "{args:?} waited {:?}", started.elapsed());
    }
    let once = ringbus(&["top", "--once", "--json", "--interval", "100ms"], Some(root.path()), &scratch, LIMIT);
    assert!(once.status.success(), "{}", once.stderr);
}

#[test]
fn hz_reports_the_rate_of_a_live_publisher() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let publisher = Background::start(&["pub", "tick", "x", "--rate", "200"], root.path(), &scratch, "pub");
    let run =
        ringbus(&["hz", "tick", "--count", "50", "--json", "--timeout", "30"], Some(root.path()), &scratch, LIMIT);
    assert!(run.status.success(), "{}", run.stderr);
    let report = &lines(&run.stdout)[0];
    assert_eq!(report["messages"], 50);
    let (min, mean, max) =
        (report["min_ms"].as_f64().unwrap(), report["mean_ms"].as_f64().unwrap(), report["max_ms"].as_f64().unwrap());
    assert!(0.0 < min && min <= mean && mean <= max, "{report}");
    assert!(report["hz"].as_f64().unwrap() > 0.0);
    publisher.signal(libc::SIGTERM);
}

#[test]
fn exit_codes_say_what_happened() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let missing = ringbus(&["info", "nope"], Some(root.path()), &scratch, LIMIT);
    assert_eq!(missing.status.code(), Some(3), "{}", missing.stderr);
    assert!(missing.stderr.contains("ringbus list topics"));
    let node = node(root.path());
    let _publisher = node.topic("quiet").publisher().unwrap();
    let waited = ringbus(&["echo", "quiet", "--count", "1", "--timeout", "0.3"], Some(root.path()), &scratch, LIMIT);
    assert_eq!(waited.status.code(), Some(4), "{}", waited.stderr);
    let usage = ringbus(&["echo"], Some(root.path()), &scratch, LIMIT);
    assert_eq!(usage.status.code(), Some(2));
    let bad_rate = ringbus(&["pub", "t", "x", "--rate", "0"], Some(root.path()), &scratch, LIMIT);
    assert_eq!(bad_rate.status.code(), Some(2));
    assert!(bad_rate.stderr.contains("is not a rate from"), "{}", bad_rate.stderr);
    // Nothing ever ran under a root that does not exist: empty listings, not an error,
    // and the root is not created by looking.
    let nowhere = root.path().join("never-created");
    let list = json(&["list", "topics", "--json"], &nowhere, &scratch);
    assert_eq!(list, serde_json::json!([]));
    assert!(!nowhere.exists());
}

#[test]
fn clean_reclaims_sigkilled_participants_and_leaves_a_live_pair_alone() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let live_pub = Background::start(&["pub", "live", "x", "--rate", "50"], root.path(), &scratch, "live-pub");
    let live_echo = Background::start(&["echo", "live"], root.path(), &scratch, "live-echo");
    let dead_pub = Background::start(&["pub", "dead", "y", "--rate", "50"], root.path(), &scratch, "dead-pub");
    let dead_echo = Background::start(&["echo", "dead"], root.path(), &scratch, "dead-echo");
    wait_until(LIMIT, "both pairs flowing", || !live_echo.stdout().is_empty() && !dead_echo.stdout().is_empty());
    for p in [&dead_pub, &dead_echo] {
        p.signal(libc::SIGKILL);
    }
    let mut dead_pub = dead_pub;
    let mut dead_echo = dead_echo;
    dead_pub.wait(LIMIT);
    dead_echo.wait(LIMIT);

    let before = common::files_in(root.path());
    let info = json(&["info", "dead", "--json"], root.path(), &scratch);
    assert_eq!(info["publishers"][0]["alive"], false);
    assert_eq!(info["subscribers"][0]["alive"], false);
    let dry = json(&["clean", "--dry-run", "--json"], root.path(), &scratch);
    let mut after_dry = common::files_in(root.path());
    let mut sorted_before = before.clone();
    sorted_before.sort();
    after_dry.sort();
    assert_eq!(after_dry, sorted_before, "a dry run removes nothing");

    let cleaned = json(&["clean", "--json"], root.path(), &scratch);
    assert_eq!(cleaned["removed"], dry["removed"], "the dry run said exactly what clean did");
    let removed: Vec<String> = cleaned["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Path::new(r["path"].as_str().unwrap()).file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    assert_eq!(removed.iter().filter(|f| f.starts_with("node.")).count(), 2, "the two dead nodes: {removed:?}");
    assert!(removed.contains(&"topic.dead".to_string()), "{removed:?}");
    assert!(removed.iter().all(|f| !f.contains("live")), "nothing of the live pair: {removed:?}");
    let left = common::files_in(root.path());
    assert!(left.iter().all(|f| !f.contains("dead")), "{left:?}");

    let list = json(&["list", "--json"], root.path(), &scratch);
    let topics: Vec<&str> = list["topics"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(topics, ["live"]);
    assert!(list["nodes"].as_array().unwrap().iter().all(|n| n["alive"] == true));
    let seen = live_echo.stdout().lines().count();
    wait_until(LIMIT, "the live pair still flowing", || live_echo.stdout().lines().count() > seen + 2);
    for p in [&live_pub, &live_echo] {
        p.signal(libc::SIGTERM);
    }
    let (mut live_pub, mut live_echo) = (live_pub, live_echo);
    assert!(live_pub.wait(LIMIT).success() && live_echo.wait(LIMIT).success(), "Ctrl-C/SIGTERM ends them cleanly");
    assert_eq!(common::files_in(root.path()), Vec::<String>::new(), "well-behaved participants leave nothing");
}

#[test]
fn clean_reports_foreign_files_and_removes_them_only_when_asked() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    std::fs::write(root.path().join("topic.bogus"), vec![0u8; 4096]).unwrap();
    std::fs::write(root.path().join("notes.txt"), b"hello").unwrap();
    let list = json(&["list", "problems", "--json"], root.path(), &scratch);
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
    let kept = json(&["clean", "--json"], root.path(), &scratch);
    assert_eq!(kept["skipped"].as_array().unwrap().len(), 2);
    assert_eq!(common::files_in(root.path()).len(), 2, "not removed without --foreign");
    let human = ringbus(&["clean"], Some(root.path()), &scratch, LIMIT);
    assert!(human.stdout.contains("--foreign"), "says how to remove them: {}", human.stdout);
    let removed = json(&["clean", "--foreign", "--json"], root.path(), &scratch);
    assert_eq!(removed["removed"].as_array().unwrap().len(), 2);
    assert!(common::files_in(root.path()).is_empty());
}

/// `.tmp.*` names are segments being built, always regular files: a symbolic link or a
/// directory by that name is a problem, and `clean --foreign` removes the link itself and
/// the directory with what it holds, never what a link inside points to.
#[test]
fn temporary_names_that_are_links_or_directories_are_problems_clean_foreign_removes() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("precious"), b"keep me").unwrap();
    std::os::unix::fs::symlink(outside.path().join("precious"), root.path().join(".tmp.link")).unwrap();
    let dir = root.path().join(".tmp.dir");
    std::fs::create_dir_all(dir.join("inner")).unwrap();
    std::fs::write(dir.join("inner/file"), b"x").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.join("inner/to-outside")).unwrap();

    let problems = json(&["list", "problems", "--json"], root.path(), &scratch);
    let paths: Vec<&str> = problems.as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert!(
        paths.iter().any(|p| p.ends_with(".tmp.link")) && paths.iter().any(|p| p.ends_with(".tmp.dir")),
        "{problems}"
    );
    let kept = json(&["clean", "--json"], root.path(), &scratch);
    assert_eq!(kept["skipped"].as_array().unwrap().len(), 2, "{kept}");
    assert_eq!(common::files_in(root.path()).len(), 2, "not removed without --foreign");

    let removed = json(&["clean", "--foreign", "--json"], root.path(), &scratch);
    assert_eq!(removed["removed"].as_array().unwrap().len(), 2, "{removed}");
    assert!(common::files_in(root.path()).is_empty(), "{:?}", common::files_in(root.path()));
    assert_eq!(std::fs::read(outside.path().join("precious")).unwrap(), b"keep me", "no link was followed");
}

#[test]
fn queues_are_listed_with_their_backlog_and_never_taken_for_foreign_files() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let mut producer = node.queue::<u64>("jobs/in").capacity(16).producer().unwrap();
    for i in 0..3 {
        producer.push(i).unwrap();
    }
    let consumer = node.queue::<u64>("jobs/in").consumer().unwrap();
    let polled = node.queue::<u64>("jobs/polled").wake(Wake::Never).consumer().unwrap();
    let queues = json(&["list", "queues", "--json"], root.path(), &scratch);
    let q = queues.as_array().unwrap().iter().find(|q| q["name"] == "jobs/in").unwrap();
    assert_eq!((&q["name"], &q["queued"], &q["capacity"]), (&"jobs/in".into(), &3.into(), &16.into()));
    assert_eq!(
        (&q["producers"], &q["consumer_alive"], &q["producer_alive"], &q["producers_alive"], &q["wake"]),
        (&"spsc".into(), &true.into(), &true.into(), &1.into(), &"on-data".into())
    );
    let p = queues.as_array().unwrap().iter().find(|q| q["name"] == "jobs/polled").unwrap();
    assert_eq!((&p["wake"], &p["consumer_asleep"]), (&"never".into(), &false.into()));
    let table = ringbus(&["list", "queues"], Some(root.path()), &scratch, Duration::from_secs(60));
    assert!(table.stdout.contains("never (polls)"), "{}", table.stdout);
    polled.unlink();
    let clean = json(&["clean", "--foreign", "--dry-run", "--json"], root.path(), &scratch);
    assert_eq!(clean["removed"], serde_json::json!([]), "a queue is not a foreign file");
    consumer.unlink();
}

/// `echo` and `hz` of a name that is a queue or a latch, not a topic, say so and exit 2
/// instead of waiting for a topic that will never come.
#[test]
fn echo_and_hz_of_a_queue_or_latch_name_say_what_it_is() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let _producer = node.queue::<u64>("jobs").capacity(16).producer().unwrap();
    let _latch = node.latch("ready").unwrap();
    for (args, hint) in [
        (&["echo", "jobs", "--timeout", "5"][..], "ringbus list queues"),
        (&["hz", "jobs", "--timeout", "5"], "ringbus list queues"),
        (&["echo", "ready", "--timeout", "5"], "ringbus list objects"),
    ] {
        let run = ringbus(args, Some(root.path()), &scratch, LIMIT);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("not a topic") && run.stderr.contains(hint), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn bridge_hands_over_to_ringbus_bridge_or_says_how_to_install_it() {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["bridge", "--help"], None, &scratch, LIMIT);
    let handed_over = run.status.success() && run.stdout.contains("Usage: ringbus-bridge");
    let explained = run.status.code() == Some(1)
        && run.stderr.contains("not installed")
        && run.stderr.contains("cargo install --locked --path crates/ringbus-zenoh");
    assert!(handed_over || explained, "{}\n{}", run.stdout, run.stderr);
    // In a workspace build (`cargo test --workspace`) the bridge sits beside `ringbus`.
    let beside = Path::new(env!("CARGO_BIN_EXE_ringbus")).with_file_name("ringbus-bridge");
    assert!(handed_over || !beside.is_file(), "{} exists but was not run:\n{}", beside.display(), run.stderr);
}

/// A lossy echo that sleeps (stopped) through a burst six times the topic's depth reads
/// only the last 16 when it wakes; at the timeout it says how many it lost, why, and what
/// to do about it.
#[test]
fn an_echo_lapped_by_a_burst_says_what_it_lost_at_the_timeout() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let mut publisher = node.topic("burst").publisher().unwrap(); // default depth 16
    let root_handle = ringbus::Root::open(root.path()).unwrap();
    let run = std::thread::scope(|s| {
        let echo = s.spawn(|| {
            ringbus(&["echo", "burst", "--count", "100", "--timeout", "4"], Some(root.path()), &scratch, LIMIT)
        });
        let mut pid = 0;
        wait_until(LIMIT, "the echo subscribed", || {
            let topic = ringbus::inspect::topic(&root_handle, "burst").unwrap().unwrap();
            pid = topic.subscribers.first().map_or(0, |s| s.pid);
            pid != 0
        });
        // SAFETY: kill(2) with a valid signal on the echo's pid; the echo is a child of
        // this test, not yet reaped while its thread waits for it.
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) }, 0);
        for i in 0..100 {
            publisher.publish_copy(format!("m{i}").as_bytes()).unwrap();
        }
        // SAFETY: as above.
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGCONT) }, 0);
        echo.join().unwrap()
    });
    assert_eq!(run.status.code(), Some(4), "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 16, "the last depth of the burst");
    assert!(
        run.stderr.contains(
            "16 of 100 messages before the timeout; 84 lost (overwritten before they were read: the topic's depth \
             is 16 — use --reliable, or a deeper topic)"
        ),
        "{}",
        run.stderr
    );
}
