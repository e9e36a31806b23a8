//! Two `ringbus-bridge` processes, each on its own ringbus root (two "machines"), joined
//! over TCP loopback with multicast scouting off: every message published on one side
//! arrives once, in order, on the other; nothing comes back as an echo; each bridge's
//! counters add up. Every wait is bounded, so a broken bridge fails instead of hanging.

mod common;

use common::{counter, free_port, scratch, text, BridgeProcess, LIMIT};
use ringbus::{Node, Subscriber};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const MESSAGES: usize = 300;
const TOPIC: &str = "demo/bridged";

/// A bridge of `topic` both ways.
fn bridge(root: &Path, topic: &str, args: &[&str]) -> BridgeProcess {
    BridgeProcess::start(root, &[&["--both", topic], args].concat())
}

/// The test topic, created before the bridges open it, deep enough (256 messages, 128 ms
/// at the tests' pace) that the tests' own lossy subscribers are not lapped on a loaded
/// machine.
fn deep(node: &Node) -> ringbus::TopicBuilder {
    node.topic(TOPIC).depth(256)
}

/// Receives until `prefix` messages 0..MESSAGES are all in, or the limit; returns them.
fn collect(sub: &mut Subscriber, prefix: &str) -> Vec<String> {
    common::collect(sub, prefix, MESSAGES)
}

/// Publishes probes from `from` until one reaches `to`: the path is up both in Zenoh
/// (peers connected, subscriptions declared) and in both bridges.
fn wait_for_path(from: &mut ringbus::Publisher, to: &mut Subscriber) {
    let deadline = Instant::now() + LIMIT;
    loop {
        assert!(Instant::now() < deadline, "no probe crossed the bridge within {LIMIT:?}");
        from.publish_copy(b"probe").unwrap();
        if let Ok(sample) = to.receive(Some(Duration::from_millis(100))) {
            if text(&sample) == "probe" {
                return;
            }
        }
    }
}

/// What one side sees after a round: its own messages once (from its own publisher), the
/// other side's once each and in order, and nothing twice.
fn send_round(from: &mut ringbus::Publisher, from_sub: &mut Subscriber, to_sub: &mut Subscriber, prefix: &str) {
    let expected: Vec<String> = (0..MESSAGES).map(|i| format!("{prefix}{i}")).collect();
    // Both sides read while the messages flow (a topic keeps only its last `depth`).
    let (own, other) = std::thread::scope(|s| {
        let own = s.spawn(|| collect(from_sub, prefix));
        let other = s.spawn(|| collect(to_sub, prefix));
        for m in &expected {
            from.publish_copy(m.as_bytes()).unwrap();
            std::thread::sleep(Duration::from_micros(500));
        }
        (own.join().unwrap(), other.join().unwrap())
    });
    assert_eq!(other, expected, "the other side got these {prefix} messages");
    assert_eq!(own, expected, "the sending side saw its own messages");
    // An echo would arrive after the originals: give it time to show, then look.
    std::thread::sleep(Duration::from_millis(500));
    for sub in [from_sub, to_sub] {
        while let Ok(Some(sample)) = sub.take() {
            assert!(!text(&sample).starts_with(prefix), "{:?} arrived twice (an echo)", text(&sample));
        }
    }
}

#[test]
fn two_bridges_deliver_each_message_once_each_way_and_never_echo() {
    let scratch = scratch();
    let (root_a, root_b) = (scratch.path().join("a"), scratch.path().join("b"));
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let (node_a, node_b) = (Node::with_root("side-a", &root_a).unwrap(), Node::with_root("side-b", &root_b).unwrap());
    let (mut pub_a, mut sub_a) = (deep(&node_a).publisher().unwrap(), node_a.topic(TOPIC).subscriber().unwrap());
    let (mut pub_b, mut sub_b) = (deep(&node_b).publisher().unwrap(), node_b.topic(TOPIC).subscriber().unwrap());
    let bridge_a = bridge(&root_a, TOPIC, &["--listen", &endpoint]);
    let bridge_b = bridge(&root_b, TOPIC, &["--connect", &endpoint, "--listen", "tcp/127.0.0.1:0"]);
    wait_for_path(&mut pub_a, &mut sub_b);
    wait_for_path(&mut pub_b, &mut sub_a);

    send_round(&mut pub_a, &mut sub_a, &mut sub_b, "a");
    send_round(&mut pub_b, &mut sub_b, &mut sub_a, "b");

    for (side, counters) in [("a", bridge_a.stop()), ("b", bridge_b.stop())] {
        for name in ["too_large", "full", "lost", "errors"] {
            assert_eq!(counter(&counters, name), 0, "bridge {side}: {counters}");
        }
        // Whatever a bridge published from Zenoh, its own subscriber saw and did not send back.
        assert_eq!(counter(&counters, "own_skipped"), counter(&counters, "from_zenoh"), "bridge {side}: {counters}");
        assert!(counter(&counters, "to_zenoh") >= MESSAGES as u64, "bridge {side}: {counters}");
        assert!(counter(&counters, "from_zenoh") >= MESSAGES as u64, "bridge {side}: {counters}");
    }
}

