//! Publishers and subscribers in different processes: exact system-call counts of a
//! publish, and survival of SIGKILL at random moments.
//!
//! Child processes are this test binary re-executed with `RINGBUS_TEST_CHILD=<role>`
//! running the `child_entry` test, which does nothing in a normal run.

mod common;

use common::*;
use ringbus::diagnostics::SyscallCounter;
use ringbus::{Node, Wake};
use std::io::{BufReader, Read};
use std::process::Child;
use std::time::Duration;

const STOP: u64 = u64::MAX;
const MESSAGE_BYTES: usize = 64;

/// Fills a payload so that any mix of two messages is detectable.
fn pattern(position: u64, buf: &mut [u8]) {
    buf[..8].copy_from_slice(&position.to_le_bytes());
    buf[8..].fill(position as u8 ^ 0x5A);
}

fn check_pattern(buf: &[u8]) -> u64 {
    let position = u64::from_le_bytes(buf[..8].try_into().unwrap());
    assert!(buf[8..].iter().all(|&b| b == position as u8 ^ 0x5A), "torn or recycled payload for message {position}");
    position
}

fn chaos_topic(node: &Node) -> ringbus::TopicBuilder {
    node.topic("chaos")
        .depth(4)
        .max_publishers(4)
        .max_subscribers(8)
        .max_held(2)
        .max_payload_bytes(MESSAGE_BYTES as u64)
}

#[test]
fn child_entry() {
    let Some(role) = child_role() else { return };
    let node = Node::new(&role).unwrap();
    let topic = std::env::var("TOPIC").unwrap_or_default();
    match role.as_str() {
        "sleeper" | "poller" => {
            let wake = if role == "sleeper" { Wake::OnData } else { Wake::Never };
            let mut sub = node.topic(&topic).wake(wake).subscriber().unwrap();
            println!("ready");
            let mut received = 0u64;
            let give_up = std::time::Instant::now() + Duration::from_secs(60);
            loop {
                assert!(std::time::Instant::now() < give_up, "publisher went silent");
                let sample = if wake == Wake::OnData {
                    sub.receive(Some(Duration::from_secs(60))).expect("publisher went silent")
                } else {
                    match sub.take().unwrap() {
                        Some(s) => s,
                        None => {
                            std::thread::sleep(Duration::from_millis(1));
                            continue;
                        }
                    }
                };
                if *sample.value::<u64>().unwrap() == STOP {
                    break;
                }
                received += 1;
            }
            println!("counts {received} {}", sub.lost());
        }
        "chaos-pub" => {
            let mut publisher = chaos_topic(&node).publisher().unwrap();
            for position in 0.. {
                let mut loan = publisher.loan_uninit(MESSAGE_BYTES).unwrap();
                pattern(position, &mut loan);
                loan.publish();
                if position % 16 == 0 {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        }
        "chaos-sub" => {
            let mut sub = chaos_topic(&node).subscriber().unwrap();
            let mut held = std::collections::VecDeque::new();
            loop {
                if let Ok(s) = sub.receive(Some(Duration::from_millis(5))) {
                    check_pattern(&s);
                    held.push_back(s);
                }
                if held.len() == 2 || (held.len() == 1 && sub.taken() % 3 == 0) {
                    held.pop_front();
                }
            }
        }
        other => panic!("unknown child role {other}"),
    }
}

fn spawn_ready(role: &str, root: &TestRoot, topic: &str) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = spawn_child("child_entry", role, root.path(), &[("TOPIC", topic.to_string())]);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    read_until_line(&mut out, "ready");
    (child, out)
}

fn finish(children: Vec<(Child, BufReader<std::process::ChildStdout>)>, expected: u64) {
    for (child, mut out) in children {
        let mut report = String::new();
        out.read_to_string(&mut report).unwrap();
        let status = wait_child(child, Duration::from_secs(60), "subscriber child");
        assert!(status.success(), "child failed: {status}");
        let line = report.lines().find_map(|l| l.split("counts ").nth(1)).expect("child printed its counts");
        let counts: Vec<u64> = line.split_whitespace().map(|v| v.parse().unwrap()).collect();
        assert_eq!(counts, vec![expected, 0], "received and lost by one subscriber");
    }
}

/// The publish of one message with `subs` subscribers asleep makes exactly one system
/// call; with `subs` polling subscribers, none.
fn count_publish_syscalls(subs: usize) {
    let root = TestRoot::new();
    let node = root.node("publisher");
    let topic = format!("sys{subs}");
    let mut publisher = node.topic(&topic).max_subscribers(2 * subs as u32).depth(16).publisher().unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    const ROUNDS: u64 = 5;

    let sleepers: Vec<_> = (0..subs).map(|_| spawn_ready("sleeper", &root, &topic)).collect();
    for round in 0..ROUNDS {
        wait_until(Duration::from_secs(60), "all subscribers asleep", || {
            publisher.sleeping_subscribers() == subs as u32
        });
        let start = counter.start().unwrap();
        publisher.publish_copy(&round.to_le_bytes()).unwrap();
        let calls = counter.since(start).unwrap();
        assert_eq!(calls, 1, "a publish with {subs} sleeping subscribers made {calls} system calls");
    }

    publisher.publish_copy(&STOP.to_le_bytes()).unwrap();
    finish(sleepers, ROUNDS);
    assert_eq!(publisher.sleeping_subscribers(), 0);

    // Now as many subscribers that only poll (Wake::Never): they never touch the sleepers
    // count, so publishing costs no system call at all.
    let pollers: Vec<_> = (0..subs).map(|_| spawn_ready("poller", &root, &topic)).collect();
    for round in 0..ROUNDS {
        let start = counter.start().unwrap();
        publisher.publish_copy(&round.to_le_bytes()).unwrap();
        let calls = counter.since(start).unwrap();
        assert_eq!(calls, 0, "a publish with {subs} polling subscribers made {calls} system calls");
    }
    publisher.publish_copy(&STOP.to_le_bytes()).unwrap();
    finish(pollers, ROUNDS);
    assert_eq!(publisher.stats().wake_syscalls, ROUNDS + 1, "only the sleepers' publishes woke anyone");
}

#[test]
fn publish_makes_one_syscall_for_one_sleeping_subscriber_and_none_for_pollers() {
    with_watchdog(Duration::from_secs(120), "syscall count with 1 subscriber", || count_publish_syscalls(1));
}

#[test]
fn publish_makes_one_syscall_for_32_sleeping_subscribers_and_none_for_pollers() {
    with_watchdog(Duration::from_secs(240), "syscall count with 32 subscribers", || count_publish_syscalls(32));
}
