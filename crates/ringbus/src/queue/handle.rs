//! [`Producer`] and [`Consumer`] of a named command queue, and their errors.

use super::open::QueueHandle;
use crate::error::Corruption;
use crate::ring::queue::{BadPosition, ConsumerSide, ProducerSide};
use crate::shm::pod::Pod;
use crate::shm::queue::{producer_sleeper_bit, CONSUMER_LOCK_BYTE, ONLY_SLEEPER};
use crate::shm::segment;
use crate::sys;
use std::marker::PhantomData;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// Queue operations that can fail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueueError {
    /// A position in the queue's shared memory is impossible (the consumer's past the
    /// producers', or the producers' more than the capacity ahead). The other side is buggy
    /// or hostile; the queue cannot be used until it is removed ([`Consumer::unlink`]) and
    /// created again.
    #[error("the queue's peer wrote an impossible position: {0}; the peer is buggy or hostile, the queue is unusable until it is recreated")]
    Corrupted(Corruption),
    /// Bytes given for commands of a queue of run-time type ([`RawCommand`](super::RawCommand))
    /// are not whole commands: `given` is not `command` (for one) or a multiple of it (for
    /// a batch).
    #[error("{given} bytes are not whole commands of this queue ({command} bytes each)")]
    CommandSize {
        /// Bytes of one command of the queue.
        command: usize,
        /// Bytes given.
        given: usize,
    },
}

/// A push that did not happen; the command is handed back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushError<T> {
    /// No room: the consumer has not popped enough (it is slow, stopped or gone; see
    /// [`Producer::consumer_alive`]). The command is handed back: push it again later,
    /// wait with [`Producer::push_timeout`], or drop it.
    #[error("the queue is full (the consumer is behind or gone)")]
    Full(T),
    /// The queue is unusable: see [`QueueError`].
    #[error(transparent)]
    Queue(#[from] QueueError),
}

impl From<BadPosition> for QueueError {
    fn from(b: BadPosition) -> QueueError {
        QueueError::Corrupted(b.into())
    }
}

impl From<BadPosition> for Corruption {
    fn from(b: BadPosition) -> Corruption {
        Corruption { what: b.what, found: b.found, limit: if b.found < b.low { b.low } else { b.high } }
    }
}

/// Pushes commands into a queue. The consumer's position is cached here and loaded from
/// shared memory only when the cached one leaves too little room for a push.
///
/// Made by [`QueueBuilder::producer`](super::QueueBuilder::producer). A push copies the
/// command into the ring, never blocks ([`Producer::push`] hands the command back when the
/// queue is full; [`Producer::push_timeout`] waits for room), and wakes the consumer only
/// if it sleeps. An SPSC queue takes one producer at a time, an MPSC one up to
/// [`MAX_QUEUE_PRODUCERS`](super::MAX_QUEUE_PRODUCERS).
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// use std::time::Duration;
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// #[repr(C)]
/// struct Move {
///     x: i32,
///     y: i32,
/// }
/// // SAFETY: repr(C), two i32s: no padding, and every bit pattern is a valid Move.
/// unsafe impl ringbus::Pod for Move {}
///
/// let mut consumer = node.queue::<Move>("arm/moves").capacity(64).consumer()?;
/// let mut producer = node.queue::<Move>("arm/moves").producer()?; // in another process, say
///
/// producer.push(Move { x: 1, y: 2 })?;
/// assert!(consumer.wait(Some(Duration::from_secs(1)))); // a command is ready
/// assert_eq!(consumer.pop()?, Some(Move { x: 1, y: 2 }));
/// assert_eq!(consumer.pop()?, None);
/// consumer.unlink(); // the name goes; open handles keep working
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Producer<T> {
    pub(super) handle: QueueHandle,
    pub(super) side: ProducerSide,
    /// MPSC: the producer entry this producer holds (its lock and claim word).
    pub(super) entry: Option<u32>,
    pub(super) _command: PhantomData<T>,
}

