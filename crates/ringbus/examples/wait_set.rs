//! One wait over several sources: a thermostat sleeps until a temperature reading comes,
//! its 50 ms timer is due, or someone sets its shutdown latch, whichever is first.
//!
//! ```sh
//! cargo run -p ringbus --example wait_set [-- --readings N]   # default 10 readings
//! ```
//!
//! A sensor thread publishes the readings (an `f32` each, 20 ms apart), then sets the latch.
//! The sensor could as well be another process: the topic and the latch are shared memory
//! named under the root. Uses `$RINGBUS_ROOT` if set, else a directory of its own under
//! /dev/shm, removed at the end.

mod support;

use ringbus::{EventKind, Node, TopicBuilder, WaitSet};
use std::time::Duration;
use support::ExampleRoot;

fn temperatures(node: &Node) -> TopicBuilder {
    node.topic("sensor/temperature").payload_type::<f32>()
}

fn sensor(node: Node, readings: u32) -> Result<(), String> {
    let mut publisher = temperatures(&node).publisher().map_err(|e| e.to_string())?;
    for i in 0..readings {
        let celsius = 20.0 + 0.25 * i as f32;
        publisher.publish_value(&celsius).map_err(|e| e.to_string())?;
        std::thread::sleep(Duration::from_millis(20));
    }
    // Latches and semaphores are named objects: another process would open it the same way.
    let shutdown = node.latch("thermostat/shutdown").map_err(|e| e.to_string())?;
    shutdown.set(); // wakes the waiter (one system call), or none if it is not asleep
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let readings: u32 = match args.iter().position(|a| a == "--readings") {
        Some(i) => args.get(i + 1).ok_or("--readings needs a number")?.parse()?,
        None => 10,
    };
    let root = ExampleRoot::new();
    let node = Node::with_root("thermostat", &root.path)?;
    let mut subscriber = temperatures(&node).subscriber()?;
    let shutdown = node.latch("thermostat/shutdown")?;
    shutdown.reset(); // a latch outlives its users: start from "not set"

    let set = WaitSet::new()?;
    let on_reading = set.attach_subscriber(&subscriber)?;
    let on_tick = set.attach_interval(Duration::from_millis(50))?;
    let on_shutdown = set.attach_latch(&shutdown)?;

    let sensor_node = node.clone();
    let sensor = std::thread::spawn(move || sensor(sensor_node, readings));
    let (mut taken, mut sum, mut ticks) = (0u32, 0.0f32, 0u32);
    let mut take_all = |subscriber: &mut ringbus::Subscriber| -> Result<(), Box<dyn std::error::Error>> {
        while let Some(sample) = subscriber.take()? {
            let celsius: f32 = *sample.value::<f32>()?; // read in place, type checked
            println!("thermostat: reading {celsius:.2} °C");
            taken += 1;
            sum += celsius;
        }
        Ok(())
    };
    'waiting: loop {
        let events = set.wait(Some(Duration::from_secs(10)))?; // one sleep over all three
        if events.is_empty() {
            return Err("nothing happened for 10 s".into());
        }
        for event in events {
            match event.kind {
                EventKind::Data if event.key == on_reading.key() => take_all(&mut subscriber)?,
                EventKind::Interval(_) if event.key == on_tick.key() => ticks += 1,
                EventKind::LatchSet if event.key == on_shutdown.key() => {
                    take_all(&mut subscriber)?; // what came before the latch was set
                    break 'waiting;
                }
                other => println!("thermostat: unexpected event {other:?}"),
            }
        }
    }
    sensor.join().map_err(|_| "the sensor panicked")??;
    println!(
        "thermostat: shutdown after {taken} readings (mean {:.2} °C) and {ticks} timer ticks; backend {:?}",
        sum / taken.max(1) as f32,
        set.backend()
    );
    shutdown.unlink(); // named objects persist until unlinked; topics go with their last user
    Ok(())
}
