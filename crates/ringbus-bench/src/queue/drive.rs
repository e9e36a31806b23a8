//! The producer's and the consumer's loops, the same for every ring.
//!
//! Producer: `warmup` unmeasured commands, then `commands` measured ones, `batch` per call;
//! a call that pushed nothing (the ring is full) is retried at once after a spin-loop hint,
//! and the whole time counts. Consumer: pops of up to [`POP_BATCH`], never sleeping,
//! every command checked. Both give up after [`STALL_LIMIT`] without progress (the other
//! side died or stopped), on Ctrl-C, or when told to stop.

use super::command::{Checker, Command};
use super::endpoints::{Sink, Source};
use crate::interrupt;
use anyhow::{bail, Result};
use ringbus::diagnostics::monotonic_ns;
use std::time::{Duration, Instant};

/// Most commands the consumer pops per call.
pub const POP_BATCH: usize = 64;
/// No progress for this long: the other side is gone or stuck.
pub(crate) const STALL_LIMIT: Duration = Duration::from_secs(30);
/// Fruitless calls between two looks at the clock, the peer and Ctrl-C.
const STALL_CHECK: u64 = 1 << 16;
/// Commands pushed between two looks at Ctrl-C while the ring has room.
const INTERRUPT_CHECK: u64 = 1 << 20;

/// What the producer measured over its measured commands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Pushed {
    pub elapsed_ns: u64,
    /// Push calls, full retries and partial pushes included.
    pub calls: u64,
    /// Calls that pushed nothing because the ring was full.
    pub full_retries: u64,
    /// Loads of the consumer's shared position (ringbus only).
    pub head_reads: Option<u64>,
}

/// Watches a spin loop that makes no progress.
pub(crate) struct Stall {
    spins: u64,
    since: Option<Instant>,
}

impl Stall {
    pub(crate) fn new() -> Stall {
        Stall { spins: 0, since: None }
    }

    /// One fruitless spin; every [`STALL_CHECK`] spins, fails if it lasted too long, the
    /// peer is gone (`peer_gone`) or Ctrl-C was pressed.
    #[inline]
    pub(crate) fn spin(&mut self, what: &str, peer_gone: impl FnOnce() -> bool) -> Result<()> {
        self.spins += 1;
        std::hint::spin_loop();
        if !self.spins.is_multiple_of(STALL_CHECK) {
            return Ok(());
        }
        self.check(what, peer_gone)
    }

    /// Fails if the wait lasted too long, the peer is gone (`peer_gone`) or Ctrl-C was
    /// pressed: what a spin does every [`STALL_CHECK`] spins, and a sleeper after each
    /// sleep that found nothing.
    pub(crate) fn check(&mut self, what: &str, peer_gone: impl FnOnce() -> bool) -> Result<()> {
        interrupt::check()?;
        if peer_gone() {
            bail!("{what}: the other side is gone");
        }
        let since = *self.since.get_or_insert_with(Instant::now);
        if since.elapsed() > STALL_LIMIT {
            bail!("{what}: no progress for {STALL_LIMIT:?}; the machine may be overloaded");
        }
        Ok(())
    }
}

/// Pushes commands `from..to`, `batch` per call; returns (calls, full retries).
#[inline]
fn push_range<S: Sink>(sink: &mut S, from: u64, to: u64, batch: usize, stop: &dyn Fn() -> bool) -> Result<(u64, u64)> {
    let mut buffer = vec![Command::default(); batch];
    let (mut calls, mut full_retries) = (0u64, 0u64);
    let (mut next, mut unchecked) = (from, 0u64);
    while next < to {
        let k = (to - next).min(batch as u64) as usize;
        unchecked += k as u64;
        if unchecked >= INTERRUPT_CHECK {
            unchecked = 0;
            interrupt::check()?;
        }
        for (i, c) in buffer[..k].iter_mut().enumerate() {
            *c = Command::new(next + i as u64);
        }
        let mut done = 0;
        let mut stall = Stall::new();
        while done < k {
            let n = sink.push(&buffer[done..k])?;
            calls += 1;
            if n == 0 {
                full_retries += 1;
                stall.spin("the ring stayed full", || stop() || !sink.consumer_alive())?;
            }
            done += n;
        }
        next += k as u64;
    }
    Ok((calls, full_retries))
}

/// The producer: calls `start` (the consumer may begin), pushes `warmup` commands, then
/// measures `commands` more.
pub(crate) fn produce<S: Sink>(
    sink: &mut S,
    warmup: u64,
    commands: u64,
    batch: usize,
    start: impl FnOnce(),
    stop: &dyn Fn() -> bool,
) -> Result<Pushed> {
    start();
    push_range(sink, 0, warmup, batch, stop)?;
    let reads_before = sink.head_reads();
    let t0 = monotonic_ns();
    let (calls, full_retries) = push_range(sink, warmup, warmup + commands, batch, stop)?;
    let elapsed_ns = monotonic_ns() - t0;
    let head_reads = sink.head_reads().zip(reads_before).map(|(after, before)| after - before);
    Ok(Pushed { elapsed_ns, calls, full_retries, head_reads })
}

/// The consumer: pops and checks `total` commands, then makes sure nothing follows.
pub(crate) fn consume<R: Source>(source: &mut R, total: u64, stop: &dyn Fn() -> bool) -> Result<Checker> {
    let mut buffer = [Command::default(); POP_BATCH];
    let mut checker = Checker::default();
    let mut stall = Stall::new();
    while checker.received < total {
        let want = (total - checker.received).min(POP_BATCH as u64) as usize;
        let n = source.pop(&mut buffer[..want])?;
        if n == 0 {
            stall.spin("the ring stayed empty", stop)?;
            continue;
        }
        stall = Stall::new();
        checker.check(&buffer[..n]);
    }
    let extra = source.pop(&mut buffer)?;
    checker.check(&buffer[..extra]);
    Ok(checker)
}

/// Spins until `flag()` holds (another thread or process is ready), or fails like a stall.
pub(crate) fn spin_until(what: &str, flag: impl Fn() -> bool, stop: &dyn Fn() -> bool) -> Result<()> {
    let mut stall = Stall::new();
    while !flag() {
        stall.spin(what, stop)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::endpoints::SharedQueue;
    use super::*;

    #[test]
    fn a_producer_and_a_consumer_thread_move_every_command_and_count_the_calls() {
        let queue = SharedQueue::new(16);
        let (mut sink, mut source) = (queue.clone(), queue);
        let consumer = std::thread::spawn(move || consume(&mut source, 1000 + 5000, &|| false).unwrap());
        let pushed = produce(&mut sink, 1000, 5000, 8, || {}, &|| false).unwrap();
        let checker = consumer.join().unwrap();
        checker.verify(6000).unwrap();
        assert_eq!(pushed.head_reads, None);
        // 625 batches of 8; every retry or partial push adds a call.
        assert!(pushed.calls >= 625 + pushed.full_retries, "{pushed:?}");
    }

    #[test]
    fn a_consumer_that_never_gets_anything_stops_when_told() {
        let mut source = SharedQueue::new(4);
        let err = consume(&mut source, 1, &|| true).unwrap_err().to_string();
        assert!(err.contains("the other side is gone"), "{err}");
        assert!(spin_until("waiting", || false, &|| true).is_err());
    }
}
