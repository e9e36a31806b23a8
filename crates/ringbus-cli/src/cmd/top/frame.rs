//! One frame of `ringbus top` as lines of text, the same for the live view and `--once`:
//! a header (root, time, totals, sort order), then a table with one row per topic and,
//! indented under it, one row per subscriber. Lines are cut to the width and the frame to
//! the height it is given (never wrapped), and painted only at the end, so the cutting
//! counts characters, not escape codes.

use super::rows::{Order, SortKey, TopicRow};
use crate::cmd::json::wake_name;
use crate::cmd::output::{bytes, counted, paint, rate, yes_no, Colour, Table};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// What one frame shows.
pub struct View<'a> {
    pub root: &'a Path,
    pub rows: &'a [TopicRow],
    /// MAVLink routers: their links' counters, shown under the topics.
    pub routers: &'a [ringbus_route::runtime::Status],
    pub order: Order,
    /// Time between the two snapshots the rates come from (zero: no rates yet).
    pub elapsed: Duration,
    /// The live view: show the keys.
    pub live: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tone {
    Plain,
    Bold,
    Dim,
    /// Something to look at: the sort order, a subscriber losing messages.
    Warn,
    /// A dead participant's row: its last cell, `dead`, in red.
    Dead,
}

/// One line of a frame, cut to fit, not yet painted.
#[derive(Debug, Clone)]
pub struct Line {
    pub text: String,
    tone: Tone,
}

impl Line {
    fn new(text: impl Into<String>, tone: Tone) -> Line {
        Line { text: text.into(), tone }
    }

    /// The line with its colour (only on a terminal, see [`paint`]).
    pub fn painted(&self) -> String {
        match self.tone {
            Tone::Plain => self.text.clone(),
            Tone::Bold => paint(&self.text, Colour::Bold),
            Tone::Dim => paint(&self.text, Colour::Dim),
            Tone::Warn => paint(&self.text, Colour::Yellow),
            Tone::Dead => match self.text.strip_suffix(DEAD) {
                Some(head) => format!("{head}{}", paint(DEAD, Colour::Red)),
                None => self.text.clone(),
            },
        }
    }
}

const DEAD: &str = "dead";

/// The frame, at most `width` characters wide and `height` lines high if given.
pub fn render(view: &View, width: Option<usize>, height: Option<usize>) -> Vec<Line> {
    let mut lines = header(view);
    if view.rows.is_empty() {
        lines.push(Line::new(format!("(no topics in {})", view.root.display()), Tone::Plain));
    } else {
        lines.extend(table(view));
    }
    if !view.routers.is_empty() {
        lines.push(Line::new("", Tone::Plain));
        lines.push(Line::new("MAVLink router endpoints and links (ringbus route)", Tone::Bold));
        let endpoints = crate::cmd::route::endpoints_table(view.routers);
        lines.extend(endpoints.render(None).into_iter().map(|text| Line::new(text, Tone::Plain)));
        let links = crate::cmd::route::links_table(view.routers);
        lines.extend(links.render(None).into_iter().map(|text| Line::new(text, Tone::Plain)));
    }
    if let Some(height) = height.filter(|&h| lines.len() > h) {
        let hidden = lines.len() + 1 - height;
        lines.truncate(height.saturating_sub(1));
        if height > 0 {
            lines.push(Line::new(format!("... {hidden} more lines (a taller terminal shows them)"), Tone::Dim));
        }
    }
    if let Some(width) = width {
        for line in &mut lines {
            if line.text.chars().count() > width {
                line.text = line.text.chars().take(width).collect();
            }
        }
    }
    lines
}

