//! ringbus: processes on one Linux machine exchange messages through shared memory with
//! zero copies, O(1) publishing whatever the number of subscribers, no system call when no
//! subscriber sleeps and exactly one when any does.
//!
//! # Overview
//!
//! - [`Node`]: a participant. Everything else is opened from a node, under its *root*
//!   directory (`$RINGBUS_ROOT`, or `/dev/shm/ringbus-<uid>`), which the node also keeps
//!   clean of what dead processes left.
//! - Publish/subscribe: [`Node::topic`] gives a [`TopicBuilder`] (the topic's settings)
//!   that opens a [`Publisher`] or a [`Subscriber`]. A publisher lends a [`Loan`] to write
//!   the message into in place, then publishes it; a subscriber hands out each message as
//!   a [`Sample`] read in place, by polling ([`Subscriber::take`],
//!   [`take_latest`](Subscriber::take_latest), [`take_all`](Subscriber::take_all)) or by
//!   sleeping until it comes ([`Subscriber::receive`]). Typed messages are [`Pod`] types.
//! - Command queues: [`Node::queue`] opens a bounded queue of fixed-size commands with one
//!   [`Consumer`] and one or many [`Producer`]s; [`service`] builds request/response on
//!   them.
//! - Waking between processes: a [`Latch`] (an event), a [`Semaphore`] (tokens), and
//!   [`wait`] / [`wake`] on any 32-bit word of shared memory.
//! - Waiting on many things at once: a [`WaitSet`] sleeps on subscribers, words, latches,
//!   semaphores, fds, timers and peer death together; an [`Executor`] runs timers and
//!   callbacks over one, in the callback or the polling style.
//! - Tools: [`inspect`] reads what a root holds (as `ringbus list` and `ringbus top` show
//!   it); [`clean`] removes what dead processes left.
//! - Errors: one enum per operation ([`OpenError`], [`LoanError`], [`TakeError`],
//!   [`ReceiveError`], [`QueueError`], [`WaitSetError`], ...); each variant says when it
//!   happens and what to do.
//!
//! A publisher and a subscriber, here in one process (they work the same from two):
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! use ringbus::Node;
//! let node = Node::with_root("example", dir.path())?;
//! let mut publisher = node.topic("chatter").max_payload_bytes(64).publisher()?;
//! let mut subscriber = node.topic("chatter").subscriber()?;
//!
//! let mut loan = publisher.loan_uninit(5)?;   // a chunk of shared memory, lent to us
//! loan.copy_from_slice(b"hello");             // write the message in place
//! loan.publish();                             // O(1), no syscall: nobody sleeps
//!
//! let sample = subscriber.take()?.expect("published above");
//! assert_eq!(&*sample, b"hello");             // read in place: zero copies
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Layers
//! Each module uses only modules of lower layers: the protocols work over borrowed atomics
//! and know nothing of files; `shm` lays out every shared-memory struct (one module each)
//! and is the only place that reads or writes them raw; the handles above it run the
//! protocols over what `shm` lends. `tests/layers.rs` fails when an import breaks this.
//!
//! ```text
//!  9  executor                timers and callbacks on one thread, callback or polling style
//!  8  waitset                 one wait over topics, words, latches, semaphores, fds, timers
//!  7  registry                a peer's death, inspection of topics and queues, cleanup
//!  6  service                 request/response over two queues
//!  5  pubsub queue objects    topics, publishers, subscribers; command queues; latches, semaphores
//!  4  node                    a participant, its identity and the sweep of dead ones
//!  3  shm                     segments, the header contract, each shared struct's layout
//!  2  ring pool notify        log seqlock, command ring; chunk pins; wake protocol, words
//!  1  sync open_wait          atomics (swapped for loom's in model checks), cache padding; lock waits with a deadline
//!  0  sys error               system calls; error types
//! ```
#![deny(unsafe_code)]
// Code placement. The functions a subscriber runs on every message it takes (take,
// receive, pin and release of the chunk, its counters) and the out-of-line parts of a
// publish (the wake call, the loan's bytes) carry `#[link_section = ".text.hot.ringbus"]`:
// one text section in each object file. With link-time optimisation (one object, as in
// this workspace's release profile), or with GNU ld (which groups `.text.hot.*`), that
// path is contiguous: 2 pages of code instead of 7. A woken subscriber's process has usually
// lost its TLB entries to the other processes that ran on its CPU, so each page it
// touches after the wake-up costs a page walk (BENCHMARKS.md, "Pages touched per
// delivery"). The attribute names a section and nothing else; `unsafe_code` counts it as
// unsafe (nightly on every function, stable on free functions only), so each use allows it.
// The section starts on a page boundary (`sys::code_placement`): the take path (about
// 7.5 KiB) then spans 2 pages, where it straddled 3.
#![warn(missing_debug_implementations)]
#![warn(missing_docs)]

