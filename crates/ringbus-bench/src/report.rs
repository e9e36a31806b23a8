//! Presenting results, the same way for every bench: the machine they were measured on,
//! the command line, markdown tables ([`Table`]), figures and ratios as text, and JSON.

use anyhow::{Context, Result};
use serde::Serialize;
use std::borrow::Cow;
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

/// A markdown table, column by column: a header, an alignment, and how a row fills its cell.
pub struct Table<'a, R> {
    columns: Vec<Column<'a, R>>,
}

struct Column<'a, R> {
    header: Cow<'a, str>,
    /// `---` (text, left) or `--:` (figures, right).
    rule: &'static str,
    cell: Box<dyn Fn(&R) -> String + 'a>,
}

impl<'a, R> Default for Table<'a, R> {
    fn default() -> Self {
        Table { columns: Vec::new() }
    }
}

impl<'a, R> Table<'a, R> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A left-aligned column: names, words.
    pub fn text(self, header: impl Into<Cow<'a, str>>, cell: impl Fn(&R) -> String + 'a) -> Self {
        self.column(header.into(), "---", Box::new(cell))
    }

    /// A right-aligned column: figures.
    pub fn number(self, header: impl Into<Cow<'a, str>>, cell: impl Fn(&R) -> String + 'a) -> Self {
        self.column(header.into(), "--:", Box::new(cell))
    }

    fn column(mut self, header: Cow<'a, str>, rule: &'static str, cell: Box<dyn Fn(&R) -> String + 'a>) -> Self {
        self.columns.push(Column { header, rule, cell });
        self
    }

    /// The header, its rule, then one line per row.
    pub fn markdown<'r>(&self, rows: impl IntoIterator<Item = &'r R>) -> String
    where
        R: 'r,
    {
        let line = |cells: Vec<Cow<'_, str>>| format!("| {} |\n", cells.join(" | "));
        let mut out = line(self.columns.iter().map(|c| c.header.clone()).collect());
        let rules: Vec<&str> = self.columns.iter().map(|c| c.rule).collect();
        let _ = writeln!(out, "|{}|", rules.join("|"));
        for r in rows {
            out.push_str(&line(self.columns.iter().map(|c| Cow::Owned((c.cell)(r))).collect()));
        }
        out
    }
}

/// A figure in as many digits as it needs: `1234`, `12.3`, `1.23`; NaN as `n/a`.
pub(crate) fn num(v: f64) -> String {
    match v {
        v if v.is_nan() => "n/a".into(),
        v if v >= 100.0 => format!("{v:.0}"),
        v if v >= 10.0 => format!("{v:.1}"),
        v => format!("{v:.2}"),
    }
}

/// `v` with `digits` significant digits however small (`0.000977`, not `0.00`), and at
/// least `min_decimals` decimals; `n/a` if it is not finite.
pub(crate) fn significant(v: f64, digits: i32, min_decimals: usize) -> String {
    match v {
        v if !v.is_finite() => "n/a".into(),
        0.0 => format!("{:.min_decimals$}", 0.0),
        v => {
            let decimals = (digits - 1 - v.log10().floor() as i32).clamp(min_decimals as i32, 12) as usize;
            format!("{v:.decimals$}")
        }
    }
}

/// Bytes in the largest binary unit they fill: `85 B`, `316 KiB`, `12.3 MiB`, `5.06 GiB`.
pub(crate) fn bytes(n: u64) -> String {
    match [(30, "GiB"), (20, "MiB"), (10, "KiB")].into_iter().find(|&(shift, _)| n >= 1 << shift) {
        Some((shift, unit)) => format!("{} {unit}", num(n as f64 / (1u64 << shift) as f64)),
        None => format!("{n} B"),
    }
}

/// A ratio as `0.75×`; `absent` if there is none (or it is not finite).
pub(crate) fn times(v: Option<f64>, absent: &str) -> String {
    v.filter(|v| v.is_finite()).map_or_else(|| absent.into(), |v| format!("{v:.2}×"))
}

/// Writes `rows` (an array) as pretty JSON to `path`.
pub fn write_json(rows: &impl Serialize, path: &Path) -> Result<()> {
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
