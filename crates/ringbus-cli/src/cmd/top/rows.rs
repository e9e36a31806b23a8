//! The arithmetic of `ringbus top`, kept free of any terminal: two snapshots taken
//! `elapsed` apart become one row per topic (with its subscribers), and rows are sorted.
//!
//! Counters only grow while their owner lives, so a rate is the growth between the two
//! reads divided by the measured time. Participants are matched between snapshots by
//! their identity, not only their slot: a publisher by (slot, incarnation), a subscriber
//! by (slot, node id, pid). One that was not there before — or whose counter went back,
//! meaning it started over in the same slot — is a new row: everything it counted
//! happened since the first read. A rate is therefore never negative.

use ringbus::inspect::{PublisherInfo, SubscriberInfo, TopicInfo};
use ringbus::Wake;
use std::cmp::Ordering;
use std::time::Duration;

/// One topic over the interval.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicRow {
    pub name: String,
    pub topic_id: u64,
    pub publishers: usize,
    pub subscribers: usize,
    /// Messages published during the interval, and per second.
    pub messages: u64,
    pub messages_per_s: f64,
    /// Payload bytes per second.
    pub bytes_per_s: f64,
    /// Subscribers asleep now.
    pub sleepers: u32,
    /// Shared memory the topic and its publishers hold now.
    pub memory_bytes: u64,
    pub wake_syscalls_per_s: f64,
    pub wakes_skipped_per_s: f64,
    pub subscriber_rows: Vec<SubscriberRow>,
}

/// One subscriber over the interval; `lag`, `lost`, `held`, `asleep`, `alive` are now.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberRow {
    pub slot: u32,
    pub node_id: u64,
    pub pid: u32,
    pub wake: Wake,
    pub taken_per_s: f64,
    pub lag: u64,
    pub lost: u64,
    pub lost_per_s: f64,
    pub held: u32,
    pub asleep: bool,
    /// Publishers wait for it instead of overwriting what it has not taken.
    pub reliable: bool,
    pub alive: bool,
}

impl TopicRow {
    /// The largest lag of its subscribers.
    pub fn max_lag(&self) -> u64 {
        self.subscriber_rows.iter().map(|s| s.lag).max().unwrap_or(0)
    }

    /// Messages its subscribers lost per second, and in total.
    pub fn lost(&self) -> (f64, u64) {
        self.subscriber_rows.iter().fold((0.0, 0), |(r, n), s| (r + s.lost_per_s, n + s.lost))
    }
}

/// What rows are sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SortKey {
    /// Topic name (subscribers by slot), ascending.
    Name,
    /// Messages per second (subscribers: taken per second).
    Rate,
    /// Payload bytes per second (subscribers: taken per second).
    Bandwidth,
    /// Largest subscriber lag.
    Lag,
    /// Messages lost per second, then in total.
    Lost,
    /// Wake system calls per second (subscribers: asleep first).
    Wakes,
}

impl SortKey {
    /// The next key, in the order the `s` key cycles through them.
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Rate => SortKey::Bandwidth,
            SortKey::Bandwidth => SortKey::Lag,
            SortKey::Lag => SortKey::Lost,
            SortKey::Lost => SortKey::Wakes,
            SortKey::Wakes => SortKey::Name,
            SortKey::Name => SortKey::Rate,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Rate => "rate",
            SortKey::Bandwidth => "bandwidth",
            SortKey::Lag => "lag",
            SortKey::Lost => "lost",
            SortKey::Wakes => "wakes",
        }
    }
}

/// A sort key and its direction: names ascending and numbers descending, unless reversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    pub key: SortKey,
    pub reversed: bool,
}

impl Order {
    pub fn descending(self) -> bool {
        (self.key != SortKey::Name) != self.reversed
    }
}

