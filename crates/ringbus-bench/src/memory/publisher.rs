//! The publisher process of a run: opens the topic, waits until every subscriber is asleep
//! in `receive()`, then publishes the run's messages at its rate, each loan filled whole
//! (as a sensor would) with the message's mark.
//!
//! Memory runs sample after every publish (and once at the end): the memory the root's
//! files hold, [`ringbus::Publisher::reserved_payload_bytes`], and the bytes in flight as
//! that loan was lent — the `depth` messages before it (still in the log, a subscriber
//! can take them), the loan itself, and the samples the board lists as held that left the
//! log (position < n − depth). Timed runs instead time each `loan_uninit()` + `publish()`
//! (the payload write between them left out) and put the time before the loan in the
//! first 8 payload bytes. Both count the system calls of `loan_uninit()` + `publish()`
//! exactly, where the machine allows (a perf tracepoint). It dies with the bench (`PR_SET_PDEATHSIG`).

use super::board::Board;
use super::stream::{allocated_bytes, mark, Sizes, TopicSpec};
use crate::pace::Pacer;
use anyhow::{bail, ensure, Context, Result};
use ringbus::diagnostics::{monotonic_ns, SyscallCounter};
use ringbus::{Node, Publisher, Root};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the subscribers get to be asleep waiting once the publisher is there.
const SLEEPERS_LIMIT: Duration = Duration::from_secs(30);

/// Everything the publisher process needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PublisherSpec {
    pub root: PathBuf,
    pub topic: TopicSpec,
    pub sizes: Sizes,
    pub rate_hz: f64,
    /// Messages to publish, warm-up included.
    pub messages: u64,
    /// Timed runs: the first `warmup` publishes are not timed.
    pub warmup: u64,
    pub subscribers: u32,
    pub board: PathBuf,
    pub timed: bool,
    pub result: PathBuf,
}

/// What the publisher measured.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Published {
    pub messages: u64,
    /// The topic as created: log depth, chunks, samples a subscriber may hold, and what a
    /// preallocated pool of it would reserve (computed by `ringbus::inspect`).
    pub depth: u32,
    pub chunks: u32,
    pub preallocated_bytes: u64,
    pub max_held: u32,
    pub smallest_bytes: u64,
    pub largest_bytes: u64,
    /// Memory of the root's files before the first loan.
    pub reserved_start_bytes: u64,
    pub reserved_peak_bytes: u64,
    pub reserved_payload_peak_bytes: u64,
    pub in_flight_peak_bytes: u64,
    /// Of what was in flight, the most held by a subscriber after leaving the log.
    pub held_past_log_peak_bytes: u64,
    /// Per timed publish: `loan_uninit()` + `publish()`, ns.
    pub publish_ns: Vec<u64>,
    /// The system calls of `loan_uninit()` + `publish()` (every publish of a memory run,
    /// the timed ones of a timed run); `None`: this machine cannot count them.
    pub syscalls: Option<Syscalls>,
}

/// System calls over a number of publishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Syscalls {
    pub publishes: u64,
    pub total: u64,
    pub max: u64,
}

impl Syscalls {
    pub(crate) fn per_publish(&self) -> f64 {
        self.total as f64 / self.publishes as f64
    }
}

/// One publish: how long `loan_uninit()` + `publish()` took, and their system calls.
#[derive(Debug, Clone, Copy)]
struct Publish {
    ns: u64,
    syscalls: Option<u64>,
}

impl Published {
    /// One publish measured.
    fn count(&mut self, publish: Publish, timed: bool) {
        if timed {
            self.publish_ns.push(publish.ns);
        }
        if let (Some(s), Some(n)) = (&mut self.syscalls, publish.syscalls) {
            (s.publishes, s.total, s.max) = (s.publishes + 1, s.total + n, s.max.max(n));
        }
    }

    /// One memory sample.
    fn sample(&mut self, root: &Path, publisher: &Publisher) -> Result<()> {
        self.reserved_peak_bytes = self.reserved_peak_bytes.max(allocated_bytes(root)?);
        self.reserved_payload_peak_bytes = self.reserved_payload_peak_bytes.max(publisher.reserved_payload_bytes());
        Ok(())
    }
}

/// The bytes of the messages still in the log: the last `depth` published.
#[derive(Debug)]
struct Log {
    sizes: VecDeque<u64>,
    depth: usize,
    bytes: u64,
}

impl Log {
    fn new(depth: u32) -> Log {
        Log { sizes: VecDeque::with_capacity(depth as usize), depth: depth as usize, bytes: 0 }
    }

