//! Which (system, component) pairs were heard on a link, and when: written by the one
//! thread that reads the link, read by every forwarding thread, with no lock — plain
//! atomic loads and stores.
//!
//! Per system, the last time any of its components was heard (for targets with component
//! 0); per (system, component), an open-addressing table of [`PAIRS`] words, each
//! `key + 1` in the high bits and the time in the low 40. Entries are never removed, only
//! left to age: a route expires when its time is older than the router's expiry. When the
//! table is full, the stalest entry is overwritten. Times are the router's clock in
//! milliseconds plus one (0 means never).

use std::sync::atomic::{AtomicU64, Ordering};

/// (system, component) pairs remembered per link.
pub const PAIRS: usize = 256;
const TIME_BITS: u32 = 40;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;
/// A stored time is refreshed only when it is older than this: no store per frame.
const REFRESH_MS: u64 = 100;

/// The routes learned on one link.
#[derive(Debug)]
pub struct Seen {
    systems: Box<[AtomicU64]>,
    pairs: Box<[AtomicU64]>,
}

impl Default for Seen {
    fn default() -> Self {
        Seen::new()
    }
}

fn key(system: u8, component: u8) -> u64 {
    ((system as u64) << 8 | component as u64) + 1
}

fn home(system: u8, component: u8) -> usize {
    // Fibonacci hashing of the 16-bit pair onto the table.
    ((key(system, component).wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> 56) as usize % PAIRS
}

impl Seen {
    pub fn new() -> Seen {
        let zeros = |n| (0..n).map(|_| AtomicU64::new(0)).collect();
        Seen { systems: zeros(256), pairs: zeros(PAIRS) }
    }

    /// Records that (system, component) was heard at `now_ms`. Only the link's reader
    /// calls this (one writer per link).
    pub fn learn(&self, system: u8, component: u8, now_ms: u64) {
        let stamp = (now_ms + 1) & TIME_MASK;
        let sys = &self.systems[system as usize];
        let old = sys.load(Ordering::Relaxed);
        if old == 0 || old + REFRESH_MS <= stamp {
            sys.store(stamp, Ordering::Relaxed);
        }
        let k = key(system, component);
        let mut stalest = home(system, component);
        for probe in 0..PAIRS {
            let i = (home(system, component) + probe) % PAIRS;
            let word = self.pairs[i].load(Ordering::Relaxed);
            if word >> TIME_BITS == k {
                if (word & TIME_MASK) + REFRESH_MS <= stamp {
                    self.pairs[i].store(k << TIME_BITS | stamp, Ordering::Relaxed);
                }
                return;
            }
            if word == 0 {
                stalest = i;
                break;
            }
            if word & TIME_MASK < self.pairs[stalest].load(Ordering::Relaxed) & TIME_MASK {
                stalest = i;
            }
        }
        self.pairs[stalest].store(k << TIME_BITS | stamp, Ordering::Relaxed);
    }

    /// Whether `system` (any component if `component` is 0, else that component) was heard
    /// at or after `since_ms`.
    pub fn has(&self, system: u8, component: u8, since_ms: u64) -> bool {
        let fresh = |stamp: u64| stamp != 0 && stamp > since_ms;
        if component == 0 {
            return fresh(self.systems[system as usize].load(Ordering::Relaxed));
        }
        let k = key(system, component);
        for probe in 0..PAIRS {
            let word = self.pairs[(home(system, component) + probe) % PAIRS].load(Ordering::Relaxed);
            if word >> TIME_BITS == k {
                return fresh(word & TIME_MASK);
            }
            if word == 0 {
                return false;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_pairs_and_systems_and_lets_them_age() {
        let seen = Seen::new();
        assert!(!seen.has(1, 0, 0) && !seen.has(1, 1, 0));
        seen.learn(1, 1, 1000);
        assert!(seen.has(1, 1, 0) && seen.has(1, 0, 0));
        assert!(!seen.has(1, 2, 0), "another component of a known system");
        assert!(!seen.has(2, 0, 0));
        assert!(!seen.has(1, 1, 1001), "older than the expiry horizon");
        seen.learn(1, 1, 5000);
        assert!(seen.has(1, 1, 4000));
    }

    #[test]
    fn a_full_table_replaces_its_stalest_entry() {
        let seen = Seen::new();
        for i in 0..PAIRS {
            seen.learn(10 + (i / 200) as u8, (i % 200) as u8 + 1, i as u64 * 1000);
        }
        seen.learn(99, 99, 1_000_000);
        assert!(seen.has(99, 99, 0));
        assert!(!seen.has(10, 1, 0), "the stalest pair made room");
        assert!(seen.has(11, 56, 0), "the newest pair stayed");
    }
}
