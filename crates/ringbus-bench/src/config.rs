//! What a fan-out run measures: transports, subscriber counts, payload sizes, pacing; and
//! the parsers the command line uses for them.

use crate::named::named;
use std::fmt;
use std::path::PathBuf;

/// Every payload starts with this header: `{t0_ns: u64, seq: u64}`, little-endian.
pub const HEADER_BYTES: u64 = 16;
/// Largest payload accepted (ringbus's own limit).
pub const MAX_PAYLOAD_BYTES: u64 = 1 << 30;
/// Most subscriber processes one scenario may start.
pub const MAX_SUBS: u32 = 1024;

named! {
    /// How the publisher gets a message to its subscribers.
    pub enum Transport("transport") {
        /// ringbus, subscribers asleep in `receive()` (woken by one futex call per publish).
        Ringbus = "ringbus",
        /// ringbus as above with the first K subscribers reliable ([`FanoutConfig::reliable`]):
        /// the publisher never overwrites a message they have not taken, and waits for room.
        RingbusReliable = "ringbus-reliable",
        /// ringbus, subscribers `Wake::Never` polling `take()` every 1 ms (never woken).
        RingbusPolling = "ringbus-polling",
        /// Shared-memory ring of 64 slots plus one `write()` per subscriber eventfd.
        Eventfd = "eventfd",
        /// The same ring plus ringbus's wake protocol alone (one futex word per topic, a
        /// sleepers count, the relay token): the floor of ringbus's design here.
        Futex = "futex",
        /// Shared-memory ring of 64 slots plus one `mq_send()` per subscriber queue.
        Mq = "mq",
        /// One `AF_UNIX` datagram (a full copy of the payload) per subscriber.
        Uds = "uds",
        /// No transport and no subscriber: each tick writes one cache line of a private buffer
        /// and nothing else — the least any publish can cost after the same idle here.
        IdleFloor = "idle-floor",
    }
}

/// How to start a subscriber process: `program args... <spec>`; the program must hand
/// the spec to [`crate::worker_main::run`].
#[derive(Debug, Clone)]
pub struct WorkerLauncher {
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// One measured configuration: one row of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    pub transport: Transport,
    pub subs: u32,
    pub topics: u32,
    pub payload_bytes: u64,
}

impl Scenario {
    /// The topic subscriber `index` listens to.
    pub fn topic_of(&self, index: u32) -> u32 {
        index % self.topics
    }

    /// Subscribers listening to `topic`.
    pub fn subs_of(&self, topic: u32) -> u32 {
        (0..self.subs).filter(|&i| self.topic_of(i) == topic).count() as u32
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} subs={} topics={} payload={}",
            self.transport,
            self.subs,
            self.topics,
            format_size(self.payload_bytes)
        )
    }
}

/// A whole fan-out run.
#[derive(Debug, Clone)]
pub struct FanoutConfig {
    pub scenarios: Vec<Scenario>,
    /// Ticks per second; each tick publishes one message on each topic.
    pub rate_hz: f64,
    /// Measured messages per topic.
    pub count: u64,
    /// Unmeasured messages per topic sent first (page faults, cold caches, first wake).
    pub warmup: u64,
    /// Times the whole list of scenarios is run, one pass after the other (at least 1).
    pub repeat: u32,
    /// ringbus publishers: sleepers a publish wakes itself (`TopicBuilder::direct_wakes`);
    /// `None`: the library's default.
    pub direct_wakes: Option<u32>,
    /// `ringbus-reliable` scenarios: how many subscriber processes are reliable
    /// (`TopicBuilder::reliable`), the first ones (round-robin over the topics); 0: none.
    pub reliable: u32,
    pub worker: WorkerLauncher,
}

impl FanoutConfig {
    /// The reliable subscribers of `s`: the first [`FanoutConfig::reliable`] (at most all of
    /// them) in a `ringbus-reliable` scenario, none in any other.
    pub fn reliable_subs(&self, s: &Scenario) -> u32 {
        match s.transport {
            Transport::RingbusReliable => self.reliable.min(s.subs),
            _ => 0,
        }
    }
}

