//! `ringbus top` against live participants: rates and lag in `--once --json`, a SIGKILLed
//! subscriber shown dead, the live view driven through a real terminal (tmux), and the
//! usage errors. No wall-clock thresholds: only "more than zero", orderings, and exact
//! counts once the publisher has stopped.

mod common;

use common::{ringbus, Run};
use ringbus::{Node, Wake};
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WATCHDOG: Duration = Duration::from_secs(20);

fn top_json(root: &Path, interval: &str) -> Value {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["top", "--once", "--json", "--interval", interval], Some(root), &scratch, WATCHDOG);
    assert!(run.status.success(), "top failed: {}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout))
}

fn topic<'a>(frame: &'a Value, name: &str) -> &'a Value {
    let topics = frame["topics"].as_array().expect("a topics array");
    topics.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no topic {name:?} in {frame:#}"))
}

fn subscriber(topic: &Value, wake: &str) -> Value {
    let all = topic["subscribers_detail"].as_array().expect("subscribers_detail");
    all.iter().find(|s| s["wake"] == wake).unwrap_or_else(|| panic!("no {wake} subscriber in {topic:#}")).clone()
}

#[test]
fn once_json_reports_rates_and_lag_of_live_participants() {
    let root = common::root();
    let node = Node::with_root("top-test", root.path()).unwrap();
    let mut publisher = node.topic("a").publisher().unwrap();
    let mut taker = node.topic("a").subscriber().unwrap();
    let never = node.topic("a").wake(Wake::Never).subscriber().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let publishing = std::thread::spawn({
        let stop = stop.clone();
        move || {
            let mut published = 0u64;
            while !stop.load(Ordering::Relaxed) {
                publisher.publish_copy(&published.to_le_bytes()).unwrap();
                published += 1;
                while taker.take().unwrap().is_some() {}
                std::thread::sleep(Duration::from_millis(5));
            }
            (published, publisher, taker)
        }
    });

    let frame = top_json(root.path(), "0.5");
    assert_eq!(frame["root"], root.path().to_str().unwrap());
    let a = topic(&frame, "a");
    assert_eq!((a["publishers"].as_u64(), a["subscribers"].as_u64()), (Some(1), Some(2)));
    assert!(a["messages_per_s"].as_f64().unwrap() > 0.0, "{a:#}");
    assert!(a["bytes_per_s"].as_f64().unwrap() > 0.0, "{a:#}");
    let (taking, polling) = (subscriber(a, "on_data"), subscriber(a, "never"));
    assert!(taking["lag"].as_u64().unwrap() <= 1, "takes right after each publish: {taking:#}");
    assert!(polling["lag"].as_u64().unwrap() > taking["lag"].as_u64().unwrap(), "{a:#}");
    assert!(taking["taken_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(polling["taken_per_s"].as_f64(), Some(0.0));
    assert!(taking["alive"].as_bool().unwrap() && polling["alive"].as_bool().unwrap());

    stop.store(true, Ordering::Relaxed);
    let (published, publisher, taker) = publishing.join().unwrap();
    let frame = top_json(root.path(), "0.2");
    let a = topic(&frame, "a");
    assert_eq!((a["messages"].as_u64(), a["messages_per_s"].as_f64()), (Some(0), Some(0.0)), "{a:#}");
    assert_eq!(subscriber(a, "never")["lag"].as_u64(), Some(published), "it never took: everything waits");
    assert_eq!(subscriber(a, "on_data")["lag"].as_u64(), Some(0), "it took everything");
    drop((publisher, taker, never));
}

/// Entry point of the child process of `a_sigkilled_subscriber_shows_as_dead`; does
/// nothing in a normal test run.
#[test]
fn child_subscriber() {
    let Some(root) = std::env::var_os(CHILD_ROOT) else { return };
    let node = Node::with_root("top-child", root).unwrap();
    let _subscriber = node.topic("d").subscriber().unwrap();
    println!("{CHILD_READY}");
    std::thread::sleep(Duration::from_secs(60)); // the parent kills it long before
}

const CHILD_ROOT: &str = "RINGBUS_TOP_TEST_CHILD_ROOT";
const CHILD_READY: &str = "top child: subscribed";

/// A child process, SIGKILLed when dropped if it still runs.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_sigkilled_subscriber_shows_as_dead() {
    let root = common::root();
    let node = Node::with_root("top-parent", root.path()).unwrap();
    let publisher = node.topic("d").publisher().unwrap(); // keeps the topic in place
    let mut child = Killed(
        Command::new(std::env::current_exe().unwrap())
            .args(["child_subscriber", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ROOT, root.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stdout = child.0.stdout.take().unwrap();
    let (ready_tx, ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let ready = std::io::BufReader::new(stdout).lines().map_while(Result::ok).any(|l| l.ends_with(CHILD_READY));
        let _ = ready_tx.send(ready);
    });
    assert_eq!(ready.recv_timeout(WATCHDOG), Ok(true), "the child did not subscribe");

    let before = top_json(root.path(), "0.1");
    assert_eq!(subscriber(topic(&before, "d"), "on_data")["alive"], true);
    child.0.kill().unwrap(); // SIGKILL: no destructor runs, the slot stays taken
    child.0.wait().unwrap();
    let after = top_json(root.path(), "0.1");
    let d = topic(&after, "d");
    let dead = subscriber(d, "on_data");
    assert_eq!((dead["alive"].as_bool(), dead["pid"].as_u64()), (Some(false), Some(u64::from(child.0.id()))));
    assert_eq!(d["subscribers"].as_u64(), Some(1));
    drop(publisher);
}

#[test]
fn once_without_a_root_prints_an_empty_frame() {
    let root = common::root();
    let missing = root.path().join("not-yet");
    let frame = top_json(&missing, "0.1");
    assert_eq!(frame["topics"], serde_json::json!([]));
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["top", "--once", "--interval", "0.1"], Some(&missing), &scratch, WATCHDOG);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.stdout.contains("(no topics in ") && !run.stdout.contains('\x1b'), "{}", run.stdout);
    assert!(!missing.exists(), "looking created the root");
}

#[test]
fn bad_usage_exits_2_and_says_what_to_do() {
    let root = common::root();
    let scratch = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| ringbus(args, Some(root.path()), &scratch, WATCHDOG);
    let expect = |run: Run, says: &str| {
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert!(run.stderr.contains(says), "{:?} does not say {says:?}", run.stderr);
    };
    expect(run(&["top"]), "use `ringbus top --once`");
    expect(run(&["top", "--json"]), "needs `--once`");
    expect(run(&["top", "--once", "--interval", "0"]), "from 0.1 s to 3600 s");
    expect(run(&["top", "--once", "--sort", "colour"]), "possible values: name, rate, bandwidth, lag, lost, wakes");
}

/// A tmux server of its own, on a socket in a directory of its own; the server (with
/// everything in it) and the directory go when it is dropped.
struct Tmux {
    dir: tempfile::TempDir,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> std::process::Output {
        let socket = self.dir.path().join("socket");
        Command::new("tmux").arg("-S").arg(socket).args(args).stdin(Stdio::null()).output().expect("run tmux")
    }

    fn pane(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "top"]).stdout).into_owned()
    }

    /// Waits until `ready` holds for the pane's text, or fails after the watchdog.
    fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let pane = self.pane();
            if ready(&pane) {
                return pane;
            }
            assert!(start.elapsed() < WATCHDOG, "watchdog: no {what} after {WATCHDOG:?}; the pane shows:\n{pane}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn the_live_view_runs_in_a_terminal_sorts_on_s_and_quits_on_q() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipped: tmux is not installed (scripts/setup.sh installs it)");
        return;
    }
    let root = common::root();
    let node = Node::with_root("top-tmux", root.path()).unwrap();
    let mut publisher = node.topic("tmuxed/topic").publisher().unwrap();
    let _subscriber = node.topic("tmuxed/topic").subscriber().unwrap();
    publisher.publish_copy(b"hello").unwrap();

    let tmux = Tmux { dir: tempfile::tempdir().unwrap() };
    let config = tmux.dir.path().join("tmux.conf");
    std::fs::write(&config, "set-window-option -g remain-on-exit on\n").unwrap();
    // The pane's shell writes top's exit status to a file: tmux here sometimes misses the
    // end of a pane's process (it stays a zombie, `pane_dead_status` stays empty).
    let status = tmux.dir.path().join("status");
    let command =
        format!("'{}' top --interval 0.2; echo \"exit $?\" > '{}'", env!("CARGO_BIN_EXE_ringbus"), status.display());
    let env = format!("RINGBUS_ROOT={}", root.path().display());
    let started = tmux.run(&[
        "-f",
        config.to_str().unwrap(),
        "new-session",
        "-d",
        "-s",
        "top",
        "-x",
        "160",
        "-y",
        "40",
        "-e",
        &env,
        &command,
    ]);
    assert!(started.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&started.stderr));

    tmux.wait_for("frame", |p| p.contains("ringbus top") && p.contains("tmuxed/topic") && p.contains("sort: rate"));
    assert!(tmux.run(&["send-keys", "-t", "top", "s"]).status.success());
    tmux.wait_for("sort by bandwidth", |p| p.contains("sort: bandwidth, descending") && p.contains("bandwidth*"));
    assert!(tmux.run(&["send-keys", "-t", "top", "r"]).status.success());
    tmux.wait_for("reversed order", |p| p.contains("sort: bandwidth, ascending"));
    assert!(tmux.run(&["send-keys", "-t", "top", "q"]).status.success());

    let start = Instant::now();
    let ended = loop {
        match std::fs::read_to_string(&status) {
            Ok(ended) if ended.ends_with('\n') => break ended, // written whole
            _ => {}
        }
        assert!(start.elapsed() < WATCHDOG, "watchdog: `top` still running after q; the pane shows:\n{}", tmux.pane());
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(ended.trim(), "exit 0", "the pane shows:\n{}", tmux.pane());
    let after = tmux.pane();
    assert!(!after.contains("tmuxed/topic"), "the alternate screen was left on exit:\n{after}");
}
