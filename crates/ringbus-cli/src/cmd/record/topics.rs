//! The topics `ringbus record` subscribes to: those named (each as soon as it exists) or,
//! with `--all`, every topic of the root, looked for again every [`LOOK_INTERVAL`]. Each
//! subscriber only polls (publishers never make a system call to wake the recorder) and
//! is reliable unless `--lossy`: a publisher then waits rather than overwrite a message the
//! recorder has not read.

use super::super::mcap::convention::RecordedTopic;
use super::super::session::{LinkErrors, Session};
use super::writer::Writer;
use anyhow::Context;
use ringbus::{inspect, ReceiveError, Wake};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// How often the root is looked at for topics that appeared.
const LOOK_INTERVAL: Duration = Duration::from_millis(200);
/// The most topics one recording holds.
pub const MAX_TOPICS: usize = 1000;
/// Messages taken from one topic before the next topic's turn.
const BATCH: u32 = 64;

/// Which topics to record.
#[derive(Debug)]
pub enum Wanted {
    All,
    Named(Vec<String>),
}

/// One topic being recorded.
pub struct Recorded {
    pub name: String,
    subscriber: ringbus::Subscriber,
    pub messages: u64,
    pub bytes: u64,
    /// Messages of a publisher whose memory could not be read (damaged or gone).
    dropped: u64,
}

impl Recorded {
    /// Messages this topic lost while recorded.
    pub fn lost(&self) -> u64 {
        self.subscriber.lost() + self.dropped
    }
}

/// The topics being recorded and the ones still awaited.
pub struct Topics {
    wanted: Wanted,
    lossy: bool,
    pub recorded: Vec<Recorded>,
    said_waiting: BTreeSet<String>,
    next_look: Instant,
    link_errors: LinkErrors,
}

impl Topics {
    pub fn new(wanted: Wanted, lossy: bool) -> Topics {
        let now = Instant::now();
        Topics {
            wanted,
            lossy,
            recorded: Vec::new(),
            said_waiting: BTreeSet::new(),
            next_look: now,
            link_errors: LinkErrors::default(),
        }
    }

    /// Subscribes to the wanted topics that exist now, at most once per [`LOOK_INTERVAL`].
    pub fn look(&mut self, session: &Session, writer: &Writer) -> anyhow::Result<()> {
        if Instant::now() < self.next_look {
            return Ok(());
        }
        self.next_look = Instant::now() + LOOK_INTERVAL;
        let found = match &self.wanted {
            Wanted::All => inspect::snapshot(session.node.root()).topics,
            Wanted::Named(names) => {
                let missing: Vec<String> = names.iter().filter(|n| !self.is_recorded(n)).cloned().collect();
                self.find(session, &missing)?
            }
        };
        for info in found {
            if !self.is_recorded(&info.name) {
                self.subscribe(session, &info, writer)?;
            }
        }
        Ok(())
    }

    /// The topics of `names` that exist; says once about each of the others that it is
    /// awaited.
    fn find(&mut self, session: &Session, names: &[String]) -> anyhow::Result<Vec<inspect::TopicInfo>> {
        let mut found = Vec::new();
        for name in names {
            match inspect::topic(session.node.root(), name)? {
                Some(info) => found.push(info),
                None if self.said_waiting.insert(name.clone()) => {
                    eprintln!("waiting for topic {name:?} to appear (Ctrl-C to stop)...")
                }
                None => {}
            }
        }
        Ok(found)
    }

    fn is_recorded(&self, name: &str) -> bool {
        let name = name.strip_prefix('/').unwrap_or(name);
        self.recorded.iter().any(|r| r.name == name)
    }

    fn subscribe(&mut self, session: &Session, info: &inspect::TopicInfo, writer: &Writer) -> anyhow::Result<()> {
        if self.recorded.len() >= MAX_TOPICS {
            anyhow::bail!("more than {MAX_TOPICS} topics to record; name the ones you need instead of --all");
        }
        let builder = session.topic(&info.name).wake(Wake::Never);
        let builder = if self.lossy { builder } else { builder.reliable() };
        let subscriber = builder.subscriber().with_context(|| format!("subscribe to {:?}", info.name))?;
        let topic = RecordedTopic::of(info);
        writer.add_topic(self.recorded.len(), &info.name, &topic)?;
        self.recorded.push(Recorded { name: info.name.clone(), subscriber, messages: 0, bytes: 0, dropped: 0 });
        Ok(())
    }

    /// Hands every message waiting on every topic to `writer`; how many.
    pub fn drain(&mut self, writer: &Writer) -> anyhow::Result<u64> {
        let lost_before = self.lost_total();
        let mut handed = 0;
        loop {
            let mut this_round = 0;
            for i in 0..self.recorded.len() {
                this_round += self.drain_one(i, writer)?;
            }
            handed += this_round;
            if this_round == 0 {
                break;
            }
        }
        if self.lost_total() != lost_before {
            writer.set_losses(self.losses());
        }
        Ok(handed)
    }

    /// Up to [`BATCH`] messages of topic `i`.
    fn drain_one(&mut self, i: usize, writer: &Writer) -> anyhow::Result<u64> {
        let r = &mut self.recorded[i];
        for n in 0..BATCH {
            let sample = match r.subscriber.take() {
                Ok(Some(s)) => s,
                Ok(None) => return Ok(n.into()),
                Err(e) => {
                    self.link_errors.survive(ReceiveError::Take(e))?;
                    r.dropped += 1;
                    continue;
                }
            };
            writer.write(i, &sample)?;
            r.messages += 1;
            r.bytes += sample.len() as u64;
        }
        Ok(BATCH.into())
    }

    fn lost_total(&self) -> u64 {
        self.recorded.iter().map(Recorded::lost).sum()
    }

    /// Each topic's losses so far.
    pub fn losses(&self) -> BTreeMap<String, u64> {
        self.recorded.iter().map(|r| (r.name.clone(), r.lost())).collect()
    }
}
