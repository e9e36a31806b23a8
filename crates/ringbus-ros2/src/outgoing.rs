//! ringbus → ROS 2: a thread per mapping takes every message of the topic and writes its
//! CDR body to the DDS writer, untouched.

use crate::dds::RawWriter;
use crate::mapping::Counters;
use crate::raw::CdrBody;
use ringbus::Sample;
use ringbus_relay::outgoing::{Outgoing, OutgoingCounters};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The two ends of one outgoing mapping, and its counters.
pub(crate) struct Ends {
    pub from: Outgoing,
    pub writer: RawWriter,
    pub counters: Arc<Counters>,
}

/// Starts the thread of one outgoing mapping.
pub(crate) fn start(name: &str, ends: Ends) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(format!("ros2 out {name}")).spawn(move || forward(ends))
}

/// Every sample not published by the bridge itself goes to DDS, until the bridge stops
/// ([`ringbus_relay::outgoing::forward`]). The sample is copied out (one copy) and given
/// back before the write, which may wait for a reliable reader (at most 100 ms, then the
/// message is counted as an error).
fn forward(ends: Ends) {
    let Ends { from, writer, counters } = ends;
    let tally = OutgoingCounters { own_skipped: &counters.own_skipped, lost: &counters.lost, errors: &counters.errors };
    ringbus_relay::outgoing::forward(
        from,
        tally,
        |s: &Sample| CdrBody::of(s),
        |body| match body.map(|b| writer.write(b, None)) {
            None => &counters.not_cdr,
            Some(Ok(())) => &counters.to_ros,
            Some(Err(_)) => &counters.errors,
        },
    );
}