    fn publish(&mut self, len: u64) {
        if self.sizes.len() == self.depth {
            self.bytes -= self.sizes.pop_front().unwrap_or(0);
        }
        self.sizes.push_back(len);
        self.bytes += len;
    }
}

/// Runs the publisher process.
pub(crate) fn run(spec: &PublisherSpec) -> Result<()> {
    let node = Node::with_root("memory-publisher", &spec.root).context("cannot create the publisher's node")?;
    let mut publisher = spec.topic.builder(&node).publisher().context("cannot create the publisher")?;
    let root = Root::open(&spec.root).context("cannot open the run's ringbus root")?;
    let topic = ringbus::inspect::topic(&root, &spec.topic.name)?.context("the run's topic is gone")?;
    let board = Board::open(&spec.board)?;
    wait_for_sleepers(&publisher, spec.subscribers)?;
    // Unavailable (no perf tracepoint): not counted, reported as n/a.
    let counter = SyscallCounter::for_this_thread().ok();
    let depth = topic.settings.depth;
    let mut published = Published {
        messages: spec.messages,
        depth,
        chunks: topic.settings.chunks,
        preallocated_bytes: topic.settings.preallocated_pool_bytes(topic.payload_align),
        max_held: topic.settings.max_held,
        smallest_bytes: u64::MAX,
        reserved_start_bytes: allocated_bytes(&spec.root)?,
        syscalls: counter.as_ref().map(|_| Syscalls::default()),
        ..Published::default()
    };
    let mut log = Log::new(depth);
    let mut pacer = Pacer::new(spec.rate_hz);
    for (position, len) in (0..spec.messages).zip(spec.sizes.iter()) {
        pacer.wait();
        let publish = publish(&mut publisher, position, len, spec.timed, counter.as_ref())?;
        published.smallest_bytes = published.smallest_bytes.min(len);
        published.largest_bytes = published.largest_bytes.max(len);
        if position >= spec.warmup {
            published.count(publish, spec.timed);
        }
        if spec.timed {
            continue;
        }
        let held_past_log = board.held_below(position.saturating_sub(depth as u64));
        let in_flight = log.bytes + len + held_past_log;
        published.in_flight_peak_bytes = published.in_flight_peak_bytes.max(in_flight);
        published.held_past_log_peak_bytes = published.held_past_log_peak_bytes.max(held_past_log);
        log.publish(len);
        published.sample(&spec.root, &publisher)?;
    }
    if !spec.timed {
        published.sample(&spec.root, &publisher)?;
    }
    crate::worker_main::write_result(&spec.result, &published)
}

/// Publishes message `position`, `len` bytes; returns how long `loan_uninit()` and
/// `publish()` took together, and their system calls (the counter's reads are outside).
fn publish(
    publisher: &mut Publisher,
    position: u64,
    len: u64,
    timed: bool,
    counter: Option<&SyscallCounter>,
) -> Result<Publish> {
    ensure!(!timed || len >= 8, "a timed message needs 8 bytes for its start time, not {len}");
    let start = counter.map(SyscallCounter::start).transpose()?;
    let t0 = monotonic_ns();
    let loan = publisher.loan_uninit(usize::try_from(len)?);
    let t1 = monotonic_ns();
    let mut loan = loan.with_context(|| format!("cannot lend {len} bytes for message {position}"))?;
    loan.fill(mark(position));
    if timed {
        loan[..8].copy_from_slice(&t0.to_le_bytes());
    }
    let t2 = monotonic_ns();
    loan.publish();
    let t3 = monotonic_ns();
    let syscalls = match (counter, start) {
        (Some(c), Some(start)) => Some(c.since(start)?),
        _ => None,
    };
    Ok(Publish { ns: (t1 - t0) + (t3 - t2), syscalls })
}

/// Waits until `n` subscribers are asleep on the topic: they are subscribed and will be
/// woken by the first publish.
fn wait_for_sleepers(publisher: &Publisher, n: u32) -> Result<()> {
    let start = Instant::now();
    while publisher.sleeping_subscribers() < n {
        if start.elapsed() > SLEEPERS_LIMIT {
            bail!(
                "only {} of {n} subscribers were asleep waiting after {SLEEPERS_LIMIT:?}",
                publisher.sleeping_subscribers()
            );
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_counts_the_last_depth_messages() {
        let mut log = Log::new(2);
        log.publish(5);
        assert_eq!(log.bytes, 5);
        log.publish(7);
        log.publish(100);
        assert_eq!(log.bytes, 107, "the first message left the log");
    }
}