fn header(view: &View) -> Vec<Line> {
    let rows = view.rows;
    let subscribers: usize = rows.iter().map(|r| r.subscribers).sum();
    let dead = rows.iter().flat_map(|r| &r.subscriber_rows).filter(|s| !s.alive).count();
    let measured = if view.elapsed.is_zero() {
        "measuring rates".to_string()
    } else {
        format!("rates over {:.2} s", view.elapsed.as_secs_f64())
    };
    let totals = format!(
        "{}, {}, {} ({} dead): {} msg/s, {}",
        counted(rows.len() as u64, "topic"),
        counted(rows.iter().map(|r| r.publishers).sum::<usize>() as u64, "publisher"),
        counted(subscribers as u64, "subscriber"),
        dead,
        per_s(view, rows.iter().fold(0.0, |sum, r| sum + r.messages_per_s), rate),
        per_s(view, rows.iter().fold(0.0, |sum, r| sum + r.bytes_per_s), bandwidth),
    );
    let direction = if view.order.descending() { "descending" } else { "ascending" };
    let mut sort = format!("sort: {}, {direction}", view.order.key.name());
    if view.live {
        sort.push_str("    s: next sort key   r: reverse   q: quit");
    }
    vec![
        Line::new(format!("ringbus top  {}  {}  {measured}", view.root.display(), clock()), Tone::Bold),
        Line::new(totals, Tone::Plain),
        Line::new(sort, Tone::Warn),
        Line::new("", Tone::Plain),
    ]
}

/// The topic table and the subscriber table, each aligned on its own, interleaved.
fn table(view: &View) -> Vec<Line> {
    let key = view.order.key;
    let mark = |title: &str, marked: bool| if marked { format!("{title}*") } else { title.to_string() };
    let topic_titles = [
        mark("topic", key == SortKey::Name),
        "pubs".into(),
        "subs".into(),
        mark("msg/s", key == SortKey::Rate),
        mark("bandwidth", key == SortKey::Bandwidth),
        "memory".into(),
        "sleepers".into(),
        mark("wake syscalls/s", key == SortKey::Wakes),
        "skipped/s".into(),
    ];
    let subscriber_titles = [
        "slot".into(),
        "pid".into(),
        "wake".into(),
        "taken/s".into(),
        mark("lag", key == SortKey::Lag),
        "lost".into(),
        mark("lost/s", key == SortKey::Lost),
        "held".into(),
        "asleep".into(),
        "reliable".into(),
        "state".into(),
    ];
    let mut topics = Table::new(&topic_titles.iter().map(String::as_str).collect::<Vec<_>>());
    let mut subscribers = Table::new(&subscriber_titles.iter().map(String::as_str).collect::<Vec<_>>());
    for t in view.rows {
        topics.row(vec![
            t.name.clone(),
            t.publishers.to_string(),
            t.subscribers.to_string(),
            per_s(view, t.messages_per_s, rate),
            per_s(view, t.bytes_per_s, bandwidth),
            bytes(t.memory_bytes as f64),
            t.sleepers.to_string(),
            per_s(view, t.wake_syscalls_per_s, rate),
            per_s(view, t.wakes_skipped_per_s, rate),
        ]);
        for s in &t.subscriber_rows {
            subscribers.row(vec![
                s.slot.to_string(),
                s.pid.to_string(),
                wake_name(s.wake).into(),
                per_s(view, s.taken_per_s, rate),
                s.lag.to_string(),
                s.lost.to_string(),
                per_s(view, s.lost_per_s, rate),
                s.held.to_string(),
                yes_no(s.asleep).into(),
                yes_no(s.reliable).into(),
                if s.alive { "alive".into() } else { DEAD.into() },
            ]);
        }
    }
    let mut topic_lines = topics.render(None).into_iter();
    let mut subscriber_lines = subscribers.render(None).into_iter().map(|l| format!("  {l}"));
    let mut lines = vec![
        Line::new(topic_lines.next().unwrap_or_default(), Tone::Bold),
        Line::new(subscriber_lines.next().unwrap_or_default(), Tone::Dim),
    ];
    for t in view.rows {
        lines.push(Line::new(topic_lines.next().unwrap_or_default(), Tone::Plain));
        for s in &t.subscriber_rows {
            let tone = match (s.alive, s.lost_per_s > 0.0) {
                (false, _) => Tone::Dead,
                (true, true) => Tone::Warn,
                (true, false) => Tone::Plain,
            };
            lines.push(Line::new(subscriber_lines.next().unwrap_or_default(), tone));
        }
    }
    lines
}

