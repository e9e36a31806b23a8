//! Reliable subscribers: no publisher overwrites what a live reliable subscriber has not
//! taken; a publisher that would waits (or fails, as it chose), with no system call on
//! either side until the log is actually full; a dead reliable subscriber holds nobody
//! back. Real processes and real signals where it matters.

mod common;

use common::{spawn_child, wait_child, with_watchdog, TestRoot};
use ringbus::diagnostics::SyscallCounter;
use ringbus::{LoanError, Node, OpenError, Wake, WhenFull};
use std::io::BufRead;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

fn publish(publisher: &mut ringbus::Publisher, value: u64) -> Result<(), LoanError> {
    publisher.publish_copy(&value.to_le_bytes())
}

fn value(sample: &ringbus::Sample) -> u64 {
    u64::from_le_bytes(sample[..8].try_into().unwrap())
}

#[test]
fn a_publisher_that_would_overwrite_an_untaken_message_fails_or_waits() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut reliable = node.topic("cmd").depth(4).max_payload_bytes(8).reliable().subscriber().unwrap();
    let mut lossy = node.topic("cmd").subscriber().unwrap();
    let mut publisher = node.topic("cmd").when_full(WhenFull::Fail).publisher().unwrap();
    for i in 0..4 {
        publish(&mut publisher, i).unwrap();
    }
    let err = publish(&mut publisher, 4).unwrap_err();
    assert!(matches!(err, LoanError::Full { depth: 4, .. }), "{err:?}");
    assert!(err.to_string().contains("reliable subscriber") && err.to_string().contains("depth"), "{err}");
    assert_eq!(value(&reliable.take().unwrap().unwrap()), 0);
    publish(&mut publisher, 4).unwrap();
    assert!(publish(&mut publisher, 5).is_err(), "one taken, one more room");
    let got: Vec<u64> = std::iter::from_fn(|| reliable.take().unwrap().map(|s| value(&s))).collect();
    assert_eq!(got, [1, 2, 3, 4], "nothing lost, in order");
    assert_eq!(reliable.lost(), 0);
    assert_eq!(lossy.take().unwrap().map(|s| value(&s)), Some(1), "the lossy one lost message 0");
    assert_eq!(lossy.lost(), 1);

    let bad = node.topic("cmd").reliable().keep_last(2).subscriber().unwrap_err();
    assert!(matches!(bad, OpenError::InvalidConfig { field: "keep_last", .. }), "{bad:?}");
}

#[test]
fn a_waiting_publisher_goes_on_once_the_reliable_subscriber_takes() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut reliable = node.topic("cmd").depth(2).max_payload_bytes(8).reliable().subscriber().unwrap();
    let mut publisher = node.topic("cmd").when_full(WhenFull::Wait(Some(Duration::from_secs(60)))).publisher().unwrap();
    publish(&mut publisher, 0).unwrap();
    publish(&mut publisher, 1).unwrap();
    let waiting = std::thread::spawn(move || {
        publish(&mut publisher, 2).unwrap();
        publisher.stats()
    });
    common::wait_until(Duration::from_secs(30), "the publisher asleep", || {
        ringbus::inspect::topic(&ringbus::Root::open(root.path()).unwrap(), "cmd").unwrap().unwrap().publishers[0]
            .stats
            .publishes
            == 2
    });
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(value(&reliable.take().unwrap().unwrap()), 0);
    let stats = waiting.join().unwrap();
    assert_eq!((stats.publishes, stats.blocked), (3, 1));
    assert!(stats.blocked_ns > 0);
    let got: Vec<u64> = std::iter::from_fn(|| reliable.take().unwrap().map(|s| value(&s))).collect();
    assert_eq!(got, [1, 2]);
}

/// While the reliable subscriber keeps up, a publish makes no system call (its subscriber
/// polls, so there is no wake either), and neither does its take.
#[test]
fn keeping_up_costs_no_system_call_on_either_side() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut reliable =
        node.topic("cmd").depth(8).max_payload_bytes(8).wake(Wake::Never).reliable().subscriber().unwrap();
    let mut publisher = node.topic("cmd").publisher().unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    publish(&mut publisher, 0).unwrap();
    assert_eq!(value(&reliable.take().unwrap().unwrap()), 0); // attaches: maps the segment
    let start = counter.start().unwrap();
    for i in 1..1000 {
        publish(&mut publisher, i).unwrap();
        if i % 5 == 0 {
            for _ in 0..5 {
                assert!(reliable.take().unwrap().is_some());
            }
        }
    }
    assert_eq!(counter.since(start).unwrap(), 0, "system calls while the subscriber kept up");
    assert_eq!((publisher.stats().blocked, reliable.lost()), (0, 0));
}

