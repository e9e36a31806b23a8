//! [`Producer`] and [`Consumer`] of a named command queue, and their errors.

use super::open::QueueHandle;
use crate::error::Corruption;
use crate::ring::commands::{BadPosition, ConsumerSide, ProducerSide};
use crate::shm::pod::Pod;
use crate::shm::queue::CONSUMER_LOCK_BYTE;
use crate::shm::segment;
use crate::sys;
use std::marker::PhantomData;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// Queue operations that can fail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueueError {
    #[error("the queue's peer wrote an impossible position: {0}; the peer is buggy or hostile, the queue is unusable until it is recreated")]
    Corrupted(Corruption),
}

/// A push that did not happen; the command is handed back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushError<T> {
    #[error("the queue is full (the consumer is behind or gone)")]
    Full(T),
    #[error(transparent)]
    Queue(#[from] QueueError),
}

impl From<BadPosition> for QueueError {
    fn from(b: BadPosition) -> QueueError {
        QueueError::Corrupted(Corruption {
            what: b.what,
            found: b.found,
            limit: if b.found < b.low { b.low } else { b.high },
        })
    }
}

/// Pushes commands into a queue. The consumer's position is cached here and loaded from
/// shared memory only when the cached one leaves too little room for a push.
#[derive(Debug)]
pub struct Producer<T> {
    pub(super) handle: QueueHandle,
    pub(super) side: ProducerSide,
    pub(super) _command: PhantomData<T>,
}

impl<T: Pod> Producer<T> {
    /// Pushes as many of `commands` as fit, in order; returns how many (0 when full).
    /// Never blocks; wakes the consumer only if it sleeps.
    pub fn push_batch(&mut self, commands: &[T]) -> Result<usize, QueueError> {
        let h = &self.handle;
        let n = self.side.push(h.view.positions(), &h.view.slots::<T>(), commands)?;
        if n > 0 {
            h.view.data_bell().ring();
        }
        Ok(n)
    }

    /// Pushes one command, or hands it back if the queue is full.
    pub fn push(&mut self, command: T) -> Result<(), PushError<T>> {
        match self.push_batch(std::slice::from_ref(&command))? {
            1 => Ok(()),
            _ => Err(PushError::Full(command)),
        }
    }

    /// Pushes one command, waiting at most `timeout` (`None`: forever) for room.
    pub fn push_timeout(&mut self, command: T, timeout: Option<Duration>) -> Result<(), PushError<T>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            match self.push(command) {
                Err(PushError::Full(_)) => {}
                done => return done,
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return Err(PushError::Full(command));
            }
            let (h, side) = (&self.handle, &self.side);
            let capacity = h.config.capacity as u64;
            h.view.space_bell().wait(|| side.has_room(h.view.positions(), capacity), left);
        }
    }

    /// Removes the queue's name (see [`Consumer::unlink`]).
    pub fn unlink(&self) {
        segment::remove(&self.handle.path);
    }

    /// Whether the queue's consumer is alive (holds its lock).
    pub fn consumer_alive(&self) -> bool {
        sys::lock::is_locked(self.handle.file.as_fd(), CONSUMER_LOCK_BYTE).unwrap_or(true)
    }

    /// Turns the cached consumer position off (every push loads the shared one) or on.
    /// For measuring what the cache saves (`ringbus bench ring`); on by default.
    pub fn set_head_cache(&mut self, on: bool) {
        self.side.cache = on;
    }

    /// How many times pushes loaded the consumer's shared position.
    pub fn head_reads(&self) -> u64 {
        self.side.head_reads
    }

    pub fn capacity(&self) -> u32 {
        self.handle.config.capacity
    }

    pub fn name(&self) -> &str {
        &self.handle.name
    }
}

/// Pops commands from a queue (its only consumer).
#[derive(Debug)]
pub struct Consumer<T> {
    pub(super) handle: QueueHandle,
    pub(super) side: ConsumerSide,
    pub(super) _command: PhantomData<T>,
}

impl<T: Pod> Consumer<T> {
    /// Pops up to `out.len()` commands, oldest first; returns how many. Never blocks.
    pub fn pop_batch(&mut self, out: &mut [T]) -> Result<usize, QueueError> {
        let h = &self.handle;
        let n = self.side.pop(h.view.positions(), &h.view.slots::<T>(), out)?;
        if n > 0 {
            h.view.space_bell().ring();
        }
        Ok(n)
    }

    /// Pops one command, if any.
    pub fn pop(&mut self) -> Result<Option<T>, QueueError> {
        let h = &self.handle;
        let popped = self.side.pop_one(h.view.positions(), &h.view.slots::<T>())?;
        if popped.is_some() {
            h.view.space_bell().ring();
        }
        Ok(popped)
    }

    /// Waits until a command is ready, at most `timeout` (`None`: forever). Returns
    /// whether one is. Sleeps in the kernel only if the queue is empty; producers see it
    /// asleep and wake it.
    pub fn wait(&mut self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        let h = &self.handle;
        let slots = h.view.slots::<T>();
        let ready = || self.side.has_data(h.view.positions(), &slots);
        loop {
            if ready() {
                return true;
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return false;
            }
            h.view.data_bell().wait(ready, left);
        }
    }

    /// Removes the queue's name, like `sem_unlink`: handles already open keep working; the
    /// next open of the name creates a new queue.
    pub fn unlink(&self) {
        segment::remove(&self.handle.path);
    }

    /// Turns the cached producer position off or on (SPSC; on by default).
    pub fn set_tail_cache(&mut self, on: bool) {
        self.side.cache = on;
    }

    /// How many times pops loaded the producer's shared position (SPSC).
    pub fn tail_reads(&self) -> u64 {
        self.side.tail_reads
    }

    pub fn name(&self) -> &str {
        &self.handle.name
    }
}
