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
    pub fn topic(&self, name: &str) -> TopicBuilder {
        TopicBuilder::new(self.clone(), name)
    }
}

impl TopicBuilder {
    /// Opens (or creates) the topic and joins it as a publisher.
    pub fn publisher(self) -> Result<Publisher, OpenError> {
        Publisher::new(self)
    }

    /// Opens (or creates) the topic and joins it as a subscriber.
    pub fn subscriber(self) -> Result<Subscriber, OpenError> {
        Subscriber::new(self)
    }
}
