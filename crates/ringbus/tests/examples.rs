//! Every example under `examples/` runs as its header says, exits 0, prints what it is
//! about, and cleans up: run twice, once in a root the test gives it (`RINGBUS_ROOT`),
//! which must be empty afterwards, and once alone, when it makes a root of its own under
//! /dev/shm, which must be gone afterwards.

mod common;

use common::{wait_child, TestRoot};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// An example that has not finished by then has hung: the test fails instead.
const WATCHDOG: Duration = Duration::from_secs(60);

/// The built example `name`, freshly built: `cargo test --test examples` does not build the
/// examples (`cargo test` does), and a stale one would test old code.
fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    // target/<profile>/deps/examples-<hash> -> target/<profile>/examples/<name>
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    BUILT.get_or_init(|| {
        let mut cargo = Command::new(env!("CARGO"));
        cargo.args(["build", "-q", "--examples", "-p", "ringbus"]);
        if profile_dir.ends_with("release") {
            cargo.arg("--release");
        }
        assert!(cargo.status().unwrap().success(), "could not build the examples");
    });
    let path = profile_dir.join("examples").join(name);
    assert!(path.exists(), "no example {}", path.display());
    path
}

/// Runs example `name` with `args`, in `root` if given (else without `RINGBUS_ROOT`), under
/// the watchdog; asserts that it exited 0 and cleaned up; returns its stdout.
fn run_in(name: &str, args: &[&str], root: Option<&TestRoot>) -> String {
    let stdout = tempfile::tempfile().unwrap();
    let mut command = Command::new(example(name));
    command.args(args).stdin(Stdio::null()).stdout(stdout.try_clone().unwrap()).stderr(Stdio::piped());
    match root {
        Some(root) => command.env("RINGBUS_ROOT", root.path()),
        None => command.env_remove("RINGBUS_ROOT"),
    };
    let mut child = command.spawn().unwrap();
    let own_root = PathBuf::from(format!("/dev/shm/ringbus-example-{}", child.id()));
    let mut stderr = child.stderr.take().unwrap();
    let status = wait_child(child, WATCHDOG, name);
    let mut err = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut err).unwrap();
    let mut out = String::new();
    std::io::Seek::rewind(&mut &stdout).unwrap();
    std::io::Read::read_to_string(&mut &stdout, &mut out).unwrap();
    assert!(status.success(), "example {name} {args:?} failed ({status}):\n{out}\n{err}");
    match root {
        Some(root) => {
            // Children may still be leaving (their nodes go when they exit).
            common::wait_until(Duration::from_secs(10), "an empty root", || root.files().is_empty());
        }
        None => assert!(!own_root.exists(), "example {name} left its root {} behind", own_root.display()),
    }
    out
}

/// Runs example `name` both ways (see the module doc); returns both outputs.
fn run(name: &str, args: &[&str]) -> [String; 2] {
    let root = TestRoot::new();
    [run_in(name, args, Some(&root)), run_in(name, args, None)]
}

fn line<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no line {prefix:?} in:\n{out}"))
}

#[test]
fn hello_publishes_to_a_subscriber_process() {
    for out in run("hello", &["--count", "3"]) {
        let received: Vec<&str> = out.lines().filter(|l| l.starts_with("subscriber: ")).collect();
        let expected = ["listening on topic hello", "hello 0", "hello 1", "hello 2", "bye", "received 4, lost 0"];
        assert_eq!(received, expected.map(|l| format!("subscriber: {l}")), "{out}");
        assert!(line(&out, "publisher: ").starts_with("publisher: published 4 messages; "), "{out}");
    }
}

#[test]
fn hello_roles_meet_in_the_default_root() {
    let root = TestRoot::new();
    let mut subscriber = Command::new(example("hello"))
        .arg("--subscriber")
        .env("RINGBUS_ROOT", root.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = run_in("hello", &["--publisher", "--count", "2"], Some(&root));
    assert!(out.starts_with("publisher: published 3 messages; "), "{out}");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut subscriber.stdout.take().unwrap(), &mut text).unwrap();
    assert!(wait_child(subscriber, WATCHDOG, "hello --subscriber").success());
    assert!(text.ends_with("subscriber: bye\nsubscriber: received 3, lost 0\n"), "{text}");
    common::wait_until(Duration::from_secs(10), "an empty root", || root.files().is_empty());
}

#[test]
fn zero_copy_image_views_frames_in_place() {
    for out in run("zero_copy_image", &["--frames", "4"]) {
        // The viewer checks the pixels of every frame it sees; one far behind on a loaded
        // machine skips to fresher frames (depth 4) and counts those it skipped.
        let viewed: Vec<&str> = out.lines().filter(|l| l.starts_with("viewer: frame ")).collect();
        assert!(viewed.iter().all(|l| l.contains(", 1280x720 RGBA (3.5 MiB) read in place at 0x")), "{out}");
        assert!(viewed.last().is_some_and(|l| l.starts_with("viewer: frame 3, ")), "the last frame is seen: {out}");
        let counts = format!("viewer: {} frames seen, {} skipped", viewed.len(), 4 - viewed.len());
        assert!(out.contains(&counts), "{counts:?} not in:\n{out}");
        assert!(line(&out, "camera: ").starts_with("camera: published 4 frames of 3.5 MiB; "), "{out}");
    }
}

#[test]
fn wait_set_hears_readings_timer_and_latch() {
    for out in run("wait_set", &[]) {
        assert_eq!(out.lines().filter(|l| l.starts_with("thermostat: reading ")).count(), 10, "{out}");
        let last = line(&out, "thermostat: shutdown");
        assert!(last.starts_with("thermostat: shutdown after 10 readings (mean 21.12 °C) and "), "{out}");
        assert!(!out.contains("unexpected event"), "{out}");
    }
}

#[test]
fn polling_node_wakes_only_for_its_timer() {
    for out in run("polling_node", &["--ticks", "3"]) {
        assert_eq!(out.lines().filter(|l| l.starts_with("planner: tick ")).count(), 3, "{out}");
        let last = line(&out, "planner: polling style: ");
        assert!(last.starts_with("planner: polling style: woke 3 times for 3 timer ticks; "), "{out}");
        assert!(last.ends_with(" publishes made 0 wake system calls"), "{out}");
    }
    let [out, _] = run("polling_node", &["--ticks", "2", "--callback"]);
    assert!(line(&out, "planner: callback style: ").contains("for 2 timer ticks"), "{out}");
}

#[test]
fn job_tokens_returns_every_token() {
    for out in run("job_tokens", &["6", "2", "60"]) {
        assert!(out.starts_with("6 workers ran 60 jobs with 2 tokens in "), "{out}");
    }
}

#[test]
fn command_queue_delivers_every_command_and_answers_the_call() {
    for out in run("command_queue", &["--moves", "100"]) {
        assert!(line(&out, "planner: pushed ").starts_with("planner: pushed 100 moves through a queue of 16 ("));
        assert_eq!(line(&out, "planner: the controller"), "planner: the controller says the robot is at (100, 50)");
        assert_eq!(line(&out, "controller: "), "controller: applied 100 moves, answered 1 position request");
    }
}

#[test]
fn latch_wakes_each_worker_by_latch_and_socket() {
    for out in run("latch", &[]) {
        for n in 0..3 {
            // Two sets 20 ms apart wake a sleeping worker twice (once if both land before it runs).
            let line = line(&out, &format!("worker {n}:"));
            assert!(line.contains("1 datagram(s)"), "{line}");
            assert!(line.contains("latch 2x") || line.contains("latch 1x"), "{line}");
        }
    }
}
