//! Prints what arrives on topic `chatter` until "bye" (or 10 s of silence).

use ringbus::Node;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let node = Node::new("listener")?;
    let mut subscriber = node.topic("chatter").max_payload_bytes(256).subscriber()?;
    println!("listening on chatter");
    loop {
        let sample = subscriber.receive(Some(Duration::from_secs(10)))?; // sleeps in the kernel
        let text = std::str::from_utf8(&sample)?; // the publisher's bytes, not a copy
        println!("{text}");
        if text == "bye" {
            break;
        }
    }
    println!("received {}, lost {}", subscriber.taken(), subscriber.lost());
    Ok(())
}
