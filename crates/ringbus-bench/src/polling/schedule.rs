//! When each topic's next message is due: message `k` of topic `i` (of `n`) at `rate` is
//! due at `start + (i / n + k) / rate`, computed from the start every time (integer
//! nanoseconds from a millihertz rate), so a late wake-up delays the messages it finds due
//! but never shifts the ones after it: no drift accumulates, whatever the sleeps overshoot.
//!
//! The `i / n` of a period is each topic's phase: separate publishers do not tick in step,
//! and topics that did (10, 30 and 50 Hz all due together every 100 ms) would hand the
//! callback-style node several messages per wake-up that real publishers would not.

/// The due times of a set of topics (pure: the caller reads the clock).
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    start_ns: u64,
    rates_mhz: Vec<u64>,
    /// Per topic, the index of its next message.
    next: Vec<u64>,
}

const NS_PER_S_MHZ: u128 = 1_000_000_000 * 1000;

impl Schedule {
    /// Topics at `rates_mhz` (each > 0), the first one's first message due at `start_ns`.
    pub(crate) fn new(start_ns: u64, rates_mhz: Vec<u64>) -> Schedule {
        assert!(rates_mhz.iter().all(|&r| r > 0), "a rate of 0 is never due");
        let next = vec![0; rates_mhz.len()];
        Schedule { start_ns, rates_mhz, next }
    }

    /// When topic `i`'s message `k` is due.
    fn due_ns(&self, i: usize, k: u64) -> u64 {
        let n = self.rates_mhz.len() as u128;
        let periods_times_n = u128::from(k) * n + i as u128;
        let offset = periods_times_n * NS_PER_S_MHZ / (u128::from(self.rates_mhz[i]) * n);
        self.start_ns.saturating_add(u64::try_from(offset).unwrap_or(u64::MAX))
    }

    /// The earliest due time of any topic's next message.
    pub(crate) fn next_due_ns(&self) -> u64 {
        (0..self.next.len()).map(|i| self.due_ns(i, self.next[i])).min().unwrap_or(u64::MAX)
    }

    /// Puts into `due` (cleared first) one topic index per message due at or before
    /// `now_ns`, in topic order, and counts them as sent. A topic late by several
    /// periods appears several times: every due message is published.
    pub(crate) fn take_due(&mut self, now_ns: u64, due: &mut Vec<usize>) {
        due.clear();
        for i in 0..self.next.len() {
            while self.due_ns(i, self.next[i]) <= now_ns {
                due.push(i);
                self.next[i] += 1;
            }
        }
    }

    /// Messages counted as sent so far, over all topics.
    pub(crate) fn sent(&self) -> u64 {
        self.next.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_fall_on_absolute_due_times_each_topic_in_its_own_phase() {
        // 10, 30 and 50 Hz: periods of 100, 33.3 and 20 ms; phases 0, 1/3 and 2/3 of them.
        let mut s = Schedule::new(1_000, vec![10_000, 30_000, 50_000]);
        let mut due = Vec::new();
        s.take_due(999, &mut due);
        assert!(due.is_empty(), "nothing before the start");
        s.take_due(1_000, &mut due);
        assert_eq!(due, [0], "the first topic's first message at the start");
        assert_eq!(s.next_due_ns(), 1_000 + 11_111_111, "1/3 of 1/30 s, truncated to the nanosecond");
        s.take_due(1_000 + 13_333_333, &mut due);
        assert_eq!(due, [1, 2]);
        assert_eq!(s.next_due_ns(), 1_000 + 33_333_333, "the third topic: 2/3 + 1 of 20 ms");
        let mut times = Vec::new();
        while s.sent() < 90 {
            let t = s.next_due_ns();
            s.take_due(t, &mut due);
            times.extend(due.iter().map(|_| t));
        }
        times.dedup();
        assert_eq!(times.len(), 87, "one second of 90 messages: nearly all at times of their own");
    }

    #[test]
    fn a_late_wake_up_publishes_what_is_due_and_does_not_drift() {
        let mut s = Schedule::new(0, vec![50_000]);
        let mut due = Vec::new();
        // Woken 65 ms late: messages 0 to 3 (0, 20, 40, 60 ms) are all due.
        s.take_due(65_000_000, &mut due);
        assert_eq!(due, [0, 0, 0, 0]);
        assert_eq!(s.next_due_ns(), 80_000_000, "the next one keeps its own time");
        // After one second, exactly 51 messages (t = 0 to 1000 ms inclusive).
        s.take_due(1_000_000_000, &mut due);
        assert_eq!(s.sent(), 51);
    }

    #[test]
    fn fractional_rates_keep_their_average_exactly() {
        // 147.368 Hz (the scaled scenario's second topic) over 100 s.
        let rate_mhz = 100_000 + 900_000 / 19;
        let mut s = Schedule::new(0, vec![rate_mhz]);
        let mut due = Vec::new();
        let mut now = 0;
        while now < 100_000_000_000 {
            now += 7_000_001; // sleeps of odd lengths
            s.take_due(now, &mut due);
        }
        let expected = u128::from(now) * u128::from(rate_mhz) / NS_PER_S_MHZ + 1; // k = 0 at the start
        assert_eq!(u128::from(s.sent()), expected);
    }
}
