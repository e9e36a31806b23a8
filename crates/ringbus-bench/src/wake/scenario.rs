//! The run, bench side: one waiter per backend, all started together, each with its board
//! in a fresh directory (removed afterwards, also on error); then rounds of paced wakes in
//! which every waiter is woken once, so slow spells of a shared machine hit every backend
//! alike; then one row per backend.

use super::board::Board;
use super::waiter::WakeWorkerSpec;
use super::{WakeBackend, WakeConfig, WakeRow};
use crate::driver::Progress;
use crate::interrupt;
use crate::launch::{Launch, Workers};
use crate::stats;
use crate::worker_main::WorkerJob;
use anyhow::{bail, ensure, Context, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::waitset::BackendChoice;
use ringbus::{Interest, WaitSet};
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long the waiters get to start.
const READY_LIMIT: Duration = Duration::from_secs(30);
/// How long the waiter gets to announce it sleeps again after a wake.
const ASLEEP_LIMIT: Duration = Duration::from_secs(10);
/// After the flag, how long the waiter gets to be seen asleep in the kernel before the
/// wake is sent anyway (and counted in `wakes_not_asleep`).
const KERNEL_SLEEP_LIMIT: Duration = Duration::from_millis(20);
/// How long the waiters get to exit after the last wake.
const EXIT_LIMIT: Duration = Duration::from_secs(10);

/// Whether this machine lets a wait set use `backend` with its sources (io_uring may be
/// refused by seccomp or `kernel.io_uring_disabled`); the reason if not.
pub(crate) fn probe(backend: WakeBackend) -> Result<(), String> {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").map_err(|e| format!("cannot bind a socket: {e}"))?;
    let set = WaitSet::with_backend(BackendChoice::Force(backend.backend())).map_err(|e| e.to_string())?;
    if backend.fds() > 0 {
        let attached = set.attach_fd(socket.as_fd(), Interest::Readable).map_err(|e| e.to_string())?;
        drop(attached);
    }
    Ok(())
}

/// One backend's waiter, bench side.
struct Lane {
    backend: WakeBackend,
    board: Board,
    /// The waiter's pid, once it is ready.
    pid: u32,
    not_asleep: u64,
}

/// Measures `backends` together in `dir` (fresh, removed afterwards by the caller): one row
/// per backend, in their order.
pub(crate) fn measure(
    backends: &[WakeBackend],
    config: &WakeConfig,
    dir: &Path,
    progress: &mut dyn Progress,
) -> Result<Vec<WakeRow>> {
    let total = usize::try_from(config.warmup + config.count)?;
    let mut lanes = Vec::with_capacity(backends.len());
    let mut launches = Vec::with_capacity(backends.len());
    for &backend in backends {
        let board_path = dir.join(backend.name());
        let board = Board::create(&board_path, total)?;
        let spec = WakeWorkerSpec {
            backend,
            board: board_path,
            warmup: config.warmup,
            count: config.count,
            cpu: config.cpus.map(|(_, waiter)| waiter),
        };
        launches.push(Launch::new(WorkerJob::Wake(spec), Vec::new())?);
        lanes.push(Lane { backend, board, pid: 0, not_asleep: 0 });
    }
    let mut workers = Workers::spawn(&config.worker, "waiter", launches)?;
    let ready = || lanes.iter().filter(|l| l.board.ready().is_some()).count() as u64;
    workers.wait_ready(&ready, lanes.len() as u64, &|| true, READY_LIMIT, "the machine may be overloaded")?;
    for lane in &mut lanes {
        lane.pid = lane.board.ready().context("a waiter is ready without a pid")?;
    }
    progress.length(lanes.len() as u64 * total as u64);
    progress.at(0, "wakes");
    let period_ns = (1e9 / config.rate_hz) as u64;
    let mut next_ns = monotonic_ns();
    for seq in 0..total {
        // Each round wakes every waiter once, starting from a different one each time.
        for k in 0..lanes.len() {
            interrupt::check()?;
            sleep_until(next_ns);
            let lane = &mut lanes[(seq + k) % backends.len()];
            let t0 = wake_one(&mut workers, lane, seq, seq >= config.warmup as usize)?;
            // Paced from the schedule, but never in a burst to catch up after a late wake.
            next_ns = (next_ns + period_ns).max(t0);
            progress.tick();
        }
    }
    workers.wait_exit(EXIT_LIMIT, "they had received every wake; the machine may be overloaded")?;
    lanes.iter().map(|lane| row(lane, config)).collect()
}

/// Makes wake `seq` of `lane` once its waiter sleeps; returns its `t0`.
fn wake_one(workers: &mut Workers, lane: &mut Lane, seq: usize, measured: bool) -> Result<u64> {
    if !wait_asleep(workers, lane, seq)? && measured {
        lane.not_asleep += 1;
    }
    let word = &lane.board.words()[seq % lane.backend.words()];
    let t0 = monotonic_ns();
    lane.board.set_t0(t0);
    // Release: pairs with the waiter's Acquire load of the word; publishes `t0`.
    word.fetch_add(1, Ordering::Release);
    ringbus::wake(word, 1);
    Ok(t0)
}

fn sleep_until(deadline_ns: u64) {
    let now = monotonic_ns();
    if deadline_ns > now {
        std::thread::sleep(Duration::from_nanos(deadline_ns - now));
    }
}

/// Waits until the waiter says it sleeps for wake `seq` (failing if it died or is stuck),
/// then until the kernel shows it asleep; `false` if the kernel did not within
/// [`KERNEL_SLEEP_LIMIT`].
fn wait_asleep(workers: &mut Workers, lane: &Lane, seq: usize) -> Result<bool> {
    let (start, backend) = (Instant::now(), lane.backend);
    while !lane.board.asleep_for(seq) {
        if workers.reap_exited()? == 0 {
            bail!("the {backend} waiter exited before wake {seq}");
        }
        interrupt::check()?;
        if start.elapsed() > ASLEEP_LIMIT {
            bail!(
                "the {backend} waiter was not ready for wake {seq} after {ASLEEP_LIMIT:?}; \
                 the machine may be overloaded"
            );
        }
        std::thread::sleep(Duration::from_micros(50));
    }
    let start = Instant::now();
    loop {
        if sleeping(lane.pid)? {
            return Ok(true);
        }
        if start.elapsed() > KERNEL_SLEEP_LIMIT {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_micros(20));
    }
}

/// Whether the main thread of `pid` is in an interruptible sleep (`S` in its stat line).
fn sleeping(pid: u32) -> Result<bool> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    // The state follows the command name, which is in parentheses and may hold any byte.
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
    Ok(state == Some('S'))
}

