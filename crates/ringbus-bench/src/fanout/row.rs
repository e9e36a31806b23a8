//! Turning a fan-out scenario's raw measurements into one result row: percentiles of
//! publish latency, end-to-end latency over every (message, subscriber) pair — from the
//! message's own publish and from the start of its tick — and over the last subscriber of
//! each message, and exact system-call counts per publish; summing up one scenario's passes
//! (`combine`), and its ratios, paired within a pass (`fill_ratios`).

use super::cost::{self, Cost};
use super::reliable::{self, Reliable};
use super::results::ResultsFile;
use crate::config::{Scenario, Transport};
use crate::driver::Passes;
use crate::stats::{histogram, median_finite, us};
use crate::transports::Blocked;
use crate::usage::Usage;
use hdrhistogram::Histogram;
use serde::Serialize;

/// One (transport, subs, topics, payload) measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub transport: Transport,
    pub subs: u32,
    pub topics: u32,
    pub payload_bytes: u64,
    /// Measured messages per topic (warm-up excluded).
    pub messages: u64,
    pub rate_hz: f64,
    pub publish_p50_us: f64,
    pub publish_p99_us: f64,
    pub e2e_p50_us: f64,
    pub e2e_p99_us: f64,
    pub last_e2e_p50_us: f64,
    pub last_e2e_p99_us: f64,
    /// End-to-end from the start of the message's tick (the first topic's publish) instead
    /// of from its own publish: the same as `e2e_*` with one topic; with several, it also
    /// counts the time the publisher took over the topics before this one.
    pub tick_e2e_p50_us: f64,
    pub tick_e2e_p99_us: f64,
    /// Mean exact system calls per publish; `None` when the counter was unavailable.
    pub syscalls_per_publish: Option<f64>,
    pub syscalls_max: Option<u64>,
    /// (message, subscriber) pairs never received.
    pub lost: u64,
    /// ringbus: measured publishes that found some of their topic's subscribers not
    /// asleep (still busy with the previous message); those need no wake-up.
    pub publishes_not_all_asleep: Option<u64>,
    /// ringbus (also reliable) and futex rows: publish p50 divided by the eventfd row's of
    /// the same run.
    pub publish_p50_vs_eventfd: Option<f64>,
    /// ringbus and futex rows: e2e p50 divided by the eventfd row's of the same run.
    pub e2e_p50_vs_eventfd: Option<f64>,
    /// ringbus and futex rows: tick e2e p50 divided by the eventfd row's of the same run.
    pub tick_e2e_p50_vs_eventfd: Option<f64>,
    /// ringbus rows: e2e p50 divided by the futex row's of the same run (what ringbus adds
    /// to the bare wake protocol).
    pub e2e_p50_vs_futex: Option<f64>,
    /// ringbus, ringbus-reliable and ringbus-polling rows: publish p50 divided by the
    /// idle-floor row's of the same run (how many times the cost of touching one cache line
    /// after the same idle).
    pub publish_p50_vs_idle_floor: Option<f64>,
    /// ringbus-reliable rows: reliable subscribers, waits, and ratios to the ringbus row.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub reliable: Option<Reliable>,
    /// Rows with subscribers: CPU of each side and wake-ups over the measured messages.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// Repetitions this row sums up (`--repeat`): each latency figure is the median of
    /// theirs, each ratio the median of the ratios within one repetition, counts add up.
    pub repetitions: u32,
}