/// Every (transport, subs, payload) combination, payload-major, transports in the order
/// given. `keep` filters combinations out (e.g. `--quick` drops slow large-payload rows).
pub fn plan(
    transports: &[Transport],
    subs: &[u32],
    topics: u32,
    sizes: &[u64],
    keep: impl Fn(Transport, u64) -> bool,
) -> Vec<Scenario> {
    let mut out = Vec::new();
    for &payload_bytes in sizes {
        for &n in subs {
            for &transport in transports.iter().filter(|&&t| keep(t, payload_bytes)) {
                out.push(Scenario { transport, subs: n, topics, payload_bytes });
            }
        }
    }
    out
}

/// Parses `64`, `64B`, `4KiB`, `1MiB`, `1GiB` (binary units only), a fan-out payload: at
/// least the header.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bytes = parse_bytes(s)?;
    if !(HEADER_BYTES..=MAX_PAYLOAD_BYTES).contains(&bytes) {
        return Err(format!("size {s:?}: must be {HEADER_BYTES} B (the timestamp header) to 1GiB"));
    }
    Ok(bytes)
}

/// Parses `8`, `64B`, `4KiB`, `1MiB`, `1GiB` (binary units only): any size a loan may have.
pub fn parse_loan_size(s: &str) -> Result<u64, String> {
    let bytes = parse_bytes(s)?;
    if !(1..=MAX_PAYLOAD_BYTES).contains(&bytes) {
        return Err(format!("size {s:?}: must be 1 B to 1GiB"));
    }
    Ok(bytes)
}

/// Parses a number of bytes, `64`, `64B`, `4KiB`, `1MiB`, `1GiB`, without a range check.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let unit_bytes: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        other => return Err(format!("size {s:?}: unknown unit {other:?}; write e.g. 64, 64B, 4KiB, 1MiB")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("size {s:?}: expected a number then B/KiB/MiB/GiB, e.g. 1MiB"))?;
    n.checked_mul(unit_bytes).ok_or_else(|| format!("size {s:?} is too large"))
}

/// `1048576` → `1MiB`, `64` → `64B`.
pub fn format_size(bytes: u64) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    format!("{bytes}B")
}

/// Parses a subscriber count (1 to [`MAX_SUBS`]).
pub fn parse_subs(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| format!("subscriber count {s:?} is not a number"))?;
    if !(1..=MAX_SUBS).contains(&n) {
        return Err(format!("subscriber count {n}: must be 1 to {MAX_SUBS}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_trip_and_bad_ones_are_refused() {
        assert_eq!(parse_size("64"), Ok(64));
        assert_eq!(parse_size("64B"), Ok(64));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        for bad in ["", "MiB", "1MB", "8", "2GiB", "1.5MiB", "-1"] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
        for b in [64, 4096, 1 << 20, 100, 1 << 30] {
            assert_eq!(parse_size(&format_size(b)), Ok(b));
        }
    }

    #[test]
    fn subscribers_map_round_robin_onto_topics() {
        let s = Scenario { transport: Transport::Ringbus, subs: 4, topics: 10, payload_bytes: 64 };
        assert_eq!((s.topic_of(3), s.subs_of(3), s.subs_of(4)), (3, 1, 0));
        let s = Scenario { subs: 16, ..s };
        assert_eq!((0..10).map(|t| s.subs_of(t)).sum::<u32>(), 16);
        assert_eq!((s.subs_of(5), s.subs_of(6)), (2, 1));
    }

    #[test]
    fn transports_parse_by_name() {
        for t in Transport::ALL {
            assert_eq!(t.name().parse::<Transport>(), Ok(t));
        }
        assert!("tcp".parse::<Transport>().unwrap_err().contains("ringbus-polling"));
    }
}
