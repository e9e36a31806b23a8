//! Round trips through two bridges against round trips through Zenoh alone, in one run.
//!
//! Two "machines" (two ringbus roots, two bridges, joined over TCP loopback): side A
//! publishes `ping` on ringbus, its bridge carries it to side B, where a responder thread
//! publishes it back on `pong`, which B's bridge carries to A. The baseline is the same
//! ping-pong between two bare Zenoh sessions (one answering from its subscriber callback),
//! so the ratio is what the bridges and the four ringbus hops add to Zenoh itself.
//!
//! ```sh
//! CARGO_PROFILE_RELEASE_LTO=off cargo run --release -p ringbus-zenoh --example bridge_bench -- [ROUND_TRIPS [PASSES]]
//! ```

use ringbus::Node;
use ringbus_zenoh::{Bridge, BridgeConfig, Direction, Mapping, RingbusSide};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use zenoh::Wait;

const PAYLOAD_BYTES: usize = 64;
const WARMUP: usize = 200;
const LIMIT: Duration = Duration::from_secs(10);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn mapping(topic: &str, direction: Direction) -> Mapping {
    Mapping::parse(topic, direction).unwrap()
}

/// Loopback only: the endpoints given, no multicast scouting.
fn link(listen: &str, connect: Option<&str>) -> BridgeConfig {
    BridgeConfig {
        listen: vec![listen.to_string()],
        connect: connect.map(|c| vec![c.to_string()]).unwrap_or_default(),
        multicast_scouting: false,
        ..BridgeConfig::default()
    }
}

fn bridge(root: &std::path::Path, mappings: Vec<Mapping>, listen: &str, connect: Option<&str>) -> Bridge {
    let ringbus = RingbusSide { root: Some(root.to_path_buf()), ..RingbusSide::default() };
    let config = BridgeConfig { ringbus, mappings, ..link(listen, connect) };
    Bridge::start(&config).expect("cannot start a bridge")
}

/// p50 and p99 of `samples` in µs.
fn percentiles(mut samples: Vec<u64>) -> (f64, f64) {
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize] as f64 / 1e3;
    (at(0.5), at(0.99))
}

/// Measures `round_trips` ping-pongs after the path is up and `WARMUP` more: `send` sends a
/// ping, `answer` waits at most the given time for one and returns its sequence number.
fn ping_pong(
    round_trips: usize,
    mut send: impl FnMut(&[u8]),
    mut answer: impl FnMut(Duration) -> Option<u64>,
) -> Vec<u64> {
    let mut seq = 0u64;
    let mut exchange = |timeout: Duration| {
        seq += 1;
        let mut message = [0u8; PAYLOAD_BYTES];
        message[..8].copy_from_slice(&seq.to_le_bytes());
        let t0 = Instant::now();
        send(&message);
        // An answer to an earlier, resent ping is skipped.
        let answered = std::iter::from_fn(|| answer(timeout)).any(|got| got == seq);
        answered.then(|| t0.elapsed().as_nanos() as u64)
    };
    // Until the path is up (peers connected, subscriptions declared), pings are lost.
    let deadline = Instant::now() + LIMIT;
    while exchange(Duration::from_millis(100)).is_none() {
        assert!(Instant::now() < deadline, "no answer within {LIMIT:?}: the path never came up");
    }
    let mut times: Vec<u64> =
        (0..WARMUP + round_trips).map(|_| exchange(LIMIT).expect("a ping went unanswered")).collect();
    times.drain(..WARMUP);
    times
}

fn sequence(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
}

