//! Benchmarks of ringbus against the baselines it replaces, run by `ringbus bench`.
//!
//! [`fanout`] reproduces Agnocast's publish-latency and end-to-end-latency tables against
//! the number of subscribers: one publisher, N subscriber *processes* blocked waiting,
//! for ringbus (woken, or polling) and for three baselines built here — a shared-memory
//! slot ring notified through eventfds or POSIX message queues, and copying `AF_UNIX`
//! datagrams. Every transport goes through the same harness, pacing, clock and exact
//! system-call counter, so the rows of one run are comparable.
//!
//! [`tokens`] is the build-tool case: P worker processes share T job tokens, through GNU
//! make's jobserver pipe and through [`ringbus::Semaphore`], in the same run; it reports
//! wall time, the workers' CPU time and context switches per job.
//!
//! [`polling`] is a typical ROS 2 node: topics at 10, 30 and 50 Hz (or 20 topics at
//! 100 to 1000 Hz) read by a 10 Hz timer on a [`ringbus::Executor`], with per-message
//! callbacks and with the timer taking what it needs; it reports the subscriber's CPU
//! time, context switches and wake-ups, and the publishers' wake system calls.
//!
//! [`wake`] measures what multiplexing costs: wake latency p50/p99 and waiter CPU per
//! wake for each [`ringbus::WaitSet`] backend, in the same run.
//!
//! [`queue`] is the command queue: ns per pushed command through a bounded SPSC queue with
//! the producer's copy of the consumer position cached and uncached (consumer in another
//! process, on another CPU), with rtrb and crossbeam's `ArrayQueue` as in-process anchors,
//! for batches of 1, 8 and 64.
//!
//! [`route`] is the MAVLink router: ns per routing decision and per forwarded frame through
//! `ringbus-route`'s lock-free link table against the same list behind a mutex, 1 and 2
//! forwarding threads, with and without link churn; and frames/s through UDP loopback.
//!
//! [`memory`] is chunk memory on demand: the shared memory a publisher holds against the
//! bytes actually in flight, for tiny, camera-like and point-cloud-like streams, and what
//! getting memory on demand costs in latency against a pool preallocated up front.
//!
//! [`pingpong`] is the latency of one message alone: two threads (or processes) pinned to
//! two CPUs publishing to each other, spinning on `take()` or asleep in `receive()`, against
//! two atomics ping-ponged on two cache lines (the least a message between two cores costs),
//! measured in the same run.
//!
//! Each is a [`driver::Bench`] — the points of a pass, one run of a point, rows from every
//! run — and [`driver::run`] runs them all the same way: passes with the compared variants
//! alternating, each run in a fresh directory, ratios paired within a pass; [`report`]
//! writes every table and JSON array.
//!
//! Worker processes are the calling binary re-executed ([`config::WorkerLauncher`]),
//! which must hand its argument to [`worker_main::run`].
//!
//! Unsafe code is confined to system calls (the baselines', the jobserver pipe's,
//! `getrusage`) and the shared-file mapping; each block names its invariant.

pub mod config;
pub mod driver;
pub mod fanout;
pub mod interrupt;
pub mod memory;
pub mod pingpong;
pub mod polling;
pub mod queue;
pub mod report;
pub mod route;
pub mod tokens;
pub mod wake;
pub mod worker_main;

mod launch;
mod named;
mod pace;
mod plot;
mod rundir;
mod shm;
mod stats;
mod transports;
mod usage;

pub use config::{FanoutConfig, Scenario, Transport, WorkerLauncher};
pub use driver::{Progress, Skip};
pub use fanout::Outcome;
pub use fanout::Row;
