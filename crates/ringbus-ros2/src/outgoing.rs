//! ringbus → ROS 2: a thread per mapping takes every message of the topic and writes its
//! CDR body to the DDS writer, untouched.
//!
//! A reader that has just matched gets one message, then the next ones only once it has
//! acknowledged that one (at most [`JOIN_SYNC`] later). A reliable DDS reader takes the
//! first HEARTBEAT it sees from a writer as the start of its stream and counts everything
//! the heartbeat announces but it has not received yet as history it joined too late for.
//! RustDDS's writer, while it has written nothing, does not answer the reader's first
//! ACKNACK with a HEARTBEAT, so the first heartbeat a Cyclone DDS reader sees is the one
//! sent after a burst's first datagram, which announces the whole burst: the rest of the
//! burst, already on its way, was dropped. After one acknowledged message the reader has
//! its start point and bursts arrive whole.

use crate::dds::RawWriter;
use crate::mapping::Counters;
use crate::raw::CdrBody;
use ringbus::Sample;
use ringbus_relay::outgoing::{Outgoing, OutgoingCounters};
use rustdds::{DataWriterStatus, StatusEvented};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the message after a reader's match may wait for that reader's acknowledgment
/// (a reader on the same machine answers in a few milliseconds; one that never answers
/// holds the topic back once, this long).
const JOIN_SYNC: Duration = Duration::from_millis(200);

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

/// Whether a reader matched the writer since the last look (the writer's status events).
fn reader_joined(writer: &RawWriter) -> bool {
    let mut joined = false;
    while let Some(status) = writer.try_recv_status() {
        if let DataWriterStatus::PublicationMatched { current, .. } = status {
            joined |= current.count_change() > 0;
        }
    }
    joined
}

/// Every sample not published by the bridge itself goes to DDS, until the bridge stops
/// ([`ringbus_relay::outgoing::forward`]). The sample is copied out (one copy) and given
/// back before the write, which may wait for a reliable reader (at most 100 ms, then the
/// message is counted as an error).
fn forward(ends: Ends) {
    let Ends { from, writer, counters } = ends;
    let tally = OutgoingCounters { own_skipped: &counters.own_skipped, lost: &counters.lost, errors: &counters.errors };
    let mut newcomer = false;
    ringbus_relay::outgoing::forward(
        from,
        tally,
        |s: &Sample| CdrBody::of(s),
        |body| {
            newcomer |= reader_joined(&writer);
            match body.map(|b| writer.write(b, None)) {
                None => &counters.not_cdr,
                Some(Ok(())) => {
                    if std::mem::take(&mut newcomer) {
                        // Timing out is fine: the reader will start later in the stream.
                        let _ = writer.wait_for_acknowledgments(JOIN_SYNC);
                    }
                    &counters.to_ros
                }
                Some(Err(_)) => &counters.errors,
            }
        },
    );
}
