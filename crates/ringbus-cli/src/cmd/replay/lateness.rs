//! How late a replay published each message against the time it was due: percentiles of
//! at most [`MAX_SAMPLES`] messages (the first ones), the maximum and the count over 1 ms
//! of all of them.

use super::super::output::quantile;

/// Messages whose lateness is kept for the percentiles (4 MB).
const MAX_SAMPLES: usize = 1_000_000;
const LATE_NS: u64 = 1_000_000;

#[derive(Debug, Default)]
pub struct Lateness {
    samples_ns: Vec<u64>,
    count: u64,
    max_ns: u64,
    over_1ms: u64,
}

impl Lateness {
    pub fn record(&mut self, late_ns: u64) {
        if self.samples_ns.len() < MAX_SAMPLES {
            self.samples_ns.push(late_ns);
        }
        self.count += 1;
        self.max_ns = self.max_ns.max(late_ns);
        self.over_1ms += u64::from(late_ns > LATE_NS);
    }

    /// `lateness: p50 3 µs, p99 41 µs, max 180 µs; 0 of 3000 messages more than 1 ms late`.
    pub fn summary(&mut self) -> String {
        if self.count == 0 {
            return "lateness: no message published".into();
        }
        self.samples_ns.sort_unstable();
        let at = |q: f64| quantile(&self.samples_ns, q) / 1000;
        format!(
            "lateness: p50 {} µs, p99 {} µs, max {} µs; {} of {} messages more than 1 ms late",
            at(0.5),
            at(0.99),
            self.max_ns / 1000,
            self.over_1ms,
            self.count
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles_and_counts() {
        let mut l = super::Lateness::default();
        for us in 1..=100u64 {
            l.record(us * 1000);
        }
        l.record(5_000_000);
        assert_eq!(l.summary(), "lateness: p50 51 µs, p99 100 µs, max 5000 µs; 1 of 101 messages more than 1 ms late");
    }
}
