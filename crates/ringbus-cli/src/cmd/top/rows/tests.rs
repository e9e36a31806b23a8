//! Rates and sorting on hand-built snapshots: no shared memory, no terminal.

use super::*;
use ringbus::inspect::TopicSettings;
use ringbus::PublisherStats;
use std::path::PathBuf;

fn topic(name: &str, publishers: Vec<PublisherInfo>, subscribers: Vec<SubscriberInfo>) -> TopicInfo {
    TopicInfo {
        name: name.into(),
        path: PathBuf::from(format!("/dev/shm/test/topic.{name}")),
        topic_id: 7,
        settings: TopicSettings {
            max_publishers: 4,
            max_subscribers: 16,
            depth: 16,
            history: 0,
            max_held: 4,
            chunks: 81,
            max_payload_bytes: 4096,
            pool_bytes: 1 << 30,
            preallocate: true,
        },
        payload_type: "bytes".into(),
        payload_size: 0,
        payload_align: 1,
        wake_word: 0,
        sleepers: 0,
        reliable_subscribers: 0,
        segment_bytes: 0,
        publishers,
        subscribers,
    }
}

fn publisher(slot: u32, incarnation: u32, publishes: u64) -> PublisherInfo {
    PublisherInfo {
        slot,
        incarnation,
        alive: true,
        node_id: 1,
        pid: 10,
        stats: PublisherStats {
            publishes,
            payload_bytes: publishes * 100,
            wake_syscalls: publishes / 2,
            wakes_skipped: 0,
            blocked: 0,
            blocked_ns: 0,
        },
        memory: None,
    }
}

fn subscriber(slot: u32, node_id: u64, taken: u64, lost: u64, lag: u64) -> SubscriberInfo {
    SubscriberInfo {
        slot,
        alive: true,
        node_id,
        pid: 20,
        wake: Wake::OnData,
        reliable: false,
        taken,
        lost,
        held: 0,
        asleep: false,
        lag,
    }
}

const TWO_S: Duration = Duration::from_secs(2);

#[test]
fn rates_are_growth_over_the_measured_time() {
    let before = [topic("a", vec![publisher(0, 1, 100)], vec![subscriber(0, 5, 90, 2, 10)])];
    let after = [topic("a", vec![publisher(0, 1, 300)], vec![subscriber(0, 5, 280, 6, 20)])];
    let [row] = &diff(&before, &after, TWO_S)[..] else { panic!("one row") };
    assert_eq!((row.messages, row.messages_per_s, row.bytes_per_s), (200, 100.0, 10_000.0));
    assert_eq!(row.wake_syscalls_per_s, 50.0);
    assert_eq!((row.publishers, row.subscribers), (1, 1));
    let s = &row.subscriber_rows[0];
    assert_eq!((s.taken_per_s, s.lost, s.lost_per_s, s.lag), (95.0, 6, 2.0, 20));
}

#[test]
fn a_restarted_participant_is_a_new_row_never_a_negative_rate() {
    // The publisher's slot was reused (new incarnation); the subscriber slot went to
    // another node; a third participant kept its identity but its counters went back.
    let before = [topic("a", vec![publisher(0, 1, 1000), publisher(1, 1, 500)], vec![subscriber(0, 5, 900, 9, 0)])];
    let after = [topic("a", vec![publisher(0, 2, 40), publisher(1, 1, 20)], vec![subscriber(0, 6, 30, 1, 0)])];
    let [row] = &diff(&before, &after, TWO_S)[..] else { panic!("one row") };
    assert_eq!(row.messages, 40 + 20, "both started over within the interval");
    let s = &row.subscriber_rows[0];
    assert_eq!((s.taken_per_s, s.lost_per_s), (15.0, 0.5));
}

#[test]
fn new_topics_count_from_zero_and_gone_ones_disappear() {
    let before = [topic("gone", vec![publisher(0, 1, 5)], vec![])];
    let mut recreated = topic("gone", vec![publisher(0, 1, 4)], vec![]);
    recreated.topic_id = 8; // same name, new topic
    let rows = diff(&before, &[recreated, topic("new", vec![publisher(0, 1, 6)], vec![])], TWO_S);
    assert_eq!(rows.iter().map(|r| (r.name.as_str(), r.messages)).collect::<Vec<_>>(), [("gone", 4), ("new", 6)]);
    assert!(diff(&before, &[], TWO_S).is_empty());
}

#[test]
fn no_time_no_rate() {
    let t = [topic("a", vec![publisher(0, 1, 5)], vec![subscriber(0, 5, 5, 0, 0)])];
    let row = &diff(&[], &t, Duration::ZERO)[0];
    assert_eq!((row.messages, row.messages_per_s, row.subscriber_rows[0].taken_per_s), (5, 0.0, 0.0));
}

fn names(rows: &[TopicRow]) -> Vec<&str> {
    rows.iter().map(|r| r.name.as_str()).collect()
}

#[test]
fn sorting_numbers_descend_names_ascend_and_reverse_flips() {
    let before = [
        topic("b", vec![publisher(0, 1, 0)], vec![subscriber(0, 1, 0, 0, 0), subscriber(1, 2, 0, 0, 0)]),
        topic("a", vec![publisher(0, 1, 0)], vec![]),
        topic("c", vec![publisher(0, 1, 0)], vec![]),
    ];
    let after = [
        topic("b", vec![publisher(0, 1, 10)], vec![subscriber(0, 1, 2, 0, 1), subscriber(1, 2, 8, 0, 9)]),
        topic("a", vec![publisher(0, 1, 30)], vec![]),
        topic("c", vec![publisher(0, 1, 10)], vec![]),
    ];
    let mut rows = diff(&before, &after, TWO_S);
    let rate = Order { key: SortKey::Rate, reversed: false };
    sort(&mut rows, rate);
    assert_eq!(names(&rows), ["a", "b", "c"], "30/2 first; b and c tie and go by name");
    assert_eq!(rows[1].subscriber_rows.iter().map(|s| s.slot).collect::<Vec<_>>(), [1, 0], "taken 8 before 2");
    sort(&mut rows, Order { reversed: true, ..rate });
    assert_eq!(names(&rows), ["b", "c", "a"]);
    sort(&mut rows, Order { key: SortKey::Name, reversed: false });
    assert_eq!(names(&rows), ["a", "b", "c"]);
    assert_eq!(rows[1].subscriber_rows.iter().map(|s| s.slot).collect::<Vec<_>>(), [0, 1]);
    sort(&mut rows, Order { key: SortKey::Lag, reversed: false });
    assert_eq!(names(&rows), ["b", "a", "c"]);
    assert!(!Order { key: SortKey::Name, reversed: false }.descending());
    assert!(Order { key: SortKey::Name, reversed: true }.descending());
}

#[test]
fn the_sort_key_cycles_through_every_key() {
    let mut key = SortKey::Rate;
    let mut seen = vec![key];
    for _ in 0..5 {
        key = key.next();
        seen.push(key);
    }
    assert_eq!(key.next(), SortKey::Rate);
    let mut names: Vec<_> = seen.iter().map(|k| k.name()).collect();
    names.sort();
    assert_eq!(names, ["bandwidth", "lag", "lost", "name", "rate", "wakes"]);
}
