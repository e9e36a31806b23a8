//! Opening a queue: [`QueueBuilder`] (open-or-create, settings checked against an existing
//! queue, one-at-a-time roles claimed by OS locks) and the mapped handle both sides share.

use super::handle::{Consumer, Producer};
use crate::error::{io_err, Corruption, OpenError};
use crate::open_wait::OpenWait;
use crate::ring::queue::{BadPosition, ConsumerSide, Mode, ProducerSide, NO_CLAIM};
use crate::shm::header::SegmentKind;
use crate::shm::pod::Pod;
use crate::shm::queue::{
    self, producer_entry_lock_byte, producer_sleeper_bit, QueueConfig, QueueView, CONSUMER_LOCK_BYTE,
    CONTROL_LOCK_BYTE, MAX_QUEUE_PRODUCERS, ONLY_SLEEPER, PRODUCER_LOCK_BYTE,
};
use crate::shm::topic::{PayloadType, MAX_TYPE_NAME_BYTES};
use crate::shm::{segment, Region};
use crate::sys;
use crate::Node;
use crate::Wake;
use std::fs::File;
use std::marker::PhantomData;
use std::os::fd::AsFd;
use std::path::PathBuf;

/// Opens a queue: `node.queue::<T>(name)`, configure, then `.producer()` or `.consumer()`.
#[derive(Debug)]
pub struct QueueBuilder<T> {
    node: Node,
    name: String,
    capacity: Option<u32>,
    mode: Option<Mode>,
    wake: Option<Wake>,
    /// Open only a queue that exists (`open` returns `None` otherwise).
    must_exist: bool,
    open_wait: OpenWait,
    /// The command type every opener must give: `T`'s, or one given at run time
    /// ([`Node::raw_queue`]).
    command: PayloadType,
    _command: PhantomData<T>,
}

impl Node {
    /// Opens the command queue `name` (commands of type `T`): configure it, then call
    /// `.producer()` or `.consumer()`.
    pub fn queue<T: Pod>(&self, name: &str) -> QueueBuilder<T> {
        QueueBuilder::new(self.clone(), name, PayloadType::of::<T>())
    }
}

/// Capacity of a queue created without `.capacity(n)`.
pub const DEFAULT_QUEUE_CAPACITY: u32 = 1024;

#[derive(Debug)]
pub(super) struct QueueHandle {
    pub name: String,
    pub path: PathBuf,
    pub file: File,
    /// Shared with the wait sets the consumer is attached to.
    pub view: std::sync::Arc<QueueView>,
    pub config: QueueConfig,
}

impl QueueHandle {
    fn new(name: String, path: PathBuf, file: File, region: Region, config: QueueConfig) -> QueueHandle {
        QueueHandle { name, path, file, view: std::sync::Arc::new(QueueView::new(region, &config)), config }
    }
}

impl<T: Pod> QueueBuilder<T> {
    /// Names the command type as programs in other languages name it (their
    /// [`CommandType`](super::CommandType) name), instead of Rust's name of `T`: every
    /// opener must give the same name, size and alignment. The size and alignment stay
    /// `T`'s.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// use ringbus::CommandType;
    /// // A C or Python program opened "arm/moves" for 8-byte "arm.move" commands.
    /// let other = node.raw_queue("arm/moves", CommandType::new("arm.move", 8, 4)?).consumer()?;
    /// let mut producer = node.queue::<[i32; 2]>("arm/moves").type_name("arm.move").producer()?;
    /// producer.push([1, 2])?;
    /// # other.unlink();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn type_name(mut self, name: &str) -> Self {
        self.command.name = name.to_string();
        self
    }
}

impl<T> QueueBuilder<T> {
    pub(crate) fn new(node: Node, name: &str, command: PayloadType) -> QueueBuilder<T> {
        QueueBuilder {
            node,
            name: name.into(),
            capacity: None,
            mode: None,
            wake: None,
            must_exist: false,
            open_wait: OpenWait::default(),
            command,
            _command: PhantomData,
        }
    }