fn row(lane: &Lane, config: &WakeConfig) -> Result<WakeRow> {
    let (backend, board) = (lane.backend, &lane.board);
    let cpu_us = board.done().with_context(|| format!("the {backend} waiter exited without leaving its record"))?;
    let mut histogram = stats::histogram();
    let (warmup, total) = (config.warmup as usize, (config.warmup + config.count) as usize);
    for seq in warmup..total {
        let ns = board.latency(seq).with_context(|| format!("the {backend} waiter did not record wake {seq}"))?;
        histogram.saturating_record(ns);
    }
    ensure!(histogram.len() == config.count, "{} wakes recorded, expected {}", histogram.len(), config.count);
    Ok(WakeRow {
        backend,
        words: backend.words() as u32,
        fds: backend.fds() as u32,
        wakes: config.count,
        rate_hz: config.rate_hz,
        wake_p50_us: stats::us(&histogram, 0.5),
        wake_p99_us: stats::us(&histogram, 0.99),
        p50_vs_futex: None,
        waiter_cpu_us_per_wake: cpu_us as f64 / config.count as f64,
        wakes_not_asleep: lane.not_asleep,
        waker_cpu: config.cpus.map(|(waker, _)| waker),
        waiter_cpu: config.cpus.map(|(_, waiter)| waiter),
    })
}