#[test]
fn child_entry() {
    let Some(role) = common::child_role() else { return };
    let node = Node::new(&role).unwrap();
    let total = common::env_u64("TOTAL");
    match role.as_str() {
        "slow-reliable" => {
            let mut sub = node.topic("stream").reliable().subscriber().unwrap();
            println!("ready");
            for expected in 0..total {
                let sample = sub.receive(Some(Duration::from_secs(60))).expect("the publisher went silent");
                assert_eq!(value(&sample), expected, "order");
                if expected % 4096 == 0 {
                    std::thread::sleep(Duration::from_millis(1)); // slower than the publisher
                }
            }
            println!("counts {} {}", sub.taken(), sub.lost());
        }
        "lossy" => {
            let mut sub = node.topic("stream").subscriber().unwrap();
            println!("ready");
            let mut last = None;
            while last != Some(total - 1) {
                let sample = sub.receive(Some(Duration::from_secs(60))).expect("the publisher went silent");
                last = Some(value(&sample));
                std::thread::sleep(Duration::from_micros(20)); // falls behind and loses
            }
            println!("counts {} {}", sub.taken(), sub.lost());
        }
        "stuck-reliable" => {
            let _sub = node.topic("stream").reliable().subscriber().unwrap();
            println!("ready");
            std::thread::sleep(Duration::from_secs(600));
        }
        other => panic!("unknown role {other}"),
    }
}

fn ready(child: &mut std::process::Child) -> std::io::BufReader<std::process::ChildStdout> {
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    common::read_until_line(&mut out, "ready");
    out
}

/// The counts a child printed, reading its output to the end (so that it can finish).
fn counts(out: impl BufRead) -> (u64, u64) {
    let mut found = None;
    for line in out.lines() {
        if let Some(rest) = line.unwrap().trim().strip_prefix("counts ") {
            let v: Vec<u64> = rest.split(' ').map(|x| x.parse().unwrap()).collect();
            found = Some((v[0], v[1]));
        }
    }
    found.expect("the child printed its counts")
}

/// A million messages to a slow reliable subscriber process: all arrive, in order; a lossy
/// subscriber process alongside still loses (and counts) what it falls behind on; the
/// publisher waited, and each wait was for a full log.
#[test]
fn a_million_messages_reach_a_slow_reliable_subscriber_whole() {
    const TOTAL: u64 = 1_000_000;
    with_watchdog(Duration::from_secs(600), "a million reliable messages", || {
        let root = TestRoot::new();
        let node = root.node("publisher");
        let topic = || node.topic("stream").depth(64).max_payload_bytes(8);
        let _keep = topic().subscriber().unwrap(); // creates the topic with these settings
        let env = [("TOTAL", TOTAL.to_string())];
        let mut slow = spawn_child("child_entry", "slow-reliable", root.path(), &env);
        let mut lossy = spawn_child("child_entry", "lossy", root.path(), &env);
        let (slow_out, lossy_out) = (ready(&mut slow), ready(&mut lossy));
        let mut publisher = topic().publisher().unwrap();
        for i in 0..TOTAL {
            publish(&mut publisher, i).unwrap();
        }
        let (taken, lost) = counts(slow_out);
        assert!(wait_child(slow, Duration::from_secs(120), "reliable subscriber").success());
        assert_eq!((taken, lost), (TOTAL, 0));
        let (lossy_taken, lossy_lost) = counts(lossy_out);
        assert!(wait_child(lossy, Duration::from_secs(120), "lossy subscriber").success());
        assert_eq!(lossy_taken + lossy_lost, TOTAL, "the lossy one counts what it lost");
        assert!(lossy_lost > 0, "the lossy subscriber fell behind and lost some");
        assert!(publisher.stats().blocked > 0, "the slow subscriber made the publisher wait");
    });
}

/// A reliable subscriber that never takes holds the publisher; SIGKILL it and the waiting
/// publisher goes on (a dead subscriber is reclaimed, its place in the set cleared).
#[test]
fn sigkill_of_a_stuck_reliable_subscriber_frees_the_waiting_publisher() {
    with_watchdog(Duration::from_secs(120), "a stuck reliable subscriber killed", || {
        let root = TestRoot::new();
        let node = root.node("publisher");
        let _keep = node.topic("stream").depth(4).max_payload_bytes(8).subscriber().unwrap();
        let mut stuck = spawn_child("child_entry", "stuck-reliable", root.path(), &[("TOTAL", "0".into())]);
        let _out = ready(&mut stuck);
        let mut publisher = node.topic("stream").publisher().unwrap();
        let pid = stuck.id();
        let killer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            // SAFETY: kill(2) on our own child's pid, which is not reaped until wait_child.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        });
        for i in 0..8 {
            publish(&mut publisher, i).unwrap(); // the fifth waits until the kill
        }
        killer.join().unwrap();
        assert_eq!(wait_child(stuck, Duration::from_secs(10), "stuck").signal(), Some(libc::SIGKILL));
        assert_eq!(publisher.stats().blocked, 1);
        let topic = ringbus::inspect::topic(&ringbus::Root::open(root.path()).unwrap(), "stream").unwrap().unwrap();
        assert_eq!(topic.reliable_subscribers, 0, "the dead reliable subscriber no longer counts");
    });
}
