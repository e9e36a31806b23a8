//! ringbus → Zenoh: a thread per mapping takes every message of the topic and puts it on
//! the key expression.

use crate::mapping::{Counters, Mapping};
use crate::{zenoh_reason, BridgeError};
use ringbus::Sample;
use ringbus_relay::outgoing::{Outgoing, OutgoingCounters};
use std::sync::Arc;
use std::thread::JoinHandle;
use zenoh::qos::CongestionControl;
use zenoh::sample::Locality;
use zenoh::Wait;

/// The ringbus side of one outgoing mapping, and its counters.
pub(crate) struct Ends {
    pub from: Outgoing,
    pub counters: Arc<Counters>,
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

/// Every sample not published by the bridge itself (on any mapping of the topic) goes to
/// Zenoh, until the bridge stops ([`ringbus_relay::outgoing::forward`]): each is copied out
/// and given back before the put, which may wait for the network.
fn forward(ends: Ends, publisher: zenoh::pubsub::Publisher<'static>) {
    let Ends { from, counters } = ends;
    let tally = OutgoingCounters { own_skipped: &counters.own_skipped, lost: &counters.lost, errors: &counters.errors };
    ringbus_relay::outgoing::forward(
        from,
        tally,
        |s: &Sample| s.to_vec(),
        |bytes| match publisher.put(bytes).wait() {
            Ok(()) => &counters.to_zenoh,
            Err(_) => &counters.errors,
        },
    );
}