    /// How long opening waits for another participant holding the queue's lock (one
    /// stopped by Ctrl-Z or a debugger while it opened) before it fails with
    /// [`OpenError::LockTimedOut`]; default [`DEFAULT_OPEN_TIMEOUT`](crate::DEFAULT_OPEN_TIMEOUT).
    pub fn open_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.open_wait.timeout = Some(timeout);
        self
    }

    /// A flag that, once set (by a Ctrl-C handler, say), makes an open waiting for a busy
    /// queue lock give up with [`OpenError::Interrupted`].
    pub fn cancel_flag(mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.open_wait.cancel = Some(flag);
        self
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

    /// Several producers, up to [`MAX_QUEUE_PRODUCERS`] at once (they claim slots with a
    /// compare-and-swap; a consumer skips what a producer killed mid-push claimed and
    /// never wrote: [`Consumer::abandoned`]).
    pub fn mpsc(mut self) -> Self {
        self.mode = Some(Mode::Mpsc);
        self
    }

    /// Whether the queue's waiters sleep and are woken ([`Wake::OnData`], the default) or
    /// only poll ([`Wake::Never`]: pushes and pops skip the fence and the look at the
    /// sleepers; [`Consumer::wait`] and [`Producer::push_timeout`] poll, sleeping
    /// 50 µs between looks once a short spin found nothing). Fixed when the queue is
    /// created; opening it with the other setting is [`OpenError::ConfigMismatch`].
    pub fn wake(mut self, wake: Wake) -> Self {
        self.wake = Some(wake);
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
        let entry = match handle.config.mode() {
            Mode::Spsc => {
                handle.claim(PRODUCER_LOCK_BYTE, "producer")?;
                handle.view.space_bell().forget_sleeper(ONLY_SLEEPER);
                None
            }
            Mode::Mpsc => Some(handle.claim_producer_entry()?),
        };
        let positions = handle.view.producer_positions(entry);
        let corrupted = |b: BadPosition| OpenError::Corrupted { path: handle.path.clone(), corruption: b.into() };
        let side = ProducerSide::new(handle.config.mode(), positions).map_err(corrupted)?;
        let capacity = handle.config.capacity as u64;
        let head = positions.head_now().map_err(corrupted)?;
        if side.tail < head || side.tail > head + capacity {
            let corruption = Corruption { what: "queue positions", found: side.tail, limit: head };
            return Err(OpenError::Corrupted { path: handle.path, corruption });
        }
        handle.release_control();
        Ok(Producer { handle, side, entry, _command: PhantomData })
    }

    /// Opens the queue as its consumer (there is one at a time).
    pub fn consumer(self) -> Result<Consumer<T>, OpenError> {
        let handle = self.open()?.expect("created if missing");
        handle.claim(CONSUMER_LOCK_BYTE, "consumer")?;
        // Only the consumer sleeps on the data doorbell: its bit, if set, was left by a
        // consumer that died asleep.
        handle.view.data_bell().forget_sleeper(ONLY_SLEEPER);
        let side = ConsumerSide::new(handle.config.mode(), handle.view.positions())
            .map_err(|b| OpenError::Corrupted { path: handle.path.clone(), corruption: b.into() })?;
        handle.release_control();
        Ok(Consumer { handle, side, stall: None, abandoned: 0, _command: PhantomData })
    }

    /// Opens or creates the queue and returns it with its control lock held (see
    /// [`CONTROL_LOCK_BYTE`]); the caller releases it once it holds its role.
    fn open(&self) -> Result<Option<QueueHandle>, OpenError> {
        let (canonical, file_name) = crate::shm::root::file_name(&self.name)?;
        let command = &self.command;
        if command.name.len() > MAX_TYPE_NAME_BYTES {
            let reason = "the command type's name: at most 256 bytes";
            return Err(OpenError::InvalidConfig {
                field: "type name length",
                value: command.name.len() as u64,
                reason,
            });
        }
        let root = self.node.root();
        let path = root.object_path(crate::shm::root::QUEUE_PREFIX, &file_name);
        let deadline = self.open_wait.start();
        loop {
            if let Some(opened) = segment::open(&path, SegmentKind::Queue, true)? {
                deadline.lock(&opened.file, CONTROL_LOCK_BYTE, &path)?;
                if segment::is_unlinked(&opened.file, &path)? {
                    continue; // a sweep removed it while we waited: open or create anew
                }
                let (config, name, existing) =
                    queue::read(&opened.region).map_err(|e| segment::header_error(&path, e))?;
                self.check_against(&canonical, &config, &existing, command)?;
                return Ok(Some(QueueHandle::new(name, path, opened.file, opened.region, config)));
            }
            if self.must_exist {
                return Ok(None);
            }
            let capacity = self.capacity.unwrap_or(DEFAULT_QUEUE_CAPACITY);
            let (mode, wake) = (self.mode.unwrap_or(Mode::Spsc), self.wake.unwrap_or_default());
            let config =
                QueueConfig::new(capacity, mode, wake, command).map_err(|(field, value)| OpenError::InvalidConfig {
                    field,
                    value,
                    reason: "capacity: a power of two from 2 to 2^24; commands: 1 B to 64 KiB",
                })?;
            let init = |r: &Region| queue::init(r, &config, &canonical, command);
            // The creator holds the control lock from birth (`segment::create` locks byte 0).
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
            // Same name, another layout (a type changed in one program only): say both.
            let describe = |t: &PayloadType| match existing.name == command.name {
                true => format!("{} ({} bytes, aligned to {})", t.name, t.size, t.align),
                false => t.name.clone(),
            };
            return Err(OpenError::TypeMismatch {
                topic: name.into(),
                existing: describe(existing),
                requested: describe(command),
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
        if let Some(m) = self.mode.filter(|&m| m != config.mode()) {
            return Err(mismatch("producers (1 = spsc, 2 = mpsc)", config.mode as u64, m as u64 + 1));
        }
        match self.wake {
            Some(w) if w != config.wake() => {
                Err(mismatch("wake (0 = on data, 1 = never)", config.wake as u64, (w == Wake::Never) as u64))
            }
            _ => Ok(()),
        }
    }
}

impl QueueHandle {
    /// Lets sweeps (and other openers) at the queue again, once our role is claimed.
    fn release_control(&self) {
        let _ = sys::lock::unlock(self.file.as_fd(), CONTROL_LOCK_BYTE);
    }

    /// Takes the liveness lock of a one-at-a-time role.
    fn claim(&self, byte: u64, role: &'static str) -> Result<(), OpenError> {
        if sys::lock::try_lock(self.file.as_fd(), byte).map_err(io_err("lock", &self.path))? {
            return Ok(());
        }
        Err(OpenError::TooMany { topic: self.name.clone(), role, limit: 1 })
    }

    /// MPSC: takes the first free producer entry (its lock) and clears its claim word and
    /// sleeper bit, which a producer that held the entry and died may have left behind.
    fn claim_producer_entry(&self) -> Result<u32, OpenError> {
        for entry in 0..MAX_QUEUE_PRODUCERS {
            let byte = producer_entry_lock_byte(entry);
            if sys::lock::try_lock(self.file.as_fd(), byte).map_err(io_err("lock", &self.path))? {
                self.view.reset_claim(entry);
                self.view.space_bell().forget_sleeper(producer_sleeper_bit(entry));
                return Ok(entry);
            }
        }
        Err(OpenError::TooMany { topic: self.name.clone(), role: "producer", limit: MAX_QUEUE_PRODUCERS })
    }

    /// The lowest claim announced by a live MPSC producer ([`NO_CLAIM`] if none): below
    /// it, claimed positions that are not marked belong to dead producers. Checks the
    /// liveness (one system call) only of entries whose claim would lower the floor.
    pub(super) fn live_claim_floor(&self) -> u64 {
        let mut floor = NO_CLAIM;
        for entry in 0..MAX_QUEUE_PRODUCERS {
            let claim = self.view.claim(entry);
            if claim < floor && sys::lock::is_locked(self.file.as_fd(), producer_entry_lock_byte(entry)).unwrap_or(true)
            {
                floor = claim;
            }
        }
        floor
    }
}