/// Rows for the topics of `after`, with rates over the `elapsed` since `before` (in the
/// order of `after`; see [`sort`]).
pub fn diff(before: &[TopicInfo], after: &[TopicInfo], elapsed: Duration) -> Vec<TopicRow> {
    let seconds = elapsed.as_secs_f64();
    let per_s = |n: u64| if seconds > 0.0 { n as f64 / seconds } else { 0.0 };
    after
        .iter()
        .map(|t| {
            let old = before.iter().find(|o| o.name == t.name && o.topic_id == t.topic_id);
            let mut grown = [0u64; 4]; // publishes, payload bytes, wake syscalls, wakes skipped
            for p in &t.publishers {
                let was = old.and_then(|o| o.publishers.iter().find(|q| same_publisher(q, p)));
                let counters = |x: &PublisherInfo| {
                    [x.stats.publishes, x.stats.payload_bytes, x.stats.wake_syscalls, x.stats.wakes_skipped]
                };
                let (now, then) = (counters(p), was.map(counters).unwrap_or_default());
                for (sum, (n, b)) in grown.iter_mut().zip(now.into_iter().zip(then)) {
                    *sum += growth(b, n);
                }
            }
            let subscriber_rows = t
                .subscribers
                .iter()
                .map(|s| {
                    let was = old.and_then(|o| o.subscribers.iter().find(|q| same_subscriber(q, s)));
                    let (taken, lost) = was.map_or((0, 0), |w| (w.taken, w.lost));
                    SubscriberRow {
                        slot: s.slot,
                        node_id: s.node_id,
                        pid: s.pid,
                        wake: s.wake,
                        taken_per_s: per_s(growth(taken, s.taken)),
                        lag: s.lag,
                        lost: s.lost,
                        lost_per_s: per_s(growth(lost, s.lost)),
                        held: s.held,
                        asleep: s.asleep,
                        reliable: s.reliable,
                        alive: s.alive,
                    }
                })
                .collect();
            TopicRow {
                name: t.name.clone(),
                topic_id: t.topic_id,
                publishers: t.publishers.len(),
                subscribers: t.subscribers.len(),
                messages: grown[0],
                messages_per_s: per_s(grown[0]),
                bytes_per_s: per_s(grown[1]),
                sleepers: t.sleepers,
                memory_bytes: t.segment_bytes,
                wake_syscalls_per_s: per_s(grown[2]),
                wakes_skipped_per_s: per_s(grown[3]),
                subscriber_rows,
            }
        })
        .collect()
}

fn same_publisher(a: &PublisherInfo, b: &PublisherInfo) -> bool {
    (a.slot, a.incarnation) == (b.slot, b.incarnation)
}

fn same_subscriber(a: &SubscriberInfo, b: &SubscriberInfo) -> bool {
    (a.slot, a.node_id, a.pid) == (b.slot, b.node_id, b.pid)
}

/// How much a counter grew from `before` to `now`. A counter that went back was reset
/// (its owner started over): all of `now` is new.
fn growth(before: u64, now: u64) -> u64 {
    now.checked_sub(before).unwrap_or(now)
}

/// Sorts topics, and the subscribers of each, by `order`; ties by name (or slot).
pub fn sort(rows: &mut [TopicRow], order: Order) {
    let directed = |o: Ordering| if order.descending() { o.reverse() } else { o };
    rows.sort_by(|a, b| directed(topic_key(a, b, order.key)).then_with(|| a.name.cmp(&b.name)));
    for row in rows {
        row.subscriber_rows.sort_by(|a, b| directed(subscriber_key(a, b, order.key)).then_with(|| a.slot.cmp(&b.slot)));
    }
}

fn topic_key(a: &TopicRow, b: &TopicRow, key: SortKey) -> Ordering {
    match key {
        SortKey::Name => a.name.cmp(&b.name),
        SortKey::Rate => a.messages_per_s.total_cmp(&b.messages_per_s),
        SortKey::Bandwidth => a.bytes_per_s.total_cmp(&b.bytes_per_s),
        SortKey::Lag => a.max_lag().cmp(&b.max_lag()),
        SortKey::Lost => {
            let ((ra, na), (rb, nb)) = (a.lost(), b.lost());
            ra.total_cmp(&rb).then(na.cmp(&nb))
        }
        SortKey::Wakes => a.wake_syscalls_per_s.total_cmp(&b.wake_syscalls_per_s),
    }
}

fn subscriber_key(a: &SubscriberRow, b: &SubscriberRow, key: SortKey) -> Ordering {
    match key {
        SortKey::Name => a.slot.cmp(&b.slot),
        SortKey::Rate | SortKey::Bandwidth => a.taken_per_s.total_cmp(&b.taken_per_s),
        SortKey::Lag => a.lag.cmp(&b.lag),
        SortKey::Lost => a.lost_per_s.total_cmp(&b.lost_per_s).then(a.lost.cmp(&b.lost)),
        SortKey::Wakes => a.asleep.cmp(&b.asleep),
    }
}

#[cfg(test)]
mod tests;
