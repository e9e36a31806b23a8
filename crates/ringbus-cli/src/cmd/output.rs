//! How every command talks to people and scripts: aligned tables, colour only on a
//! terminal (and never with `NO_COLOR`), human units, JSON for `--json`, and the exit codes.

use std::io::IsTerminal;

/// `--json`, shared by every listing command.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct JsonFlag {
    /// Print JSON (one document, or one object per line for streams) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Failures with their own exit code (anything else exits 1; bad usage exits 2).
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Exit 3: what was asked for does not exist.
    #[error("{0}")]
    NotFound(String),
    /// Exit 4: `--timeout` passed before the work was done.
    #[error("{0}")]
    Timeout(String),
    /// Exit 2: the command cannot run as asked, for a reason the argument parser cannot see.
    #[error("{0}")]
    Usage(String),
}

impl Failure {
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::NotFound(_) => 3,
            Failure::Timeout(_) => 4,
            Failure::Usage(_) => 2,
        }
    }
}

/// Colours, used only when stdout is a terminal and `NO_COLOR` is unset.
#[derive(Debug, Clone, Copy)]
pub enum Colour {
    Green = 32,
    Yellow = 33,
    Red = 31,
    Dim = 2,
    Bold = 1,
}

pub fn colour_enabled() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub fn paint(text: &str, colour: Colour) -> String {
    paint_when(colour_enabled(), text, colour)
}

/// `text` in `colour` if `enabled`.
pub fn paint_when(enabled: bool, text: &str, colour: Colour) -> String {
    if enabled {
        format!("\x1b[{}m{text}\x1b[0m", colour as u8)
    } else {
        text.to_string()
    }
}

/// A table of text cells; numeric columns are right-aligned.
#[derive(Debug, Default)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Table {
        Table { headers: headers.iter().map(|h| h.to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as lines (header first), each at most `width` characters if given.
    pub fn render(&self, width: Option<usize>) -> Vec<String> {
        let columns = self.headers.len();
        let cells_of = |c: usize| std::iter::once(&self.headers[c]).chain(self.rows.iter().map(move |r| &r[c]));
        let widths: Vec<usize> =
            (0..columns).map(|c| cells_of(c).map(|s| s.chars().count()).max().unwrap_or(0)).collect();
        let numeric: Vec<bool> =
            (0..columns).map(|c| !self.rows.is_empty() && self.rows.iter().all(|r| looks_numeric(&r[c]))).collect();
        let line = |cells: &[String]| {
            let mut out = String::new();
            for (c, cell) in cells.iter().enumerate() {
                let pad = widths[c] - cell.chars().count();
                if c > 0 {
                    out.push_str("  ");
                }
                if numeric[c] {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    if c + 1 < columns {
                        out.extend(std::iter::repeat_n(' ', pad));
                    }
                }
            }
            match width {
                Some(w) if out.chars().count() > w => out.chars().take(w).collect(),
                _ => out,
            }
        };
        std::iter::once(line(&self.headers)).chain(self.rows.iter().map(|r| line(r))).collect()
    }

    pub fn print(&self) {
        let mut lines = self.render(None).into_iter();
        if let Some(header) = lines.next() {
            println!("{}", paint(&header, Colour::Bold));
        }
        for l in lines {
            println!("{l}");
        }
    }
}

fn looks_numeric(cell: &str) -> bool {
    cell == "-" || cell.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// `text` safe to print on a terminal: every control character (C0, DEL and C1; each
/// terminal escape sequence starts with one) is written as a `\u{..}` escape, so text that
/// another process sent (a router's names and addresses) cannot move the cursor, recolour
/// or retitle the terminal. Used on every such text before it is printed.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// `1536` → `1.5 KiB`.
pub fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// `n` and a noun, plural unless `n` is 1: `counted(1, "topic")` is `1 topic`,
/// `counted(0, "topic")` is `0 topics` (for nouns whose plural adds an `s`).
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A rate with 3 significant digits (2 decimals at most): `100`, `99.9`, `9.88`, `0.05`.
/// The decimals follow the value as rounded, so 99.97 prints `100` like 100.02 does, not
/// `100.0`.
pub fn rate(per_s: f64) -> String {
    let decimals = if per_s == 0.0 || per_s >= 99.95 {
        0
    } else if per_s >= 9.995 {
        1
    } else {
        2
    };
    format!("{per_s:.decimals$}")
}

/// The value at quantile `q` (0 to 1) of `sorted` (ascending, not empty): the nearest rank.
pub fn quantile(sorted: &[u64], q: f64) -> u64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

pub fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

pub fn print_json(value: &serde_json::Value) {
    println!("{}", serde_json::to_string_pretty(value).expect("JSON values always serialize"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_numbers_right_and_text_left() {
        let mut t = Table::new(&["name", "count"]);
        t.row(vec!["a".into(), "5".into()]);
        t.row(vec!["long".into(), "1234".into()]);
        assert_eq!(t.render(None), ["name  count", "a         5", "long   1234"]);
        assert_eq!(t.render(Some(6))[2], "long  ");
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("\x1b[31mEVIL\x07"), "\\u{1b}[31mEVIL\\u{7}");
        assert_eq!(printable("a\u{9b}2Jb\x7f"), "a\\u{9b}2Jb\\u{7f}");
        assert_eq!(printable("gcs ünï 127.0.0.1:14550"), "gcs ünï 127.0.0.1:14550");
    }

    #[test]
    fn units() {
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.5 KiB");
        assert_eq!(rate(9.876), "9.88");
        assert_eq!(rate(123.4), "123");
        for (hz, shown) in
            [(99.97, "100"), (100.02, "100"), (99.94, "99.9"), (9.996, "10.0"), (9.994, "9.99"), (0.0, "0")]
        {
            assert_eq!(rate(hz), shown, "{hz}");
        }
    }

    #[test]
    fn counts_name_one_thing_in_the_singular() {
        assert_eq!(
            (counted(0, "topic"), counted(1, "topic"), counted(2, "topic")),
            ("0 topics".into(), "1 topic".into(), "2 topics".into())
        );
    }
}
