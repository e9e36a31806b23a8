//! The subscriber process: the benchmark's node on a [`ringbus::Executor`]. Its inputs are
//! opened `Wake::OnData` (callback style) or `Wake::Never` (polling style) — nothing else
//! differs — and its 10 Hz timer reads the latest sample of each and publishes their sum on
//! topic D. It measures its own CPU time, context switches and executor counters over
//! `spin_for(duration)`, reads the publishers' counters around that window, and writes its
//! result as JSON. It dies with the bench (`PR_SET_PDEATHSIG`).

use super::{Style, READY_LATCH, START_LATCH, TIMER_HZ};
use crate::usage::Usage;
use anyhow::{anyhow, Context, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::executor::ExecutorStats;
use ringbus::{Executor, Input, Latch, Node, Publisher, Root};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

/// The node's output topic.
pub(crate) const OUTPUT_TOPIC: &str = "d";
/// A start that does not come within this means the bench is gone or stuck.
const START_LIMIT: Duration = Duration::from_secs(120);
/// Most rounds spent draining what queued up before the start.
const DRAIN_ROUNDS: u32 = 1000;

/// Everything the subscriber needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PollingWorkerSpec {
    pub style: Style,
    pub topics: Vec<String>,
    pub duration_ns: u64,
    /// The run's ringbus root (topics, latches).
    pub root: PathBuf,
    /// Where to write the [`WorkerResult`].
    pub result: PathBuf,
}

/// What the subscriber measured over its window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WorkerResult {
    pub cpu_user_us: u64,
    pub cpu_sys_us: u64,
    pub voluntary_ctx_switches: u64,
    pub involuntary_ctx_switches: u64,
    /// Executor wake-ups (waits that returned with something to do).
    pub wakeups: u64,
    pub timer_calls: u64,
    /// Messages queued into inputs by wake-ups (callback style; 0 when polling).
    pub messages_delivered: u64,
    /// Wake system calls the input topics' publishers made.
    pub publisher_wake_syscalls: u64,
    /// Messages the input topics' publishers published.
    pub messages_published: u64,
    /// Messages the timer published on D.
    pub outputs: u64,
    pub elapsed_ns: u64,
    /// The executor's wait-set backend.
    pub backend: String,
}

/// The input publishers' totals over every topic, read from outside through inspect.
fn publisher_totals(root: &Root, topics: &[String]) -> Result<(u64, u64)> {
    let (mut publishes, mut wake_syscalls) = (0, 0);
    for name in topics {
        let info = ringbus::inspect::topic(root, name)?.ok_or_else(|| anyhow!("topic {name} is gone"))?;
        for p in &info.publishers {
            publishes += p.stats.publishes;
            wake_syscalls += p.stats.wake_syscalls;
        }
    }
    Ok((publishes, wake_syscalls))
}

/// One tick of the node: the latest of every input, summed, published on D.
fn tick(inputs: &[Input], output: &mut Publisher) -> Result<()> {
    let (mut sum, mut seen) = (0u64, 0u64);
    for input in inputs {
        if let Some(sample) = input.latest()? {
            let sequence = u64::from_le_bytes(sample[..8].try_into()?);
            let topic = u64::from_le_bytes(sample[8..16].try_into()?);
            sum = sum.wrapping_add(sequence).wrapping_add(topic);
            seen += 1;
        }
    }
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&sum.to_le_bytes());
    d[8..].copy_from_slice(&seen.to_le_bytes());
    output.publish_copy(&d)?;
    Ok(())
}

/// Runs the subscriber.
pub(crate) fn run(spec: &PollingWorkerSpec) -> Result<()> {
    let root = Root::open(&spec.root).context("cannot open the bench's ringbus root")?;
    let node = Node::with_root("polling-node", &spec.root).context("cannot create the node")?;
    let ready = Latch::open(&root, READY_LATCH).context("cannot open the ready latch")?;
    let start = Latch::open(&root, START_LATCH).context("cannot open the start latch")?;
    let mut executor = Executor::new()?;
    let mut inputs = Vec::with_capacity(spec.topics.len());
    for name in &spec.topics {
        let subscriber = node.topic(name).wake(spec.style.wake()).subscriber(); // <- the one line
        inputs.push(executor.input(subscriber.with_context(|| format!("cannot subscribe to {name}"))?)?);
    }
    let mut output = node.topic(OUTPUT_TOPIC).max_payload_bytes(16).publisher()?;
    let outputs = Rc::new(Cell::new(0u64));
    let failure: Rc<RefCell<Option<anyhow::Error>>> = Rc::default();
    let (count, failed) = (outputs.clone(), failure.clone());
    executor.timer(Duration::from_nanos(1_000_000_000 / TIMER_HZ), move |control| {
        match tick(&inputs, &mut output) {
            Ok(()) => count.set(count.get() + 1),
            Err(e) => {
                *failed.borrow_mut() = Some(e);
                control.stop();
            }
        }
    })?;
    let backend = executor.wait_set().backend().name().to_string();
    ready.set();
    start.wait(Some(START_LIMIT)).map_err(|_| anyhow!("no start signal within {START_LIMIT:?}"))?;
    drain(&mut executor)?;
    let mut result = measure(&mut executor, &root, spec, &outputs)?;
    if let Some(e) = failure.borrow_mut().take() {
        return Err(e.context("the node's timer failed"));
    }
    result.backend = backend;
    crate::worker_main::write_result(&spec.result, &result)
}

/// Runs whatever queued up before the start (messages taken in the callback style, an
/// overdue tick) so the window starts from a quiet executor.
fn drain(executor: &mut Executor<'_>) -> Result<()> {
    for _ in 0..DRAIN_ROUNDS {
        let before = executor.stats().wakeups;
        executor.spin_once(Some(Duration::ZERO))?;
        if executor.stats().wakeups == before {
            return Ok(());
        }
    }
    Ok(())
}

/// The window: counters read outside the usage readings, so reading them costs the
/// measured CPU nothing.
fn measure(
    executor: &mut Executor<'_>,
    root: &Root,
    spec: &PollingWorkerSpec,
    outputs: &Cell<u64>,
) -> Result<WorkerResult> {
    let (published_0, wakes_0) = publisher_totals(root, &spec.topics)?;
    let (stats_0, outputs_0) = (executor.stats(), outputs.get());
    let t0 = monotonic_ns();
    let usage_0 = Usage::of_self()?;
    executor.spin_for(Duration::from_nanos(spec.duration_ns))?;
    let usage = Usage::of_self()?.since(usage_0);
    let elapsed_ns = monotonic_ns() - t0;
    let stats = executor.stats();
    let (published_1, wakes_1) = publisher_totals(root, &spec.topics)?;
    let d = |f: fn(&ExecutorStats) -> u64| f(&stats) - f(&stats_0);
    Ok(WorkerResult {
        cpu_user_us: usage.user_us,
        cpu_sys_us: usage.sys_us,
        voluntary_ctx_switches: usage.voluntary,
        involuntary_ctx_switches: usage.involuntary,
        wakeups: d(|s| s.wakeups),
        timer_calls: d(|s| s.timer_calls),
        messages_delivered: d(|s| s.messages),
        publisher_wake_syscalls: wakes_1 - wakes_0,
        messages_published: published_1 - published_0,
        outputs: outputs.get() - outputs_0,
        elapsed_ns,
        backend: String::new(),
    })
}
