//! [`Producer`] and [`Consumer`] of a named command queue, and the builder that opens them.

use crate::error::{io_err, Corruption, OpenError};
use crate::registry::Node;
use crate::ring::commands::{BadPosition, ConsumerSide, Mode, ProducerSide};
use crate::shm::header::SegmentKind;
use crate::shm::pod::Pod;
use crate::shm::queue::{self, QueueConfig, QueueView, CONSUMER_LOCK_BYTE, PRODUCER_LOCK_BYTE};
use crate::shm::topic::PayloadType;
use crate::shm::{segment, Region};
use crate::sys;
use std::fs::File;
use std::marker::PhantomData;
use std::os::fd::AsFd;
use std::path::PathBuf;
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

/// Opens a queue: `node.queue::<T>(name)`, configure, then `.producer()` or `.consumer()`.
#[derive(Debug)]
pub struct QueueBuilder<T> {
    node: Node,
    name: String,
    capacity: Option<u32>,
    mode: Option<Mode>,
    /// Open only a queue that exists (`open` returns `None` otherwise).
    must_exist: bool,
    _command: PhantomData<T>,
}

/// Capacity of a queue created without `.capacity(n)`.
pub const DEFAULT_QUEUE_CAPACITY: u32 = 1024;

#[derive(Debug)]
struct QueueHandle {
    name: String,
    path: PathBuf,
    file: File,
    view: QueueView,
    config: QueueConfig,
}

impl QueueHandle {
    fn new(name: String, path: PathBuf, file: File, region: Region, config: QueueConfig) -> QueueHandle {
        QueueHandle { name, path, file, view: QueueView::new(region, &config), config }
    }
}

impl<T: Pod> QueueBuilder<T> {
    pub(crate) fn new(node: Node, name: &str) -> QueueBuilder<T> {
        QueueBuilder { node, name: name.into(), capacity: None, mode: None, must_exist: false, _command: PhantomData }
    }

    /// Commands the ring holds (a power of two, 2 to 2^24) [default 1024].
    pub fn capacity(mut self, capacity: u32) -> Self {
        self.capacity = Some(capacity);
        self
    }

    /// One producer at a time (the default): pushes need no atomic read-modify-write.
    pub fn spsc(mut self) -> Self {
        self.mode = Some(Mode::Spsc);
        self
    }

    /// Any number of producers (they claim slots with a compare-and-swap).
    pub fn mpsc(mut self) -> Self {
        self.mode = Some(Mode::Mpsc);
        self
    }

    /// Opens the queue as its producer (SPSC: the only one).
    pub fn producer(self) -> Result<Producer<T>, OpenError> {
        let handle = self.open()?.expect("created if missing");
        Self::into_producer(handle)
    }

    /// Opens the queue as its producer only if it exists (a service answering a client
    /// must not recreate the response queue of a client that is gone).
    pub(crate) fn existing_producer(mut self) -> Result<Option<Producer<T>>, OpenError> {
        self.must_exist = true;
        self.open()?.map(Self::into_producer).transpose()
    }

    fn into_producer(handle: QueueHandle) -> Result<Producer<T>, OpenError> {
        if handle.config.mode() == Mode::Spsc {
            handle.claim(PRODUCER_LOCK_BYTE, "producer")?;
            handle.view.space_bell().reset_sleepers();
        }
        let positions = handle.view.positions();
        let side = ProducerSide::new(handle.config.mode(), positions);
        let capacity = handle.config.capacity as u64;
        let head = positions.head.load(crate::sync::Ordering::Acquire);
        if side.tail < head || side.tail > head + capacity {
            let corruption = Corruption { what: "queue positions", found: side.tail, limit: head };
            return Err(OpenError::Corrupted { path: handle.path, corruption });
        }
        Ok(Producer { handle, side, _command: PhantomData })
    }

    /// Opens the queue as its consumer (there is one at a time).
    pub fn consumer(self) -> Result<Consumer<T>, OpenError> {
        let handle = self.open()?.expect("created if missing");
        handle.claim(CONSUMER_LOCK_BYTE, "consumer")?;
        // Only the consumer sleeps on the data doorbell: whatever count is there was left
        // by a consumer that died asleep.
        handle.view.data_bell().reset_sleepers();
        let side = ConsumerSide::new(handle.config.mode(), handle.view.positions());
        Ok(Consumer { handle, side, _command: PhantomData })
    }

    fn open(&self) -> Result<Option<QueueHandle>, OpenError> {
        let (canonical, file_name) = crate::shm::root::file_name(&self.name)?;
        let command = PayloadType::of::<T>();
        let root = self.node.root();
        let path = root.object_path("queue", &file_name);
        loop {
            if let Some(opened) = segment::open(&path, SegmentKind::Queue, true)? {
                let (config, name, existing) =
                    queue::read(&opened.region).map_err(|e| segment::header_error(&path, e))?;
                self.check_against(&canonical, &config, &existing, &command)?;
                return Ok(Some(QueueHandle::new(name, path, opened.file, opened.region, config)));
            }
            if self.must_exist {
                return Ok(None);
            }
            let capacity = self.capacity.unwrap_or(DEFAULT_QUEUE_CAPACITY);
            let config =
                QueueConfig::new(capacity, self.mode.unwrap_or(Mode::Spsc), &command).map_err(|(field, value)| {
                    OpenError::InvalidConfig {
                        field,
                        value,
                        reason: "capacity: a power of two from 2 to 2^24; commands: 1 B to 64 KiB",
                    }
                })?;
            let init = |r: &Region| queue::init(r, &config, &canonical, &command);
            if let Some(created) = segment::create(root, &path, config.total_bytes(), init)? {
                return Ok(Some(QueueHandle::new(canonical, path, created.file, created.region, config)));
            }
        }
    }

    fn check_against(
        &self,
        name: &str,
        config: &QueueConfig,
        existing: &PayloadType,
        command: &PayloadType,
    ) -> Result<(), OpenError> {
        if existing != command {
            return Err(OpenError::TypeMismatch {
                topic: name.into(),
                existing: existing.name.clone(),
                requested: command.name.clone(),
            });
        }
        let mismatch = |field, existing: u64, requested: u64| OpenError::ConfigMismatch {
            topic: name.into(),
            field,
            existing,
            requested,
        };
        if let Some(c) = self.capacity.filter(|&c| c != config.capacity) {
            return Err(mismatch("capacity", config.capacity as u64, c as u64));
        }
        match self.mode {
            Some(m) if m != config.mode() => {
                Err(mismatch("producers (1 = spsc, 2 = mpsc)", config.mode as u64, m as u64 + 1))
            }
            _ => Ok(()),
        }
    }
}

impl QueueHandle {
    /// Takes the liveness lock of a one-at-a-time role.
    fn claim(&self, byte: u64, role: &'static str) -> Result<(), OpenError> {
        if sys::lock::try_lock(self.file.as_fd(), byte).map_err(io_err("lock", &self.path))? {
            return Ok(());
        }
        Err(OpenError::TooMany { topic: self.name.clone(), role, limit: 1 })
    }
}

/// Pushes commands into a queue. The consumer's position is cached here and loaded from
/// shared memory only when the cached one leaves too little room for a push.
#[derive(Debug)]
pub struct Producer<T> {
    handle: QueueHandle,
    side: ProducerSide,
    _command: PhantomData<T>,
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
    handle: QueueHandle,
    side: ConsumerSide,
    _command: PhantomData<T>,
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