#[test]
fn bad_arguments_fail_with_a_message_that_says_what_to_write() {
    let scratch = scratch();
    let root = scratch.path().join("root");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ringbus-bridge"))
            .arg("--root")
            .arg(&root)
            .arg("--no-multicast")
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run(&[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--out, --in or --both"), "{err}");
    let (code, err) = run(&["--out", "=key"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("TOPIC=KEY_EXPR"), "{err}");
    let (code, err) = run(&["--out", "camera=a//b"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("not a Zenoh key expression") && !err.contains(".rs:"), "{err}");
    let (code, err) = run(&["--in", "bad name"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot open the ringbus topic \"bad name\"") && err.contains("only letters"), "{err}");
    let (code, err) = run(&["--in", "camera", "--depth", "3"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("depth = 3") && err.contains("power of two"), "{err}");
    let (code, err) = run(&["--out", "camera", "--listen", "nonsense"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("nonsense"), "{err}");
    let (code, err) = run(&["--out", "camera=robot/*/camera"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("wildcard") && err.contains("only for --in"), "{err}");
    let (code, err) = run(&["--out", "camera", "--connect", "tcp/nosuch.invalid:7447"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("tcp/nosuch.invalid:7447: DNS could not resolve"), "{err}");
    let (code, err) = run(&["--out", "camera", "--connect", "tcp/127.0.0.1:70000"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("port 70000 is out of range 1-65535"), "{err}");
}

#[test]
fn a_message_over_the_far_topics_limit_is_counted_not_published() {
    const LARGE: &str = "demo/large";
    let scratch = scratch();
    let (root_a, root_b) = (scratch.path().join("a"), scratch.path().join("b"));
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    // A's topics take 64 KiB; B's bridge creates its topic with ringbus's default, 4 KiB.
    let bridge_a = bridge(&root_a, LARGE, &["--listen", &endpoint, "--max-payload-bytes", "65536"]);
    let bridge_b = bridge(&root_b, LARGE, &["--connect", &endpoint, "--listen", "tcp/127.0.0.1:0"]);
    let (node_a, node_b) = (Node::with_root("side-a", &root_a).unwrap(), Node::with_root("side-b", &root_b).unwrap());
    let mut pub_a = node_a.topic(LARGE).max_payload_bytes(65536).publisher().unwrap();
    let mut sub_b = node_b.topic(LARGE).subscriber().unwrap();
    wait_for_path(&mut pub_a, &mut sub_b);

    let fitting: Vec<u8> = (0..4096u32).map(|i| (i % 251) as u8).collect();
    pub_a.publish_copy(&vec![7u8; 8192]).unwrap(); // over B's limit
    pub_a.publish_copy(&fitting).unwrap();
    let sample = loop {
        let sample = sub_b.receive(Some(LIMIT)).expect("the 4 KiB message did not arrive");
        if sample[..] != *b"probe" {
            break sample;
        }
    };
    assert!(sample[..] == fitting[..], "the 4 KiB message arrived changed ({} bytes)", sample.len());
    let counters_b = bridge_b.stop();
    assert_eq!(counter(&counters_b, "too_large"), 1, "bridge b: {counters_b}");
    assert_eq!(counter(&counters_b, "errors"), 0, "bridge b: {counters_b}");
    let counters_a = bridge_a.stop();
    assert_eq!(counter(&counters_a, "errors"), 0, "bridge a: {counters_a}");
}

#[test]
fn a_bridge_killed_with_sigkill_is_replaced_and_traffic_resumes() {
    let scratch = scratch();
    let (root_a, root_b) = (scratch.path().join("a"), scratch.path().join("b"));
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let b_args = ["--connect", endpoint.as_str(), "--listen", "tcp/127.0.0.1:0"];
    let (node_a, node_b) = (Node::with_root("side-a", &root_a).unwrap(), Node::with_root("side-b", &root_b).unwrap());
    let mut pub_a = deep(&node_a).publisher().unwrap();
    let mut sub_b = deep(&node_b).subscriber().unwrap();
    let bridge_a = bridge(&root_a, TOPIC, &["--listen", &endpoint]);
    let bridge_b = bridge(&root_b, TOPIC, &b_args);
    wait_for_path(&mut pub_a, &mut sub_b);

    // SIGKILL while messages flow (Drop kills with SIGKILL and reaps).
    for i in 0..20 {
        pub_a.publish_copy(format!("before{i}").as_bytes()).unwrap();
        std::thread::sleep(Duration::from_micros(500));
    }
    drop(bridge_b);
    // Its replacement takes over the dead one's place on root B (its publisher and
    // subscriber slots) and Zenoh reconnects it to A.
    let bridge_b = bridge(&root_b, TOPIC, &b_args);
    wait_for_path(&mut pub_a, &mut sub_b);
    let expected: Vec<String> = (0..MESSAGES).map(|i| format!("after{i}")).collect();
    let got = std::thread::scope(|s| {
        let receiver = s.spawn(|| collect(&mut sub_b, "after"));
        for m in &expected {
            pub_a.publish_copy(m.as_bytes()).unwrap();
            std::thread::sleep(Duration::from_micros(500));
        }
        receiver.join().unwrap()
    });
    assert_eq!(got, expected, "after the restart");
    let counters = bridge_b.stop();
    assert_eq!((counter(&counters, "errors"), counter(&counters, "lost")), (0, 0), "bridge b: {counters}");
    // While its peer died, A's puts could block (CongestionControl::Block); A's reliable
    // subscriber then held A's publisher back instead of being lapped.
    let counters = bridge_a.stop();
    assert_eq!((counter(&counters, "errors"), counter(&counters, "lost")), (0, 0), "bridge a: {counters}");
}
