//! The results file of one scenario: a readiness counter the subscribers bump once they are
//! about to wait, then one row per subscriber of end-to-end latencies (ns) indexed by
//! message sequence number; 0 means "not received".
//!
//! ```text
//! word 0        ready: subscribers waiting for messages
//! words 1..8    reserved (0)
//! words 8..     subs × messages latencies, row-major
//! ```

use crate::shm::SharedWords;
use anyhow::{ensure, Result};
use std::path::Path;
use std::sync::atomic::Ordering;

const HEADER_WORDS: usize = 8;
const READY: usize = 0;

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
    }
}
