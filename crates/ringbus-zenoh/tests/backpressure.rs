//! Bursts through one `ringbus-bridge` process, fed or read by a bare Zenoh session over
//! TCP loopback (multicast scouting off): a reliable subscriber on either side of the
//! bridge loses nothing, what the bridge gives up on is counted exactly, `--depth` sizes
//! the topics it creates, and a stopped bridge holds no publisher back. Every assertion is
//! on counts and order; every wait is bounded, so a broken bridge fails instead of hanging.

mod common;

use common::{collect, counter, free_port, scratch, text, wait_until, BridgeProcess, LIMIT};
use ringbus::inspect::TopicInfo;
use ringbus::{Node, Root, Subscriber, WhenFull};
use ringbus_zenoh::{default_key_expr, BridgeConfig};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;
use zenoh::qos::CongestionControl;
use zenoh::Wait;

const TOPIC: &str = "demo/burst";

/// A Zenoh session of the test's own, connected to the bridge listening on `endpoint`.
fn zenoh_session(endpoint: &str) -> zenoh::Session {
    let link = BridgeConfig {
        listen: vec!["tcp/127.0.0.1:0".into()],
        connect: vec![endpoint.into()],
        ..BridgeConfig::default()
    };
    zenoh::open(link.zenoh_config().unwrap()).wait().unwrap()
}

fn topic_info(root: &Path) -> TopicInfo {
    ringbus::inspect::topic(&Root::open(root).unwrap(), TOPIC).unwrap().expect("the topic exists")
}

/// The bridge's publisher on the topic (`--in`: it is the only one): (publishes, blocked).
fn bridge_publisher(root: &Path) -> (u64, u64) {
    let info = topic_info(root);
    let stats = &info.publishers.first().expect("the bridge's publisher").stats;
    (stats.publishes, stats.blocked)
}

