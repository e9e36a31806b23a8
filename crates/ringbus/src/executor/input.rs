//! [`Input`]: a subscription that timers read, in the callback style (filled by the
//! executor on every message) or the polling style (read straight from shared memory by
//! the timer). The reading code is the same for both.

use crate::{Sample, Subscriber, TakeError};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// What [`Input::take_all`] handed over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drained {
    /// Samples passed to the closure.
    pub taken: u64,
    /// Messages that arrived since the previous read but are gone: overwritten in the
    /// topic (depth or `keep_last` too small for the period), or, in the callback style,
    /// pushed out of the input's queue (at most `max_held` samples are kept).
    pub lost: u64,
}

#[derive(Debug)]
enum Feed {
    /// `Wake::Never`: the reads take from the subscriber.
    Polling,
    /// `Wake::OnData`: the executor moves every message into `queue` as it arrives.
    Callback { queue: VecDeque<Sample>, overflow: u64 },
}

#[derive(Debug)]
struct State {
    subscriber: Subscriber,
    feed: Feed,
    /// The newest sample read so far, returned again until a newer one comes.
    last: Option<Rc<Sample>>,
}

/// A subscription read by timers; cheap to clone (clones share it). Made by
/// [`Executor::input`](super::Executor::input).
#[derive(Debug, Clone)]
pub struct Input {
    state: Rc<RefCell<State>>,
}

impl Input {
    pub(crate) fn polling(subscriber: Subscriber) -> Input {
        let state = State { subscriber, feed: Feed::Polling, last: None };
        Input { state: Rc::new(RefCell::new(state)) }
    }

    /// A callback-style input and the closure the executor calls when its subscriber has
    /// data (returns how many messages it queued).
    pub(crate) fn callback(subscriber: Subscriber) -> (Input, impl FnMut() -> Result<u64, TakeError>) {
        let feed = Feed::Callback { queue: VecDeque::new(), overflow: 0 };
        let input = Input { state: Rc::new(RefCell::new(State { subscriber, feed, last: None })) };
        let state = input.state.clone();
        (input, move || state.borrow_mut().fill())
    }

    /// Whether timers read this input straight from shared memory (`Wake::Never`).
    pub fn is_polling(&self) -> bool {
        matches!(self.state.borrow().feed, Feed::Polling)
    }

    /// The newest message so far (the same one again if nothing newer came), `None` before
    /// the first. Older unread messages are skipped.
    pub fn latest(&self) -> Result<Option<Rc<Sample>>, TakeError> {
        let mut state = self.state.borrow_mut();
        let state = &mut *state;
        let newest = match &mut state.feed {
            Feed::Polling => state.subscriber.take_latest()?,
            Feed::Callback { queue, .. } => {
                let newest = queue.pop_back();
                queue.clear();
                newest
            }
        };
        if let Some(sample) = newest {
            state.last = Some(Rc::new(sample));
        }
        Ok(state.last.clone())
    }

    /// Passes every message that arrived since the previous read to `each`, oldest first,
    /// and says how many were lost in between.
    pub fn take_all(&self, mut each: impl FnMut(&Sample)) -> Result<Drained, TakeError> {
        let mut state = self.state.borrow_mut();
        let state = &mut *state;
        let mut drained = Drained::default();
        let mut newest = None;
        match &mut state.feed {
            Feed::Polling => {
                let mut all = state.subscriber.take_all();
                for sample in &mut all {
                    let sample = sample?;
                    each(&sample);
                    drained.taken += 1;
                    newest = Some(sample);
                }
                drained.lost = all.lost();
            }
            Feed::Callback { queue, overflow } => {
                for sample in queue.drain(..) {
                    each(&sample);
                    drained.taken += 1;
                    newest = Some(sample);
                }
                drained.lost = std::mem::take(overflow);
            }
        }
        if let Some(sample) = newest {
            state.last = Some(Rc::new(sample));
        }
        Ok(drained)
    }
}

impl State {
    /// Callback style: moves everything the subscriber has into the queue, until a take
    /// empties the topic or finds nothing (either lets the wait set sleep again). When the
    /// held limit is reached the oldest queued sample makes room.
    fn fill(&mut self) -> Result<u64, TakeError> {
        let Feed::Callback { queue, overflow } = &mut self.feed else {
            return Ok(0);
        };
        let mut queued = 0;
        loop {
            match self.subscriber.take() {
                Ok(Some(sample)) => {
                    queue.push_back(sample);
                    queued += 1;
                    if self.subscriber.nothing_new() {
                        return Ok(queued);
                    }
                }
                Ok(None) => return Ok(queued),
                Err(TakeError::HeldLimit { .. }) if !queue.is_empty() => {
                    queue.pop_front();
                    *overflow += 1;
                }
                Err(TakeError::HeldLimit { .. }) if self.last.is_some() => self.last = None,
                Err(e) => return Err(e),
            }
        }
    }
}
