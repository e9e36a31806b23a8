//! Baseline: ringbus's wake protocol and nothing else of ringbus — the floor of its design
//! on this machine. The payload goes in the same shared slot ring as eventfd's; then, per
//! topic, one shared futex word is bumped and, if anyone sleeps, the publisher wakes up to
//! `direct` sleepers with one `FUTEX_WAKE`, leaving a relay token for the first of them to
//! wake the rest with one more call (as `ringbus::notify` does; the default `direct` is
//! ringbus's, 2). A subscriber counts itself in `sleepers` and sleeps on the word.
//!
//! Nothing here is ringbus's code: no topic, log, chunk pool, pinning, counters or slot.
//! So `ringbus ÷ futex` is what ringbus's own bookkeeping adds, and `futex ÷ eventfd` is
//! what the wake design itself can reach against N eventfd writes on this machine.
//!
//! ```text
//! wake file: per topic one 64-byte line of u32 words:
//!   0  word      publishes so far on the topic (= the next seq), bumped with Release
//!   1  sleepers  subscribers counted as asleep
//!   2  token     1: a publish left the rest of its sleepers to be woken
//! ```

use super::slot_ring::SlotRing;
use super::{Endpoint, Fanout, Handoff, Received, Receiver};
use crate::config::Scenario;
use crate::shm::SharedWords;
use anyhow::Result;
use std::path::Path;
use std::sync::atomic::{fence, AtomicU32, Ordering};

/// Sleepers a publish wakes itself unless `--direct-wakes` says otherwise (ringbus's default).
const DEFAULT_DIRECT: u32 = 2;
/// u32 words per topic: one cache line, so topics do not share one.
const LINE_WORDS: usize = 16;

/// A topic's three words.
struct Line<'a> {
    word: &'a AtomicU32,
    sleepers: &'a AtomicU32,
    token: &'a AtomicU32,
}

/// The wake file, mapped by the bench and by every subscriber.
#[derive(Debug)]
struct WakeFile(SharedWords);

impl WakeFile {
    fn len(topics: u32) -> usize {
        topics as usize * LINE_WORDS / 2
    }

    fn line(&self, topic: u32) -> Line<'_> {
        let at = topic as usize * LINE_WORDS;
        let w = &self.0.words32()[at..at + 3];
        Line { word: &w[0], sleepers: &w[1], token: &w[2] }
    }
}

#[derive(Debug)]
pub(crate) struct FutexFanout {
    ring: SlotRing,
    wake: WakeFile,
    direct: u32,
    /// Subscribers per topic, all of which must be asleep before we start.
    subs: Vec<u32>,
}

impl FutexFanout {
    pub(crate) fn create(s: &Scenario, dir: &Path, direct: Option<u32>) -> Result<(FutexFanout, Vec<Handoff>)> {
        let (ring_path, wake_path) = (dir.join("ring"), dir.join("futex-words"));
        let ring = SlotRing::create(&ring_path, s.topics, s.payload_bytes)?;
        let wake = WakeFile(SharedWords::create(&wake_path, WakeFile::len(s.topics))?);
        let handoffs = (0..s.subs)
            .map(|_| Handoff {
                endpoint: Endpoint::Futex { ring: ring_path.clone(), words: wake_path.clone() },
                inherit: None,
                child_end: None,
            })
            .collect();
        let subs = (0..s.topics).map(|t| s.subs_of(t)).collect();
        Ok((FutexFanout { ring, wake, direct: direct.unwrap_or(DEFAULT_DIRECT), subs }, handoffs))
    }
}

impl Fanout for FutexFanout {
    fn publish(&mut self, topic: u32, seq: u64, t0_ns: u64, _warm: bool) -> Result<()> {
        self.ring.write(topic, seq, t0_ns);
        let line = self.wake.line(topic);
        // Release: a subscriber that loads the bumped word (Acquire) finds the slot written.
        line.word.fetch_add(1, Ordering::Release);
        // Pairs with the subscriber's fence between counting itself and looking again.
        fence(Ordering::SeqCst);
        let sleepers = line.sleepers.load(Ordering::Relaxed);
        if sleepers == 0 {
            return Ok(());
        }
        if sleepers <= self.direct {
            ringbus::wake(line.word, u32::MAX);
        } else {
            // Release: the subscriber that takes the token (Acquire) wakes after our bump.
            line.token.swap(1, Ordering::Release);
            ringbus::wake(line.word, self.direct);
        }
        Ok(())
    }

    fn settled(&self) -> bool {
        (0..self.subs.len() as u32).all(|t| self.asleep(t) == Some(self.subs[t as usize]))
    }

    fn asleep(&self, topic: u32) -> Option<u32> {
        Some(self.wake.line(topic).sleepers.load(Ordering::Relaxed))
    }
}

#[derive(Debug)]
pub(crate) struct FutexReceiver {
    ring: SlotRing,
    wake: WakeFile,
    topic: u32,
    next_seq: u64,
}

impl FutexReceiver {
    pub(crate) fn open(ring: &Path, words: &Path, s: &Scenario, topic: u32) -> Result<FutexReceiver> {
        let ring = SlotRing::open(ring, s.topics, s.payload_bytes)?;
        let wake = WakeFile(SharedWords::open(words, WakeFile::len(s.topics))?);
        Ok(FutexReceiver { ring, wake, topic, next_seq: 0 })
    }

    /// Sleeps until the word moves from `seen`, counted in `sleepers`; then, if a publish
    /// left its token, takes it and wakes everyone else.
    fn sleep(&self, seen: u32) {
        let line = self.wake.line(self.topic);
        line.sleepers.fetch_add(1, Ordering::Relaxed);
        // Pairs with the publisher's fence between its bump and its look at `sleepers`.
        fence(Ordering::SeqCst);
        if line.word.load(Ordering::Relaxed) == seen {
            // Without a timeout it returns only once the word has moved.
            let _ = ringbus::wait(line.word, seen, None);
        }
        line.sleepers.fetch_sub(1, Ordering::Relaxed);
        // Acquire: pairs with the publishers' Release swaps of the token.
        if line.token.load(Ordering::Relaxed) != 0 && line.token.swap(0, Ordering::Acquire) != 0 {
            ringbus::wake(line.word, u32::MAX);
        }
    }
}

impl Receiver for FutexReceiver {
    fn next(&mut self) -> Result<Received> {
        loop {
            // Acquire: pairs with the publisher's Release bump; `published` slots are written.
            // (A u32 count: a bench run publishes far fewer than 2^32 messages per topic.)
            let published = self.wake.line(self.topic).word.load(Ordering::Acquire);
            if self.next_seq < u64::from(published) {
                let seq = self.next_seq;
                self.next_seq += 1;
                // `None`: overwritten (we fell 64 messages behind); it shows as lost.
                if let Some(t0_ns) = self.ring.read(self.topic, seq) {
                    let at_ns = ringbus::diagnostics::monotonic_ns();
                    return Ok(Received { seq, t0_ns, at_ns });
                }
            } else {
                self.sleep(published);
            }
        }
    }
}
