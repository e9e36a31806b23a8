//! ringbus → the other side: the loop of one outgoing mapping.

use ringbus::{PublisherId, ReceiveError, Sample, Subscriber};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long an outgoing loop waits for a message before it looks at the stop flag.
pub const STOP_POLL: Duration = Duration::from_millis(100);

/// The ringbus side of one outgoing mapping.
pub struct Outgoing {
    /// Reads the topic.
    pub subscriber: Subscriber,
    /// The bridge's own publishers on the topic (of every mapping of the topic), whose
    /// samples are not sent out ([`crate::own_publishers`]).
    pub own: Vec<PublisherId>,
    /// Set when the bridge stops.
    pub stop: Arc<AtomicBool>,
}

/// The counters the loop counts in itself, besides the one each send names.
pub struct OutgoingCounters<'c> {
    /// Samples of the bridge's own publishers, seen and not sent.
    pub own_skipped: &'c AtomicU64,
    /// Messages the subscriber lost (a lossy subscriber that fell behind).
    pub lost: &'c AtomicU64,
    /// Failed receives (a corrupted or vanished peer).
    pub errors: &'c AtomicU64,
}

/// Adds `n` to `counter` (counters only grow, and nothing orders by them).
pub fn count(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

/// The outgoing loop of one mapping, until `stop`: every sample not published by the bridge
/// itself is copied out (`copy`) and given back, then the copy is sent (`send`, which names
/// the counter it counts in). It takes the next message as soon as the previous one is
/// sent, and gives each sample back before the send (which may wait for the other side), so
/// a reliable subscriber holds publishers here back only while the other side holds the
/// bridge back. The subscriber is dropped when the loop ends, which releases them.
pub fn forward<'c, T>(
    from: Outgoing,
    counters: OutgoingCounters<'c>,
    copy: impl Fn(&Sample) -> T,
    mut send: impl FnMut(T) -> &'c AtomicU64,
) {
    let Outgoing { mut subscriber, own, stop } = from;
    let mut lost_seen = 0;
    while !stop.load(Ordering::Relaxed) {
        match subscriber.receive(Some(STOP_POLL)) {
            Ok(sample) if own.contains(&sample.publisher()) => count(counters.own_skipped, 1),
            Ok(sample) => {
                let copied = copy(&sample);
                drop(sample);
                count(send(copied), 1);
            }
            Err(ReceiveError::Timeout) => {}
            Err(_) => {
                // A corrupted or vanished peer: counted, and no busy loop while it lasts.
                count(counters.errors, 1);
                std::thread::sleep(STOP_POLL);
            }
        }
        let lost = subscriber.lost();
        count(counters.lost, lost - lost_seen);
        lost_seen = lost;
    }
}
