//! `ringbus replay FILE`: publishes a recording's messages again on their topics, with
//! their recorded timing (scaled by `--rate`): each message is due at its log time's offset
//! from the recording's first message; a message read late is published at once and its
//! lateness counted (`lateness`). Topics are created with their recorded settings
//! (`publishers`).

mod lateness;
mod publishers;

use super::handoff;
use super::mcap::read;
use super::numbers;
use super::output::{counted, printable, Table};
use super::session::{Session, TICK};
use lateness::Lateness;
use mcap::records::Record;
use publishers::{Publishers, Target};
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Payload bytes read ahead of the message due.
const READ_AHEAD_BYTES: u64 = 64 << 20;
/// Messages read ahead of the message due.
const READ_AHEAD_MESSAGES: usize = 16 * 1024;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus replay run.mcap                              # once, with the recorded timing\n  \
    ringbus replay run.mcap --rate 2 --loop              # twice as fast, over and over until Ctrl-C\n  \
    ringbus replay run.mcap --start 10s --end 20s        # the ten seconds from 10 s in\n  \
    ringbus replay run.mcap --topics imu,gps --remap imu=imu/replayed\n  \
    ringbus replay run.mcap --wait-subscribers 1         # once each topic has a subscriber\n\n\
    Reads files written by `ringbus record` (channels of other programs are skipped). A topic\n\
    that does not exist is created with the settings it had when recorded; an existing one is\n\
    joined as it is (its payload type must match). Offsets count from the recording's first\n\
    message. At the end it says how late messages were published against their due time.")]
pub struct ReplayArgs {
    /// The recording (.mcap).
    file: PathBuf,
    /// Speed: 2 plays twice as fast, 0.5 half as fast (0.001 to 1000).
    #[arg(long, default_value_t = 1.0, value_parser = speed)]
    rate: f64,
    /// Start again at the end, until Ctrl-C.
    #[arg(long = "loop")]
    repeat: bool,
    /// Skip what comes before this offset: seconds, or with a unit (500ms, 2m).
    #[arg(long, value_name = "OFFSET", value_parser = offset)]
    start: Option<f64>,
    /// Stop at this offset.
    #[arg(long, value_name = "OFFSET", value_parser = offset)]
    end: Option<f64>,
    /// Only these topics (as recorded), comma-separated or repeated.
    #[arg(long, value_name = "TOPIC,..", value_delimiter = ',')]
    topics: Vec<String>,
    /// Publish topic OLD on topic NEW (repeatable).
    #[arg(long, value_name = "OLD=NEW", value_parser = remap)]
    remap: Vec<(String, String)>,
    /// Wait until every topic replayed has this many subscribers before the first message.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = numbers::subscribers_to_wait_for)]
    wait_subscribers: u32,
    /// Replay an incomplete file (its recorder was killed) up to its last complete chunk.
    #[arg(long)]
    partial: bool,
}

fn speed(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if (1e-3..=1e3).contains(&v) => Ok(v),
        _ => Err(format!("{text:?} is not a speed from 0.001 to 1000")),
    }
}

/// An offset: 0, or a duration.
fn offset(text: &str) -> Result<f64, String> {
    if text.trim() == "0" {
        return Ok(0.0);
    }
    numbers::seconds(text)
}

fn remap(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((old, new)) if !old.is_empty() && !new.is_empty() => Ok((old.to_string(), new.to_string())),
        _ => Err(format!("{text:?} is not OLD=NEW (two topic names)")),
    }
}

impl ReplayArgs {
    pub fn run(self) -> anyhow::Result<()> {
        if let (Some(start), Some(end)) = (self.start, self.end) {
            if end <= start {
                anyhow::bail!("--end ({end} s) must come after --start ({start} s)");
            }
        }
        let channels = read::channels(&self.file, self.partial)?;
        let session = Session::new("replay", None)?;
        let mut publishers = Publishers::open(&session, &channels, &self.topics, &self.remap)?;
        for target in &publishers.targets {
            if !session.wait_for_subscribers(&target.topic, self.wait_subscribers)? {
                return Ok(());
            }
        }
        let mut lateness = Lateness::default();
        let published = |p: &Publishers| p.targets.iter().map(|t| t.published).sum::<u64>();
        loop {
            let before = published(&publishers);
            let finished = self.play(&session, &mut publishers, &mut lateness)?;
            // A pass that published nothing (--start past the end) would loop idly.
            if !finished || !self.repeat || published(&publishers) == before {
                break;
            }
        }
        report(&publishers.targets, &mut lateness);
        Ok(())
    }

