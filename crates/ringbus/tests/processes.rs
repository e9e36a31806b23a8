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
                let value = *sample.value::<u64>().unwrap();
                if value == STOP {
                    break;
                }
                received += 1;
                if wake == Wake::OnData {
                    println!("got {value}");
                }
            }
            println!("counts {received} {}", sub.lost());
        }
        "chaos-pub" => {
            let mut publisher = chaos_topic(&node).publisher().unwrap();
            for position in 0.. {
                let mut loan = publisher.loan_uninit(MESSAGE_BYTES).unwrap();
                pattern(position, &mut loan);
                loan.publish();
                if position.is_multiple_of(16) {
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
                if held.len() == 2 || (held.len() == 1 && sub.taken().is_multiple_of(3)) {
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

/// System calls made by publishing `value`.
fn counted_publish(counter: &SyscallCounter, publisher: &mut ringbus::Publisher, value: u64) -> u64 {
    let start = counter.start().unwrap();
    publisher.publish_copy(&value.to_le_bytes()).unwrap();
    counter.since(start).unwrap()
}

/// The publish of one message with `subs` subscribers asleep makes exactly one system
/// call, however many of them it wakes itself (`direct_wakes`, else the default) and
/// however many through the relay; with `subs` polling subscribers, none.
fn count_publish_syscalls(subs: usize, direct_wakes: Option<u32>) {
    let root = TestRoot::new();
    let node = root.node("publisher");
    let topic = format!("sys{subs}");
    let mut builder = node.topic(&topic).max_subscribers(2 * subs as u32).depth(16);
    if let Some(k) = direct_wakes {
        builder = builder.direct_wakes(k);
    }
    let mut publisher = builder.publisher().unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    const ROUNDS: u64 = 5;

    let mut sleepers: Vec<_> = (0..subs).map(|_| spawn_ready("sleeper", &root, &topic)).collect();
    for round in 0..ROUNDS {
        // Every subscriber has taken the previous round (so none is counted in sleepers
        // while still on its way out of the last wake-up), and all are asleep again.
        wait_until(Duration::from_secs(60), "all subscribers asleep", || {
            publisher.sleeping_subscribers() == subs as u32
        });
        let calls = counted_publish(&counter, &mut publisher, round);
        assert_eq!(calls, 1, "a publish with {subs} sleeping subscribers made {calls} system calls");
        for (_, out) in sleepers.iter_mut() {
            read_until_line(out, &format!("got {round}"));
        }
    }

    wait_until(Duration::from_secs(60), "all subscribers asleep", || publisher.sleeping_subscribers() == subs as u32);
    publisher.publish_copy(&STOP.to_le_bytes()).unwrap();
    finish(sleepers, ROUNDS);
    assert_eq!(publisher.sleeping_subscribers(), 0);

    // Now as many subscribers that only poll (Wake::Never): they never touch the sleepers
    // count, so publishing costs no system call at all.
    let pollers: Vec<_> = (0..subs).map(|_| spawn_ready("poller", &root, &topic)).collect();
    for round in 0..ROUNDS {
        let calls = counted_publish(&counter, &mut publisher, round);
        assert_eq!(calls, 0, "a publish with {subs} polling subscribers made {calls} system calls");
    }
    publisher.publish_copy(&STOP.to_le_bytes()).unwrap();
    finish(pollers, ROUNDS);
    assert_eq!(publisher.stats().wake_syscalls, ROUNDS + 1, "only the sleepers' publishes woke anyone");
}

#[test]
fn publish_makes_one_syscall_for_one_sleeping_subscriber_and_none_for_pollers() {
    with_watchdog(Duration::from_secs(120), "syscall count with 1 subscriber", || count_publish_syscalls(1, None));
}

#[test]
fn publish_makes_one_syscall_for_32_sleeping_subscribers_and_none_for_pollers() {
    with_watchdog(Duration::from_secs(240), "syscall count with 32 subscribers", || count_publish_syscalls(32, None));
}

#[test]
fn publish_makes_one_syscall_for_32_sleepers_when_it_wakes_8_itself_or_all_of_them() {
    for k in [8, 32] {
        let what = format!("syscall count with 32 subscribers, {k} woken by the publisher");
        with_watchdog(Duration::from_secs(240), &what, move || count_publish_syscalls(32, Some(k)));
    }
}

/// Minimal xorshift so the test needs no extra crate; the seed is printed for replay.
struct Rng(u64);

impl Rng {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// Takes everything available and checks it: payload intact and matching its position,
/// and per publisher strictly increasing positions (no duplicate, no reordering).
fn drain_and_check(sub: &mut ringbus::Subscriber, last: &mut std::collections::HashMap<ringbus::PublisherId, u64>) {
    while let Some(sample) = sub.take().unwrap() {
        let position = check_pattern(&sample);
        assert_eq!(position, sample.position(), "payload of another message");
        if let Some(&previous) = last.get(&sample.publisher()) {
            assert!(position > previous, "publisher {:?}: {position} after {previous}", sample.publisher());
        }
        last.insert(sample.publisher(), position);
    }
}

fn chaos(rounds: u64, seed: u64) {
    use std::os::unix::process::ExitStatusExt;
    let root = TestRoot::new();
    {
        let node = root.node("survivor");
        let mut publisher = chaos_topic(&node).publisher().unwrap();
        let mut subscriber = chaos_topic(&node).subscriber().unwrap();
        let mut last = std::collections::HashMap::new();
        let mut rng = Rng(seed);
        let mut own_position = 0;
        let mut kills = [0u32; 2];
        for _ in 0..rounds {
            let victims: &[&str] = match rng.next(3) {
                0 => &["chaos-pub"],
                1 => &["chaos-sub"],
                _ => &["chaos-pub", "chaos-sub"],
            };
            let children: Vec<Child> =
                victims.iter().map(|r| spawn_child("child_entry", r, root.path(), &[])).collect();
            // Kill anywhere: during start-up, joining, loan, publish, take or receive.
            let until = std::time::Instant::now() + Duration::from_micros(rng.next(30_000));
            while std::time::Instant::now() < until {
                let mut loan = publisher.loan_uninit(MESSAGE_BYTES).unwrap();
                pattern(own_position, &mut loan);
                loan.publish();
                own_position += 1;
                drain_and_check(&mut subscriber, &mut last);
                std::thread::sleep(Duration::from_micros(300));
            }
            for (mut child, role) in children.into_iter().zip(victims) {
                child.kill().unwrap();
                let status = wait_child(child, Duration::from_secs(10), role);
                assert_eq!(status.signal(), Some(libc::SIGKILL), "{role} ended by itself: {status} (seed {seed})");
                kills[(*role == "chaos-sub") as usize] += 1;
            }
            drain_and_check(&mut subscriber, &mut last);
        }
        assert!(kills.iter().all(|&k| k > 0), "both roles were killed: {kills:?}");
        assert_eq!(publisher.chunks_held_by_subscribers(), 0, "chunks of killed subscribers were reclaimed");
        // After all that, new participants join, and messages flow end to end.
        let mut fresh_sub = chaos_topic(&node).subscriber().unwrap();
        let mut fresh_pub = chaos_topic(&node).publisher().unwrap();
        let mut loan = fresh_pub.loan_uninit(MESSAGE_BYTES).unwrap();
        pattern(0, &mut loan);
        loan.publish();
        assert_eq!(check_pattern(&fresh_sub.receive(Some(Duration::from_secs(10))).unwrap()), 0);
        drain_and_check(&mut subscriber, &mut last);
        assert!(last.len() > 2, "the survivor heard from the victims too: {}", last.len());
    }
    assert_eq!(root.files(), Vec::<String>::new(), "files left behind (seed {seed})");
}

#[test]
fn sigkill_at_random_moments_loses_no_chunk_and_leaves_no_file() {
    let rounds = std::env::var("RINGBUS_CHAOS_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let seed = std::env::var("RINGBUS_CHAOS_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    println!("SIGKILL chaos: {rounds} rounds, RINGBUS_CHAOS_SEED={seed}");
    with_watchdog(Duration::from_secs(600), "SIGKILL chaos", move || chaos(rounds, seed));
}
