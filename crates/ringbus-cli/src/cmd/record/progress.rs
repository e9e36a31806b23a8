//! What `ringbus record` tells the user: a progress line on a terminal (messages, bytes,
//! rate, losses), redrawn twice a second on stderr; and the report at the end.

use super::super::output::{bytes, counted, rate, Table};
use super::topics::Topics;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const REDRAW: Duration = Duration::from_millis(500);

pub struct Progress {
    on_terminal: bool,
    started: Instant,
    next_draw: Instant,
    drawn: bool,
}

/// The totals of all topics.
fn totals(topics: &Topics) -> (u64, u64, u64) {
    topics.recorded.iter().fold((0, 0, 0), |(m, b, l), r| (m + r.messages, b + r.bytes, l + r.lost()))
}

impl Progress {
    pub fn new() -> Progress {
        let now = Instant::now();
        Progress { on_terminal: std::io::stderr().is_terminal(), started: now, next_draw: now + REDRAW, drawn: false }
    }

    /// Redraws the line if it is time to (and stderr is a terminal).
    pub fn show(&mut self, topics: &Topics, files: usize) {
        if !self.on_terminal || Instant::now() < self.next_draw {
            return;
        }
        self.next_draw = Instant::now() + REDRAW;
        let (messages, payload, lost) = totals(topics);
        let seconds = self.started.elapsed().as_secs_f64().max(1e-9);
        let line = format!(
            "recording {} · {} · {} msg/s · {} lost · {} · {:.0} s",
            counted(topics.recorded.len() as u64, "topic"),
            counted(messages, "message"),
            rate(messages as f64 / seconds),
            lost,
            bytes(payload as f64),
            seconds
        );
        let file = if files > 1 { format!(" · file {files}") } else { String::new() };
        eprint!("\r{line}{file}\x1b[K");
        let _ = std::io::stderr().flush();
        self.drawn = true;
    }

    /// The report: a table of the topics on stdout, the files and totals on stderr.
    pub fn report(self, topics: &Topics, paths: &[PathBuf]) {
        if self.drawn {
            eprintln!();
        }
        let mut table = Table::new(&["topic", "messages", "bytes", "lost"]);
        for r in &topics.recorded {
            let name = super::super::output::printable(&r.name);
            table.row(vec![name, r.messages.to_string(), r.bytes.to_string(), r.lost().to_string()]);
        }
        if !table.is_empty() {
            table.print();
        }
        let (messages, payload, lost) = totals(topics);
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "recorded {} ({}) of {} in {:.1} s into {}{}",
            counted(messages, "message"),
            bytes(payload as f64),
            counted(topics.recorded.len() as u64, "topic"),
            self.started.elapsed().as_secs_f64(),
            files.join(", "),
            if lost > 0 { format!("; {lost} lost (see the lost column)") } else { String::new() }
        );
    }
}
