//! Turning raw measurements into one result row: percentiles (HdrHistogram, 3
//! significant digits) of publish latency, end-to-end latency over every (message,
//! subscriber) pair and over the last subscriber of each message, and exact system-call
//! counts per publish.

use crate::config::{Scenario, Transport};
use crate::results::ResultsFile;
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
    /// Mean exact system calls per publish; `None` when the counter was unavailable.
    pub syscalls_per_publish: Option<f64>,
    pub syscalls_max: Option<u64>,
    /// (message, subscriber) pairs never received.
    pub lost: u64,
    /// ringbus: measured publishes that found some of their topic's subscribers not
    /// asleep (still busy with the previous message); those need no wake-up.
    pub publishes_not_all_asleep: Option<u64>,
    /// ringbus rows: publish p50 divided by the eventfd row's of the same run.
    pub publish_p50_vs_eventfd: Option<f64>,
    /// ringbus rows: e2e p50 divided by the eventfd row's of the same run.
    pub e2e_p50_vs_eventfd: Option<f64>,
}

/// Latencies from 1 ns to 1 hour at 3 significant digits; longer ones saturate.
pub(crate) fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds and precision")
}

pub(crate) fn us(h: &Histogram<u64>, q: f64) -> f64 {
    if h.is_empty() {
        f64::NAN
    } else {
        h.value_at_quantile(q) as f64 / 1000.0
    }
}

/// The lower median of `v` (an element of it: the lower middle one for an even count,
/// which keeps `median(a) <= median(b)` when `a[i] <= b[i]` for all `i`). Repeated runs of
/// the token and polling benches are summed up by it.
pub(crate) fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[(v.len() - 1) / 2]
}

/// What the publishing loop measured.
#[derive(Debug)]
pub(crate) struct PublishSamples {
    latency: Histogram<u64>,
    syscalls: Option<(u64, u64, u64)>,
    not_all_asleep: Option<u64>,
}

impl PublishSamples {
    pub(crate) fn new(counting: bool) -> PublishSamples {
        PublishSamples { latency: histogram(), syscalls: counting.then_some((0, 0, 0)), not_all_asleep: None }
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

/// Builds the row of `s` from the publish samples and the subscribers' results file,
/// skipping the first `warmup` messages.
pub(crate) fn row(
    s: &Scenario,
    rate_hz: f64,
    warmup: usize,
    messages: usize,
    publish: &PublishSamples,
    results: &ResultsFile,
) -> Row {
    let (mut all, mut last) = (histogram(), histogram());
    let mut lost = 0;
    for topic in 0..s.topics {
        let subs: Vec<usize> = (0..s.subs).filter(|&i| s.topic_of(i) == topic).map(|i| i as usize).collect();
        for seq in warmup..messages {
            let mut slowest = None;
            for &sub in &subs {
                match results.latency(sub, seq) {
                    Some(ns) => {
                        all.saturating_record(ns);
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
    let syscalls = publish.syscalls.filter(|&(_, _, n)| n > 0);
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
        syscalls_per_publish: syscalls.map(|(sum, _, n)| sum as f64 / n as f64),
        syscalls_max: syscalls.map(|(_, max, _)| max),
        lost,
        publishes_not_all_asleep: publish.not_all_asleep,
        publish_p50_vs_eventfd: None,
        e2e_p50_vs_eventfd: None,
    }
}

/// Fills the ratio columns of every ringbus row from the eventfd row of the same
/// (subs, topics, payload).
pub fn fill_ratios(rows: &mut [Row]) {
    let baselines: Vec<(u32, u32, u64, f64, f64)> = rows
        .iter()
        .filter(|r| r.transport == Transport::Eventfd)
        .map(|r| (r.subs, r.topics, r.payload_bytes, r.publish_p50_us, r.e2e_p50_us))
        .collect();
    for r in rows.iter_mut().filter(|r| r.transport == Transport::Ringbus) {
        if let Some(b) = baselines.iter().find(|b| (b.0, b.1, b.2) == (r.subs, r.topics, r.payload_bytes)) {
            r.publish_p50_vs_eventfd = Some(r.publish_p50_us / b.3);
            r.e2e_p50_vs_eventfd = Some(r.e2e_p50_us / b.4);
        }
    }
}
