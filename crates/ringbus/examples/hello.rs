//! Publish/subscribe between two processes: the publisher writes each message in place in
//! shared memory, the subscriber sleeps in `receive()` and reads it where it lies.
//!
//! ```sh
//! cargo run -p ringbus --example hello                   # both: starts the subscriber itself
//! cargo run -p ringbus --example hello -- --subscriber   # or, in one terminal,
//! cargo run -p ringbus --example hello -- --publisher    # and in another
//! ```
//!
//! Options: `--count N` messages (default 5). Run alone, the example uses a root of its own
//! (`$RINGBUS_ROOT` if set, else a directory under /dev/shm that it removes at the end); the
//! two roles started by hand meet in the default root (`$RINGBUS_ROOT`, else
//! `/dev/shm/ringbus-<uid>`).

mod support;

use ringbus::{Node, Publisher, Subscriber, TopicBuilder};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::ExampleRoot;

/// Both sides describe the topic alike: a setting one side sets and the other does not is
/// taken from the topic, but two different values are an error (`ConfigMismatch`).
fn topic(node: &Node) -> TopicBuilder {
    node.topic("hello").max_payload_bytes(256)
}

fn subscribe(node: &Node) -> Result<(), Box<dyn std::error::Error>> {
    let mut subscriber: Subscriber = topic(node).subscriber()?;
    println!("subscriber: listening on topic hello");
    loop {
        // Sleeps in the kernel until a message comes (at most 10 s).
        let sample = subscriber.receive(Some(Duration::from_secs(10)))?;
        let text = std::str::from_utf8(&sample)?; // the publisher's bytes, not a copy
        println!("subscriber: {text}");
        if text == "bye" {
            break;
        }
    }
    println!("subscriber: received {}, lost {}", subscriber.taken(), subscriber.lost());
    Ok(())
}

fn publish(node: &Node, count: u32) -> Result<(), Box<dyn std::error::Error>> {
    let mut publisher: Publisher = topic(node).publisher()?;
    // A topic keeps no past messages by default: wait until a subscriber is asleep in
    // receive(), so that it gets every message.
    let start = Instant::now();
    while publisher.sleeping_subscribers() == 0 {
        if start.elapsed() > Duration::from_secs(10) {
            return Err("no subscriber came within 10 s: start `--subscriber` first".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for i in 0..count {
        let text = format!("hello {i}");
        let mut loan = publisher.loan_uninit(text.len())?; // a chunk of shared memory, lent to us
        loan.copy_from_slice(text.as_bytes()); // written in place
        loan.publish(); // O(1); one system call only if a subscriber sleeps
        std::thread::sleep(Duration::from_millis(10));
    }
    publisher.publish_copy(b"bye")?; // small messages can also be copied in
    let stats = publisher.stats();
    println!("publisher: published {} messages; {} woke a sleeping subscriber", stats.publishes, stats.wake_syscalls);
    Ok(())
}

/// Runs the subscriber as a second process (this program, `--subscriber`) and publishes.
fn both(root: &Path, count: u32) -> Result<(), Box<dyn std::error::Error>> {
    let mut subscriber =
        Command::new(std::env::current_exe()?).arg("--subscriber").env("RINGBUS_ROOT", root).spawn()?;
    let published = publish(&Node::with_root("hello-publisher", root)?, count);
    let status = subscriber.wait()?;
    published?;
    if !status.success() {
        return Err(format!("the subscriber failed: {status}").into());
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = match args.iter().position(|a| a == "--count") {
        Some(i) => args.get(i + 1).ok_or("--count needs a number")?.parse()?,
        None => 5,
    };
    if args.iter().any(|a| a == "--subscriber") {
        return subscribe(&Node::new("hello-subscriber")?);
    }
    if args.iter().any(|a| a == "--publisher") {
        return publish(&Node::new("hello-publisher")?, count);
    }
    let root = ExampleRoot::new();
    both(&root.path, count)
}
