//! One run, bench side: the two ends set up (topics, or the floor's two lines), the echo
//! end started on its CPU — a thread, or with `processes` this binary re-executed (see
//! [`super::worker`]) — and the initiator run on a thread pinned to its CPU. Returns the
//! round trips summed up.

use super::sides::{echo, initiate, FloorSide, Line, Side, TopicSide};
use super::worker::{self, PingpongWorkerSpec};
use super::{PingpongConfig, Point, Variant};
use crate::launch::{Launch, Workers};
use crate::shm::SharedWords;
use crate::wake::waiter::pin_this_thread;
use crate::worker_main::WorkerJob;
use anyhow::{anyhow, Context, Result};
use ringbus::{Latch, Node, Root};
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

/// How long the echo process gets to start, and to exit after the last round.
const START_LIMIT: Duration = Duration::from_secs(30);

/// What one run measured: round-trip times in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measurement {
    pub rounds: u64,
    pub p50_ns: f64,
    pub p99_ns: f64,
    pub mean_ns: f64,
}

impl Measurement {
    /// Sums up the round trips of a run.
    pub(crate) fn of(times: &[u64]) -> Result<Measurement> {
        let mut h = crate::stats::histogram();
        for &t in times {
            h.saturating_record(t.max(1));
        }
        anyhow::ensure!(!times.is_empty(), "no round measured");
        let mean_ns = times.iter().map(|&t| t as f64).sum::<f64>() / times.len() as f64;
        let q = |q| h.value_at_quantile(q) as f64;
        Ok(Measurement { rounds: times.len() as u64, p50_ns: q(0.5), p99_ns: q(0.99), mean_ns })
    }
}

/// Measures `point` once in `dir` (fresh, removed afterwards by the caller).
pub(crate) fn measure(config: &PingpongConfig, point: &Point, dir: &Path) -> Result<Measurement> {
    let times = match config.processes {
        true => with_process(config, point, dir)?,
        false => with_thread(config, point, dir)?,
    };
    Measurement::of(&times)
}

/// This end's two topics: publisher on `out`, subscriber on `back`.
pub(crate) fn topic_side(node: &Node, point: &Point, out: &str, back: &str) -> Result<TopicSide> {
    let bytes = point.payload_bytes.max(1);
    let topic = |name: &str| node.topic(name).max_payload_bytes(bytes).wake(point.wake.wake());
    Ok(TopicSide {
        publisher: topic(out).publisher().with_context(|| format!("cannot publish on {out}"))?,
        subscriber: topic(back).subscriber().with_context(|| format!("cannot subscribe to {back}"))?,
        payload_bytes: usize::try_from(point.payload_bytes)?,
        wake: point.wake,
        in_place: point.variant == Variant::RingbusTakeWith,
    })
}

fn with_thread(config: &PingpongConfig, point: &Point, dir: &Path) -> Result<Vec<u64>> {
    match point.variant {
        Variant::Floor => {
            let (a, b) = (Line::default(), Line::default());
            two_threads(config, point, FloorSide { mine: &a.0, theirs: &b.0 }, FloorSide { mine: &b.0, theirs: &a.0 })
        }
        Variant::Ringbus | Variant::RingbusTakeWith => {
            let node = Node::with_root("pingpong", dir).context("cannot create the bench's node")?;
            let initiator = topic_side(&node, point, worker::PING, worker::PONG)?;
            let echoer = topic_side(&node, point, worker::PONG, worker::PING)?;
            two_threads(config, point, initiator, echoer)
        }
    }
}

/// Which end of a two-thread run failed first (the other then fails only because it was
/// told to stop): 0 none yet.
const ECHO_FAILED: u8 = 1;
const INITIATOR_FAILED: u8 = 2;

