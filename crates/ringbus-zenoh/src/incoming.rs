//! Zenoh → ringbus: a Zenoh subscriber whose callback publishes each payload on the topic.

use crate::mapping::Counters;
use ringbus::{LoanError, Publisher};
use std::sync::{Arc, Mutex};
use zenoh::sample::{Locality, SampleKind};
use zenoh::Wait;

/// Declares the Zenoh subscriber of one mapping. Each payload is copied into a chunk of
/// `publisher`; a message that does not fit, or that a reliable subscriber here leaves no
/// room for within the publisher's `when_full`, is dropped and counted.
pub(crate) fn declare(
    session: &zenoh::Session,
    key_expr: String,
    publisher: Publisher,
    counters: Arc<Counters>,
) -> zenoh::Result<zenoh::pubsub::Subscriber<()>> {
    let publisher = Mutex::new(publisher);
    session
        .declare_subscriber(key_expr)
        .callback(move |sample| {
            if sample.kind() != SampleKind::Put {
                return;
            }
            let bytes = sample.payload().to_bytes();
            let mut publisher = publisher.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let counter = match publisher.publish_copy(&bytes) {
                Ok(()) => &counters.from_zenoh,
                Err(LoanError::TooLarge { .. }) => &counters.too_large,
                Err(LoanError::Full { .. }) => &counters.full,
                Err(_) => &counters.errors,
            };
            Counters::add(counter, 1);
        })
        .allowed_origin(Locality::Remote)
        .wait()
}
