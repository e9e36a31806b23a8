//! The ringbus side of a bridge: its node, and the publisher and subscriber of each mapping.

use crate::Direction;
use ringbus::{Node, OpenError, Publisher, PublisherId, Subscriber, TopicBuilder, WhenFull};
use std::path::PathBuf;
use std::time::Duration;

/// How long a message from the other side waits, by default, for a reliable subscriber here
/// to make room ([`RingbusSide::incoming_wait`]): enough for a subscriber that reads on a
/// timer or is busy for a moment, and well under the 5 s after which a Zenoh peer whose puts
/// stay blocked closes the link (Zenoh's default).
pub const DEFAULT_INCOMING_WAIT: Duration = Duration::from_secs(1);

/// How a bridge opens its ringbus side: where, the limits of the bridged topics, and how its
/// publishers (incoming) and subscribers (outgoing) treat the other processes here.
#[derive(Debug, Clone)]
pub struct RingbusSide {
    /// The ringbus root (`None`: `RINGBUS_ROOT`, else the per-user default).
    pub root: Option<PathBuf>,
    /// The largest message the bridged topics must take: a topic the bridge creates is
    /// created so, an existing one with another limit is an error naming both (`None`:
    /// what the topic has, or the bridge's default for one it creates).
    pub max_payload_bytes: Option<u64>,
    /// Log entries per publisher of the bridged topics (a power of two): a topic the
    /// bridge creates is created so, an existing one with another depth is an error naming
    /// both (`None`: what the topic has, or ringbus's default of 16 for one the bridge
    /// creates). A deeper topic absorbs a longer burst before anyone waits or loses.
    pub depth: Option<u32>,
    /// How long a message from the other side waits for room when a reliable subscriber
    /// here has not taken the topic's last depth messages; then it is dropped and counted
    /// (`full`). Zero: dropped at once.
    pub incoming_wait: Duration,
    /// The bridge's subscribers (out) are lossy: publishers here never wait for the
    /// bridge, and what it falls more than the topic's depth behind is lost and counted
    /// (`lost`). For streams where only the newest message matters.
    pub lossy_out: bool,
}

impl Default for RingbusSide {
    fn default() -> RingbusSide {
        RingbusSide {
            root: None,
            max_payload_bytes: None,
            depth: None,
            incoming_wait: DEFAULT_INCOMING_WAIT,
            lossy_out: false,
        }
    }
}

/// The ringbus ends of one mapping: a publisher if it carries messages in, a subscriber if
/// it carries them out.
pub struct Ends {
    /// Publishes what comes in.
    pub publisher: Option<Publisher>,
    /// Takes what goes out.
    pub subscriber: Option<Subscriber>,
}

impl RingbusSide {
    /// Opens the bridge's ringbus node, called `name`.
    pub fn node(&self, name: &str) -> Result<Node, OpenError> {
        match &self.root {
            Some(root) => Node::with_root(name, root),
            None => Node::new(name),
        }
    }

    /// What the bridge's publishers (in) do when a reliable subscriber leaves no room.
    pub fn when_full(&self) -> WhenFull {
        match self.incoming_wait {
            Duration::ZERO => WhenFull::Fail,
            wait => WhenFull::Wait(Some(wait)),
        }
    }

    /// `topic` with the limits given for every bridged topic.
    pub fn limits(&self, mut topic: TopicBuilder) -> TopicBuilder {
        if let Some(n) = self.max_payload_bytes {
            topic = topic.max_payload_bytes(n);
        }
        if let Some(n) = self.depth {
            topic = topic.depth(n);
        }
        topic
    }

    /// Opens the ends of a mapping carried `direction` on the topic `topic` opens (the
    /// limits applied): a publisher that waits as [`RingbusSide::when_full`] says, a
    /// subscriber that is reliable unless [`RingbusSide::lossy_out`].
    pub fn ends(&self, direction: Direction, topic: impl Fn() -> TopicBuilder) -> Result<Ends, OpenError> {
        let topic = || self.limits(topic());
        let publisher = direction.incoming().then(|| topic().when_full(self.when_full()).publisher());
        let subscriber = direction.outgoing().then(|| match self.lossy_out {
            true => topic().subscriber(),
            false => topic().reliable().subscriber(),
        });
        Ok(Ends { publisher: publisher.transpose()?, subscriber: subscriber.transpose()? })
    }
}

/// For each opened mapping (`ends` gives its topic and ends), the bridge's own publishers on
/// its topic, whichever mapping of that topic they belong to: what they published came in,
/// and is never sent back out.
pub fn own_publishers<T>(opened: &[T], ends: impl Fn(&T) -> (&str, &Ends)) -> Vec<Vec<PublisherId>> {
    let own_of = |topic: &str| -> Vec<PublisherId> {
        let mine = opened.iter().map(&ends).filter(|(t, _)| *t == topic);
        mine.filter_map(|(_, e)| e.publisher.as_ref().map(Publisher::id)).collect()
    };
    opened.iter().map(|o| own_of(ends(o).0)).collect()
}
