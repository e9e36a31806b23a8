//! One run, bench side. Cross-process variants: open the queue as its producer, start the
//! consumer process, wait for its ready latch, then a producer thread pinned to its CPU sets
//! the start latch and pushes; the consumer's tally comes back in a file. In-process
//! variants: a consumer thread and a producer thread, each pinned, meeting on two flags.
//! Either way the producer thread does the timing and the calling thread only waits.

use super::command::{Checker, Command};
use super::consumer::ConsumerSpec;
use super::drive::{consume, produce, spin_until, Pushed};
use super::endpoints::{SharedQueue, Sink, Source};
use super::{Point, QueueConfig, Variant, QUEUE, READY_LATCH, START_LATCH};
use crate::launch::{Launch, Workers};
use crate::wake::waiter::pin_this_thread;
use crate::worker_main::WorkerJob;
use anyhow::{anyhow, bail, Context, Result};
use ringbus::{Latch, Node, Root};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

/// How long the consumer process gets to start.
const READY_LIMIT: Duration = Duration::from_secs(30);
/// How long the consumer process gets to check the last commands and exit.
const EXIT_LIMIT: Duration = Duration::from_secs(30);

/// What one run measured.
#[derive(Debug, Clone, Copy)]
pub struct Measurement {
    pub(crate) pushed: Pushed,
    pub(crate) consumed: Checker,
}

/// Runs `run` in `dir` (a fresh directory, removed afterwards by the caller), and checks it.
pub(crate) fn measure(run: &Point, config: &QueueConfig, dir: &Path) -> Result<Measurement> {
    let capacity = config.capacity;
    let (pushed, consumed) = match run.variant {
        v if v.cross_process() => cross_process(run, config, dir)?,
        Variant::CachedInprocess | Variant::PollingInprocess => {
            let node = Node::with_root("queue-bench", dir).context("cannot create the bench's node")?;
            let wake = run.variant.wake().unwrap_or_default();
            let queue = || node.queue::<Command>(QUEUE).capacity(capacity).spsc().wake(wake);
            let consumer = queue().consumer().context("cannot open the queue as its consumer")?;
            let producer = queue().producer().context("cannot open the queue as its producer")?;
            in_process(producer, consumer, run, config)?
        }
        Variant::Rtrb => {
            let (producer, consumer) = rtrb::RingBuffer::new(capacity as usize);
            in_process(producer, consumer, run, config)?
        }
        Variant::ArrayQueue => {
            let queue = SharedQueue::new(capacity as usize);
            in_process(queue.clone(), queue, run, config)?
        }
        v => bail!("ringbus bug: no way to run variant {v}"),
    };
    consumed.verify(config.warmup + config.commands)?;
    check_head_reads(run.variant, &pushed)?;
    Ok(Measurement { pushed, consumed })
}

/// What the run-time switch promises, whatever the machine's speed: without the cache
/// every push call loads the consumer's position once; with it, at most once, and always
/// when the call finds the ring full (its cached copy said full too).
pub(crate) fn check_head_reads(variant: Variant, pushed: &Pushed) -> Result<()> {
    let (reads, calls, full) = (pushed.head_reads, pushed.calls, pushed.full_retries);
    match (variant, reads) {
        (_, Some(r)) if r < full => {
            bail!(
                "{variant}: {r} loads of the consumer's position, fewer than the {full} calls that found the ring full"
            )
        }
        (v, Some(r)) if v.uncached() && r != calls => {
            bail!("{v}: {r} loads of the consumer's position for {calls} push calls; expected one per call")
        }
        (v, Some(r)) if !v.uncached() && r > calls => {
            bail!(
                "{variant}: {r} loads of the consumer's position for {calls} push calls; expected at most one per call"
            )
        }
        (v, None) if v.ringbus() => bail!("{v}: the producer did not count its loads of the consumer's position"),
        _ => Ok(()),
    }
}

fn cross_process(run: &Point, config: &QueueConfig, dir: &Path) -> Result<(Pushed, Checker)> {
    let (producer_cpu, consumer_cpu) = config.cpus;
    let root = Root::open(dir).context("cannot open the run's ringbus root")?;
    let node = Node::with_root("queue-producer", dir).context("cannot create the bench's node")?;
    let mut producer = node
        .queue::<Command>(QUEUE)
        .capacity(config.capacity)
        .spsc()
        .wake(run.variant.wake().unwrap_or_default())
        .producer()
        .context("cannot open the queue as its producer")?;
    ringbus::diagnostics::set_head_cache(&mut producer, !run.variant.uncached());
    let ready = Latch::open(&root, READY_LATCH).context("cannot create the ready latch")?;
    let start = Latch::open(&root, START_LATCH).context("cannot create the start latch")?;
    let result = dir.join("consumer.json");
    let spec = ConsumerSpec {
        root: dir.to_path_buf(),
        queue: QUEUE.into(),
        capacity: config.capacity,
        total: config.warmup + config.commands,
        cpu: consumer_cpu,
        result: result.clone(),
    };
    let launch = Launch::new(WorkerJob::QueueConsumer(spec), vec![])?;
    let mut workers = Workers::spawn(&config.worker, "consumer", vec![launch])?;
    let hint = "the machine may be overloaded";
    workers.wait_ready(&|| u64::from(ready.is_set()), 1, &|| true, READY_LIMIT, hint)?;
    let batch = run.batch as usize;
    let pushed = std::thread::scope(|s| {
        let thread = s.spawn(|| {
            pin_this_thread(producer_cpu)?;
            produce(
                &mut producer,
                config.warmup,
                config.commands,
                batch,
                || {
                    start.set();
                },
                &|| false,
            )
        });
        thread.join().map_err(|_| anyhow!("the producer thread panicked"))?
    })?;
    workers.wait_exit(EXIT_LIMIT, "it had been sent every command; the machine may be overloaded")?;
    let consumed: Checker = crate::worker_main::read_result(&result, "consumer")?;
    ready.unlink();
    start.unlink();
    Ok((pushed, consumed))
}

