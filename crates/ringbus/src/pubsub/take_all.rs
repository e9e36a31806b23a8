//! [`TakeAll`]: everything a subscriber has not taken yet, one sample at a time — what a
//! timer callback reads from a polling subscription.

use super::{Sample, Subscriber};
use crate::error::TakeError;

/// Iterates over every message not yet taken, oldest first, each pinned only while you
/// hold it (so a batch larger than `max_held` is fine if you drop each sample). Stops when
/// nothing is left, or after `depth` messages per publisher slot so that a fast publisher
/// cannot keep one call going forever. [`TakeAll::lost`] says how many messages were
/// found overwritten on the way (the subscriber was more than `depth` or `keep_last`
/// behind).
#[derive(Debug)]
pub struct TakeAll<'s> {
    subscriber: &'s mut Subscriber,
    lost_before: u64,
    left: u64,
    done: bool,
}

impl<'s> TakeAll<'s> {
    pub(crate) fn new(subscriber: &'s mut Subscriber, limit: u64) -> TakeAll<'s> {
        let lost_before = subscriber.lost();
        TakeAll { subscriber, lost_before, left: limit, done: false }
    }

    /// Messages lost (overwritten before they could be taken) found during this drain.
    pub fn lost(&self) -> u64 {
        self.subscriber.lost() - self.lost_before
    }
}

impl Iterator for TakeAll<'_> {
    type Item = Result<Sample, TakeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.left == 0 {
            return None;
        }
        match self.subscriber.take() {
            Ok(Some(sample)) => {
                self.left -= 1;
                Some(Ok(sample))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
