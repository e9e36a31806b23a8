//! `ringbus echo TOPIC`: print the messages of a topic as they arrive.

use super::output::JsonFlag;
use super::session::{LinkErrors, Session, TimeoutArg};
use ringbus::{ReceiveError, Sample};
use serde_json::json;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus echo chatter                       # every message, as text or hex\n  \
    ringbus echo lidar/points --latest --max-bytes 16\n  \
    ringbus echo chatter --count 10 --json     # one JSON object per line (exit 4 if 10 do not come before --timeout)\n  \
    ringbus echo commands --reliable           # every message, even of a burst larger than the topic's depth\n\n\
    Waits for the topic to appear; never creates it. A name that is a command queue, latch\n\
    or semaphore and not a topic is refused (exit 2).")]
pub struct EchoArgs {
    /// The topic.
    topic: String,
    /// Stop after this many messages.
    #[arg(long, short = 'n', value_name = "N", value_parser = super::numbers::count)]
    count: Option<u64>,
    /// Only the newest message at each wake-up (skip what piled up).
    #[arg(long, conflicts_with = "reliable")]
    latest: bool,
    /// Lose nothing: publishers wait for this subscriber instead of overwriting what it
    /// has not printed yet (while it runs; it never holds them back once it exits).
    #[arg(long)]
    reliable: bool,
    /// How to print the payload.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
    /// Print at most this many payload bytes per message.
    #[arg(long, default_value_t = 64, value_name = "N")]
    max_bytes: usize,
    #[command(flatten)]
    timeout: TimeoutArg,
    #[command(flatten)]
    json: JsonFlag,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Text if the payload is printable UTF-8, else hex.
    Auto,
    Text,
    Hex,
}

impl EchoArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let session = Session::new("echo", self.timeout.timeout)?;
        let Some(mut subscriber) = session.subscribe(&self.topic, self.reliable)? else {
            return Ok(());
        };
        let mut printed = 0u64;
        let mut link_errors = LinkErrors::default();
        while self.count.is_none_or(|c| printed < c) {
            if session.interrupted() {
                return Ok(());
            }
            if session.expired() {
                let remedy = if self.reliable { "a deeper topic" } else { "use --reliable, or a deeper topic" };
                return match self.count {
                    Some(c) => Err(session.shortfall(&subscriber, printed, c, remedy).into()),
                    None => Ok(()),
                };
            }
            let sample = match subscriber.receive(Some(session.slice())) {
                Ok(s) => s,
                Err(ReceiveError::Timeout) => continue,
                Err(e) => {
                    link_errors.survive(e)?;
                    continue;
                }
            };
            let sample = if self.latest { newest(&mut subscriber, sample)? } else { sample };
            self.print(&sample);
            printed += 1;
        }
        Ok(())
    }

    fn print(&self, sample: &Sample) {
        let shown = &sample[..sample.len().min(self.max_bytes)];
        let cut = if shown.len() < sample.len() { "…" } else { "" };
        let text = match self.format {
            Format::Hex => None,
            Format::Text => Some(String::from_utf8_lossy(shown).into_owned()),
            Format::Auto => std::str::from_utf8(shown)
                .ok()
                .filter(|s| s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t'))
                .map(str::to_string),
        };
        let id = sample.publisher();
        if self.json.json {
            let mut v = json!({
                "position": sample.position(), "publisher_slot": id.slot, "publisher_incarnation": id.incarnation,
                "timestamp_ns": sample.timestamp_ns(), "bytes": sample.len(), "truncated": !cut.is_empty(),
            });
            match text {
                Some(t) => v["text"] = json!(t),
                None => v["hex"] = json!(hex(shown)),
            }
            println!("{v}");
        } else {
            let data = text.map(|t| format!("{t:?}")).unwrap_or_else(|| hex(shown));
            println!(
                "#{} pub {}.{} t={}ns {} B: {data}{cut}",
                sample.position(),
                id.slot,
                id.incarnation,
                sample.timestamp_ns(),
                sample.len()
            );
        }
    }
}

/// The newest message available now, `first` if nothing newer came.
fn newest(subscriber: &mut ringbus::Subscriber, first: Sample) -> anyhow::Result<Sample> {
    Ok(subscriber.take_latest()?.unwrap_or(first))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}
