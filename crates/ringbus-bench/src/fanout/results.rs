//! The results file of one scenario: a readiness counter the subscribers bump once they are
//! about to wait, then one row per subscriber of end-to-end latencies (ns) indexed by
//! message sequence number (0 means "not received"), then what each subscriber spent over
//! the measured messages.
//!
//! ```text
//! word 0              ready: subscribers waiting for messages
//! words 1..8          reserved (0)
//! words 8..           subs × messages latencies, row-major
//! then                subs × 4 words: recorded (1), user µs, system µs, voluntary switches
//! ```

use crate::shm::SharedWords;
use crate::usage::Usage;
use anyhow::{ensure, Result};
use std::path::Path;
use std::sync::atomic::Ordering;

const HEADER_WORDS: usize = 8;
const READY: usize = 0;
const USAGE_WORDS: usize = 4;

#[derive(Debug)]
pub(crate) struct ResultsFile {
    shared: SharedWords,
    subs: usize,
    messages: usize,
}

impl ResultsFile {
    fn words(subs: usize, messages: usize) -> Result<usize> {
        subs.checked_mul(messages)
            .and_then(|n| n.checked_add(HEADER_WORDS))
            .and_then(|n| n.checked_add(subs.checked_mul(USAGE_WORDS)?))
            .ok_or_else(|| anyhow::anyhow!("{subs} subscribers × {messages} messages is too many; lower --count"))
    }

    /// The bench's side: creates the file, zeroed.
    pub(crate) fn create(path: &Path, subs: usize, messages: usize) -> Result<ResultsFile> {
        let shared = SharedWords::create(path, Self::words(subs, messages)?)?;
        Ok(ResultsFile { shared, subs, messages })
    }

    /// A subscriber's side: maps the file the bench created.
    pub(crate) fn open(path: &Path, subs: usize, messages: usize) -> Result<ResultsFile> {
        let shared = SharedWords::open(path, Self::words(subs, messages)?)?;
        Ok(ResultsFile { shared, subs, messages })
    }

    /// A subscriber announces it is about to wait for the first message.
    pub(crate) fn mark_ready(&self) {
        // Release: the bench's Acquire load of the count sees the subscriber set up.
        self.shared.words()[READY].fetch_add(1, Ordering::Release);
    }

    /// Subscribers that announced they are ready.
    pub(crate) fn ready(&self) -> u64 {
        self.shared.words()[READY].load(Ordering::Acquire)
    }

    /// Records subscriber `sub`'s latency for message `seq`.
    pub(crate) fn record(&self, sub: usize, seq: u64, e2e_ns: u64) -> Result<()> {
        ensure!(sub < self.subs, "subscriber index {sub} out of range (subs = {})", self.subs);
        ensure!(seq < self.messages as u64, "sequence number {seq} out of range ({} messages)", self.messages);
        let i = HEADER_WORDS + sub * self.messages + seq as usize;
        self.shared.words()[i].store(e2e_ns.max(1), Ordering::Relaxed);
        Ok(())
    }

    fn usage_at(&self, sub: usize) -> usize {
        HEADER_WORDS + self.subs * self.messages + sub * USAGE_WORDS
    }

    /// Records what subscriber `sub` spent over the measured messages.
    pub(crate) fn record_usage(&self, sub: usize, usage: Usage) -> Result<()> {
        ensure!(sub < self.subs, "subscriber index {sub} out of range (subs = {})", self.subs);
        let words = &self.shared.words()[self.usage_at(sub)..][..USAGE_WORDS];
        for (word, value) in words[1..].iter().zip([usage.user_us, usage.sys_us, usage.voluntary]) {
            word.store(value, Ordering::Relaxed);
        }
        words[0].store(1, Ordering::Relaxed);
        Ok(())
    }

    /// What subscriber `sub` spent, `None` if it recorded nothing. Read by the bench after
    /// the subscribers exited, as `latency`.
    pub(crate) fn usage(&self, sub: usize) -> Option<Usage> {
        let words = &self.shared.words()[self.usage_at(sub)..][..USAGE_WORDS];
        let [recorded, user_us, sys_us, voluntary] = [0, 1, 2, 3].map(|i| words[i].load(Ordering::Relaxed));
        (recorded == 1).then_some(Usage { user_us, sys_us, voluntary, involuntary: 0 })
    }

    /// Subscriber `sub`'s latency for message `seq`, `None` if it did not receive it.
    /// Read by the bench after the subscribers exited (`wait` orders their writes before).
    pub(crate) fn latency(&self, sub: usize, seq: usize) -> Option<u64> {
        let v = self.shared.words()[HEADER_WORDS + sub * self.messages + seq].load(Ordering::Relaxed);
        (v != 0).then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_and_the_reader_share_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results");
        let bench = ResultsFile::create(&path, 3, 5).unwrap();
        let sub = ResultsFile::open(&path, 3, 5).unwrap();
        sub.mark_ready();
        sub.record(2, 4, 1234).unwrap();
        sub.record(0, 0, 0).unwrap();
        assert_eq!(bench.ready(), 1);
        assert_eq!(bench.latency(2, 4), Some(1234));
        assert_eq!(bench.latency(0, 0), Some(1), "a zero latency still counts as received");
        assert_eq!(bench.latency(1, 1), None);
        assert!(sub.record(3, 0, 1).is_err());
        assert!(sub.record(0, 5, 1).is_err());
        assert!(ResultsFile::open(&path, 3, 6).is_err(), "size mismatch is refused");
        let spent = Usage { user_us: 5, sys_us: 7, voluntary: 9, involuntary: 0 };
        sub.record_usage(2, spent).unwrap();
        assert_eq!((bench.usage(2), bench.usage(1)), (Some(spent), None));
        assert_eq!(bench.latency(2, 4), Some(1234), "usage is kept apart from the latencies");
        assert!(sub.record_usage(3, spent).is_err());
    }
}