fn burst(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// How long a marker may take to cross before the next one is sent.
const MARKER_WAIT: Duration = Duration::from_millis(200);

/// The path is up and nothing is in flight on it: sends numbered markers (`send`) until one
/// comes out (`receive`, `None` once nothing more arrives within [`MARKER_WAIT`]), reading
/// past whatever came before it (what was sent before a marker arrives before it or
/// never). A marker can be dropped while Zenoh still settles the link between the two
/// sessions (each listens, so each may also connect to the other); the next one replaces it.
fn cross_a_marker(what: &str, mut send: impl FnMut(&str), mut receive: impl FnMut() -> Option<String>) {
    let mut k = 0;
    wait_until(what, || {
        let marker = format!("ready{k}");
        k += 1;
        send(&marker);
        std::iter::from_fn(&mut receive).any(|got| got == marker)
    });
}

/// Zenoh → bridge → ringbus is up, and nothing is in flight ([`cross_a_marker`]). Returns
/// how many messages the bridge has published (`sub` has read them all; the bridge counts
/// each just after `sub` can see it).
fn wait_for_path_in(root: &Path, put: &zenoh::pubsub::Publisher<'_>, sub: &mut Subscriber) -> u64 {
    cross_a_marker(
        "a marker from Zenoh crossed the bridge",
        |marker| put.put(marker).wait().unwrap(),
        || sub.receive(Some(MARKER_WAIT)).ok().map(|sample| text(&sample)),
    );
    let published = sub.taken() + sub.lost();
    wait_until("the bridge counted what it published", || bridge_publisher(root).0 == published);
    published
}

/// Zenoh `--in` into a reliable subscriber that sleeps through a burst six times the
/// topic's default depth of 16: the bridge waits for it rather than overwriting, and all
/// 100 arrive, in order. (A lossy subscriber in its place loses most of the burst.)
#[test]
fn a_burst_from_zenoh_into_a_sleeping_reliable_subscriber_arrives_whole() {
    const BURST: usize = 100;
    let scratch = scratch();
    let root = scratch.path().join("root");
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let node = Node::with_root("app", &root).unwrap();
    let mut reliable = node.topic(TOPIC).reliable().subscriber().unwrap();
    let bridge = BridgeProcess::start(&root, &["--in", TOPIC, "--listen", &endpoint]);
    let session = zenoh_session(&endpoint);
    let put = session.declare_publisher(default_key_expr(TOPIC)).congestion_control(CongestionControl::Block);
    let put = put.wait().unwrap();
    let published = wait_for_path_in(&root, &put, &mut reliable);

    let expected = burst("m", BURST);
    for m in &expected {
        put.put(m.as_str()).wait().unwrap();
    }
    // The subscriber sleeps: the bridge fills the topic's depth, then waits for it.
    let depth = topic_info(&root).settings.depth as u64;
    assert_eq!(depth, 16, "the default depth");
    wait_until("the bridge published a depth of messages", || bridge_publisher(&root).0 >= published + depth);
    std::thread::sleep(Duration::from_millis(200));
    let got = collect(&mut reliable, "m", BURST);
    assert_eq!(got, expected, "the burst, whole and in order");
    assert_eq!(reliable.lost(), 0);
    let (_, blocked) = bridge_publisher(&root);
    assert!(blocked >= 1, "the burst outran the subscriber: the bridge waited for it ({blocked} waits)");

    let counters = bridge.stop();
    for name in ["full", "too_large", "errors"] {
        assert_eq!(counter(&counters, name), 0, "{counters}");
    }
    assert!(counter(&counters, "from_zenoh") > BURST as u64, "the burst and the probes: {counters}");
}

/// With `--depth 128` the topic the bridge creates keeps 128 messages: a lossy subscriber
/// sleeping through a burst gets all of the first 128. A reliable subscriber that takes
/// nothing leaves no room after those, and each further message is dropped after the
/// incoming wait and counted (`full`): exactly the 72 the depth could not take.
#[test]
fn depth_sizes_the_topics_the_bridge_creates_and_what_finds_no_room_is_counted_full() {
    const DEPTH: usize = 128;
    const BURST: usize = 200;
    let scratch = scratch();
    let root = scratch.path().join("root");
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let args = ["--in", TOPIC, "--depth", "128", "--in-wait-ms", "20", "--listen", &endpoint];
    let bridge = BridgeProcess::start(&root, &args);
    assert_eq!(topic_info(&root).settings.depth, DEPTH as u32, "created with --depth");
    let node = Node::with_root("app", &root).unwrap();
    let mut sleeper = node.topic(TOPIC).subscriber().unwrap();
    let session = zenoh_session(&endpoint);
    let put = session.declare_publisher(default_key_expr(TOPIC)).congestion_control(CongestionControl::Block);
    let put = put.wait().unwrap();
    let published = wait_for_path_in(&root, &put, &mut sleeper);
    // Joins now: it holds back what the bridge publishes from here on, and never takes.
    let _stuck = node.topic(TOPIC).reliable().subscriber().unwrap();

    let blocked = bridge_publisher(&root).1;
    let expected = burst("m", BURST);
    for m in &expected {
        put.put(m.as_str()).wait().unwrap();
    }
    // Each message dropped for want of room waited first: one blocked wait each.
    let dropped = (BURST - DEPTH) as u64;
    wait_until("the bridge gave up on the burst's tail", || bridge_publisher(&root).1 >= blocked + dropped);
    assert_eq!(bridge_publisher(&root), (published + DEPTH as u64, blocked + dropped));
    assert_eq!(collect(&mut sleeper, "m", DEPTH), &expected[..DEPTH], "the first 128, kept while it slept");
    assert_eq!(sleeper.lost(), 0);

    let counters = bridge.stop();
    assert_eq!(counter(&counters, "full"), dropped, "{counters}");
    assert_eq!(counter(&counters, "errors"), 0, "{counters}");
}

/// ringbus → bridge → Zenoh: a burst of 1000 published back to back on a topic of depth
/// 16 outruns the bridge, whose reliable subscriber holds the publisher back instead of
/// being lapped: the Zenoh subscriber gets all of it, in order. Once the bridge stops, its
/// subscriber is gone and holds nobody back.
#[test]
fn out_delivers_a_ringbus_burst_larger_than_depth_whole_and_releases_publishers_on_exit() {
    const BURST: usize = 1000;
    let scratch = scratch();
    let root = scratch.path().join("root");
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let bridge = BridgeProcess::start(&root, &["--out", TOPIC, "--listen", &endpoint]);
    assert_eq!(topic_info(&root).reliable_subscribers, 1, "the bridge reads reliably");
    let node = Node::with_root("app", &root).unwrap();
    // Waits for the bridge as long as a test may take, so that a regression fails, not hangs.
    let mut publisher = node.topic(TOPIC).when_full(WhenFull::Wait(Some(LIMIT))).publisher().unwrap();
    let session = zenoh_session(&endpoint);
    let (tx, rx) = mpsc::channel();
    let _sub = session
        .declare_subscriber(default_key_expr(TOPIC))
        .callback(move |sample| {
            let _ = tx.send(String::from_utf8_lossy(&sample.payload().to_bytes()).into_owned());
        })
        .wait()
        .unwrap();
    cross_a_marker(
        "a marker from ringbus crossed the bridge",
        |marker| publisher.publish_copy(marker.as_bytes()).unwrap(),
        || rx.recv_timeout(MARKER_WAIT).ok(),
    );

    let expected = burst("m", BURST);
    for m in &expected {
        publisher.publish_copy(m.as_bytes()).unwrap();
    }
    let got: Vec<String> = std::iter::from_fn(|| rx.recv_timeout(LIMIT).ok()).take(BURST).collect();
    assert_eq!(got, expected, "the burst, whole and in order");
    assert!(publisher.stats().blocked >= 1, "the burst outran the bridge, which held the publisher back");

    let counters = bridge.stop();
    assert_eq!((counter(&counters, "lost"), counter(&counters, "errors")), (0, 0), "{counters}");
    assert!(counter(&counters, "to_zenoh") > BURST as u64, "the burst and the probes: {counters}");
    assert_eq!(topic_info(&root).reliable_subscribers, 0, "the stopped bridge's subscriber is gone");
    let (depth, blocked) = (topic_info(&root).settings.depth as usize, publisher.stats().blocked);
    for i in 0..2 * depth {
        publisher.publish_copy(format!("after{i}").as_bytes()).unwrap();
    }
    assert_eq!(publisher.stats().blocked, blocked, "nobody to wait for once the bridge left");
}
