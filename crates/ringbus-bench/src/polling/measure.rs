//! One run, bench side: the scenario's topics created and fed from this process, one
//! subscriber process started, its window opened, its result read and checked — in a
//! fresh directory that is removed afterwards, also on error.

use super::feeder::{Feeder, FeederStats};
use super::worker::{PollingWorkerSpec, WorkerResult};
use super::{Point, PollingConfig, Style, READY_LATCH, START_LATCH, TIMER_HZ};
use crate::interrupt;
use crate::launch::{Launch, Workers};
use crate::worker_main::WorkerJob;
use anyhow::{bail, ensure, Context, Result};
use ringbus::{Latch, Node, Root};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long the subscriber gets to start.
const READY_LIMIT: Duration = Duration::from_secs(60);
/// How long past its window the subscriber gets to report and exit.
const EXIT_SLACK: Duration = Duration::from_secs(60);
/// The bench looks for a finished or failed subscriber and Ctrl-C this often.
const CHECK_PERIOD: Duration = Duration::from_millis(20);
/// Subscribers an input topic admits: the node, and room for a `ringbus echo` watching.
/// Fewer than the default keeps each publisher's chunk pool small.
const MAX_SUBSCRIBERS: u32 = 2;

/// What one run measured.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub(crate) result: WorkerResult,
    pub(crate) feeder: FeederStats,
}

/// Runs `run` in `dir` (a fresh directory, removed afterwards by the caller).
pub(crate) fn measure(run: &Point, config: &PollingConfig, dir: &Path) -> Result<Measurement> {
    let root = Root::open(dir).context("cannot open the run's ringbus root")?;
    let node = Node::with_root("bench-feeder", dir).context("cannot create the bench's node")?;
    let topics = run.scenario.topics();
    let mut publishers = Vec::with_capacity(topics.len());
    for t in &topics {
        let builder = node.topic(&t.name).max_payload_bytes(config.payload_bytes).max_subscribers(MAX_SUBSCRIBERS);
        publishers.push(builder.publisher().with_context(|| format!("cannot publish on {}", t.name))?);
    }
    let ready = Latch::open(&root, READY_LATCH).context("cannot create the ready latch")?;
    let start = Latch::open(&root, START_LATCH).context("cannot create the start latch")?;
    let rates = topics.iter().map(|t| t.rate_mhz).collect();
    // Declared before the workers: on an error they are killed first, then it stops.
    let feeder = Feeder::start(publishers, rates, usize::try_from(config.payload_bytes)?)?;
    let result_path = dir.join("result.json");
    let spec = PollingWorkerSpec {
        style: run.style,
        topics: topics.iter().map(|t| t.name.clone()).collect(),
        duration_ns: config.duration_ns,
        root: dir.to_path_buf(),
        result: result_path.clone(),
    };
    let launch = Launch::new(WorkerJob::Polling(spec), vec![])?;
    let mut workers = Workers::spawn(&config.worker, "subscriber", vec![launch])?;
    let hint = "the machine may be overloaded";
    workers.wait_ready(&|| u64::from(ready.is_set()), 1, &|| true, READY_LIMIT, hint)?;
    start.set();
    wait_exit(&mut workers, config.duration_ns)?;
    let feeder = feeder.stop()?;
    let result: WorkerResult = crate::worker_main::read_result(&result_path, "subscriber")?;
    check(run.style, &result)?;
    ready.unlink();
    start.unlink();
    Ok(Measurement { result, feeder })
}

/// Waits for the subscriber to exit after its window, failing if it failed, took far too
/// long, or Ctrl-C was pressed.
fn wait_exit(workers: &mut Workers, duration_ns: u64) -> Result<()> {
    let limit = Duration::from_nanos(duration_ns) + EXIT_SLACK;
    let begin = Instant::now();
    loop {
        interrupt::check()?;
        if workers.reap_exited()? == 0 {
            return Ok(());
        }
        if begin.elapsed() > limit {
            bail!("the subscriber was still running {limit:?} after the start; {}", "the machine may be overloaded");
        }
        std::thread::sleep(CHECK_PERIOD);
    }
}

/// What every run must show, whatever the machine's speed: the timer ran about ten times
/// a second (±2, plus one per second of slack), and the polling style cost publishers no
/// wake system call and woke its thread only for its timer.
pub(crate) fn check(style: Style, r: &WorkerResult) -> Result<()> {
    let seconds = r.elapsed_ns as f64 / 1e9;
    let expected = seconds * TIMER_HZ as f64;
    let slack = 2.0 + seconds.ceil();
    ensure!(
        (r.timer_calls as f64 - expected).abs() <= slack,
        "the {TIMER_HZ} Hz timer ran {} times in {seconds:.2} s, expected {expected:.0} ± {slack:.0}; \
         the machine may be overloaded",
        r.timer_calls
    );
    ensure!(r.messages_published > 0, "nothing was published during the {seconds:.2} s window");
    if style == Style::Polling {
        ensure!(
            r.publisher_wake_syscalls == 0,
            "polling style: the publishers made {} wake system calls, but Wake::Never subscribers must cost them none",
            r.publisher_wake_syscalls
        );
        ensure!(
            r.wakeups == r.timer_calls,
            "polling style: the executor woke {} times for {} timer calls; only the timer may wake it",
            r.wakeups,
            r.timer_calls
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(seconds: u64, timer_calls: u64, wakeups: u64, publisher_wake_syscalls: u64) -> WorkerResult {
        WorkerResult {
            elapsed_ns: seconds * 1_000_000_000,
            timer_calls,
            wakeups,
            publisher_wake_syscalls,
            messages_published: 100,
            ..WorkerResult::default()
        }
    }

    #[test]
    fn runs_are_checked_for_the_timer_rate_and_the_polling_promises() {
        check(Style::Polling, &result(5, 50, 50, 0)).unwrap();
        check(Style::Callback, &result(5, 50, 400, 350)).unwrap();
        // 5 s: 50 ± 7.
        check(Style::Callback, &result(5, 43, 400, 350)).unwrap();
        check(Style::Callback, &result(5, 57, 400, 350)).unwrap();
        let err = check(Style::Callback, &result(5, 42, 400, 350)).unwrap_err().to_string();
        assert!(err.contains("ran 42 times"), "{err}");
        assert!(check(Style::Callback, &result(5, 58, 400, 350)).is_err());
        let err = check(Style::Polling, &result(5, 50, 50, 1)).unwrap_err().to_string();
        assert!(err.contains("1 wake system calls"), "{err}");
        let err = check(Style::Polling, &result(5, 50, 51, 0)).unwrap_err().to_string();
        assert!(err.contains("woke 51 times for 50 timer calls"), "{err}");
        let nothing = WorkerResult { messages_published: 0, ..result(1, 10, 10, 0) };
        assert!(check(Style::Polling, &nothing).is_err());
    }
}