/// One row for the passes of one scenario: each latency figure the median of theirs (a
/// pass that lost every message has none), counts added up; ratios come after
/// ([`fill_ratios`]).
pub(crate) fn combine(passes: &[&Row]) -> Row {
    let mut row = (*passes.first().expect("a scenario measured at least once")).clone();
    let each = |f: fn(&Row) -> f64| median_finite(passes.iter().map(|r| f(r)));
    let syscalls = median_finite(passes.iter().filter_map(|r| r.syscalls_per_publish));
    row.publish_p50_us = each(|r| r.publish_p50_us);
    row.publish_p99_us = each(|r| r.publish_p99_us);
    row.e2e_p50_us = each(|r| r.e2e_p50_us);
    row.e2e_p99_us = each(|r| r.e2e_p99_us);
    row.last_e2e_p50_us = each(|r| r.last_e2e_p50_us);
    row.last_e2e_p99_us = each(|r| r.last_e2e_p99_us);
    row.tick_e2e_p50_us = each(|r| r.tick_e2e_p50_us);
    row.tick_e2e_p99_us = each(|r| r.tick_e2e_p99_us);
    row.syscalls_per_publish = syscalls.is_finite().then_some(syscalls);
    row.syscalls_max = passes.iter().filter_map(|r| r.syscalls_max).max();
    row.messages = passes.iter().map(|r| r.messages).sum();
    row.lost = passes.iter().map(|r| r.lost).sum();
    row.publishes_not_all_asleep = passes.iter().filter_map(|r| r.publishes_not_all_asleep).reduce(|a, b| a + b);
    row.reliable = reliable::combine(passes);
    row.cost = cost::combine(passes);
    row.repetitions = passes.len() as u32;
    row
}

/// What the publishing loop measured.
#[derive(Debug)]
pub(crate) struct PublishSamples {
    latency: Histogram<u64>,
    syscalls: Option<(u64, u64, u64)>,
    not_all_asleep: Option<u64>,
    /// Per message (tick-major, topic-minor, warm-up included): its publish's start minus
    /// its tick's start.
    tick_offsets_ns: Vec<u64>,
    /// The measured publishes' waits for reliable subscribers, if the transport has any.
    pub(crate) blocked: Option<Blocked>,
    /// What the publishing thread spent over the measured publishes.
    pub(crate) cpu: Option<Usage>,
}

impl PublishSamples {
    pub(crate) fn new(counting: bool) -> PublishSamples {
        PublishSamples {
            latency: histogram(),
            syscalls: counting.then_some((0, 0, 0)),
            not_all_asleep: None,
            tick_offsets_ns: Vec::new(),
            blocked: None,
            cpu: None,
        }
    }

    /// Every message, warm-up included, in publishing order: how long after its tick's
    /// first publish it started.
    pub(crate) fn add_tick_offset(&mut self, ns: u64) {
        self.tick_offsets_ns.push(ns);
    }

    fn tick_offset(&self, topics: u32, topic: u32, seq: usize) -> u64 {
        self.tick_offsets_ns.get(seq * topics as usize + topic as usize).copied().unwrap_or(0)
    }

    /// One publish: its duration, its system calls if counted, and whether every
    /// subscriber of its topic was asleep just before, if the transport can tell.
    pub(crate) fn add(&mut self, ns: u64, syscalls: Option<u64>, all_asleep: Option<bool>) {
        self.latency.saturating_record(ns.max(1));
        if let Some(all) = all_asleep {
            *self.not_all_asleep.get_or_insert(0) += u64::from(!all);
        }
        if let (Some((sum, max, n)), Some(c)) = (&mut self.syscalls, syscalls) {
            *sum += c;
            *max = (*max).max(c);
            *n += 1;
        }
    }
}