impl<T: Pod> Producer<T> {
    /// Pushes as many of `commands` as fit, in order; returns how many (0 when full).
    /// Never blocks; wakes the consumer only if it sleeps. One wake check for the whole
    /// batch.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut consumer = node.queue::<u32>("samples").capacity(8).consumer()?;
    /// let mut producer = node.queue::<u32>("samples").producer()?;
    /// assert_eq!(producer.push_batch(&[1, 2, 3])?, 3);
    /// let mut out = [0; 8];
    /// let n = consumer.pop_batch(&mut out)?;
    /// assert_eq!(&out[..n], [1, 2, 3]);
    /// # consumer.unlink();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push_batch(&mut self, commands: &[T]) -> Result<usize, QueueError> {
        let h = &self.handle;
        let n = self.side.push(h.view.producer_positions(self.entry), &h.view.slots::<T>(), commands)?;
        if n > 0 {
            h.view.data_bell().ring();
        }
        Ok(n)
    }

    /// Pushes one command, or hands it back if the queue is full ([`PushError::Full`]).
    /// Never blocks; wakes the consumer only if it sleeps.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// use ringbus::PushError;
    /// let mut consumer = node.queue::<u64>("ticks").capacity(2).consumer()?;
    /// let mut producer = node.queue::<u64>("ticks").producer()?;
    /// producer.push(1)?;
    /// producer.push(2)?;
    /// assert!(matches!(producer.push(3), Err(PushError::Full(3)))); // handed back
    /// assert_eq!(consumer.pop()?, Some(1));
    /// producer.push(3)?;
    /// # consumer.unlink();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(&mut self, command: T) -> Result<(), PushError<T>> {
        match self.push_batch(std::slice::from_ref(&command))? {
            1 => Ok(()),
            _ => Err(PushError::Full(command)),
        }
    }

    /// Pushes one command, waiting at most `timeout` (`None`: forever) for room: asleep
    /// until a pop wakes it, or, in a [`Wake::Never`](crate::Wake::Never) queue, polling.
    pub fn push_timeout(&mut self, command: T, timeout: Option<Duration>) -> Result<(), PushError<T>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            match self.push(command) {
                Err(PushError::Full(_)) => {}
                done => return done,
            }
            if !self.wait_for_room(deadline) {
                return Err(PushError::Full(command));
            }
        }
    }
}

impl<T> Producer<T> {
    /// Sleeps until a pop makes room (or, in a [`Wake::Never`](crate::Wake::Never) queue,
    /// polls), at most until `deadline`; `false` if the deadline has passed.
    pub(super) fn wait_for_room(&self, deadline: Option<Instant>) -> bool {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left == Some(Duration::ZERO) {
            return false;
        }
        let (h, side) = (&self.handle, &self.side);
        let capacity = h.config.capacity as u64;
        let me = self.entry.map_or(ONLY_SLEEPER, producer_sleeper_bit);
        h.view.space_bell().wait(me, || side.has_room(h.view.positions(), capacity), left);
        true
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
    /// On by default; see [`crate::diagnostics::set_head_cache`].
    pub(crate) fn set_head_cache(&mut self, on: bool) {
        self.side.cache = on;
    }

    /// How many times pushes loaded the consumer's shared position.
    pub fn head_reads(&self) -> u64 {
        self.side.head_reads
    }

    /// Commands the queue holds at most (a power of two, fixed when it was created).
    pub fn capacity(&self) -> u32 {
        self.handle.config.capacity
    }

    /// The queue's name (canonical: without a leading `/`).
    pub fn name(&self) -> &str {
        &self.handle.name
    }
}

/// How long an MPSC consumer lets the command at its head stay claimed but unwritten
/// before it checks whether the producer that claimed it died. Only *when* it checks
/// depends on it: a live producer's command is never skipped, however slow.
const STALL_GRACE: Duration = Duration::from_millis(1);

/// Pops commands from a queue (its only consumer).
///
/// Made by [`QueueBuilder::consumer`](super::QueueBuilder::consumer); a second consumer of
/// the same queue fails with [`OpenError::TooMany`](crate::OpenError::TooMany) while this
/// one lives. Pops never block; [`Consumer::wait`] sleeps until a command is ready. See the
/// example of [`Producer`].
#[derive(Debug)]
pub struct Consumer<T> {
    pub(super) handle: QueueHandle,
    pub(super) side: ConsumerSide,
    /// MPSC: the head position found claimed but unwritten, and since when.
    pub(super) stall: Option<(u64, Instant)>,
    pub(super) abandoned: u64,
    pub(super) _command: PhantomData<T>,
}

impl<T: Pod> Consumer<T> {
    /// Pops up to `out.len()` commands, oldest first; returns how many. Never blocks.
    pub fn pop_batch(&mut self, out: &mut [T]) -> Result<usize, QueueError> {
        let view = &self.handle.view;
        let mut n = self.side.pop(view.positions(), &view.slots::<T>(), out)?;
        if n == 0 && self.skip_abandoned()? {
            let view = &self.handle.view;
            n = self.side.pop(view.positions(), &view.slots::<T>(), out)?;
        }
        if n > 0 {
            self.handle.view.space_bell().ring();
        }
        Ok(n)
    }