/// The echo end and the initiator on two threads, each pinned to its CPU. A failure of
/// either stops the other, and the first failure is the one reported.
fn two_threads<A: Side + Send, B: Side + Send>(
    config: &PingpongConfig,
    point: &Point,
    mut a: A,
    mut b: B,
) -> Result<Vec<u64>> {
    let (warmup, rounds) = (config.warmup_of(point), config.rounds_of(point));
    let failed = AtomicU8::new(0);
    let fail = |who: u8| {
        let _first = failed.compare_exchange(0, who, Ordering::Relaxed, Ordering::Relaxed);
    };
    let stopped = || failed.load(Ordering::Relaxed) != 0;
    std::thread::scope(|s| {
        let echoer = s.spawn(|| {
            let done = pin_this_thread(config.cpus.1).and_then(|()| echo(&mut b, warmup + rounds, &mut || stopped()));
            if done.is_err() {
                fail(ECHO_FAILED);
            }
            done
        });
        let times = on_cpu(config.cpus.0, || initiate(&mut a, warmup, rounds, &mut || stopped()));
        if times.is_err() {
            fail(INITIATOR_FAILED);
        }
        let echoed = echoer.join().unwrap_or_else(|_| Err(anyhow!("the echo thread panicked")));
        match (times, echoed) {
            (Ok(times), Ok(())) => Ok(times),
            (Err(e), _) if failed.load(Ordering::Relaxed) == INITIATOR_FAILED => Err(e),
            (_, Err(e)) => Err(e.context("echo thread")),
            (Err(e), Ok(())) => Err(e),
        }
    })
}

/// Runs `f` on a thread of its own pinned to `cpu` (the calling thread stays as it was).
fn on_cpu<T: Send>(cpu: u32, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    std::thread::scope(|s| {
        let thread = s.spawn(|| pin_this_thread(cpu).and_then(|()| f()));
        thread.join().unwrap_or_else(|_| Err(anyhow!("the initiator thread panicked")))
    })
}

/// The echo end in another process; the initiator on a thread pinned to its CPU.
fn with_process(config: &PingpongConfig, point: &Point, dir: &Path) -> Result<Vec<u64>> {
    let (warmup, rounds) = (config.warmup_of(point), config.rounds_of(point));
    let root = Root::open(dir).context("cannot open the run's ringbus root")?;
    let ready = Latch::open(&root, worker::READY_LATCH).context("cannot create the ready latch")?;
    let words = match point.variant {
        Variant::Floor => Some(SharedWords::create(&dir.join(worker::FLOOR_FILE), worker::FLOOR_WORDS)?),
        Variant::Ringbus | Variant::RingbusTakeWith => None,
    };
    let node = Node::with_root("pingpong", dir).context("cannot create the bench's node")?;
    let mut initiator = match point.variant {
        Variant::Floor => None,
        Variant::Ringbus | Variant::RingbusTakeWith => Some(topic_side(&node, point, worker::PING, worker::PONG)?),
    };
    let spec =
        PingpongWorkerSpec { root: dir.to_path_buf(), point: *point, total: warmup + rounds, cpu: config.cpus.1 };
    let launch = Launch::new(WorkerJob::Pingpong(spec), vec![])?;
    let mut workers = Workers::spawn(&config.worker, "echo", vec![launch])?;
    workers.wait_ready(&|| u64::from(ready.is_set()), 1, &|| true, START_LIMIT, "the machine may be overloaded")?;
    let times = on_cpu(config.cpus.0, || {
        let mut gone = || workers.reap_exited().is_err();
        match (&mut initiator, &words) {
            (Some(side), _) => initiate(side, warmup, rounds, &mut gone),
            (None, Some(words)) => initiate(&mut worker::floor_side(words, 0), warmup, rounds, &mut gone),
            (None, None) => unreachable!("a run has topics or the floor's words"),
        }
    })?;
    workers.wait_exit(START_LIMIT, "it had been sent every round; the machine may be overloaded")?;
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_sums_up_its_round_trips() {
        let times: Vec<u64> = (1..=100).collect();
        let m = Measurement::of(&times).unwrap();
        assert_eq!((m.rounds, m.p50_ns, m.p99_ns, m.mean_ns), (100, 50.0, 99.0, 50.5));
        assert!(Measurement::of(&[]).is_err());
    }
}
