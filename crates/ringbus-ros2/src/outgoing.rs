//! ringbus → ROS 2: a thread per mapping takes every message of the topic and writes its
//! CDR body to the DDS writer, untouched.

use crate::dds::RawWriter;
use crate::mapping::Counters;
use crate::raw::CdrBody;
use ringbus::{PublisherId, ReceiveError, Subscriber};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long an outgoing thread waits for a message before it looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// The two ends of one outgoing mapping.
pub(crate) struct Ends {
    pub subscriber: Subscriber,
    pub writer: RawWriter,
    /// The bridge's own publishers on the topic, whose samples are not sent back.
    pub own: Vec<PublisherId>,
    pub counters: Arc<Counters>,
    pub stop: Arc<AtomicBool>,
}

/// Starts the thread of one outgoing mapping.
pub(crate) fn start(name: &str, ends: Ends) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(format!("ros2 out {name}")).spawn(move || forward(ends))
}

/// Every sample not published by the bridge itself goes to DDS, until `stop`. The sample is
/// copied out (one copy) and given back before the write, which may wait for a reliable
/// reader (at most 100 ms, then the message is counted as an error).
fn forward(ends: Ends) {
    let Ends { mut subscriber, writer, own, counters, stop } = ends;
    let mut lost_seen = 0;
    while !stop.load(Ordering::Relaxed) {
        match subscriber.receive(Some(STOP_POLL)) {
            Ok(sample) if own.contains(&sample.publisher()) => Counters::add(&counters.own_skipped, 1),
            Ok(sample) => {
                let body = CdrBody::of(&sample);
                drop(sample);
                let counter = match body.map(|b| writer.write(b, None)) {
                    None => &counters.not_cdr,
                    Some(Ok(())) => &counters.to_ros,
                    Some(Err(_)) => &counters.errors,
                };
                Counters::add(counter, 1);
            }
            Err(ReceiveError::Timeout) => {}
            Err(_) => {
                // A corrupted or vanished peer: counted, and no busy loop while it lasts.
                Counters::add(&counters.errors, 1);
                std::thread::sleep(STOP_POLL);
            }
        }
        let lost = subscriber.lost();
        Counters::add(&counters.lost, lost - lost_seen);
        lost_seen = lost;
    }
}
