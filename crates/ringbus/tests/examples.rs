//! The examples run, talk to each other across processes, and clean up.

mod common;

use common::{wait_child, TestRoot};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

fn example(name: &str) -> PathBuf {
    // target/<profile>/deps/examples-<hash> -> target/<profile>/examples/<name>
    let exe = std::env::current_exe().unwrap();
    let path = exe.parent().unwrap().parent().unwrap().join("examples").join(name);
    if !path.exists() {
        // `cargo test` builds the examples, `cargo test --test examples` does not.
        let ok = Command::new(env!("CARGO")).args(["build", "-q", "--examples", "-p", "ringbus"]).status().unwrap();
        assert!(ok.success() && path.exists(), "could not build {}", path.display());
    }
    path
}

#[test]
fn talker_and_listener_talk_across_processes() {
    let root = TestRoot::new();
    let mut listener =
        Command::new(example("listener")).env("RINGBUS_ROOT", root.path()).stdout(Stdio::piped()).spawn().unwrap();
    common::wait_until(Duration::from_secs(30), "listener to join", || {
        root.files().iter().any(|f| f.starts_with("topic."))
    });
    let talker = Command::new(example("talker")).arg("5").env("RINGBUS_ROOT", root.path()).output().unwrap();
    assert!(talker.status.success(), "{}", String::from_utf8_lossy(&talker.stderr));
    assert!(String::from_utf8_lossy(&talker.stdout).contains("published 6 messages"));
    let mut out = listener.stdout.take().unwrap();
    let status = wait_child(listener, Duration::from_secs(30), "listener");
    assert!(status.success(), "listener failed: {status}");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut out, &mut text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(&lines[1..7], ["hello 0", "hello 1", "hello 2", "hello 3", "hello 4", "bye"]);
    assert_eq!(lines[7], "received 6, lost 0");
    common::wait_until(Duration::from_secs(10), "clean root", || root.files().is_empty());
}

#[test]
fn job_tokens_example_returns_every_token() {
    let root = TestRoot::new();
    let out = Command::new(example("jobs")).args(["6", "2", "60"]).env("RINGBUS_ROOT", root.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("6 workers ran 60 jobs with 2 tokens"), "{text}");
    common::wait_until(Duration::from_secs(10), "clean root", || root.files().is_empty());
}

#[test]
fn latch_example_wakes_each_worker_by_latch_and_socket() {
    let root = TestRoot::new();
    let out = Command::new(example("latch")).env("RINGBUS_ROOT", root.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for n in 0..3 {
        // Two sets 20 ms apart wake a sleeping worker twice (once if both land before it runs).
        let line = text.lines().find(|l| l.starts_with(&format!("worker {n}:"))).unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains("1 datagram(s)"), "{line}");
        assert!(line.contains("latch 2x") || line.contains("latch 1x"), "{line}");
    }
    common::wait_until(Duration::from_secs(10), "clean root", || root.files().is_empty());
}