/// Builds the row of `s` from the publish samples and the subscribers' results file (none
/// for the idle floor: no end-to-end figures), skipping the first `warmup` messages.
pub(crate) fn row(
    s: &Scenario,
    rate_hz: f64,
    warmup: usize,
    messages: usize,
    publish: &PublishSamples,
    results: Option<&ResultsFile>,
) -> Row {
    let (mut all, mut last, mut tick) = (histogram(), histogram(), histogram());
    let mut lost = 0;
    if let Some(results) = results {
        for topic in 0..s.topics {
            let subs: Vec<usize> = (0..s.subs).filter(|&i| s.topic_of(i) == topic).map(|i| i as usize).collect();
            for seq in warmup..messages {
                let mut slowest = None;
                for &sub in &subs {
                    match results.latency(sub, seq) {
                        Some(ns) => {
                            all.saturating_record(ns);
                            tick.saturating_record(ns + publish.tick_offset(s.topics, topic, seq));
                            slowest = slowest.max(Some(ns));
                        }
                        None => lost += 1,
                    }
                }
                if let Some(ns) = slowest {
                    last.saturating_record(ns);
                }
            }
        }
    }
    let syscalls = publish.syscalls.filter(|&(_, _, n)| n > 0);
    let measured = (messages - warmup) as u64;
    let cost = results.zip(publish.cpu).map(|(results, publisher)| {
        let subscribers = (0..s.subs as usize).filter_map(|i| results.usage(i)).fold(Usage::default(), Usage::plus);
        Cost::measured(publisher, subscribers, measured * s.topics as u64, measured * s.subs as u64)
    });
    Row {
        transport: s.transport,
        subs: s.subs,
        topics: s.topics,
        payload_bytes: s.payload_bytes,
        messages: (messages - warmup) as u64,
        rate_hz,
        publish_p50_us: us(&publish.latency, 0.5),
        publish_p99_us: us(&publish.latency, 0.99),
        e2e_p50_us: us(&all, 0.5),
        e2e_p99_us: us(&all, 0.99),
        last_e2e_p50_us: us(&last, 0.5),
        last_e2e_p99_us: us(&last, 0.99),
        tick_e2e_p50_us: us(&tick, 0.5),
        tick_e2e_p99_us: us(&tick, 0.99),
        syscalls_per_publish: syscalls.map(|(sum, _, n)| sum as f64 / n as f64),
        syscalls_max: syscalls.map(|(_, max, _)| max),
        lost,
        publishes_not_all_asleep: publish.not_all_asleep,
        publish_p50_vs_eventfd: None,
        e2e_p50_vs_eventfd: None,
        tick_e2e_p50_vs_eventfd: None,
        e2e_p50_vs_futex: None,
        publish_p50_vs_idle_floor: None,
        reliable: publish.blocked.map(Reliable::measured),
        cost,
        repetitions: 1,
    }
}

/// A row's subscribers' CPU per message (NaN without: no ratio).
fn subscribers_cpu(row: &Row) -> f64 {
    row.cost.map_or(f64::NAN, |c| c.subscribers_cpu_us_per_message)
}

fn total_cpu(row: &Row) -> f64 {
    row.cost.map_or(f64::NAN, |c| c.total_cpu_us_per_message())
}

/// The scenario `row` was measured in.
pub(crate) fn scenario(row: &Row) -> Scenario {
    Scenario { transport: row.transport, subs: row.subs, topics: row.topics, payload_bytes: row.payload_bytes }
}