pub(crate) mod notify;
pub(crate) mod pool;
pub mod queue;
pub(crate) mod ring;
pub(crate) mod sync;

// The loom build (`--cfg loom`) compiles only the modules above, for their models; what in
// them only the modules below use is `#[cfg(not(loom))]` too, so neither build has dead code.
#[cfg(not(loom))]
pub mod error;
#[cfg(not(loom))]
pub mod executor;
#[cfg(not(loom))]
pub(crate) mod node;
#[cfg(not(loom))]
pub(crate) mod objects;
#[cfg(not(loom))]
pub(crate) mod open_wait;
#[cfg(not(loom))]
pub(crate) mod pubsub;
#[cfg(not(loom))]
pub(crate) mod registry;
#[cfg(not(loom))]
pub mod service;
#[cfg(not(loom))]
pub(crate) mod shm;
#[cfg(not(loom))]
pub(crate) mod sys;
#[cfg(not(loom))]
pub mod waitset;

#[cfg(not(loom))]
pub use error::{Corruption, LoanError, OpenError, PrivateDirError, ReceiveError, TakeError, ViewError};
#[cfg(not(loom))]
pub use executor::{Control, Executor, Input};
#[cfg(not(loom))]
pub use node::Node;
pub use notify::semaphore::MAX_SEMAPHORE_COUNT;
#[cfg(not(loom))]
pub use notify::word::{wait, wake};
pub use notify::{TimedOut, Wake};
#[cfg(not(loom))]
pub use objects::{Latch, Semaphore, SemaphoreFull, WakeStats};
#[cfg(not(loom))]
pub use open_wait::DEFAULT_OPEN_TIMEOUT;
#[cfg(not(loom))]
pub use pubsub::{
    DetachedLoan, Loan, Publisher, PublisherId, PublisherStats, Sample, Subscriber, TakeAll, TopicBuilder, WhenFull,
    MAX_CHUNKS, MAX_DEPTH, MAX_HELD, MAX_PAYLOAD_BYTES, MAX_POOL_BYTES, MAX_PUBLISHERS, MAX_SUBSCRIBERS,
    MAX_TOPIC_NAME_BYTES,
};
#[cfg(not(loom))]
pub use queue::{CommandType, Consumer, Producer, PushError, QueueError, RawCommand};
#[cfg(not(loom))]
pub use registry::{clean, clean_with, inspect, CleanOptions, CleanReport};
#[cfg(not(loom))]
pub use shm::pod::Pod;
#[cfg(not(loom))]
pub use shm::root::{check_private_dir, create_private_dir, ROOT_ENV};
#[cfg(not(loom))]
pub use shm::Root;
#[cfg(not(loom))]
pub use waitset::{Attachment, Event, EventKind, Interest, Key, WaitSet, WaitSetError};

/// Tools for measuring ringbus itself (benchmarks and tests).
#[cfg(not(loom))]
pub mod diagnostics {
    pub use crate::shm::header::LAYOUT_VERSION;
    pub use crate::sys::clock::monotonic_ns;
    pub use crate::sys::perf::SyscallCounter;
    use crate::{Consumer, Pod, Producer};

    /// Turns a producer's cached copy of the consumer position off (every push loads the
    /// shared one) or back on, to measure what the cache saves (`ringbus bench queue`).
    /// On by default; nothing but a measurement has a reason to turn it off.
    pub fn set_head_cache<T: Pod>(producer: &mut Producer<T>, on: bool) {
        producer.set_head_cache(on);
    }

    /// The same for an SPSC consumer's cached copy of the producer position.
    pub fn set_tail_cache<T: Pod>(consumer: &mut Consumer<T>, on: bool) {
        consumer.set_tail_cache(on);
    }
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The user guide's examples (`docs/src`), compiled and run as doctests: one item per
/// chapter with Rust code. A chapter that gains Rust code needs a line here.
#[cfg(doctest)]
pub mod guide_doctests {
    macro_rules! chapters {
        ($($name:ident = $path:literal;)*) => {
            $(
                #[doc = include_str!(concat!("../../../docs/src/", $path))]
                pub struct $name;
            )*
        };
    }
    chapters! {
        GettingStarted = "getting-started.md";
        Topics = "concepts/topics.md";
        Delivery = "concepts/delivery.md";
        Memory = "concepts/memory.md";
        Waiting = "concepts/waiting.md";
        Queues = "concepts/queues.md";
        Executor = "concepts/executor.md";
        PollingNode = "how-to/polling-node.md";
        JobTokens = "how-to/job-tokens.md";
    }
}
