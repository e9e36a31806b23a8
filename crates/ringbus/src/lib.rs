//! ringbus: processes on one Linux machine exchange messages through shared memory with
//! zero copies, O(1) publishing whatever the number of subscribers, no system call when no
//! subscriber sleeps and exactly one when any does.
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
//! Layers, each depending only on those above it: `sys` (system calls) → `sync` (atomics,
//! loom-swappable) → `shm` (segments and their layouts) → `ring` (the log, the command
//! ring) → `pool` (chunks) → `notify` (wake protocol, words, latches, semaphores,
//! doorbells) → `pubsub`, `queue`, `service` → `registry` (nodes, cleanup, inspection) →
//! `waitset` (one wait over all of them, fds and timers) → `executor` (timers and
//! callbacks on one thread, in the callback or the polling style).
#![deny(unsafe_code)]
#![warn(missing_debug_implementations)]

pub(crate) mod notify;
pub(crate) mod pool;
pub mod queue;
pub(crate) mod ring;
pub(crate) mod sync;

#[cfg(not(loom))]
pub mod error;
#[cfg(not(loom))]
pub mod executor;
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
pub use error::{Corruption, LoanError, OpenError, ReceiveError, TakeError, ViewError};
#[cfg(not(loom))]
pub use executor::{Control, Executor, Input};
#[cfg(not(loom))]
pub use notify::object::{Latch, Semaphore, SemaphoreFull, WakeStats};
pub use notify::semaphore::MAX_SEMAPHORE_COUNT;
#[cfg(not(loom))]
pub use notify::word::{wait, wake};
pub use notify::TimedOut;
#[cfg(not(loom))]
pub use pubsub::{
    DetachedLoan, Loan, Publisher, PublisherId, PublisherStats, Sample, Subscriber, TakeAll, TopicBuilder, Wake,
    MAX_TOPIC_NAME_BYTES,
};
#[cfg(not(loom))]
pub use queue::{Consumer, Producer, PushError, QueueError};
#[cfg(not(loom))]
pub use registry::{clean, clean_with, inspect, CleanOptions, CleanReport, Node};
#[cfg(not(loom))]
pub use shm::pod::Pod;
#[cfg(not(loom))]
pub use shm::root::ROOT_ENV;
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
