//! A node in polling style: a lidar publishes scans at 100 Hz, and a planner that works at
//! 10 Hz reads what arrived in its own timer, on one thread (an `Executor`). Its subscriber
//! never sleeps (`Wake::Never`), so nothing wakes the planner between ticks and the lidar's
//! publishes make no system call at all.
//!
//! ```sh
//! cargo run -p ringbus --example polling_node                 # polling style
//! cargo run -p ringbus --example polling_node -- --callback   # the same node, woken per scan
//! ```
//!
//! The two styles differ in one line, the subscriber's wake mode; the timer reads its
//! `Input` the same way in both. Options: `--ticks N` (default 5). Uses `$RINGBUS_ROOT`
//! if set, else a directory of its own under /dev/shm, removed at the end.

mod support;

use ringbus::{Executor, Node, PublisherStats, TopicBuilder, Wake};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use support::ExampleRoot;

const TICK: Duration = Duration::from_millis(100);
const SCAN_PERIOD: Duration = Duration::from_millis(10);

fn scans(node: &Node) -> TopicBuilder {
    // depth: the topic keeps the last 16 scans of the publisher, more than a tick's 10;
    // max_held: a callback-style input queues up to 15 of them between ticks.
    node.topic("lidar/scan").max_payload_bytes(64).depth(16).max_held(16)
}

/// Publishes a scan every 10 ms until `stop`; returns the publisher's counters.
fn lidar(node: Node, stop: Arc<AtomicBool>) -> Result<PublisherStats, String> {
    let mut publisher = scans(&node).publisher().map_err(|e| e.to_string())?;
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        publisher.publish_copy(format!("scan {n}").as_bytes()).map_err(|e| e.to_string())?;
        n += 1;
        std::thread::sleep(SCAN_PERIOD);
    }
    Ok(publisher.stats())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let ticks: u64 = match args.iter().position(|a| a == "--ticks") {
        Some(i) => args.get(i + 1).ok_or("--ticks needs a number")?.parse()?,
        None => 5,
    };
    if ticks == 0 {
        return Err("--ticks must be at least 1".into());
    }
    // The one line: Wake::Never for the polling style, Wake::OnData for the callback style.
    let (wake, style) = match args.iter().any(|a| a == "--callback") {
        false => (Wake::Never, "polling"),
        true => (Wake::OnData, "callback"),
    };
    let root = ExampleRoot::new();
    let node = Node::with_root("planner", &root.path)?;
    let mut executor = Executor::new()?;
    let input = executor.input(scans(&node).wake(wake).subscriber()?)?;

    let stop = Arc::new(AtomicBool::new(false));
    let (lidar_node, lidar_stop) = (node.clone(), stop.clone());
    let lidar = std::thread::spawn(move || lidar(lidar_node, lidar_stop));

    let mut tick = 0;
    executor.timer(TICK, move |control| {
        tick += 1;
        // Everything since the last tick, oldest first (in polling style: straight from
        // shared memory; in callback style: the samples the executor queued).
        let mut newest = String::new();
        let drained = input.take_all(|scan| newest = String::from_utf8_lossy(scan).into_owned());
        match drained {
            Ok(d) => println!(
                "planner: tick {tick}: {} scans since the last tick ({} lost), newest {newest:?}",
                d.taken, d.lost
            ),
            Err(e) => println!("planner: tick {tick}: {e}"),
        }
        if tick == ticks {
            control.stop();
        }
    })?;
    executor.spin()?; // returns when the timer calls stop()
    stop.store(true, Ordering::Relaxed);
    let published = lidar.join().map_err(|_| "the lidar panicked")??;
    let stats = executor.stats();
    println!(
        "planner: {style} style: woke {} times for {} timer ticks; the lidar's {} publishes made {} wake system calls",
        stats.wakeups, stats.timer_calls, published.publishes, published.wake_syscalls
    );
    Ok(())
}
