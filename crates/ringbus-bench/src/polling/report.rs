//! The polling bench's rows — per (scenario, style) the median of its runs, the polling
//! rows' ratios against the callback runs of the same scenario, paired within a pass — as
//! markdown: a row per point, then the polling ÷ callback ratios per scenario.

use super::measure::Measurement;
use super::{Point, PollingConfig, Scenario, Style};
use crate::driver::Passes;
use crate::report::{num, significant, Table};
use crate::stats::median_of;
use serde::Serialize;
use std::fmt::Write as _;

/// One (scenario, style) result: every figure is the median over `repeat` runs (the
/// lower middle one for an even count) of the subscriber process's window.
#[derive(Debug, Clone, Serialize)]
pub struct PollingRow {
    pub scenario: Scenario,
    pub style: Style,
    pub topics: u32,
    pub payload_bytes: u64,
    pub repeat: u32,
    /// The measured window (elapsed on CLOCK_MONOTONIC).
    pub duration_s: f64,
    /// User + system CPU time of the subscriber process over the window.
    pub cpu_s: f64,
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    /// `cpu_s` per second of window, in milliseconds (1000: one core busy).
    pub cpu_ms_per_s: f64,
    pub voluntary_ctx_switches: u64,
    pub involuntary_ctx_switches: u64,
    /// Executor wake-ups (waits that returned with work).
    pub wakeups: u64,
    pub wakeups_per_s: f64,
    pub timer_calls: u64,
    /// Messages the executor queued into inputs on wake-ups (0 in the polling style).
    pub messages_delivered: u64,
    /// Messages published on the input topics during the window.
    pub messages_published: u64,
    pub messages_published_per_s: f64,
    /// Wake system calls the input topics' publishers made during the window.
    pub publisher_wake_syscalls: u64,
    /// The furthest behind its schedule the bench published a message.
    pub publisher_late_max_ms: f64,
    /// The subscriber's wait-set backend.
    pub backend: String,
    /// Polling rows: CPU time ÷ the callback style's in the same scenario and pass, the
    /// median over the passes.
    pub cpu_vs_callback: Option<f64>,
    /// Polling rows: wake-ups per second ÷ the callback style's in the same scenario and
    /// pass, the median over the passes.
    pub wakeups_vs_callback: Option<f64>,
}

/// The row of `point`, from its runs.
pub(crate) fn row(config: &PollingConfig, point: &Point, runs: &[&Measurement]) -> PollingRow {
    let first = runs[0];
    PollingRow {
        scenario: point.scenario,
        style: point.style,
        topics: point.scenario.topics().len() as u32,
        payload_bytes: config.payload_bytes,
        repeat: runs.len() as u32,
        duration_s: median_of(runs, seconds),
        cpu_s: median_of(runs, cpu_s),
        cpu_user_s: median_of(runs, |m| m.result.cpu_user_us) as f64 / 1e6,
        cpu_sys_s: median_of(runs, |m| m.result.cpu_sys_us) as f64 / 1e6,
        cpu_ms_per_s: median_of(runs, |m| cpu_s(m) * 1e3 / seconds(m)),
        voluntary_ctx_switches: median_of(runs, |m| m.result.voluntary_ctx_switches),
        involuntary_ctx_switches: median_of(runs, |m| m.result.involuntary_ctx_switches),
        wakeups: median_of(runs, |m| m.result.wakeups),
        wakeups_per_s: median_of(runs, wakeups_per_s),
        timer_calls: median_of(runs, |m| m.result.timer_calls),
        messages_delivered: median_of(runs, |m| m.result.messages_delivered),
        messages_published: median_of(runs, |m| m.result.messages_published),
        messages_published_per_s: median_of(runs, |m| m.result.messages_published as f64 / seconds(m)),
        publisher_wake_syscalls: median_of(runs, |m| m.result.publisher_wake_syscalls),
        publisher_late_max_ms: median_of(runs, |m| m.feeder.late_max_ns) as f64 / 1e6,
        backend: first.result.backend.clone(),
        cpu_vs_callback: None,
        wakeups_vs_callback: None,
    }
}

/// A run's window, in seconds.
fn seconds(m: &Measurement) -> f64 {
    (m.result.elapsed_ns as f64 / 1e9).max(1e-9)
}

/// A run's user + system CPU time, in seconds.
fn cpu_s(m: &Measurement) -> f64 {
    (m.result.cpu_user_us + m.result.cpu_sys_us) as f64 / 1e6
}

/// A run's executor wake-ups per second of its window.
fn wakeups_per_s(m: &Measurement) -> f64 {
    m.result.wakeups as f64 / seconds(m)
}

/// Polling rows: CPU time and wake-ups per second ÷ the callback style's in the same
/// scenario, paired within a pass.
pub(crate) fn fill_ratios(measured: &Passes<Point, Measurement>, rows: &mut [PollingRow]) {
    for r in rows.iter_mut().filter(|r| r.style == Style::Polling) {
        let point = Point { scenario: r.scenario, style: r.style };
        let callback = Point { scenario: r.scenario, style: Style::Callback };
        r.cpu_vs_callback = measured.paired(&point, &callback, cpu_s);
        r.wakeups_vs_callback = measured.paired(&point, &callback, wakeups_per_s);
    }
}

