//! Several mappings of one topic in one `ringbus-bridge` process, fed and read by a bare
//! Zenoh session over TCP loopback: `--out T --in T` is carried as `--both T`, and what
//! came in on one key expression of a topic never goes out on another. Every wait is
//! bounded, so a broken bridge fails instead of hanging.

mod common;

use common::{collect, counter, free_port, scratch, text, wait_until, BridgeProcess};
use ringbus::Node;
use ringbus_zenoh::BridgeConfig;
use std::sync::mpsc;
use std::time::Duration;
use zenoh::Wait;

const TOPIC: &str = "demo/mapped";

/// A Zenoh session of the test's own, connected to the bridge listening on `endpoint`.
fn zenoh_session(endpoint: &str) -> zenoh::Session {
    let link = BridgeConfig { connect: vec![endpoint.into()], ..BridgeConfig::default() };
    zenoh::open(link.zenoh_config().unwrap()).wait().unwrap()
}

/// The counters of the mapping printed as `name` among a stopped bridge's lines.
fn counters_of<'a>(lines: &'a [String], name: &str) -> &'a str {
    let prefix = format!("{name}: ");
    let line = lines.iter().find_map(|l| l.strip_prefix(&prefix));
    line.unwrap_or_else(|| panic!("no counters of {name}: {lines:?}"))
}

#[test]
fn out_and_in_of_one_key_expression_are_carried_as_both() {
    let scratch = scratch();
    let root = scratch.path().join("root");
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let bridge = BridgeProcess::start(&root, &["--out", TOPIC, "--in", TOPIC, "--listen", &endpoint]);
    let merged = bridge.next_line();
    assert!(merged.starts_with(&format!("  {TOPIC} <-> ringbus/{TOPIC} (")), "{merged}");
    assert!(merged.contains("as --both"), "{merged}");
    let lines = bridge.stop_all();
    assert!(lines.iter().any(|l| l.starts_with(&format!("{TOPIC} <-> ringbus/{TOPIC}: to_zenoh="))), "{lines:?}");
    assert!(lines.contains(&format!("topic {TOPIC}: subscribers_lost=0")), "{lines:?}");
}

/// `--out T=a --in T=b`: what comes in on b and is published on T is not put on a (it
/// would come back to whoever sent it, through any peer that maps a to b), while what is
/// published on T here is.
#[test]
fn what_came_in_on_one_key_expression_never_goes_out_on_another() {
    const MESSAGES: usize = 20;
    let scratch = scratch();
    let root = scratch.path().join("root");
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let args = ["--out", &format!("{TOPIC}=test/a"), "--in", &format!("{TOPIC}=test/b"), "--listen", &endpoint];
    // Deep enough that the test's lossy subscriber is never lapped on a loaded machine.
    let node = Node::with_root("app", &root).unwrap();
    let mut local = node.topic(TOPIC).depth(256).subscriber().unwrap();
    let bridge = BridgeProcess::start(&root, &args);
    let mut publisher = node.topic(TOPIC).publisher().unwrap();
    let session = zenoh_session(&endpoint);
    let (tx, rx) = mpsc::channel();
    let _out = session
        .declare_subscriber("test/a")
        .callback(move |s| {
            let _ = tx.send(String::from_utf8_lossy(&s.payload().to_bytes()).into_owned());
        })
        .wait()
        .unwrap();
    let put = session.declare_publisher("test/b").wait().unwrap();
    wait_until("a probe from Zenoh crossed the bridge", || {
        put.put("probe").wait().unwrap();
        local.receive(Some(Duration::from_millis(100))).is_ok_and(|s| text(&s) == "probe")
    });
    wait_until("a probe from ringbus crossed the bridge", || {
        publisher.publish_copy(b"local").unwrap();
        rx.recv_timeout(Duration::from_millis(100)).is_ok_and(|m| m == "local")
    });

    let expected: Vec<String> = (0..MESSAGES).map(|i| format!("m{i}")).collect();
    for m in &expected {
        put.put(m.as_str()).wait().unwrap();
    }
    assert_eq!(collect(&mut local, "m", MESSAGES), expected, "published here");
    std::thread::sleep(Duration::from_millis(500)); // an echo would arrive by now
    let echoed: Vec<String> = rx.try_iter().filter(|m| m.starts_with('m')).collect();
    assert!(echoed.is_empty(), "sent back out on test/a: {echoed:?}");

    let lines = bridge.stop_all();
    let (out, incoming) =
        (counters_of(&lines, &format!("{TOPIC} -> test/a")), counters_of(&lines, &format!("{TOPIC} <- test/b")));
    assert_eq!(counter(out, "own_skipped"), counter(incoming, "from_zenoh"), "{lines:?}");
    assert!(counter(incoming, "from_zenoh") > MESSAGES as u64, "{lines:?}");
    assert_eq!((counter(out, "errors"), counter(incoming, "errors")), (0, 0), "{lines:?}");
}
