//! Request/response round trips through `ringbus::service`: a server process pinned to
//! the consumer's CPU answers `u64 → u64`, a client in the bench process pinned to the
//! producer's CPU times each `call` from before the push to the answer popped. The server
//! sleeps on its request doorbell between calls, so a round trip includes two wake-ups
//! across processes — what a real request costs, not a spinning best case.

use super::{QueueConfig, READY_LATCH};
use crate::launch::{Launch, Workers};
use crate::report::Table;
use crate::rundir::RunDir;
use crate::stats;
use crate::wake::waiter::pin_this_thread;
use crate::worker_main::WorkerJob;
use anyhow::{ensure, Context, Result};
use hdrhistogram::Histogram;
use ringbus::diagnostics::monotonic_ns;
use ringbus::service::{Client, Server};
use ringbus::{Latch, Node, Root};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

const SERVICE: &str = "bench/echo";
const CALL_LIMIT: Duration = Duration::from_secs(10);

/// Round trips measured (after warm-up).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ServiceRow {
    pub calls: u64,
    pub rtt_p50_us: f64,
    pub rtt_p99_us: f64,
    pub rtt_max_us: f64,
}

/// What the server process needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ServerSpec {
    pub root: PathBuf,
    pub cpu: u32,
}

/// The server process: answers until the bench kills it.
pub(crate) fn serve(spec: &ServerSpec) -> Result<()> {
    pin_this_thread(spec.cpu)?;
    let root = Root::open(&spec.root).context("cannot open the bench's ringbus root")?;
    let node = Node::with_root("queue-server", &spec.root).context("cannot create the server's node")?;
    let mut server = Server::<u64, u64>::new(&node, SERVICE, 64).context("cannot serve the bench's service")?;
    Latch::open(&root, READY_LATCH)?.set();
    loop {
        server.serve_once(Some(Duration::from_secs(1)), |x| x.wrapping_mul(3))?;
    }
}

/// Measures `calls` round trips (after a tenth as many unmeasured) in a run directory of
/// its own under `config.dir`, on `config.cpus`.
pub fn run(config: &QueueConfig, calls: u64, note: &mut dyn FnMut(&str)) -> Result<ServiceRow> {
    ensure!(calls > 0, "no calls to measure");
    let run_dir = RunDir::create(&config.dir, note)?;
    let row = measure(run_dir.path(), config, calls / 10, calls)?;
    run_dir.close()?;
    Ok(row)
}

fn measure(dir: &Path, config: &QueueConfig, warmup: u64, calls: u64) -> Result<ServiceRow> {
    let (launcher, cpus) = (&config.worker, config.cpus);
    let root = Root::open(dir).context("cannot open the run's ringbus root")?;
    let ready = Latch::open(&root, READY_LATCH)?;
    let spec = ServerSpec { root: dir.to_path_buf(), cpu: cpus.1 };
    let launch = Launch::new(WorkerJob::QueueServer(spec), vec![])?;
    let mut workers = Workers::spawn(launcher, "server", vec![launch])?;
    workers.wait_ready(&|| u64::from(ready.is_set()), 1, &|| true, Duration::from_secs(60), "try again")?;
    // A thread of its own, pinned, so the bench's main thread keeps its CPUs.
    let rtt = std::thread::scope(|s| s.spawn(|| time_calls(dir, cpus.0, warmup, calls)).join())
        .map_err(|_| anyhow::anyhow!("the client thread panicked"))??;
    drop((workers, ready));
    let (p50, p99, max) = (stats::us(&rtt, 0.5), stats::us(&rtt, 0.99), stats::us(&rtt, 1.0));
    Ok(ServiceRow { calls, rtt_p50_us: p50, rtt_p99_us: p99, rtt_max_us: max })
}

/// The client: `warmup + calls` calls on CPU `cpu`; the measured round trips.
fn time_calls(dir: &Path, cpu: u32, warmup: u64, calls: u64) -> Result<Histogram<u64>> {
    pin_this_thread(cpu)?;
    let node = Node::with_root("queue-client", dir).context("cannot create the client's node")?;
    let mut client = Client::<u64, u64>::new(&node, SERVICE, 64).context("cannot open the bench's client")?;
    let mut rtt_ns = stats::histogram();
    for i in 0..warmup + calls {
        crate::interrupt::check()?;
        let t0 = monotonic_ns();
        let answer = client.call(i, CALL_LIMIT).with_context(|| format!("call {i}"))?;
        let t1 = monotonic_ns();
        ensure!(answer == i.wrapping_mul(3), "call {i} answered {answer}");
        if i >= warmup {
            rtt_ns.saturating_record(t1 - t0);
        }
    }
    Ok(rtt_ns)
}

/// The service row as a markdown table.
pub fn markdown(row: &ServiceRow) -> String {
    Table::<ServiceRow>::new()
        .text("what", |_| "service round trip".into())
        .number("calls", |r| format!("{} calls", r.calls))
        .number("p50", |r| format!("p50 {:.1} µs", r.rtt_p50_us))
        .number("p99", |r| format!("p99 {:.1} µs", r.rtt_p99_us))
        .number("max", |r| format!("max {:.1} µs", r.rtt_max_us))
        .markdown([row])
}