/// Fills the ratio columns, each paired within a pass: of every ringbus (also reliable)
/// and futex row against the eventfd row of the same (subs, topics, payload), of ringbus
/// rows against the futex row's, of ringbus rows of all kinds against the idle floor's,
/// and of ringbus-reliable rows against the (lossy) ringbus row's.
pub(crate) fn fill_ratios(measured: &Passes<Scenario, Row>, rows: &mut [Row]) {
    use Transport::{Ringbus, RingbusPolling, RingbusReliable};
    for r in rows.iter_mut() {
        let s = scenario(r);
        let vs = |baseline: Transport, metric: fn(&Row) -> f64| {
            measured.paired(&s, &Scenario { transport: baseline, ..s }, metric)
        };
        if matches!(r.transport, Ringbus | RingbusReliable | Transport::Futex) {
            r.publish_p50_vs_eventfd = vs(Transport::Eventfd, |r| r.publish_p50_us);
            r.e2e_p50_vs_eventfd = vs(Transport::Eventfd, |r| r.e2e_p50_us);
            r.tick_e2e_p50_vs_eventfd = vs(Transport::Eventfd, |r| r.tick_e2e_p50_us);
        }
        if matches!(r.transport, Ringbus | RingbusReliable) {
            r.e2e_p50_vs_futex = vs(Transport::Futex, |r| r.e2e_p50_us);
        }
        if matches!(r.transport, Ringbus | RingbusReliable | RingbusPolling) {
            r.publish_p50_vs_idle_floor = vs(Transport::IdleFloor, |r| r.publish_p50_us);
        }
        if let Some(cost) = r.cost.as_mut() {
            cost.subscribers_cpu_vs_eventfd = vs(Transport::Eventfd, subscribers_cpu);
            cost.total_cpu_vs_eventfd = vs(Transport::Eventfd, total_cpu);
            if matches!(r.transport, Ringbus | RingbusReliable) {
                cost.subscribers_cpu_vs_futex = vs(Transport::Futex, subscribers_cpu);
                cost.last_e2e_p50_vs_futex = vs(Transport::Futex, |r| r.last_e2e_p50_us);
            }
        }
        if let Some(reliable) = r.reliable.as_mut() {
            reliable.publish_p50_vs_ringbus = vs(Ringbus, |r| r.publish_p50_us);
            reliable.e2e_p50_vs_ringbus = vs(Ringbus, |r| r.e2e_p50_us);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(transport: Transport, e2e_p50_us: f64, lost: u64) -> Row {
        Row {
            transport,
            subs: 16,
            topics: 1,
            payload_bytes: 64,
            messages: 50,
            rate_hz: 500.0,
            publish_p50_us: 10.0,
            publish_p99_us: 20.0,
            e2e_p50_us,
            e2e_p99_us: 2.0 * e2e_p50_us,
            last_e2e_p50_us: e2e_p50_us,
            last_e2e_p99_us: e2e_p50_us,
            tick_e2e_p50_us: e2e_p50_us,
            tick_e2e_p99_us: e2e_p50_us,
            syscalls_per_publish: Some(1.0),
            syscalls_max: Some(1),
            lost,
            publishes_not_all_asleep: Some(lost),
            publish_p50_vs_eventfd: None,
            e2e_p50_vs_eventfd: None,
            tick_e2e_p50_vs_eventfd: None,
            e2e_p50_vs_futex: None,
            publish_p50_vs_idle_floor: None,
            reliable: None,
            cost: None,
            repetitions: 1,
        }
    }

    /// The rows of `passes`, ratios filled, as the bench makes them.
    fn combined(passes: Vec<(u32, Scenario, Row)>) -> (Vec<Row>, Passes<Scenario, Row>) {
        let passes = Passes::new(passes);
        let mut rows = passes.rows(|_, runs| combine(runs));
        fill_ratios(&passes, &mut rows);
        (rows, passes)
    }

    #[test]
    fn repetitions_pair_their_ratios_and_add_up_their_counts() {
        // ringbus e2e ÷ eventfd's within each repetition: 0.8, 0.9, 1.4. The ratio of the
        // medians would pair the second's ringbus with the third's eventfd: 210 / 150 = 1.4.
        let runs = [(100.0, 125.0), (270.0, 300.0), (210.0, 150.0)];
        let mut passes = Vec::new();
        for (k, &(r, e)) in runs.iter().enumerate() {
            for row in [measured(Transport::Ringbus, r, k as u64), measured(Transport::Eventfd, e, 0)] {
                passes.push((k as u32, scenario(&row), row));
            }
        }
        let (rows, _) = combined(passes);
        let (ringbus, eventfd) = (&rows[0], &rows[1]);
        assert!((ringbus.e2e_p50_vs_eventfd.unwrap() - 0.9).abs() < 1e-9, "{ringbus:?}");
        assert_eq!(ringbus.e2e_p50_us, 210.0);
        assert_eq!(eventfd.e2e_p50_us, 150.0);
        assert_eq!(ringbus.messages, 150);
        assert_eq!(ringbus.lost, 3);
        assert_eq!(ringbus.publishes_not_all_asleep, Some(3));
        assert_eq!(ringbus.repetitions, 3);
        assert_eq!(eventfd.e2e_p50_vs_eventfd, None);
    }

    #[test]
    fn publishes_are_compared_with_the_idle_floor_of_the_same_point() {
        let mut floor = measured(Transport::IdleFloor, f64::NAN, 0);
        floor.publish_p50_us = 2.0;
        let mut elsewhere = floor.clone();
        elsewhere.subs = 1;
        let measured =
            [measured(Transport::RingbusPolling, 500.0, 0), measured(Transport::Eventfd, 100.0, 0), elsewhere, floor];
        let (rows, _) = combined(measured.into_iter().map(|r| (0, scenario(&r), r)).collect());
        assert_eq!(rows[0].publish_p50_vs_idle_floor, Some(5.0), "10 µs ÷ the floor at 16 subscribers");
        assert_eq!(rows[0].publish_p50_vs_eventfd, None, "only ringbus rows are compared with eventfd");
        assert_eq!(rows[1].publish_p50_vs_idle_floor, None);
    }

    #[test]
    fn a_tick_e2e_adds_how_late_in_its_tick_each_topic_was_published() {
        let scratch = tempfile::tempdir().unwrap();
        let results = ResultsFile::create(&scratch.path().join("results"), 2, 3).unwrap();
        // Subscriber 0 listens to topic 0, subscriber 1 to topic 1, 100 ns and 10 µs after
        // their own message's publish; topic 1 was published 1, 2, then 4 µs into its tick.
        for seq in 0..3 {
            results.record(0, seq, 100).unwrap();
            results.record(1, seq, 10_000).unwrap();
        }
        let mut publish = PublishSamples::new(false);
        for offset in [0, 1_000, 0, 2_000, 0, 4_000] {
            publish.add(1_000, None, None);
            publish.add_tick_offset(offset);
        }
        let s = Scenario { transport: Transport::Ringbus, subs: 2, topics: 2, payload_bytes: 64 };
        let r = row(&s, 100.0, 0, 3, &publish, Some(&results));
        // Tick e2e: 0.1, 0.1, 0.1, 11, 12, 14 µs (taking topic 1's offsets in another order
        // would put 1.1 µs at the median); own e2e: three at 0.1 and three at 10 µs. (The
        // histogram keeps 3 significant digits: 14 µs reads back as 14.007.)
        let near = |us: f64, want: f64| (us - want).abs() <= want * 1e-3;
        assert!(near(r.tick_e2e_p50_us, 0.1) && near(r.tick_e2e_p99_us, 14.0), "{r:?}");
        assert!(near(r.e2e_p50_us, 0.1) && near(r.e2e_p99_us, 10.0), "{r:?}");
    }

    #[test]
    fn a_reliable_row_is_paired_with_the_lossy_ringbus_row_and_adds_up_its_waits() {
        let waited = Blocked { reliable_subs: 1, loans: 2, ns: 5_000 };
        let mut passes = Vec::new();
        // Reliable e2e ÷ ringbus's within each pass: 1.5, 1.0, 1.2.
        for (k, (reliable, lossy)) in [(150.0, 100.0), (300.0, 300.0), (120.0, 100.0)].into_iter().enumerate() {
            let mut row = measured(Transport::RingbusReliable, reliable, 0);
            row.reliable = Some(Reliable::measured(waited));
            for row in [row, measured(Transport::Ringbus, lossy, 0)] {
                passes.push((k as u32, scenario(&row), row));
            }
        }
        let (rows, _) = combined(passes);
        let r = rows[0].reliable.expect("the reliable row keeps its figures");
        assert_eq!((r.reliable_subs, r.blocked, r.blocked_ns), (1, 6, 15_000), "waits add up over the passes");
        assert_eq!((r.e2e_p50_vs_ringbus, r.publish_p50_vs_ringbus), (Some(1.2), Some(1.0)));
        assert_eq!(rows[1].reliable, None, "the lossy row has none");
        let json = serde_json::to_value(&rows).unwrap();
        assert_eq!(json[0]["blocked"], 6, "flattened into the row: {json}");
        assert!(json[1].get("blocked").is_none(), "and absent from other rows: {json}");
    }

    #[test]
    fn a_repetition_without_latencies_is_left_out_of_the_medians() {
        let rows = [measured(Transport::Eventfd, f64::NAN, 50), measured(Transport::Eventfd, 30.0, 0)];
        assert_eq!(combine(&[&rows[0], &rows[1]]).e2e_p50_us, 30.0);
        assert!(combine(&[&rows[0]]).e2e_p50_us.is_nan());
    }
}
