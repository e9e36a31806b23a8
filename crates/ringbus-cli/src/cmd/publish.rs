//! `ringbus pub TOPIC [DATA]`: publish a message once, a number of times, or at a rate.

use super::numbers;
use super::output::counted;
use super::session::{Session, TimeoutArg};
use anyhow::Context;
use ringbus::inspect;
use std::io::Read;
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus pub chatter hello                   # one message\n  \
    ringbus pub chatter hello --rate 10         # 10 Hz until Ctrl-C\n  \
    ringbus pub chatter --file frame.bin --count 100 --rate 1000\n  \
    date | ringbus pub chatter -                # from stdin\n  \
    ringbus pub chatter hi --wait-subscribers 1 # wait for a subscriber first\n  \
    ringbus pub load/0 x --rate 50 --max-subscribers 64 --depth 64\n\n\
    A topic that does not exist is created with the settings given (--max-payload-bytes,\n\
    --max-subscribers, --depth, --history; the defaults otherwise). An existing topic keeps\n\
    its own: a setting given that differs from it is an error naming the setting. When the\n\
    last participant leaves a topic it is removed: a message nobody subscribed to is gone.")]
pub struct PubArgs {
    /// The topic.
    topic: String,
    /// The message: text, hex with --hex, or `-` for stdin. Omit it with --file.
    #[arg(required_unless_present = "file")]
    data: Option<String>,
    /// Read the message from this file.
    #[arg(long, conflicts_with = "data", value_name = "PATH")]
    file: Option<std::path::PathBuf>,
    /// DATA is hex (`de ad be ef` or `deadbeef`).
    #[arg(long)]
    hex: bool,
    /// Publish this many times per second (default: as one burst).
    #[arg(long, value_name = "HZ", value_parser = numbers::hertz)]
    rate: Option<f64>,
    /// How many messages (default: 1, or until Ctrl-C with --rate).
    #[arg(long, short = 'n', value_name = "N", value_parser = numbers::count)]
    count: Option<u64>,
    /// Wait until the topic has this many subscribers before publishing (0 to 1024).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = numbers::subscribers_to_wait_for)]
    wait_subscribers: u32,
    /// The largest message of a topic this command creates, 1 to 1073741824 (default:
    /// 4096, or the message's size if larger).
    #[arg(long, value_name = "BYTES", value_parser = numbers::max_payload_bytes)]
    max_payload_bytes: Option<u64>,
    /// How many subscribers a topic this command creates admits, 1 to 1024 (default 16).
    #[arg(long, value_name = "N", value_parser = numbers::max_subscribers)]
    max_subscribers: Option<u32>,
    /// Messages each publisher of a topic this command creates keeps for slow
    /// subscribers, a power of two up to 65536 (default 16).
    #[arg(long, value_name = "N", value_parser = numbers::depth)]
    depth: Option<u32>,
    /// Past messages a subscriber that joins later receives, at most --depth (default 0).
    #[arg(long, value_name = "N", value_parser = numbers::history)]
    history: Option<u32>,
    /// Most shared memory each publisher of a topic this command creates may hold for
    /// messages in flight (default: 1 GiB, or 4 × --max-payload-bytes if more). Memory is
    /// taken as messages are sent, not reserved for the largest one. At most 16 TiB.
    #[arg(long, value_name = "BYTES", value_parser = numbers::pool_bytes)]
    pool_bytes: Option<u64>,
    /// Reserve each publisher's whole pool (chunks × --max-payload-bytes) when it starts,
    /// instead of as messages are sent (the default for messages above 4096 bytes).
    #[arg(long)]
    preallocate: bool,
    #[command(flatten)]
    timeout: TimeoutArg,
}

impl PubArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let payload = self.payload()?;
        let session = Session::new("pub", self.timeout.timeout)?;
        let when_full = ringbus::WhenFull::Wait(Some(super::session::TICK));
        let mut publisher = self.topic_builder(&session, &payload)?.when_full(when_full).publisher()?;
        if !session.wait_for_subscribers(&self.topic, self.wait_subscribers)? {
            return Ok(());
        }
        let count = self.count.unwrap_or(if self.rate.is_some() { u64::MAX } else { 1 });
        let period = self.rate.map(|hz| Duration::from_secs_f64(1.0 / hz));
        let start = Instant::now();
        let mut sent = 0u64;
        while sent < count && !session.interrupted() {
            if session.expired() {
                break;
            }
            if let Some(p) = period {
                let due = start + p.mul_f64(sent as f64);
                let now = Instant::now();
                if due > now {
                    std::thread::sleep((due - now).min(session.slice()));
                    continue;
                }
            }
            match publisher.publish_copy(&payload) {
                // A reliable subscriber has not taken what this would overwrite: wait for
                // it a tick at a time, looking at Ctrl-C and the deadline in between.
                Err(ringbus::LoanError::Full { .. }) => continue,
                other => other.with_context(|| format!("publish on {:?}", self.topic))?,
            }
            sent += 1;
        }
        eprintln!(
            "published {} of {} on {:?}",
            counted(sent, "message"),
            counted(payload.len() as u64, "byte"),
            self.topic
        );
        Ok(())
    }

    /// The topic with the settings given: a topic created now gets them, an existing one
    /// must match them (the open fails naming the setting that differs).
    fn topic_builder(&self, session: &Session, payload: &[u8]) -> anyhow::Result<ringbus::TopicBuilder> {
        let exists = inspect::topic(session.node.root(), &self.topic)?.is_some();
        let mut builder = session.topic(&self.topic);
        match self.max_payload_bytes {
            Some(bytes) => builder = builder.max_payload_bytes(bytes),
            None if !exists => builder = builder.max_payload_bytes(4096.max(payload.len() as u64)),
            None => {}
        }
        if let Some(n) = self.max_subscribers {
            builder = builder.max_subscribers(n);
        }
        if let Some(n) = self.depth {
            builder = builder.depth(n);
        }
        if let Some(n) = self.history {
            builder = builder.history(n);
        }
        if let Some(n) = self.pool_bytes {
            builder = builder.pool_bytes(n);
        }
        if self.preallocate {
            builder = builder.preallocate(true);
        }
        Ok(builder)
    }

    fn payload(&self) -> anyhow::Result<Vec<u8>> {
        if let Some(path) = &self.file {
            return std::fs::read(path).with_context(|| format!("read {}", path.display()));
        }
        let data = self.data.as_deref().unwrap_or_default();
        if data == "-" {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).context("read stdin")?;
            return Ok(bytes);
        }
        if self.hex {
            return parse_hex(data);
        }
        Ok(data.as_bytes().to_vec())
    }
}

fn parse_hex(text: &str) -> anyhow::Result<Vec<u8>> {
    let digits: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(bad) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        anyhow::bail!("hex data {text:?} has a non-hex character {bad:?}");
    }
    if !digits.len().is_multiple_of(2) {
        anyhow::bail!("hex data {text:?} has an odd number of digits");
    }
    Ok((0..digits.len()).step_by(2).map(|i| u8::from_str_radix(&digits[i..i + 2], 16).expect("hex digits")).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_parses_with_or_without_spaces_and_refuses_junk() {
        assert_eq!(super::parse_hex("de ad BE ef").unwrap(), [0xde, 0xad, 0xbe, 0xef]);
        assert!(super::parse_hex("abc").is_err());
        assert!(super::parse_hex("zz").is_err());
    }
}
