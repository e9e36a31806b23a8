//! The two ends of every ring behind one pair of traits, so that one producer loop and one
//! consumer loop (monomorphised per ring, no dynamic call on the hot path) drive them all:
//!
//! ```text
//!               push (as many as fit)                   pop (up to out.len())
//! ringbus       Producer::push_batch                     Consumer::pop_batch
//! rtrb          Producer::push_partial_slice             Consumer::pop_partial_slice
//! ArrayQueue    ArrayQueue::push, one by one, until one  ArrayQueue::pop, one by one,
//!               is refused                               until the queue is empty
//! ```
//!
//! ringbus's and rtrb's calls have the same contract: copy a prefix of the slice, load the
//! peer's position only if the cached one shows too little room or data, publish the new
//! position once per call.

use super::command::Command;
use anyhow::Result;
use crossbeam_queue::ArrayQueue;
use std::sync::Arc;

/// The producing end.
pub(crate) trait Sink: Send {
    /// Pushes a prefix of `commands`, as many as fit now; returns how many (0: full).
    fn push(&mut self, commands: &[Command]) -> Result<usize>;

    /// Loads of the consumer's shared position so far, if the ring counts them.
    fn head_reads(&self) -> Option<u64> {
        None
    }

    /// Whether the consumer can still make room (asked only after a long stall).
    fn consumer_alive(&self) -> bool {
        true
    }
}

/// The consuming end.
pub(crate) trait Source: Send {
    /// Pops up to `out.len()` commands into `out`, oldest first; returns how many.
    fn pop(&mut self, out: &mut [Command]) -> Result<usize>;
}

impl Sink for ringbus::Producer<Command> {
    #[inline]
    fn push(&mut self, commands: &[Command]) -> Result<usize> {
        Ok(self.push_batch(commands)?)
    }

    fn head_reads(&self) -> Option<u64> {
        Some(ringbus::Producer::head_reads(self))
    }

    fn consumer_alive(&self) -> bool {
        ringbus::Producer::consumer_alive(self)
    }
}

impl Source for ringbus::Consumer<Command> {
    #[inline]
    fn pop(&mut self, out: &mut [Command]) -> Result<usize> {
        Ok(self.pop_batch(out)?)
    }
}

impl Sink for rtrb::Producer<Command> {
    #[inline]
    fn push(&mut self, commands: &[Command]) -> Result<usize> {
        let (pushed, _rest) = self.push_partial_slice(commands);
        Ok(pushed.len())
    }

    fn consumer_alive(&self) -> bool {
        !self.is_abandoned()
    }
}

impl Source for rtrb::Consumer<Command> {
    #[inline]
    fn pop(&mut self, out: &mut [Command]) -> Result<usize> {
        let (popped, _rest) = self.pop_partial_slice(out);
        Ok(popped.len())
    }
}

/// One end of a crossbeam `ArrayQueue` (both ends hold the same queue).
#[derive(Debug, Clone)]
pub(crate) struct SharedQueue(pub Arc<ArrayQueue<Command>>);

impl SharedQueue {
    pub(crate) fn new(capacity: usize) -> SharedQueue {
        SharedQueue(Arc::new(ArrayQueue::new(capacity)))
    }
}

impl Sink for SharedQueue {
    #[inline]
    fn push(&mut self, commands: &[Command]) -> Result<usize> {
        for (i, &c) in commands.iter().enumerate() {
            if self.0.push(c).is_err() {
                return Ok(i);
            }
        }
        Ok(commands.len())
    }

    fn consumer_alive(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }
}

impl Source for SharedQueue {
    #[inline]
    fn pop(&mut self, out: &mut [Command]) -> Result<usize> {
        for (i, slot) in out.iter_mut().enumerate() {
            match self.0.pop() {
                Some(c) => *slot = c,
                None => return Ok(i),
            }
        }
        Ok(out.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ring: a batch that does not fit is pushed in part, and pops come out in order.
    fn fill_and_drain(mut sink: impl Sink, mut source: impl Source) {
        let commands: Vec<Command> = (0..6).map(Command::new).collect();
        assert_eq!(sink.push(&commands).unwrap(), 4, "capacity 4: a prefix fits");
        assert_eq!(sink.push(&commands[4..]).unwrap(), 0, "full");
        let mut out = [Command::default(); 3];
        assert_eq!(source.pop(&mut out).unwrap(), 3);
        assert_eq!(out.to_vec(), commands[..3]);
        assert_eq!(sink.push(&commands[4..]).unwrap(), 2);
        let mut rest = [Command::default(); 8];
        assert_eq!(source.pop(&mut rest).unwrap(), 3);
        assert_eq!(rest[..3], commands[3..]);
        assert_eq!(source.pop(&mut rest).unwrap(), 0);
    }

    #[test]
    fn every_ring_pushes_a_prefix_and_pops_in_order() {
        let (p, c) = rtrb::RingBuffer::new(4);
        fill_and_drain(p, c);
        let q = SharedQueue::new(4);
        fill_and_drain(q.clone(), q);
        let dir = tempfile::tempdir().unwrap();
        let node = ringbus::Node::with_root("t", dir.path()).unwrap();
        let consumer = node.queue::<Command>("q").capacity(4).spsc().consumer().unwrap();
        let producer = node.queue::<Command>("q").capacity(4).spsc().producer().unwrap();
        assert_eq!(Sink::head_reads(&producer), Some(0));
        fill_and_drain(producer, consumer);
    }
}
