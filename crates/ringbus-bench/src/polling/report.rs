//! The polling bench's results as markdown: a row per (scenario, style), then the polling
//! ÷ callback ratios per scenario.

use super::{PollingRow, Style};
use crate::report::{num, Table};
use std::fmt::Write as _;

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
    match v.filter(|v| v.is_finite()) {
        None => "n/a".into(),
        Some(v) if v >= 0.1 || v == 0.0 => format!("{v:.2}×"),
        Some(v) => {
            let decimals = (1 - v.log10().floor() as i32).clamp(2, 12) as usize;
            format!("{v:.decimals$}×")
        }
    }
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
