//! Publishes `count` messages on topic `chatter`, one every 10 ms, then a last "bye".
//!
//! Run `cargo run --example listener` in one terminal and `cargo run --example talker` in
//! another (both use `$RINGBUS_ROOT`, or `/dev/shm/ringbus-<uid>`).

use ringbus::Node;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: u32 = std::env::args().nth(1).map_or(Ok(10), |a| a.parse())?;
    let node = Node::new("talker")?;
    let mut publisher = node.topic("chatter").max_payload_bytes(256).publisher()?;
    // Give a listener started at the same moment time to join.
    std::thread::sleep(Duration::from_millis(200));
    for i in 0..count {
        let text = format!("hello {i}");
        let mut loan = publisher.loan_uninit(text.len())?; // shared memory, lent to us
        loan.copy_from_slice(text.as_bytes()); // written in place
        loan.publish(); // O(1); one syscall only if a listener sleeps
        std::thread::sleep(Duration::from_millis(10));
    }
    publisher.publish_copy(b"bye")?;
    let stats = publisher.stats();
    println!("published {} messages; {} woke a sleeping listener", stats.publishes, stats.wake_syscalls);
    Ok(())
}
