//! The main of a worker process (the bench's own binary re-executed; the bench side that
//! starts and watches these processes is `launch.rs`). The bench tells it what to do
//! in one JSON argument, a `WorkerJob`: a fan-out subscriber records each message's
//! end-to-end latency into the shared results file and exits after the last message; a
//! token worker runs jobs (the `tokens::worker` module); the polling bench's subscriber runs
//! a node (`polling::worker`); the queue bench's consumer pops and checks commands
//! (`queue::consumer`); the memory bench's publisher and subscribers run one stream each
//! (`memory::publisher`, `memory::subscriber`); the ping-pong's echo end echoes rounds
//! (`pingpong::worker`).
//! Every worker dies with the bench (`PR_SET_PDEATHSIG`), so none is ever left behind
//! blocked on a wake-up that will not come.

use crate::transports;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// What a worker process is started to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum WorkerJob {
    /// A subscriber of `ringbus bench fanout`.
    Fanout(crate::fanout::subscriber::SubscriberSpec),
    /// A token worker of `ringbus bench tokens`.
    Tokens(crate::tokens::worker::TokensWorkerSpec),
    /// The waiter of `ringbus bench wake`.
    Wake(crate::wake::waiter::WakeWorkerSpec),
    /// The subscriber node of `ringbus bench polling`.
    Polling(crate::polling::worker::PollingWorkerSpec),
    /// The consumer process of `ringbus bench queue`.
    QueueConsumer(crate::queue::consumer::ConsumerSpec),
    /// The service server of `ringbus bench queue`.
    QueueServer(crate::queue::service::ServerSpec),
    /// The publisher of a `ringbus bench memory` run.
    MemoryPublisher(crate::memory::publisher::PublisherSpec),
    /// A subscriber of a `ringbus bench memory` run.
    MemorySubscriber(crate::memory::subscriber::SubscriberSpec),
    /// The echo end of a `ringbus bench pingpong --processes` run.
    Pingpong(crate::pingpong::worker::PingpongWorkerSpec),
}

/// What the bench hands a worker process: its job, and the bench's pid, for the worker to
/// die with it.
#[derive(Debug, Serialize, Deserialize)]
struct Spec {
    parent_pid: u32,
    job: WorkerJob,
}

impl WorkerJob {
    /// The argument that starts a worker process on this job, watched by this process.
    pub(crate) fn into_arg(self) -> Result<String> {
        Ok(serde_json::to_string(&Spec { parent_pid: std::process::id(), job: self })?)
    }
}

/// Asks the kernel to SIGKILL us when the bench goes; fails if it already went.
fn die_with_parent(parent_pid: u32) -> Result<()> {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number and no pointers.
    let r = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) };
    transports::check(r.into(), || "prctl(PR_SET_PDEATHSIG)".into())?;
    if std::os::unix::process::parent_id() != parent_pid {
        bail!("the bench (pid {parent_pid}) is gone");
    }
    Ok(())
}

/// Writes a worker's result as JSON, whole or not at all (a file renamed into place), for
/// the bench to read with [`read_result`] once the worker has exited.
pub(crate) fn write_result<T: Serialize>(path: &std::path::Path, result: &T) -> Result<()> {
    let partial = path.with_extension("partial");
    std::fs::write(&partial, serde_json::to_vec(result)?)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("cannot rename {} into place", partial.display()))
}

/// Reads the result a worker (`who`) left with [`write_result`].
pub(crate) fn read_result<T: serde::de::DeserializeOwned>(path: &std::path::Path, who: &str) -> Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("the {who} exited without writing its result"))?;
    serde_json::from_str(&text).with_context(|| format!("the {who}'s result is not valid"))
}

/// Runs one worker process from the JSON `spec` the bench passed on its command line.
pub fn run(spec: &str) -> Result<()> {
    let spec: Spec = serde_json::from_str(spec)
        .context("bench-worker is started by `ringbus bench`, not by hand: its argument is not a valid spec")?;
    die_with_parent(spec.parent_pid)?;
    match spec.job {
        WorkerJob::Fanout(spec) => crate::fanout::subscriber::run(&spec),
        WorkerJob::Tokens(spec) => crate::tokens::worker::run(&spec),
        WorkerJob::Wake(spec) => crate::wake::waiter::run(&spec),
        WorkerJob::Polling(spec) => crate::polling::worker::run(&spec),
        WorkerJob::QueueConsumer(spec) => crate::queue::consumer::run(&spec),
        WorkerJob::QueueServer(spec) => crate::queue::service::serve(&spec),
        WorkerJob::MemoryPublisher(spec) => crate::memory::publisher::run(&spec),
        WorkerJob::MemorySubscriber(spec) => crate::memory::subscriber::run(&spec),
        WorkerJob::Pingpong(spec) => crate::pingpong::worker::run(&spec),
    }
}
