//! `ringbus hz TOPIC`: a topic's message rate and inter-arrival jitter, from the
//! publishers' timestamps (so the measurement does not include our own wake-up delay).

use super::numbers::{count, seconds};
use super::output::{counted, print_json, rate, JsonFlag};
use super::session::{LinkErrors, Session, TimeoutArg};
use ringbus::ReceiveError;
use serde_json::json;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus hz lidar/points                 # a line per second until Ctrl-C\n  \
    ringbus hz imu --window 1000            # statistics over the last 1000 messages\n  \
    ringbus hz imu --count 200 --json       # one JSON report after 200 messages, then exit\n\n\
    Waits for the topic to appear; never creates it. A name that is a command queue, latch\n\
    or semaphore and not a topic is refused (exit 2).")]
pub struct HzArgs {
    /// The topic.
    topic: String,
    /// Statistics over the last N messages.
    #[arg(long, default_value_t = 100, value_name = "N", value_parser = clap::value_parser!(u64).range(2..=1_000_000))]
    window: u64,
    /// Time between reports: seconds, or with a unit (500ms, 2m).
    #[arg(long, default_value_t = 1.0, value_name = "DURATION", value_parser = seconds)]
    every: f64,
    /// Stop after this many messages and print one final report.
    #[arg(long, short = 'n', value_name = "N", value_parser = count)]
    count: Option<u64>,
    #[command(flatten)]
    timeout: TimeoutArg,
    #[command(flatten)]
    json: JsonFlag,
}

/// Inter-arrival statistics over a window of publish timestamps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub messages: u64,
    pub hz: f64,
    pub mean_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub stddev_ms: f64,
}

/// `None` with fewer than two timestamps.
pub fn rate_of(stamps_ns: &VecDeque<u64>, messages: u64) -> Option<Rate> {
    let gaps: Vec<f64> =
        stamps_ns.iter().zip(stamps_ns.iter().skip(1)).map(|(a, b)| b.saturating_sub(*a) as f64 / 1e6).collect();
    if gaps.is_empty() {
        return None;
    }
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let variance = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
    Some(Rate {
        messages,
        hz: if mean > 0.0 { 1e3 / mean } else { f64::INFINITY },
        mean_ms: mean,
        min_ms: gaps.iter().cloned().fold(f64::INFINITY, f64::min),
        max_ms: gaps.iter().cloned().fold(0.0, f64::max),
        stddev_ms: variance.sqrt(),
    })
}

impl HzArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let session = Session::new("hz", self.timeout.timeout)?;
        let Some(mut subscriber) = session.subscribe(&self.topic, false)? else {
            return Ok(());
        };
        let mut stamps = VecDeque::with_capacity(self.window as usize);
        let mut messages = 0u64;
        let mut link_errors = LinkErrors::default();
        let every = Duration::from_secs_f64(self.every);
        let mut next_report = Instant::now() + every;
        loop {
            if self.count.is_some_and(|c| messages >= c) {
                break;
            }
            if session.interrupted() || session.expired() {
                if self.count.is_some() && session.expired() {
                    let wanted = self.count.unwrap_or_default();
                    return Err(session.shortfall(&subscriber, messages, wanted, "use a deeper topic").into());
                }
                break;
            }
            match subscriber.receive(Some(session.slice())) {
                Ok(sample) => {
                    if stamps.len() as u64 == self.window {
                        stamps.pop_front();
                    }
                    stamps.push_back(sample.timestamp_ns());
                    messages += 1;
                }
                Err(ReceiveError::Timeout) => {}
                Err(e) => link_errors.survive(e)?,
            }
            if self.count.is_none() && Instant::now() >= next_report {
                self.report(rate_of(&stamps, messages));
                next_report += every;
            }
        }
        self.report(rate_of(&stamps, messages));
        Ok(())
    }

    fn report(&self, r: Option<Rate>) {
        match (r, self.json.json) {
            (None, true) => print_json(&json!({ "topic": self.topic, "messages": 0, "hz": null })),
            (None, false) => println!("no messages yet on {:?}", self.topic),
            (Some(r), true) => println!(
                "{}",
                json!({
                    "topic": self.topic, "messages": r.messages, "window": self.window, "hz": r.hz,
                    "mean_ms": r.mean_ms, "min_ms": r.min_ms, "max_ms": r.max_ms, "stddev_ms": r.stddev_ms,
                })
            ),
            (Some(r), false) => println!(
                "{} Hz  (gap mean {:.3} ms, min {:.3}, max {:.3}, std dev {:.3}; {})",
                rate(r.hz),
                r.mean_ms,
                r.min_ms,
                r.max_ms,
                r.stddev_ms,
                counted(r.messages, "message")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rate_and_jitter_from_timestamps() {
        let stamps = [0u64, 10_000_000, 20_000_000, 40_000_000].into_iter().collect();
        let r = super::rate_of(&stamps, 4).unwrap();
        assert!((r.mean_ms - 40.0 / 3.0).abs() < 1e-9);
        assert_eq!((r.min_ms, r.max_ms), (10.0, 20.0));
        assert!((r.hz - 75.0).abs() < 1e-9);
        assert!(super::rate_of(&[5u64].into_iter().collect(), 1).is_none());
    }
}
