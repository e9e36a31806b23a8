//! Publishing at a steady rate: one tick every period. When a tick comes late (the work
//! of the previous one overran), the schedule starts again from then rather than bursting
//! to catch up.

use std::time::{Duration, Instant};

#[derive(Debug)]
pub(crate) struct Pacer {
    period: Duration,
    next: Instant,
}

impl Pacer {
    /// `rate_hz` ticks per second, the first one at once.
    pub(crate) fn new(rate_hz: f64) -> Pacer {
        Pacer { period: Duration::from_secs_f64(1.0 / rate_hz), next: Instant::now() }
    }

    /// Sleeps until the next tick is due.
    pub(crate) fn wait(&mut self) {
        let now = Instant::now();
        if self.next > now {
            std::thread::sleep(self.next - now);
        }
        self.next = (self.next + self.period).max(Instant::now());
    }
}
