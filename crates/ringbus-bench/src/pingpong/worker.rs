//! The echo process of a `processes` run: pins itself, opens its end (the run's topics, or
//! the floor's two lines in a shared file), sets the ready latch, then echoes every round.
//! It dies with the bench (`PR_SET_PDEATHSIG`).

use super::run::topic_side;
use super::sides::{echo, FloorSide};
use super::{Point, Variant};
use crate::shm::SharedWords;
use crate::wake::waiter::pin_this_thread;
use anyhow::{Context, Result};
use ringbus::{Latch, Node, Root};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The initiator publishes here; the echo end subscribes.
pub(crate) const PING: &str = "bench/ping";
/// The echo end publishes here; the initiator subscribes.
pub(crate) const PONG: &str = "bench/pong";
/// Set by the echo process once its end is open.
pub(crate) const READY_LATCH: &str = "bench/ready";
/// The floor's file, under the run's root: two lines of [`LINE_WORDS`] words.
pub(crate) const FLOOR_FILE: &str = "floor.words";
const LINE_WORDS: usize = 8;
pub(crate) const FLOOR_WORDS: usize = 2 * LINE_WORDS;

/// Everything the echo process needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PingpongWorkerSpec {
    /// The run's ringbus root (topics, latch, the floor's file).
    pub root: PathBuf,
    pub point: Point,
    /// Rounds to echo, warm-up included.
    pub total: u64,
    pub cpu: u32,
}

/// The floor's end `end` (0: the initiator, 1: the echo) over the shared file's two lines.
pub(crate) fn floor_side(words: &SharedWords, end: usize) -> FloorSide<'_> {
    let w = words.words();
    FloorSide { mine: &w[end * LINE_WORDS], theirs: &w[(1 - end) * LINE_WORDS] }
}

/// Runs the echo process.
pub(crate) fn run(spec: &PingpongWorkerSpec) -> Result<()> {
    pin_this_thread(spec.cpu)?;
    let root = Root::open(&spec.root).context("cannot open the bench's ringbus root")?;
    let ready = Latch::open(&root, READY_LATCH).context("cannot open the ready latch")?;
    match spec.point.variant {
        Variant::Floor => {
            let words = SharedWords::open(&spec.root.join(FLOOR_FILE), FLOOR_WORDS)?;
            ready.set();
            echo(&mut floor_side(&words, 1), spec.total, &mut || false)
        }
        Variant::Ringbus | Variant::RingbusTakeWith => {
            let node = Node::with_root("pingpong-echo", &spec.root).context("cannot create the echo's node")?;
            let mut side = topic_side(&node, &spec.point, PONG, PING)?;
            ready.set();
            echo(&mut side, spec.total, &mut || false)
        }
    }
}
