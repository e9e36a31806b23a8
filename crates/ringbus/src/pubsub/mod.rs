//! Publish/subscribe: topics, publishers, loans, subscribers and samples.

pub(crate) mod backpressure;
pub(crate) mod loan;
pub(crate) mod payload_memory;
pub(crate) mod publisher;
pub(crate) mod publisher_view;
pub(crate) mod sample;
pub(crate) mod settings;
pub(crate) mod sleeper_audit;
pub(crate) mod subscriber;
pub(crate) mod subscriber_core;
pub(crate) mod take_all;
pub(crate) mod topic;

pub use backpressure::WhenFull;
pub use loan::{DetachedLoan, Loan};
pub use publisher::{Publisher, PublisherStats};
pub use sample::{PublisherId, Sample};
pub use settings::{
    TopicBuilder, MAX_CHUNKS, MAX_DEPTH, MAX_HELD, MAX_PAYLOAD_BYTES, MAX_POOL_BYTES, MAX_PUBLISHERS, MAX_SUBSCRIBERS,
    MAX_TOPIC_NAME_BYTES,
};
pub use subscriber::Subscriber;
pub use take_all::TakeAll;

use crate::error::OpenError;
use crate::Node;

impl Node {
    /// Opens a topic: configure it, then call `.publisher()` or `.subscriber()`.
    ///
    /// `name` is 1 to [`MAX_TOPIC_NAME_BYTES`] bytes of `[A-Za-z0-9_-]` segments separated
    /// by `/` (`lidar/points`; one leading `/` is ignored); it is checked when the builder
    /// opens the topic ([`OpenError::InvalidName`]).
    pub fn topic(&self, name: &str) -> TopicBuilder {
        TopicBuilder::new(self.clone(), name)
    }
}

impl TopicBuilder {
    /// Opens (or creates) the topic and joins it as a publisher.
    ///
    /// Fails with an [`OpenError`]: a bad name or setting, a setting or payload type that
    /// disagrees with the existing topic, all `max_publishers` slots taken, too little
    /// shared memory, or a busy lock past the open timeout.
    pub fn publisher(self) -> Result<Publisher, OpenError> {
        Publisher::new(self)
    }

    /// Opens (or creates) the topic and joins it as a subscriber. It receives what is
    /// published from now on, plus `history` earlier messages of each publisher.
    ///
    /// Fails with an [`OpenError`] as [`TopicBuilder::publisher`] does (with
    /// `max_subscribers`), or when `keep_last` is 0, above the depth, or given to a reliable
    /// subscriber.
    pub fn subscriber(self) -> Result<Subscriber, OpenError> {
        Subscriber::new(self)
    }
}
