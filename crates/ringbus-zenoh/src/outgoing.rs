//! ringbus → Zenoh: a thread per mapping takes every message of the topic and puts it on
//! the key expression.

use crate::mapping::{Counters, Mapping};
use crate::{zenoh_reason, BridgeError};
use ringbus::{PublisherId, ReceiveError, Subscriber};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use zenoh::qos::CongestionControl;
use zenoh::sample::Locality;
use zenoh::Wait;

/// How long an outgoing thread waits for a message before it looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// The ringbus side of one outgoing mapping.
pub(crate) struct Ends {
    pub subscriber: Subscriber,
    /// The bridge's own incoming publishers on the topic (of every mapping of the topic),
    /// whose samples are not sent out.
    pub own: Vec<PublisherId>,
    pub counters: Arc<Counters>,
    pub stop: Arc<AtomicBool>,
}

/// Declares the Zenoh publisher of `m` (`CongestionControl::Block`, remote subscribers
/// only) and starts the thread that feeds it.
pub(crate) fn start(session: &zenoh::Session, m: &Mapping, ends: Ends) -> Result<JoinHandle<()>, BridgeError> {
    let publisher = session
        .declare_publisher(m.key_expr.clone())
        .congestion_control(CongestionControl::Block)
        .allowed_destination(Locality::Remote)
        .wait()
        .map_err(|e| BridgeError::Zenoh(zenoh_reason(&e)))?;
    std::thread::Builder::new()
        .name(format!("bridge {}", m.topic))
        .spawn(move || forward(ends, publisher))
        .map_err(|e| BridgeError::Zenoh(format!("cannot start a thread: {e}")))
}

/// The outgoing loop of one mapping: every sample not published by the bridge itself (on
/// any mapping of the topic) goes to Zenoh, until `stop`. It takes the next message as soon as the previous one is handed
/// to Zenoh, and gives each sample back before the put (which may wait for the network),
/// so a reliable subscriber holds publishers back only while Zenoh holds the bridge back.
/// The subscriber is dropped when the loop ends, which releases them.
fn forward(ends: Ends, publisher: zenoh::pubsub::Publisher<'static>) {
    let Ends { mut subscriber, own, counters, stop } = ends;
    let mut lost_seen = 0;
    while !stop.load(Ordering::Relaxed) {
        match subscriber.receive(Some(STOP_POLL)) {
            Ok(sample) if own.contains(&sample.publisher()) => Counters::add(&counters.own_skipped, 1),
            Ok(sample) => {
                let bytes = sample.to_vec();
                drop(sample);
                let counter = match publisher.put(bytes).wait() {
                    Ok(()) => &counters.to_zenoh,
                    Err(_) => &counters.errors,
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
