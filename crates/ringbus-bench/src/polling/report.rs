//! The polling bench's results as markdown (a row per (scenario, style), then the polling
//! ÷ callback ratios per scenario) and as JSON.

use super::{PollingRow, Style};
use crate::report::num;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// One row per (scenario, style).
pub fn markdown(rows: &[PollingRow]) -> String {
    let mut out = String::from(
        "| scenario | style | cpu ms (user+sys) | cpu ms/s | voluntary ctx switches | wake-ups/s \
         | timer calls | messages/s published | publisher wake syscalls |\n\
         |---|---|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.style,
            num(r.cpu_s * 1e3),
            num(r.cpu_ms_per_s),
            r.voluntary_ctx_switches,
            num(r.wakeups_per_s),
            r.timer_calls,
            num(r.messages_published_per_s),
            r.publisher_wake_syscalls,
        );
    }
    out
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

/// Writes the rows as a JSON array.
pub fn write_json(rows: &[PollingRow], path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(rows)?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
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
