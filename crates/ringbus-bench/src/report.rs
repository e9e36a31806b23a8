//! Presenting results: the machine they were measured on, a markdown table, and JSON.

use crate::config::format_size;
use crate::stats::Row;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// The machine a run was measured on.
#[derive(Debug, Clone)]
pub struct Machine {
    pub kernel: String,
    pub cpus: usize,
    pub cpu_model: String,
}

impl Machine {
    /// Reads the kernel release and CPU model from /proc.
    pub fn this() -> Machine {
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string());
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let model = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name") || l.starts_with("Model") || l.starts_with("cpu model"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string());
        Machine {
            kernel: kernel.unwrap_or_else(|_| "unknown".into()),
            cpus: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
            cpu_model: model.unwrap_or_else(|| "unknown".into()),
        }
    }
}

impl std::fmt::Display for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Linux {}, {} CPUs, {}", self.kernel, self.cpus, self.cpu_model)
    }
}

/// This process's command line, quoted so it can be pasted back into a shell.
pub fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./,=:+@%".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    std::env::args().map(quote).collect::<Vec<_>>().join(" ")
}

pub(crate) fn num(v: f64) -> String {
    match v {
        v if v.is_nan() => "n/a".into(),
        v if v >= 100.0 => format!("{v:.0}"),
        v if v >= 10.0 => format!("{v:.1}"),
        v => format!("{v:.2}"),
    }
}

fn ratio(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite()).map_or_else(|| "".into(), |v| format!("{v:.2}×"))
}

/// The results as a markdown table, one row per (transport, subs, topics, payload). With
/// several topics per tick, two more columns: e2e from the tick's start, and its ratio;
/// with the futex baseline, one more: ringbus's e2e over its.
pub fn markdown(rows: &[Row]) -> String {
    let ticks = rows.iter().any(|r| r.topics > 1);
    let futex = rows.iter().any(|r| r.e2e_p50_vs_futex.is_some());
    let mut out = String::new();
    out.push_str(
        "| transport | subs | topics | payload | msgs | publish p50 µs | publish p99 µs | e2e p50 µs | e2e p99 µs \
         | last e2e p50 µs | last e2e p99 µs | syscalls/publish | syscalls max | lost \
         | publish p50 / eventfd | e2e p50 / eventfd | publish p50 / idle floor |",
    );
    out.push_str(if ticks { " tick e2e p50 µs | tick e2e p50 / eventfd |" } else { "" });
    out.push_str(if futex { " e2e p50 / futex |\n" } else { "\n" });
    out.push_str("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    out.push_str(if ticks { "--:|--:|" } else { "" });
    out.push_str(if futex { "--:|\n" } else { "\n" });
    for r in rows {
        let _ = write!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.transport,
            r.subs,
            r.topics,
            format_size(r.payload_bytes),
            r.messages,
            num(r.publish_p50_us),
            num(r.publish_p99_us),
            num(r.e2e_p50_us),
            num(r.e2e_p99_us),
            num(r.last_e2e_p50_us),
            num(r.last_e2e_p99_us),
            r.syscalls_per_publish.map_or_else(|| "n/a".into(), |v| format!("{v:.2}")),
            r.syscalls_max.map_or_else(|| "n/a".into(), |v| v.to_string()),
            r.lost,
            ratio(r.publish_p50_vs_eventfd),
            ratio(r.e2e_p50_vs_eventfd),
            ratio(r.publish_p50_vs_idle_floor),
        );
        if ticks {
            let _ = write!(out, " {} | {} |", num(r.tick_e2e_p50_us), ratio(r.tick_e2e_p50_vs_eventfd));
        }
        if futex {
            let _ = write!(out, " {} |", ratio(r.e2e_p50_vs_futex));
        }
        out.push('\n');
    }
    out
}

/// Remarks a reader of the table needs: rows whose precondition (every subscriber asleep
/// when a message is published) did not always hold.
pub fn notes(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            let n = r.publishes_not_all_asleep.filter(|&n| n > 0)?;
            Some(format!(
                "{} subs={} payload={}: {n} of {} publishes found some subscribers still awake \
                 (busy with the previous message); they were not woken, only polled on their way back",
                r.transport,
                r.subs,
                format_size(r.payload_bytes),
                r.messages * r.topics as u64
            ))
        })
        .collect()
}

/// Writes the rows as a JSON array.
pub fn write_json(rows: &[Row], path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(rows)?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

/// How a target line ends: "met" or "not met".
pub fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "not met"
    }
}
