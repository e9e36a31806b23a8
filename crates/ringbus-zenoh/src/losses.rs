//! What the local lossy subscribers of the topics the bridge publishes on lose while it
//! runs. ringbus counts losses per subscriber, not per publisher (a subscriber that is
//! lapped skips whatever was overwritten, whoever published it), so this is the growth of
//! the subscribers' own `lost` counters, read from the topic's shared memory the way
//! `ringbus info` reads them: an approximation of what the bridge's publishes overran,
//! exact when the bridge is the topic's only publisher.

use ringbus::inspect::SubscriberInfo;
use ringbus::{Node, Root};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The counters of one topic the bridge publishes on (an `--in` or `--both` topic).
#[derive(Debug)]
pub struct TopicCounters {
    /// The ringbus topic.
    pub topic: String,
    /// How much the `lost` counters of the topic's lossy subscribers (other than the
    /// bridge's own) grew while the bridge ran: messages overwritten before they were read,
    /// by any publisher of the topic. A subscriber counts a loss when it next reads, so
    /// one that has not read since it was lapped has not counted it yet.
    pub subscribers_lost: AtomicU64,
}

impl TopicCounters {
    /// One line, `name=value` pairs, for logs and tests.
    pub fn line(&self) -> String {
        format!("subscribers_lost={}", self.subscribers_lost.load(Ordering::Relaxed))
    }
}

/// One subscriber, as told apart from another that takes its slot later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct SubscriberKey {
    slot: u32,
    pid: u32,
    node_id: u64,
}

/// A subscriber's `lost` when first seen, and when last seen.
#[derive(Debug, Clone, Copy)]
struct Seen {
    first: u64,
    last: u64,
}

/// Follows the lossy subscribers of one topic.
struct Watched {
    counters: Arc<TopicCounters>,
    seen: HashMap<SubscriberKey, Seen>,
    /// The growth of subscribers no longer there.
    gone: u64,
}

/// Follows the lossy subscribers of every topic the bridge publishes on.
pub(crate) struct LossWatch {
    root: Root,
    own_node: u64,
    topics: Vec<Watched>,
    polled: bool,
}

impl LossWatch {
    /// Watches `topics` (each once) on `node`'s root; the subscribers of `node` itself are
    /// not counted (the bridge counts its own losses as `lost`).
    pub(crate) fn new(node: &Node, topics: &[&str]) -> LossWatch {
        let mut watched: Vec<Watched> = Vec::new();
        for &topic in topics {
            if watched.iter().all(|w| w.counters.topic != topic) {
                let counters =
                    Arc::new(TopicCounters { topic: topic.to_string(), subscribers_lost: AtomicU64::new(0) });
                watched.push(Watched { counters, seen: HashMap::new(), gone: 0 });
            }
        }
        LossWatch { root: node.root().clone(), own_node: node.id(), topics: watched, polled: false }
    }

    /// The counters of every watched topic.
    pub(crate) fn counters(&self) -> Vec<Arc<TopicCounters>> {
        self.topics.iter().map(|w| w.counters.clone()).collect()
    }

    /// Reads every watched topic's subscribers once and updates the counters. The first
    /// poll takes each subscriber's `lost` as its starting point; a subscriber first seen
    /// later joined while the bridge ran, and everything it lost counts.
    pub(crate) fn poll(&mut self) {
        for w in &mut self.topics {
            // A topic that cannot be read now (removed, or being recreated) is read next time.
            let Ok(Some(info)) = ringbus::inspect::topic(&self.root, &w.counters.topic) else {
                continue;
            };
            let lossy = info.subscribers.iter().filter(|s| !s.reliable && s.node_id != self.own_node);
            let now: HashMap<SubscriberKey, u64> = lossy.map(|s| (key(s), s.lost)).collect();
            w.update(&now, self.polled);
        }
        self.polled = true;
    }
}

fn key(s: &SubscriberInfo) -> SubscriberKey {
    SubscriberKey { slot: s.slot, pid: s.pid, node_id: s.node_id }
}

impl Watched {
    fn update(&mut self, now: &HashMap<SubscriberKey, u64>, joined_since_start: bool) {
        let gone: Vec<SubscriberKey> = self.seen.keys().filter(|k| !now.contains_key(k)).copied().collect();
        for k in gone {
            let seen = self.seen.remove(&k).expect("listed above");
            self.gone += seen.last - seen.first;
        }
        for (&k, &lost) in now {
            let first = if joined_since_start { 0 } else { lost };
            let seen = self.seen.entry(k).or_insert(Seen { first, last: lost });
            if lost < seen.last {
                // Counters only grow: another subscriber of the same process took the slot
                // between two polls. Keep what the first one lost; count the new one whole.
                self.gone += seen.last - seen.first;
                *seen = Seen { first: 0, last: lost };
            }
            seen.last = lost;
        }
        let growth: u64 = self.seen.values().map(|s| s.last - s.first).sum();
        self.counters.subscribers_lost.store(self.gone + growth, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched() -> Watched {
        let counters = Arc::new(TopicCounters { topic: "t".into(), subscribers_lost: AtomicU64::new(0) });
        Watched { counters, seen: HashMap::new(), gone: 0 }
    }

    fn at(slot: u32, lost: u64) -> (SubscriberKey, u64) {
        (SubscriberKey { slot, pid: 7, node_id: 9 }, lost)
    }

    #[test]
    fn only_the_growth_while_the_bridge_runs_counts_and_departures_keep_theirs() {
        let mut w = watched();
        w.update(&HashMap::from([at(0, 50)]), false); // lost before the bridge started
        assert_eq!(w.counters.line(), "subscribers_lost=0");
        w.update(&HashMap::from([at(0, 60), at(1, 5)]), true); // slot 1 joined since
        assert_eq!(w.counters.line(), "subscribers_lost=15");
        w.update(&HashMap::from([at(1, 8)]), true); // slot 0 left
        assert_eq!(w.counters.line(), "subscribers_lost=18");
        w.update(&HashMap::from([at(1, 2)]), true); // a new subscriber in slot 1
        assert_eq!(w.counters.line(), "subscribers_lost=20");
    }
}