    /// Pops one command, if any.
    pub fn pop(&mut self) -> Result<Option<T>, QueueError> {
        let view = &self.handle.view;
        let mut popped = self.side.pop_one(view.positions(), &view.slots::<T>())?;
        if popped.is_none() && self.skip_abandoned()? {
            let view = &self.handle.view;
            popped = self.side.pop_one(view.positions(), &view.slots::<T>())?;
        }
        if popped.is_some() {
            self.handle.view.space_bell().ring();
        }
        Ok(popped)
    }
}

impl<T> Consumer<T> {
    /// Commands the queue holds at most (a power of two, fixed when it was created).
    pub fn capacity(&self) -> u32 {
        self.handle.config.capacity
    }

    /// Whether the queue's waiters sleep (`OnData`) or poll (`Never`), fixed at creation.
    pub fn wake_mode(&self) -> crate::Wake {
        self.handle.config.wake()
    }

    /// The queue's words, for a wait set.
    pub(crate) fn view(&self) -> std::sync::Arc<crate::shm::queue::QueueView> {
        self.handle.view.clone()
    }

    /// Waits until a command is ready, at most `timeout` (`None`: forever). Returns
    /// whether one is. Sleeps in the kernel only if the queue is empty; producers see it
    /// asleep and wake it. In a [`Wake::Never`](crate::Wake::Never) queue it polls: a short
    /// spin, then a look every 50 µs.
    pub fn wait(&mut self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let h = &self.handle;
            if self.side.has_data(h.view.positions(), &*h.view) {
                return true;
            }
            let stalled = self.side.stalled(h.view.positions(), &*h.view);
            let mut left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return false;
            }
            if stalled {
                // A dead producer's claim rings no bell: look again after the grace.
                left = Some(left.map_or(STALL_GRACE, |l| l.min(STALL_GRACE)));
            }
            let side = &self.side;
            h.view.data_bell().wait(ONLY_SLEEPER, || side.has_data(h.view.positions(), &*h.view), left);
            if stalled {
                // A corrupt tail is reported by the pop that follows.
                let _ = self.skip_abandoned();
            }
        }
    }

    /// MPSC: when the head has stayed claimed but unwritten for [`STALL_GRACE`], skips
    /// the commands whose producers died between claiming and writing them. Returns
    /// whether it skipped any.
    pub(super) fn skip_abandoned(&mut self) -> Result<bool, QueueError> {
        let h = &self.handle;
        if !self.side.stalled(h.view.positions(), &*h.view) {
            self.stall = None;
            return Ok(false);
        }
        let now = Instant::now();
        match self.stall {
            Some((head, since)) if head == self.side.head && now - since >= STALL_GRACE => {}
            Some((head, _)) if head == self.side.head => return Ok(false),
            _ => {
                self.stall = Some((self.side.head, now));
                return Ok(false);
            }
        }
        self.stall = None;
        let skipped = self.side.skip_abandoned(h.view.positions(), &*h.view, || h.live_claim_floor())?;
        self.abandoned += skipped;
        Ok(skipped > 0)
    }

    /// Commands skipped because their producer died (SIGKILL) after claiming their slots
    /// and before writing them (MPSC). Never a command a live producer pushed.
    pub fn abandoned(&self) -> u64 {
        self.abandoned
    }

    /// Removes the queue's name, like `sem_unlink`: handles already open keep working; the
    /// next open of the name creates a new queue.
    pub fn unlink(&self) {
        segment::remove(&self.handle.path);
    }

    /// Turns the cached producer position off or on (SPSC; on by default); see
    /// [`crate::diagnostics::set_tail_cache`].
    pub(crate) fn set_tail_cache(&mut self, on: bool) {
        self.side.cache = on;
    }

    /// How many times pops loaded the producer's shared position (SPSC).
    pub fn tail_reads(&self) -> u64 {
        self.side.tail_reads
    }

    /// The queue's name (canonical: without a leading `/`).
    pub fn name(&self) -> &str {
        &self.handle.name
    }
}
