//! `ringbus mcap info FILE` (and `ringbus record --info FILE`): a recording's channels with
//! their messages, bytes, rate and losses, and its duration, read from the whole file.

use super::super::output::{bytes, print_json, printable, rate, Table};
use super::convention::{RecordedTopic, LOST_PREFIX, RECORDING_METADATA};
use super::read;
use mcap::records::Record;
use serde_json::json;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;

/// One channel as the file holds it.
#[derive(Debug, Default)]
struct Channel {
    topic: String,
    /// The payload type (ringbus channels) or the message encoding (others).
    kind: String,
    messages: u64,
    bytes: u64,
    first_ns: Option<u64>,
    last_ns: u64,
}

/// What a file holds.
#[derive(Debug, Default)]
struct Contents {
    channels: BTreeMap<u16, Channel>,
    /// Losses by topic, from the recording's metadata records.
    lost: BTreeMap<String, u64>,
}

impl Contents {
    fn add(&mut self, record: Record<'_>) -> anyhow::Result<ControlFlow<()>> {
        match record {
            Record::Channel(c) => {
                let recorded = RecordedTopic::from_channel(&c.topic, &c.metadata)?;
                let kind = match recorded {
                    Some(t) => t.payload.map_or_else(|| "bytes".to_string(), |p| p.name),
                    None => c.message_encoding.clone(),
                };
                self.channels.entry(c.id).or_insert(Channel { topic: c.topic, kind, ..Channel::default() });
            }
            Record::Message { header, data } => {
                let Some(channel) = self.channels.get_mut(&header.channel_id) else {
                    anyhow::bail!("a message names channel {}, which the file does not declare", header.channel_id);
                };
                channel.messages += 1;
                channel.bytes += data.len() as u64;
                channel.first_ns = Some(channel.first_ns.map_or(header.log_time, |f| f.min(header.log_time)));
                channel.last_ns = channel.last_ns.max(header.log_time);
            }
            Record::Metadata(m) if m.name == RECORDING_METADATA => {
                for (key, value) in &m.metadata {
                    let Some(topic) = key.strip_prefix(LOST_PREFIX) else { continue };
                    let n: u64 = value
                        .parse()
                        .map_err(|_| anyhow::anyhow!("metadata {key:?} is {value:?}, not a count of messages"))?;
                    let total = self.lost.entry(topic.to_string()).or_default();
                    *total = total.saturating_add(n);
                }
            }
            _ => {}
        }
        Ok(ControlFlow::Continue(()))
    }

    fn span_ns(&self) -> Option<(u64, u64)> {
        let first = self.channels.values().filter_map(|c| c.first_ns).min()?;
        let last = self.channels.values().filter(|c| c.first_ns.is_some()).map(|c| c.last_ns).max()?;
        Some((first, last))
    }
}

/// Prints what `path` holds, as a table or JSON.
pub fn show(path: &Path, partial: bool, json: bool) -> anyhow::Result<()> {
    let mut contents = Contents::default();
    let end = read::scan(path, partial, |record| contents.add(record))?;
    if json {
        print_json(&contents.json(path, &end));
    } else {
        contents.print(path, &end);
    }
    Ok(())
}

impl Channel {
    /// Messages per second between its first and last message.
    fn hz(&self) -> f64 {
        match self.first_ns {
            Some(f) if self.messages > 1 && self.last_ns > f => {
                (self.messages - 1) as f64 * 1e9 / (self.last_ns - f) as f64
            }
            _ => 0.0,
        }
    }
}

impl Contents {
    fn lost_of(&self, c: &Channel) -> u64 {
        self.lost.get(&c.topic).copied().unwrap_or(0)
    }

    /// (messages, payload bytes, lost) of the whole file.
    fn totals(&self) -> (u64, u64, u64) {
        let messages = self.channels.values().map(|c| c.messages).sum();
        let payload = self.channels.values().map(|c| c.bytes).sum();
        (messages, payload, self.lost.values().sum())
    }

    fn json(&self, path: &Path, end: &read::ScanEnd) -> serde_json::Value {
        let (first, last) = self.span_ns().unwrap_or((0, 0));
        let (messages, payload, lost) = self.totals();
        let channels: Vec<_> = self
            .channels
            .iter()
            .map(|(id, c)| {
                json!({"id": id, "topic": c.topic, "type": c.kind, "messages": c.messages, "bytes": c.bytes,
                       "rate_hz": c.hz(), "lost": self.lost_of(c), "first_log_time_ns": c.first_ns, "last_log_time_ns": c.last_ns})
            })
            .collect();
        json!({
            "file": path.display().to_string(), "complete": end.damage.is_none(), "damage": end.damage,
            "messages": messages, "bytes": payload, "lost": lost, "duration_s": (last - first) as f64 / 1e9,
            "start_log_time_ns": first, "end_log_time_ns": last, "channels": channels,
        })
    }

    fn print(&self, path: &Path, end: &read::ScanEnd) {
        let (first, last) = self.span_ns().unwrap_or((0, 0));
        let (messages, payload, lost) = self.totals();
        println!("file:      {}", printable(&path.display().to_string()));
        println!("messages:  {messages} ({} of payload), {lost} lost", bytes(payload as f64));
        println!("duration:  {:.3} s (log times {first} to {last} ns)", (last - first) as f64 / 1e9);
        if let Some(why) = &end.damage {
            println!("partial:   {why}");
        }
        let mut table = Table::new(&["channel", "topic", "type", "messages", "bytes", "rate Hz", "lost"]);
        for (id, c) in &self.channels {
            let cells = [id.to_string(), printable(&c.topic), printable(&c.kind)];
            let numbers = [c.messages.to_string(), c.bytes.to_string(), rate(c.hz()), self.lost_of(c).to_string()];
            table.row(cells.into_iter().chain(numbers).collect());
        }
        table.print();
    }
}
