//! One run, bench side: in the run's fresh directory, a ringbus root of its own (`root/`,
//! nothing else in it) and the board beside it; the subscriber processes started and
//! waited for, then the publisher process; every process's result read back once all
//! have exited.

use super::board::Board;
use super::publisher::{Published, PublisherSpec};
use super::stream::{Sizes, TopicSpec};
use super::subscriber::{Received, SubscriberSpec};
use crate::config::WorkerLauncher;
use crate::launch::{Launch, Workers};
use crate::worker_main::{read_result, WorkerJob};
use anyhow::{Context, Result};
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;
use std::time::Duration;

/// How long processes get to start, and to finish once the last message is out.
const READY_LIMIT: Duration = Duration::from_secs(30);
const EXIT_LIMIT: Duration = Duration::from_secs(30);

/// What one run publishes and who takes it.
#[derive(Debug, Clone)]
pub(crate) struct RunSpec {
    pub topic: TopicSpec,
    pub sizes: Sizes,
    pub rate_hz: f64,
    /// Messages published, warm-up included.
    pub messages: u64,
    pub warmup: u64,
    pub subscribers: u32,
    /// How long the last subscriber holds each sample.
    pub hold_ms: Option<u64>,
    /// Time publishes and end-to-end latencies (else: sample memory).
    pub timed: bool,
}

/// What one run measured.
#[derive(Debug)]
pub struct Ran {
    pub(crate) published: Published,
    pub(crate) received: Vec<Received>,
}

/// Runs `spec` in `dir` (fresh, removed by the caller).
pub(crate) fn run(spec: &RunSpec, dir: &Path, worker: &WorkerLauncher) -> Result<Ran> {
    let root = dir.join("root");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&root)
        .with_context(|| format!("cannot create {}", root.display()))?;
    let board_path = dir.join("board");
    let board = Board::create(&board_path)?;
    let result = |who: String| dir.join(format!("{who}.json"));
    let mut launches = Vec::new();
    for index in 0..spec.subscribers {
        let job = WorkerJob::MemorySubscriber(SubscriberSpec {
            root: root.clone(),
            topic: spec.topic.clone(),
            index,
            messages: spec.messages,
            warmup: spec.warmup,
            hold_ms: spec.hold_ms.filter(|_| index + 1 == spec.subscribers),
            board: board_path.clone(),
            timed: spec.timed,
            result: result(format!("subscriber-{index}")),
        });
        launches.push(Launch::new(job, vec![])?);
    }
    let mut subscribers = Workers::spawn(worker, "subscriber", launches)?;
    let hint = "the machine may be overloaded";
    subscribers.wait_ready(&|| board.ready(), spec.subscribers.into(), &|| true, READY_LIMIT, hint)?;
    let job = WorkerJob::MemoryPublisher(PublisherSpec {
        root: root.clone(),
        topic: spec.topic.clone(),
        sizes: spec.sizes,
        rate_hz: spec.rate_hz,
        messages: spec.messages,
        warmup: spec.warmup,
        subscribers: spec.subscribers,
        board: board_path.clone(),
        timed: spec.timed,
        result: result("publisher".into()),
    });
    let mut publisher = Workers::spawn(worker, "publisher", vec![Launch::new(job, vec![])?])?;
    let publishing = Duration::from_secs_f64(spec.messages as f64 / spec.rate_hz);
    publisher.wait_exit(READY_LIMIT + publishing + EXIT_LIMIT, "it had not published every message")?;
    subscribers.wait_exit(EXIT_LIMIT, "they had not received the last message; some messages were lost")?;
    let published = read_result(&result("publisher".into()), "publisher")?;
    let received = (0..spec.subscribers)
        .map(|index| read_result(&result(format!("subscriber-{index}")), "subscriber"))
        .collect::<Result<Vec<Received>>>()?;
    Ok(Ran { published, received })
}
