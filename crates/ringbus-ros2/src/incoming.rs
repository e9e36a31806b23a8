//! ROS 2 → ringbus: a thread per mapping takes each message the DDS reader receives and
//! publishes it on the topic, its encapsulation header put back in front of the body.

use crate::dds::RawReader;
use crate::mapping::Counters;
use crate::raw::{Received, HEADER_BYTES};
use futures::channel::oneshot;
use futures::StreamExt;
use ringbus::{LoanError, Publisher};
use rustdds::GUID;
use std::sync::Arc;
use std::thread::JoinHandle;

/// The two ends of one incoming mapping.
pub(crate) struct Ends {
    pub reader: RawReader,
    pub publisher: Publisher,
    /// The bridge's own participant: what its writers wrote is not published back.
    pub own: GUID,
    pub counters: Arc<Counters>,
}

/// Starts the thread of one incoming mapping; it ends when `stop` is sent or dropped.
pub(crate) fn start(name: &str, ends: Ends, stop: oneshot::Receiver<()>) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(format!("ros2 in {name}")).spawn(move || receive(ends, stop))
}

fn receive(ends: Ends, stop: oneshot::Receiver<()>) {
    let Ends { reader, mut publisher, own, counters } = ends;
    let mut stream = std::pin::pin!(reader.as_async_stream());
    let mut stop = stop;
    futures::executor::block_on(async {
        loop {
            futures::select! {
                item = stream.select_next_some() => match item {
                    Ok(change) if change.writer_guid().prefix == own.prefix => Counters::add(&counters.own_skipped, 1),
                    Ok(change) => Counters::add(publish(&mut publisher, &change.into_value(), &counters), 1),
                    Err(_) => Counters::add(&counters.errors, 1),
                },
                _ = stop => break,
            }
        }
    });
}

/// Publishes one message (header, then body) in a loan; which counter it counts in.
fn publish<'c>(
    publisher: &mut Publisher,
    message: &Received,
    counters: &'c Counters,
) -> &'c std::sync::atomic::AtomicU64 {
    let len = HEADER_BYTES + message.body.len();
    match publisher.loan(len) {
        Ok(mut loan) => {
            loan[..HEADER_BYTES].copy_from_slice(&message.header);
            loan[HEADER_BYTES..].copy_from_slice(&message.body);
            loan.publish();
            &counters.from_ros
        }
        Err(LoanError::TooLarge { .. }) => &counters.too_large,
        Err(LoanError::Full { .. }) => &counters.full,
        Err(_) => &counters.errors,
    }
}
