//! The publishers of a replay: one per topic the recording's channels name (after
//! `--topics` and `--remap`), each topic created with its recorded settings if it does not
//! exist, or joined as it is (its payload type checked) if it does.

use super::super::mcap::convention::RecordedTopic;
use super::super::session::{Session, TICK};
use anyhow::Context;
use mcap::records::Channel;
use ringbus::{inspect, Publisher, TopicBuilder, WhenFull};
use std::collections::HashMap;

/// One topic published to.
pub struct Target {
    pub topic: String,
    pub publisher: Publisher,
    pub published: u64,
}

/// The replay's publishers, and which one each channel goes to.
pub struct Publishers {
    by_channel: HashMap<u16, usize>,
    pub targets: Vec<Target>,
}

impl Publishers {
    /// Opens a publisher for each channel of `channels` that `topics` keeps (all if empty),
    /// on the topic `remap` gives it (`old=new` pairs), else its own.
    pub fn open(
        session: &Session,
        channels: &[Channel],
        topics: &[String],
        remap: &[(String, String)],
    ) -> anyhow::Result<Publishers> {
        let named = |topic: &String| channels.iter().any(|c| c.topic == *topic);
        if let Some(missing) = topics.iter().chain(remap.iter().map(|(old, _)| old)).find(|t| !named(t)) {
            anyhow::bail!("the file has no topic {missing:?} (`ringbus mcap info FILE` lists its topics)");
        }
        let mut publishers = Publishers { by_channel: HashMap::new(), targets: Vec::new() };
        for channel in channels.iter().filter(|c| topics.is_empty() || topics.contains(&c.topic)) {
            let Some(recorded) = RecordedTopic::from_channel(&channel.topic, &channel.metadata)? else {
                eprintln!("warning: channel {:?} was not written by `ringbus record`; skipped", channel.topic);
                continue;
            };
            let topic = remap.iter().find(|(old, _)| *old == channel.topic).map_or(&channel.topic, |(_, new)| new);
            let index = match publishers.targets.iter().position(|t| t.topic == *topic) {
                Some(i) => i,
                None => publishers.add(session, topic, &recorded)?,
            };
            publishers.by_channel.insert(channel.id, index);
        }
        if publishers.targets.is_empty() {
            anyhow::bail!("nothing to replay: no channel of the file is a recorded topic that --topics keeps");
        }
        Ok(publishers)
    }

    fn add(&mut self, session: &Session, topic: &str, recorded: &RecordedTopic) -> anyhow::Result<usize> {
        let exists = inspect::topic(session.node.root(), topic)?.is_some();
        let mut builder = session.topic(topic).when_full(WhenFull::Wait(Some(TICK)));
        if let Some(p) = &recorded.payload {
            builder = builder.payload_type_named(&p.name, p.size as usize, p.align as usize);
        }
        if !exists {
            builder = with_settings(builder, recorded);
        }
        let publisher = builder.publisher().with_context(|| format!("publish on {topic:?}"))?;
        self.targets.push(Target { topic: topic.to_string(), publisher, published: 0 });
        Ok(self.targets.len() - 1)
    }

    /// The channels replayed.
    pub fn channels(&self) -> impl Iterator<Item = u16> + '_ {
        self.by_channel.keys().copied()
    }

    /// The target of channel `id`, `None` if its messages are not replayed.
    pub fn of_channel(&mut self, id: u16) -> Option<&mut Target> {
        let index = *self.by_channel.get(&id)?;
        Some(&mut self.targets[index])
    }
}

/// The builder with every recorded setting.
fn with_settings(builder: TopicBuilder, recorded: &RecordedTopic) -> TopicBuilder {
    let s = &recorded.settings;
    builder
        .max_publishers(s.max_publishers)
        .max_subscribers(s.max_subscribers)
        .depth(s.depth)
        .history(s.history)
        .max_held(s.max_held)
        .chunks(s.chunks)
        .max_payload_bytes(s.max_payload_bytes)
        .pool_bytes(s.pool_bytes)
        .preallocate(s.preallocate)
}
