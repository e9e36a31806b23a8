//! The two ends of a ping-pong, behind one trait so that one initiator loop and one echo
//! loop (monomorphised, no dynamic call on the hot path) drive the floor and ringbus alike:
//!
//! ```text
//!             send(round)                        wait(round)
//! floor       store round + 1 on its own line    spin until the other line says round + 1
//! ringbus     loan_uninit(size) → publish        never: spin on take() until a sample comes
//!                                                (or on take_with(), reading in place)
//!                                                on-data: receive(), asleep until woken
//! ```
//!
//! Every wait checks what came: the floor the round number, ringbus the sample's position
//! (each direction's publisher publishes position k in round k), so a lost or repeated
//! message fails the run.

use super::WakeMode;
use crate::queue::drive::Stall;
use anyhow::{bail, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::{Publisher, ReceiveError, Subscriber};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long an on-data wait sleeps before it looks whether the other side is still there.
const SLEEP_SLICE: Duration = Duration::from_millis(100);

/// One end: sends a round to the other end, and waits for the other end's.
pub(crate) trait Side {
    /// Sends round `round`.
    fn send(&mut self, round: u64) -> Result<()>;

    /// Waits until the other end sent round `round`; fails if it never comes (`peer_gone`
    /// says the other end failed).
    fn wait(&mut self, round: u64, peer_gone: &mut dyn FnMut() -> bool) -> Result<()>;
}

/// A 64-bit word alone on its cache line.
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Line(pub AtomicU64);

const _: () = assert!(std::mem::size_of::<Line>() == 64);

/// The floor: this end's word and the other end's, on two cache lines.
pub(crate) struct FloorSide<'a> {
    pub mine: &'a AtomicU64,
    pub theirs: &'a AtomicU64,
}

impl Side for FloorSide<'_> {
    #[inline]
    fn send(&mut self, round: u64) -> Result<()> {
        // Release: pairs with the other end's Acquire load in `wait` (nothing else is
        // published through the word; the ordering is what a real message would need).
        self.mine.store(round + 1, Ordering::Release);
        Ok(())
    }

    #[inline]
    fn wait(&mut self, round: u64, peer_gone: &mut dyn FnMut() -> bool) -> Result<()> {
        let mut stall = Stall::new();
        loop {
            // Acquire: pairs with the other end's Release store in `send`.
            match self.theirs.load(Ordering::Acquire) {
                v if v == round + 1 => return Ok(()),
                v if v == round => stall.spin("waiting for the other end's line", &mut *peer_gone)?,
                v => bail!("the other end's line says round {v}, expected {round} or {}", round + 1),
            }
        }
    }
}

/// ringbus: a publisher of this end's direction and a subscriber of the other's.
pub(crate) struct TopicSide {
    pub publisher: Publisher,
    pub subscriber: Subscriber,
    pub payload_bytes: usize,
    pub wake: WakeMode,
    /// Busy-poll reads in place (`take_with`) instead of taking a pinned sample.
    pub in_place: bool,
}

impl TopicSide {
    fn check(round: u64, position: u64) -> Result<()> {
        if position != round {
            bail!("received message {position} in round {round}: a message was lost or repeated");
        }
        Ok(())
    }
}

impl Side for TopicSide {
    #[inline]
    fn send(&mut self, _round: u64) -> Result<()> {
        // Not written: the cost must not grow with the size if nothing is copied.
        self.publisher.loan_uninit(self.payload_bytes)?.publish();
        Ok(())
    }

    #[inline]
    fn wait(&mut self, round: u64, peer_gone: &mut dyn FnMut() -> bool) -> Result<()> {
        let mut stall = Stall::new();
        let what = "waiting for the other end's message";
        loop {
            let position = match self.wake {
                // Nothing lost: the message taken in round k is the (k + 1)th.
                WakeMode::Never if self.in_place => {
                    self.subscriber.take_with(|bytes| bytes.len())?.map(|_| self.subscriber.taken() - 1)
                }
                WakeMode::Never => self.subscriber.take()?.map(|s| s.position()),
                WakeMode::OnData => match self.subscriber.receive(Some(SLEEP_SLICE)) {
                    Ok(sample) => Some(sample.position()),
                    Err(ReceiveError::Timeout) => None,
                    Err(e) => return Err(e.into()),
                },
            };
            match (position, self.wake) {
                (Some(p), _) => return Self::check(round, p),
                (None, WakeMode::Never) => stall.spin(what, &mut *peer_gone)?,
                (None, WakeMode::OnData) => stall.check(what, &mut *peer_gone)?,
            }
        }
    }
}

/// The initiator: `warmup` unmeasured rounds, then `rounds` measured ones; returns each
/// measured round trip in ns (one clock read per round: from one send to the next).
pub(crate) fn initiate(
    side: &mut impl Side,
    warmup: u64,
    rounds: u64,
    peer_gone: &mut dyn FnMut() -> bool,
) -> Result<Vec<u64>> {
    let mut times = Vec::with_capacity(usize::try_from(rounds)?);
    for round in 0..warmup {
        side.send(round)?;
        side.wait(round, peer_gone)?;
    }
    let mut t0 = monotonic_ns();
    for round in warmup..warmup + rounds {
        side.send(round)?;
        side.wait(round, peer_gone)?;
        let t = monotonic_ns();
        times.push(t - t0);
        t0 = t;
    }
    Ok(times)
}

/// The echo end: waits for each of `total` rounds and sends it back.
pub(crate) fn echo(side: &mut impl Side, total: u64, peer_gone: &mut dyn FnMut() -> bool) -> Result<()> {
    for round in 0..total {
        side.wait(round, peer_gone)?;
        side.send(round)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_ping_pongs_every_round_between_two_threads() {
        let (a, b) = (Line::default(), Line::default());
        std::thread::scope(|s| {
            s.spawn(|| echo(&mut FloorSide { mine: &b.0, theirs: &a.0 }, 150, &mut || false).unwrap());
            let times = initiate(&mut FloorSide { mine: &a.0, theirs: &b.0 }, 50, 100, &mut || false).unwrap();
            assert_eq!(times.len(), 100);
        });
        assert_eq!((a.0.load(Ordering::Relaxed), b.0.load(Ordering::Relaxed)), (150, 150));
    }

    #[test]
    fn a_floor_word_that_skips_a_round_fails_the_run() {
        let (a, b) = (Line::default(), Line(AtomicU64::new(7)));
        let err = FloorSide { mine: &a.0, theirs: &b.0 }.wait(0, &mut || false).unwrap_err().to_string();
        assert!(err.contains("says round 7, expected 0 or 1"), "{err}");
    }
}
