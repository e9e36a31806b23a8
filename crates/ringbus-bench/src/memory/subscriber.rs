//! A subscriber process of a run: opens the topic, says it is ready, then sleeps in
//! `receive()` for each message and checks it is whole (its mark in every page). Timed
//! runs record each message's end-to-end latency: now minus the start time the publisher
//! put in its first 8 bytes. A holding subscriber keeps each sample `hold_ms` before
//! dropping it (several at once), listing it on the board meanwhile. It exits once it has
//! the last message and has dropped everything, and dies with the bench
//! (`PR_SET_PDEATHSIG`).

use super::board::Board;
use super::stream::{check_payload, TopicSpec};
use anyhow::{Context, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::{Node, ReceiveError, Sample};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Everything one subscriber process needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SubscriberSpec {
    pub root: PathBuf,
    pub topic: TopicSpec,
    pub index: u32,
    /// Messages published, warm-up included: the last one has position `messages - 1`.
    pub messages: u64,
    /// Timed runs: latencies of the first `warmup` messages are not kept.
    pub warmup: u64,
    /// How long each sample is held (`None`: dropped at once).
    pub hold_ms: Option<u64>,
    pub board: PathBuf,
    pub timed: bool,
    pub result: PathBuf,
}

/// What one subscriber saw.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Received {
    pub taken: u64,
    pub lost: u64,
    /// The most samples held at once.
    pub held_peak: u32,
    /// Per timed message after the warm-up, ns.
    pub e2e_ns: Vec<u64>,
}

/// A sample kept until `until`, listed on the board at `entry`.
struct Held {
    until: Instant,
    entry: usize,
    _sample: Sample,
}

/// Runs one subscriber process.
pub(crate) fn run(spec: &SubscriberSpec) -> Result<()> {
    let node = Node::with_root(&format!("memory-sub-{}", spec.index), &spec.root)?;
    let mut subscriber = spec.topic.builder(&node).subscriber().context("cannot subscribe")?;
    let board = Board::open(&spec.board)?;
    let max_held = spec.topic.max_held.unwrap_or(1) as usize;
    let stamp_bytes = if spec.timed { 8 } else { 0 };
    let mut held: VecDeque<Held> = VecDeque::new();
    let mut received = Received::default();
    let mut got_last = false;
    board.mark_ready();
    loop {
        let now = Instant::now();
        while let Some(h) = held.pop_front() {
            if h.until > now {
                held.push_front(h);
                break;
            }
            let entry = h.entry;
            drop(h);
            board.release(entry);
        }
        let next_drop = held.front().map(|h| h.until.saturating_duration_since(now));
        if got_last || held.len() >= max_held {
            match next_drop {
                Some(wait) => std::thread::sleep(wait),
                None => break,
            }
            continue;
        }
        let sample = match subscriber.receive(next_drop) {
            Ok(sample) => sample,
            Err(ReceiveError::Timeout) => continue,
            Err(e) => return Err(e).context(format!("subscriber {}", spec.index)),
        };
        let at_ns = monotonic_ns();
        let position = sample.position();
        if spec.timed && position >= spec.warmup {
            let t0_ns = u64::from_le_bytes(sample.get(..8).context("a timed message of under 8 bytes")?.try_into()?);
            received.e2e_ns.push(at_ns.saturating_sub(t0_ns));
        }
        check_payload(&sample, stamp_bytes, position).with_context(|| format!("subscriber {}", spec.index))?;
        received.taken += 1;
        got_last = position + 1 >= spec.messages;
        if let Some(ms) = spec.hold_ms {
            let entry = board.hold(position, sample.len() as u64)?;
            held.push_back(Held { until: Instant::now() + Duration::from_millis(ms), entry, _sample: sample });
            received.held_peak = received.held_peak.max(held.len() as u32);
        }
    }
    received.lost = subscriber.lost();
    crate::worker_main::write_result(&spec.result, &received)
}