/// Round trips through ringbus → bridge A → Zenoh → bridge B → responder → back.
fn through_bridges(round_trips: usize) -> Vec<u64> {
    let scratch = tempfile::Builder::new().prefix("ringbus-bridge-bench-").tempdir_in("/dev/shm").unwrap();
    let (root_a, root_b) = (scratch.path().join("a"), scratch.path().join("b"));
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    let _a = bridge(&root_a, vec![mapping("ping", Direction::Out), mapping("pong", Direction::In)], &endpoint, None);
    let b_mappings = vec![mapping("ping", Direction::In), mapping("pong", Direction::Out)];
    let _b = bridge(&root_b, b_mappings, "tcp/127.0.0.1:0", Some(&endpoint));
    let node_b = Node::with_root("bench-responder", &root_b).unwrap();
    let mut ping_b = node_b.topic("ping").subscriber().unwrap();
    let mut pong_b = node_b.topic("pong").publisher().unwrap();
    let node_a = Node::with_root("bench-pinger", &root_a).unwrap();
    let mut ping_a = node_a.topic("ping").publisher().unwrap();
    let mut pong_a = node_a.topic("pong").subscriber().unwrap();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if let Ok(sample) = ping_b.receive(Some(Duration::from_millis(50))) {
                    pong_b.publish_copy(&sample).unwrap();
                }
            }
        });
        let times = ping_pong(
            round_trips,
            |m| ping_a.publish_copy(m).unwrap(),
            |t| pong_a.receive(Some(t)).ok().map(|s| sequence(&s)),
        );
        done.store(true, Ordering::Relaxed);
        times
    })
}

/// Round trips between two bare Zenoh sessions over the same kind of TCP loopback link.
fn through_zenoh(round_trips: usize) -> Vec<u64> {
    let endpoint = format!("tcp/127.0.0.1:{}", free_port());
    // Configured as a bridge's session is.
    let session = |listen: &str, connect| zenoh::open(link(listen, connect).zenoh_config().unwrap()).wait().unwrap();
    let (a, b) = (session(&endpoint, None), session("tcp/127.0.0.1:0", Some(&endpoint)));
    let pong_b = b.declare_publisher("zpong").wait().unwrap();
    let _echo = b
        .declare_subscriber("zping")
        .callback(move |sample| pong_b.put(sample.payload().to_bytes().into_owned()).wait().unwrap())
        .wait()
        .unwrap();
    let (tx, rx) = mpsc::channel::<u64>();
    let _pong_a = a
        .declare_subscriber("zpong")
        .callback(move |sample| {
            let _ = tx.send(sequence(&sample.payload().to_bytes()));
        })
        .wait()
        .unwrap();
    let ping_a = a.declare_publisher("zping").wait().unwrap();
    ping_pong(round_trips, |m| ping_a.put(m.to_vec()).wait().unwrap(), |t| rx.recv_timeout(t).ok())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().expect("ROUND_TRIPS PASSES: numbers"));
    let (round_trips, passes) = (args.next().unwrap_or(2000), args.next().unwrap_or(3));
    // Passes alternate the two paths, so a slow stretch of a shared machine hits both.
    let (mut bridge, mut zenoh, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..passes {
        let b = percentiles(through_bridges(round_trips));
        let z = percentiles(through_zenoh(round_trips));
        ratios.push(b.0 / z.0);
        bridge.push(b);
        zenoh.push(z);
    }
    let med = |v: &[(f64, f64)], i: usize| median(v.iter().map(|p| if i == 0 { p.0 } else { p.1 }).collect());
    println!("{round_trips} round trips of {PAYLOAD_BYTES} B after {WARMUP} warm-up, TCP loopback, in each of {passes} passes");
    println!("(µs: medians over the passes; ratio: median of the per-pass ratios)\n");
    println!("| path | round trip p50 µs | round trip p99 µs | p50 ÷ zenoh |");
    println!("|---|--:|--:|--:|");
    println!(
        "| ringbus → bridge → zenoh → bridge → ringbus, and back | {:.1} | {:.1} | {:.2}× |",
        med(&bridge, 0),
        med(&bridge, 1),
        median(ratios)
    );
    println!("| zenoh session → zenoh session, and back | {:.1} | {:.1} | |", med(&zenoh, 0), med(&zenoh, 1));
}
