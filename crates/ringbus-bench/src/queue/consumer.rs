//! The consumer process of the cross-process variants: pins itself, opens the run's queue
//! as its consumer, sets the ready latch, spins until the start latch is set, then pops
//! and checks every command (never sleeping) and leaves its tally in a result file. It
//! dies with the bench (`PR_SET_PDEATHSIG`).

use super::command::Command;
use super::drive::{consume, spin_until};
use super::{READY_LATCH, START_LATCH};
use crate::wake::waiter::pin_this_thread;
use anyhow::{Context, Result};
use ringbus::{Latch, Node, Root};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything the consumer process needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ConsumerSpec {
    /// The run's ringbus root (queue, latches).
    pub root: PathBuf,
    pub queue: String,
    pub capacity: u32,
    /// Commands to pop, warm-up included.
    pub total: u64,
    pub cpu: u32,
    /// Where to write the [`Checker`](super::command::Checker).
    pub result: PathBuf,
}

/// Runs the consumer process.
pub(crate) fn run(spec: &ConsumerSpec) -> Result<()> {
    pin_this_thread(spec.cpu)?;
    let root = Root::open(&spec.root).context("cannot open the bench's ringbus root")?;
    let node = Node::with_root("queue-consumer", &spec.root).context("cannot create the consumer's node")?;
    let mut consumer = node
        .queue::<Command>(&spec.queue)
        .capacity(spec.capacity)
        .spsc()
        .consumer()
        .context("cannot open the queue as its consumer")?;
    let ready = Latch::open(&root, READY_LATCH).context("cannot open the ready latch")?;
    let start = Latch::open(&root, START_LATCH).context("cannot open the start latch")?;
    ready.set();
    // Spinning, not sleeping: the consumer is on its CPU when the first command comes.
    spin_until("waiting for the start", || start.is_set(), &|| false)?;
    let checker = consume(&mut consumer, spec.total, &|| false)?;
    crate::worker_main::write_result(&spec.result, &checker)
}