/// Which thread of an in-process run failed first (the other then fails only because
/// it was told to stop): 0 none yet.
const CONSUMER_FAILED: u8 = 1;
const PRODUCER_FAILED: u8 = 2;

/// A consumer thread and a producer thread, pinned, over one ring. On a failure the other
/// thread is told to stop, and the first failure is the one reported.
fn in_process<S: Sink, R: Source>(
    mut sink: S,
    mut source: R,
    run: &Point,
    config: &QueueConfig,
) -> Result<(Pushed, Checker)> {
    let (producer_cpu, consumer_cpu) = config.cpus;
    let (ready, go, failed) = (AtomicBool::new(false), AtomicBool::new(false), AtomicU8::new(0));
    let stopped = || failed.load(Ordering::Relaxed) != 0;
    let fail = |who: u8| {
        let _first = failed.compare_exchange(0, who, Ordering::Relaxed, Ordering::Relaxed);
    };
    let total = config.warmup + config.commands;
    std::thread::scope(|s| {
        let consumer = s.spawn(|| {
            let tally = pin_this_thread(consumer_cpu).and_then(|()| {
                // Release: the producer (Acquire) starts only once we are pinned.
                ready.store(true, Ordering::Release);
                spin_until("waiting for the start", || go.load(Ordering::Acquire), &stopped)?;
                consume(&mut source, total, &stopped)
            });
            if tally.is_err() {
                fail(CONSUMER_FAILED);
            }
            tally
        });
        let producer = s.spawn(|| {
            let pushed = pin_this_thread(producer_cpu).and_then(|()| {
                spin_until("waiting for the consumer thread", || ready.load(Ordering::Acquire), &stopped)?;
                let start = || go.store(true, Ordering::Release);
                produce(&mut sink, config.warmup, config.commands, run.batch as usize, start, &stopped)
            });
            drop(sink);
            pushed
        });
        let pushed = producer.join().unwrap_or_else(|_| Err(anyhow!("the producer thread panicked")));
        if pushed.is_err() {
            fail(PRODUCER_FAILED);
        }
        let consumed = consumer.join().unwrap_or_else(|_| Err(anyhow!("the consumer thread panicked")));
        match (pushed, consumed) {
            (Ok(pushed), Ok(consumed)) => Ok((pushed, consumed)),
            (Err(e), _) if failed.load(Ordering::Relaxed) == PRODUCER_FAILED => Err(e.context("producer thread")),
            (_, Err(e)) => Err(e.context("consumer thread")),
            (Err(e), Ok(_)) => Err(e.context("producer thread")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pushed(calls: u64, head_reads: Option<u64>) -> Pushed {
        Pushed { elapsed_ns: 1, calls, full_retries: 2, head_reads }
    }

    #[test]
    fn the_switch_is_held_to_one_load_per_call_off_and_at_most_one_on() {
        check_head_reads(Variant::Uncached, &pushed(10, Some(10))).unwrap();
        let err = check_head_reads(Variant::Uncached, &pushed(10, Some(9))).unwrap_err().to_string();
        assert!(err.contains("9 loads of the consumer's position for 10 push calls"), "{err}");
        assert!(check_head_reads(Variant::PollingUncached, &pushed(10, Some(9))).is_err());
        assert!(check_head_reads(Variant::Polling, &pushed(10, Some(11))).is_err());
        check_head_reads(Variant::Cached, &pushed(10, Some(2))).unwrap();
        let err = check_head_reads(Variant::Cached, &pushed(10, Some(1))).unwrap_err().to_string();
        assert!(err.contains("fewer than the 2 calls that found the ring full"), "{err}");
        assert!(check_head_reads(Variant::CachedInprocess, &pushed(10, Some(11))).is_err());
        assert!(check_head_reads(Variant::Cached, &pushed(10, None)).is_err());
        check_head_reads(Variant::Rtrb, &pushed(10, None)).unwrap();
    }

    #[test]
    fn an_in_process_run_reports_the_thread_that_failed_first() {
        let config = QueueConfig {
            variants: vec![Variant::ArrayQueue],
            batches: vec![1],
            capacity: 16,
            commands: 1000,
            warmup: 0,
            repeat: 1,
            cpus: (0, 5000),
            dir: std::path::PathBuf::new(),
            worker: crate::config::WorkerLauncher { program: std::path::PathBuf::new(), args: vec![] },
        };
        let run = Point { variant: Variant::ArrayQueue, batch: 1 };
        let queue = SharedQueue::new(16);
        let err = format!("{:#}", in_process(queue.clone(), queue, &run, &config).unwrap_err());
        assert!(err.starts_with("consumer thread: CPU 5000"), "{err}");
    }
}
