//! One run: P workers, one mechanism, J jobs, in a fresh directory that is removed
//! afterwards; the workers' records summed and checked.

use super::board::Board;
use super::jobserver::{PipeJobserver, TokenEndpoint};
use super::worker::TokensWorkerSpec;
use super::{Mechanism, Point, TokensConfig, DONE_LATCH, SEMAPHORE, START_LATCH};
use crate::interrupt;
use crate::launch::{Launch, Workers};
use crate::usage::Usage;
use crate::worker_main::WorkerJob;
use anyhow::{bail, ensure, Context, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::{Latch, Root, Semaphore, WakeStats};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long workers get to start.
const READY_LIMIT: Duration = Duration::from_secs(60);
/// How long the jobs may take, at most.
const RUN_LIMIT: Duration = Duration::from_secs(600);
/// How long workers get to exit once all finished.
const EXIT_LIMIT: Duration = Duration::from_secs(30);
/// The bench looks for failed workers and Ctrl-C this often while the jobs run.
const CHECK_PERIOD: Duration = Duration::from_millis(100);

/// What one run measured, summed over its workers.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub(crate) jobs: u64,
    pub(crate) wall_ns: u64,
    pub(crate) usage: Usage,
    pub(crate) max_holders: u64,
    /// Pipe only.
    pub(crate) failed_takes: Option<u64>,
    /// Semaphore only.
    pub(crate) wake: Option<WakeStats>,
}

/// The tokens of one run, bench side.
enum Source {
    Pipe(PipeJobserver),
    Semaphore(Semaphore),
}

impl Source {
    fn create(mechanism: Mechanism, root: &Root, tokens: u32) -> Result<Source> {
        Ok(match mechanism {
            Mechanism::Pipe => Source::Pipe(PipeJobserver::create(tokens)?),
            Mechanism::Semaphore => Source::Semaphore(
                Semaphore::open(root, SEMAPHORE, tokens).context("cannot create the bench's semaphore")?,
            ),
        })
    }

    fn endpoint(&self) -> (TokenEndpoint, Vec<i32>) {
        match self {
            Source::Pipe(p) => {
                let (read_fd, write_fd) = (p.read.as_raw_fd(), p.write.as_raw_fd());
                (TokenEndpoint::Pipe { read_fd, write_fd }, vec![read_fd, write_fd])
            }
            Source::Semaphore(_) => (TokenEndpoint::Semaphore { name: SEMAPHORE.into() }, vec![]),
        }
    }

    /// Tokens free now (all of them, once every worker is gone).
    fn free(&self) -> Result<u64> {
        match self {
            Source::Pipe(p) => p.drain(),
            Source::Semaphore(s) => Ok(s.value().into()),
        }
    }
}

/// Runs `run` in `dir` (a fresh directory, removed afterwards by the caller).
pub(crate) fn measure(run: &Point, config: &TokensConfig, dir: &Path) -> Result<Measurement> {
    let root = Root::open(dir).context("cannot open the run's ringbus root")?;
    let board_path = dir.join("board");
    let board = Board::create(&board_path, run.workers as usize)?;
    let start = Latch::open(&root, START_LATCH).context("cannot create the start latch")?;
    let done = Latch::open(&root, DONE_LATCH).context("cannot create the done latch")?;
    let source = Source::create(run.mechanism, &root, config.tokens)?;
    let (endpoint, inherit) = source.endpoint();
    let mut launches = Vec::with_capacity(run.workers as usize);
    for index in 0..run.workers {
        let spec = TokensWorkerSpec {
            index,
            workers: run.workers,
            jobs: config.jobs,
            job_ns: config.job_us * 1000,
            root: dir.to_path_buf(),
            board: board_path.clone(),
            tokens: endpoint.clone(),
        };
        launches.push(Launch::new(WorkerJob::Tokens(spec), inherit.clone())?);
    }
    let mut workers = Workers::spawn(&config.worker, "worker", launches)?;
    let n = u64::from(run.workers);
    workers.wait_ready(&|| board.ready(), n, &|| true, READY_LIMIT, "try fewer --workers")?;
    let t0 = monotonic_ns();
    start.set();
    wait_done(&mut workers, &done, &board, n)?;
    workers.wait_exit(EXIT_LIMIT, "they had finished their jobs; the machine may be overloaded")?;
    let m = summarize(run, config, &board, t0, &source)?;
    if let Source::Semaphore(s) = &source {
        s.unlink();
    }
    start.unlink();
    done.unlink();
    Ok(m)
}

/// Waits for the done latch, failing early if a worker fails or Ctrl-C is pressed.
fn wait_done(workers: &mut Workers, done: &Latch, board: &Board, n: u64) -> Result<()> {
    let begin = Instant::now();
    while done.wait(Some(CHECK_PERIOD)).is_err() {
        interrupt::check()?;
        let running = workers.reap_exited()?;
        if running == 0 && !done.is_set() {
            bail!("every worker exited, but only {} of {n} left their record", board.finished());
        }
        if begin.elapsed() > RUN_LIMIT {
            bail!("the jobs were not done after {RUN_LIMIT:?}; try fewer --jobs or a shorter --job-us");
        }
    }
    Ok(())
}

/// Sums the workers' records and checks the run kept its promises.
fn summarize(run: &Point, config: &TokensConfig, board: &Board, t0: u64, source: &Source) -> Result<Measurement> {
    let mut m = Measurement {
        jobs: 0,
        wall_ns: 0,
        usage: Usage::default(),
        max_holders: board.max_holders(),
        failed_takes: None,
        wake: None,
    };
    let mut end_ns = t0;
    for i in 0..run.workers as usize {
        let r = board.record(i);
        m.jobs += r.jobs;
        m.usage = m.usage.plus(r.usage);
        end_ns = end_ns.max(r.end_ns);
        if run.mechanism == Mechanism::Pipe {
            *m.failed_takes.get_or_insert(0) += r.failed_takes;
        }
    }
    m.wall_ns = end_ns - t0;
    ensure!(m.jobs == config.jobs, "the workers ran {} jobs, not {}", m.jobs, config.jobs);
    // Each worker's last claim is the one that found no job left.
    let claims = config.jobs + u64::from(run.workers);
    ensure!(board.claimed() == claims, "{} job claims, expected {claims}", board.claimed());
    let tokens = u64::from(config.tokens);
    ensure!(m.max_holders <= tokens, "{} workers held a token at once, with {tokens} tokens", m.max_holders);
    let free = source.free()?;
    ensure!(free == tokens, "{free} of {tokens} tokens were back after the run");
    if let Source::Semaphore(s) = source {
        m.wake = Some(s.stats());
    }
    Ok(m)
}