    /// Plays the file once; `Ok(false)`: interrupted. A thread reads ahead (at most
    /// [`READ_AHEAD_BYTES`]), so that reading and decompressing never delay a message due.
    fn play(&self, session: &Session, publishers: &mut Publishers, lateness: &mut Lateness) -> anyhow::Result<bool> {
        let wanted: HashSet<u16> = publishers.channels().collect();
        let (ahead, received) = handoff::channel(READ_AHEAD_BYTES, READ_AHEAD_MESSAGES);
        std::thread::scope(|s| {
            let reader = s.spawn(move || self.read_ahead(&wanted, &ahead));
            let finished = self.publish_all(session, publishers, lateness, &received);
            drop(received); // a reader still reading stops at its next message
            let end = reader.join().map_err(|_| anyhow::anyhow!("the reading thread panicked"))??;
            if let Some(why) = end.damage {
                eprintln!("warning: {} ends early: {why}", self.file.display());
            }
            finished
        })
    }

    /// The reading thread: hands over each message of the `wanted` channels within
    /// `--start`/`--end`, with its offset from the recording's first message.
    fn read_ahead(&self, wanted: &HashSet<u16>, ahead: &handoff::Sender<(u16, u64)>) -> anyhow::Result<read::ScanEnd> {
        let start_ns = (self.start.unwrap_or(0.0) * 1e9) as u64;
        let end_ns = self.end.map(|e| (e * 1e9) as u64);
        let mut first_ns = None;
        read::scan(&self.file, self.partial, |record| {
            let Record::Message { header, data } = record else { return Ok(ControlFlow::Continue(())) };
            let offset_ns = header.log_time.saturating_sub(*first_ns.get_or_insert(header.log_time));
            if end_ns.is_some_and(|e| offset_ns > e) {
                return Ok(ControlFlow::Break(()));
            }
            if offset_ns < start_ns || !wanted.contains(&header.channel_id) {
                return Ok(ControlFlow::Continue(()));
            }
            match ahead.send((header.channel_id, offset_ns - start_ns), &data) {
                Ok(()) => Ok(ControlFlow::Continue(())),
                Err(handoff::Closed) => Ok(ControlFlow::Break(())),
            }
        })
    }

    /// Publishes what the reading thread hands over, each message when due; `Ok(false)`:
    /// interrupted.
    fn publish_all(
        &self,
        session: &Session,
        publishers: &mut Publishers,
        lateness: &mut Lateness,
        received: &handoff::Receiver<(u16, u64)>,
    ) -> anyhow::Result<bool> {
        let started = Instant::now();
        loop {
            let ((channel, offset_ns), data) = match received.recv_timeout(TICK) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) if !session.interrupted() => continue,
                Err(RecvTimeoutError::Timeout) => return Ok(false),
                Err(RecvTimeoutError::Disconnected) => return Ok(true),
            };
            let target = publishers.of_channel(channel).expect("the reader hands over wanted channels only");
            let due = started + Duration::from_nanos((offset_ns as f64 / self.rate) as u64);
            if !sleep_until(session, due) || !publish(session, target, &data)? {
                return Ok(false);
            }
            lateness.record(Instant::now().saturating_duration_since(due).as_nanos() as u64);
            received.done(data);
        }
    }
}

/// Sleeps until `due`; `false` if interrupted first.
fn sleep_until(session: &Session, due: Instant) -> bool {
    loop {
        if session.interrupted() {
            return false;
        }
        let now = Instant::now();
        if now >= due {
            return true;
        }
        std::thread::sleep((due - now).min(session.slice()));
    }
}

/// Publishes `data` on `target`, waiting (a tick at a time) for reliable subscribers to
/// make room; `Ok(false)` if interrupted while waiting.
fn publish(session: &Session, target: &mut Target, data: &[u8]) -> anyhow::Result<bool> {
    loop {
        match target.publisher.publish_copy(data) {
            Ok(()) => break,
            Err(ringbus::LoanError::Full { .. }) if !session.interrupted() => continue,
            Err(ringbus::LoanError::Full { .. }) => return Ok(false),
            Err(e) => return Err(anyhow::Error::new(e).context(format!("publish on {:?}", target.topic))),
        }
    }
    target.published += 1;
    Ok(true)
}

fn report(targets: &[Target], lateness: &mut Lateness) {
    let mut table = Table::new(&["topic", "published"]);
    for t in targets {
        table.row(vec![printable(&t.topic), t.published.to_string()]);
    }
    table.print();
    let total = targets.iter().map(|t| t.published).sum();
    eprintln!(
        "replayed {} on {}; {}",
        counted(total, "message"),
        counted(targets.len() as u64, "topic"),
        lateness.summary()
    );
}