/// A rate cell, or `-` before there are two snapshots to compare.
fn per_s(view: &View, value: f64, format: fn(f64) -> String) -> String {
    if view.elapsed.is_zero() {
        "-".into()
    } else {
        format(value)
    }
}

fn bandwidth(bytes_per_s: f64) -> String {
    format!("{}/s", bytes(bytes_per_s))
}

/// The time of day, UTC (`HH:MM:SS UTC`).
fn clock() -> String {
    let s = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 86_400;
    format!("{:02}:{:02}:{:02} UTC", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::top::rows::SubscriberRow;
    use ringbus::Wake;

    fn rows() -> Vec<TopicRow> {
        let subscriber = |slot, alive, lost_per_s| SubscriberRow {
            slot,
            node_id: 1,
            pid: 42,
            wake: Wake::Never,
            taken_per_s: 0.0,
            lag: 12,
            lost: 3,
            lost_per_s,
            held: 0,
            asleep: false,
            reliable: false,
            alive,
        };
        let topic = |name: &str, subscriber_rows: Vec<SubscriberRow>| TopicRow {
            name: name.into(),
            topic_id: 1,
            publishers: 1,
            subscribers: subscriber_rows.len(),
            messages: 200,
            messages_per_s: 100.0,
            bytes_per_s: 2048.0,
            sleepers: 0,
            memory_bytes: 1 << 20,
            wake_syscalls_per_s: 0.0,
            wakes_skipped_per_s: 100.0,
            subscriber_rows,
        };
        vec![topic("lidar/points", vec![subscriber(0, true, 1.5), subscriber(3, false, 0.0)]), topic("imu", vec![])]
    }

    fn view(rows: &[TopicRow], elapsed: Duration) -> View<'_> {
        View {
            root: Path::new("/r"),
            rows,
            routers: &[],
            order: Order { key: SortKey::Rate, reversed: false },
            elapsed,
            live: true,
        }
    }

    #[test]
    fn topics_then_their_subscribers_indented() {
        let rows = rows();
        let lines = render(&view(&rows, Duration::from_secs(2)), None, None);
        let text: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert!(text[0].starts_with("ringbus top  /r  ") && text[0].ends_with("rates over 2.00 s"), "{text:?}");
        assert_eq!(text[1], "2 topics, 2 publishers, 2 subscribers (1 dead): 200 msg/s, 4.0 KiB/s");
        assert!(text[2].starts_with("sort: rate, descending") && text[2].contains("q: quit"));
        assert!(text[4].starts_with("topic ") && text[4].contains("msg/s*"), "{:?}", text[4]);
        assert!(text[5].starts_with("  slot"));
        assert!(text[6].starts_with("lidar/points ") && text[6].contains("2.0 KiB/s"));
        assert!(text[7].starts_with("     0   42  never") && lines[7].tone == Tone::Warn, "{:?}", text[7]);
        assert!(text[8].ends_with("dead") && lines[8].tone == Tone::Dead);
        assert!(text[9].starts_with("imu "));
        assert_eq!(text.len(), 10);
    }

    #[test]
    fn cut_to_the_terminal_never_wrapped() {
        let rows = rows();
        let lines = render(&view(&rows, Duration::from_secs(1)), Some(20), Some(7));
        assert_eq!(lines.len(), 7);
        assert!(lines.iter().all(|l| l.text.chars().count() <= 20));
        assert_eq!(lines[6].text, "... 4 more lines (a ");
        assert!(render(&view(&rows, Duration::from_secs(1)), Some(5), Some(0)).is_empty());
    }

    #[test]
    fn no_rates_before_two_snapshots_and_an_empty_root_says_so() {
        let rows = rows();
        let lines = render(&view(&rows, Duration::ZERO), None, None);
        assert!(lines[0].text.ends_with("measuring rates") && lines[1].text.ends_with(": - msg/s, -"));
        assert!(render(&view(&[], Duration::ZERO), None, None)[4].text == "(no topics in /r)");
        let empty = render(&view(&[], Duration::from_secs(1)), None, None);
        assert!(empty[1].text.ends_with(": 0 msg/s, 0 B/s"), "not -0: {:?}", empty[1].text);
    }
}