/// One row per (scenario, style).
pub fn markdown(rows: &[PollingRow]) -> String {
    Table::<PollingRow>::new()
        .text("scenario", |r| r.scenario.to_string())
        .text("style", |r| r.style.to_string())
        .number("cpu ms (user+sys)", |r| num(r.cpu_s * 1e3))
        .number("cpu ms/s", |r| num(r.cpu_ms_per_s))
        .number("voluntary ctx switches", |r| r.voluntary_ctx_switches.to_string())
        .number("wake-ups/s", |r| num(r.wakeups_per_s))
        .number("timer calls", |r| r.timer_calls.to_string())
        .number("messages/s published", |r| num(r.messages_published_per_s))
        .number("publisher wake syscalls", |r| r.publisher_wake_syscalls.to_string())
        .markdown(rows)
}

/// A ratio with two significant digits however small (`0.0018×`, not `0.00×`).
fn ratio(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite()).map_or_else(|| "n/a".into(), |v| format!("{}×", significant(v, 2, 2)))
}

/// Per scenario: polling ÷ callback for CPU time and wake-ups per second.
pub fn ratios(rows: &[PollingRow]) -> String {
    let mut out = String::new();
    for r in rows.iter().filter(|r| r.style == Style::Polling) {
        let _ = writeln!(
            out,
            "- {}: polling ÷ callback: CPU {}, wake-ups/s {}",
            r.scenario,
            ratio(r.cpu_vs_callback),
            ratio(r.wakeups_vs_callback)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WorkerLauncher;
    use crate::driver::{Bench, Passes};
    use crate::polling::feeder::FeederStats;
    use crate::polling::worker::WorkerResult;
    use std::path::PathBuf;

    fn measured(style: Style, repetition: u32, cpu_us: u64, wakeups: u64) -> (u32, Point, Measurement) {
        let result = WorkerResult {
            cpu_user_us: cpu_us / 2,
            cpu_sys_us: cpu_us / 2,
            wakeups,
            timer_calls: 20,
            messages_published: 180,
            elapsed_ns: 2_000_000_000,
            backend: "futex".into(),
            ..WorkerResult::default()
        };
        let feeder = FeederStats { published: 200, late_max_ns: 1_000_000 * u64::from(repetition) };
        (repetition, Point { scenario: Scenario::ThreeTopics, style }, Measurement { result, feeder })
    }

    #[test]
    fn rows_are_medians_with_ratios_paired_within_a_pass() {
        let config = PollingConfig {
            scenarios: Scenario::ALL.to_vec(),
            payload_bytes: 256,
            duration_ns: 2_000_000_000,
            repeat: 3,
            dir: PathBuf::new(),
            worker: WorkerLauncher { program: PathBuf::new(), args: vec![] },
        };
        let m = Passes::new(vec![
            measured(Style::Callback, 0, 40_000, 180),
            measured(Style::Polling, 0, 10_000, 20),
            measured(Style::Polling, 1, 30_000, 20),
            measured(Style::Callback, 1, 20_000, 200),
            measured(Style::Callback, 2, 80_000, 190),
            measured(Style::Polling, 2, 20_000, 21),
        ]);
        let mut rows = config.rows(&m);
        config.ratios(&m, &mut rows);
        assert_eq!(rows.len(), 2, "no scaled runs, no scaled rows");
        let (callback, polling) = (&rows[0], &rows[1]);
        assert_eq!((callback.style, polling.style), (Style::Callback, Style::Polling));
        assert_eq!((callback.repeat, callback.cpu_s, callback.wakeups, callback.wakeups_per_s), (3, 0.04, 190, 95.0));
        assert_eq!((callback.cpu_ms_per_s, callback.messages_published_per_s, callback.duration_s), (20.0, 90.0, 2.0));
        assert_eq!((callback.topics, callback.publisher_late_max_ms, callback.backend.as_str()), (3, 1.0, "futex"));
        assert_eq!((callback.cpu_vs_callback, callback.wakeups_vs_callback), (None, None));
        assert_eq!((polling.cpu_s, polling.wakeups_per_s), (0.02, 10.0));
        // Polling ÷ callback within each pass: CPU 10/40, 30/20, 20/80 ms → 0.25, 1.5, 0.25;
        // wake-ups/s 10/90, 10/100, 10.5/95 → median 10.5/95. The medians' ratios, 20/40 =
        // 0.5 and 10/95, would pair runs of different passes.
        assert_eq!(polling.cpu_vs_callback, Some(0.25));
        assert_eq!(polling.wakeups_vs_callback, Some(10.5 / 95.0));
    }

    #[test]
    fn small_ratios_keep_two_significant_digits() {
        assert_eq!(ratio(Some(0.19)), "0.19×");
        assert_eq!(ratio(Some(1.5)), "1.50×");
        assert_eq!(ratio(Some(0.0065)), "0.0065×");
        assert_eq!(ratio(Some(0.00183)), "0.0018×");
        assert_eq!(ratio(Some(0.05)), "0.050×");
        assert_eq!(ratio(Some(0.0)), "0.00×");
        assert_eq!((ratio(None), ratio(Some(f64::NAN))), ("n/a".into(), "n/a".into()));
    }
}
