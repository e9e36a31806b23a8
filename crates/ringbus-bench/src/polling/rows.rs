//! Runs into rows: one per (scenario, style), the median of its repetitions, and the
//! polling rows' ratios against the callback row of the same scenario.

use super::measure::Measurement;
use super::{Point, PollingConfig, Scenario, Style};
use crate::stats::median;
use serde::Serialize;

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
    /// Polling rows: `cpu_s` divided by the callback row's of the same scenario.
    pub cpu_vs_callback: Option<f64>,
    /// Polling rows: `wakeups_per_s` divided by the callback row's of the same scenario.
    pub wakeups_vs_callback: Option<f64>,
}

/// The row of `point`, from its runs.
pub(crate) fn row(config: &PollingConfig, point: &Point, runs: &[&Measurement]) -> PollingRow {
    let first = runs[0];
    let med = |f: &dyn Fn(&Measurement) -> u64| median(runs.iter().map(|m| f(m)).collect());
    let med_f = |f: &dyn Fn(&Measurement) -> f64| median(runs.iter().map(|m| f(m)).collect());
    let seconds = |m: &Measurement| (m.result.elapsed_ns as f64 / 1e9).max(1e-9);
    let cpu_s = |m: &Measurement| (m.result.cpu_user_us + m.result.cpu_sys_us) as f64 / 1e6;
    PollingRow {
        scenario: point.scenario,
        style: point.style,
        topics: point.scenario.topics().len() as u32,
        payload_bytes: config.payload_bytes,
        repeat: runs.len() as u32,
        duration_s: med_f(&seconds),
        cpu_s: med_f(&cpu_s),
        cpu_user_s: med(&|m| m.result.cpu_user_us) as f64 / 1e6,
        cpu_sys_s: med(&|m| m.result.cpu_sys_us) as f64 / 1e6,
        cpu_ms_per_s: med_f(&|m| cpu_s(m) * 1e3 / seconds(m)),
        voluntary_ctx_switches: med(&|m| m.result.voluntary_ctx_switches),
        involuntary_ctx_switches: med(&|m| m.result.involuntary_ctx_switches),
        wakeups: med(&|m| m.result.wakeups),
        wakeups_per_s: med_f(&|m| m.result.wakeups as f64 / seconds(m)),
        timer_calls: med(&|m| m.result.timer_calls),
        messages_delivered: med(&|m| m.result.messages_delivered),
        messages_published: med(&|m| m.result.messages_published),
        messages_published_per_s: med_f(&|m| m.result.messages_published as f64 / seconds(m)),
        publisher_wake_syscalls: med(&|m| m.result.publisher_wake_syscalls),
        publisher_late_max_ms: med(&|m| m.feeder.late_max_ns) as f64 / 1e6,
        backend: first.result.backend.clone(),
        cpu_vs_callback: None,
        wakeups_vs_callback: None,
    }
}

/// Polling rows: CPU time and wake-ups per second ÷ the callback row's of the same scenario.
pub(crate) fn fill_ratios(rows: &mut [PollingRow]) {
    let callbacks: Vec<(Scenario, f64, f64)> =
        rows.iter().filter(|r| r.style == Style::Callback).map(|r| (r.scenario, r.cpu_s, r.wakeups_per_s)).collect();
    for r in rows.iter_mut().filter(|r| r.style == Style::Polling) {
        if let Some(&(_, cpu, wakeups)) = callbacks.iter().find(|c| c.0 == r.scenario) {
            r.cpu_vs_callback = (cpu > 0.0).then(|| r.cpu_s / cpu);
            r.wakeups_vs_callback = (wakeups > 0.0).then(|| r.wakeups_per_s / wakeups);
        }
    }
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
        (repetition, Point { scenario: Scenario::FigureOne, style }, Measurement { result, feeder })
    }

    #[test]
    fn rows_are_medians_with_ratios_against_the_callback_style() {
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
        assert_eq!(polling.cpu_vs_callback, Some(0.5));
        assert_eq!(polling.wakeups_vs_callback, Some(10.0 / 95.0));
    }
}
