//! Inspecting a command queue from outside: its settings, how many commands wait, and who
//! is there — read-only, like the rest of `inspect`.

use crate::error::OpenError;
use crate::ring::queue::Mode;
use crate::shm::header::SegmentKind;
use crate::shm::queue::{self, producer_entry_lock_byte, CONSUMER_LOCK_BYTE, MAX_QUEUE_PRODUCERS, PRODUCER_LOCK_BYTE};
use crate::shm::segment;
use crate::sys;
use std::fs::File;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// One command queue.
#[derive(Debug, Clone)]
pub struct QueueInfo {
    /// The queue's name.
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// Commands it holds at most.
    pub capacity: u32,
    /// Several producers (`true`) or one.
    pub mpsc: bool,
    /// The command type's name.
    pub command_type: String,
    /// The command type's size in bytes.
    pub command_size: u64,
    /// The next position producers claim (positions count every command ever pushed).
    pub tail: u64,
    /// The next position the consumer reads ([`QueueInfo::queued`] commands wait).
    pub head: u64,
    /// Whether a consumer holds the queue (its process lives).
    pub consumer_alive: bool,
    /// Whether a producer holds the queue (SPSC: the producer; MPSC: any).
    pub producer_alive: bool,
    /// Live producers (SPSC: 0 or 1; MPSC: up to `MAX_QUEUE_PRODUCERS`).
    pub producers_alive: u32,
    /// Created with [`Wake::Never`](crate::Wake::Never): its waiters poll, never sleep.
    pub polling: bool,
    /// The consumer sleeps waiting for commands.
    pub consumer_asleep: bool,
    /// Producers sleeping until there is room.
    pub producers_waiting: u32,
}

impl QueueInfo {
    /// Commands pushed (claimed, for MPSC) and not yet popped.
    pub fn queued(&self) -> u64 {
        self.tail.saturating_sub(self.head)
    }
}

pub(super) fn queue(path: &Path) -> Result<Option<QueueInfo>, OpenError> {
    let Some(opened) = segment::open(path, SegmentKind::Queue, false)? else {
        return Ok(None);
    };
    info(path, opened).map(|(info, _file)| Some(info))
}

/// What the queue segment `opened` (the file at `path`) holds; hands the file back, so a
/// sweep keeps the locks it took through it.
pub(crate) fn info(path: &Path, opened: segment::Opened) -> Result<(QueueInfo, File), OpenError> {
    let (config, name, command) = queue::read(&opened.region).map_err(|e| segment::header_error(path, e))?;
    let view = queue::QueueView::new(opened.region, &config);
    let positions = view.positions();
    let locked = |byte| sys::lock::is_locked(opened.file.as_fd(), byte).unwrap_or(true);
    let mpsc = config.mode() == Mode::Mpsc;
    let producers_alive = match mpsc {
        true => (0..MAX_QUEUE_PRODUCERS).filter(|&e| locked(producer_entry_lock_byte(e))).count() as u32,
        false => locked(PRODUCER_LOCK_BYTE) as u32,
    };
    let (tail, head) = positions.snapshot();
    let info = QueueInfo {
        name,
        path: path.to_path_buf(),
        capacity: config.capacity,
        mpsc,
        command_type: command.name,
        command_size: command.size,
        tail,
        head,
        consumer_alive: locked(CONSUMER_LOCK_BYTE),
        producer_alive: producers_alive > 0,
        producers_alive,
        polling: config.wake() == crate::Wake::Never,
        consumer_asleep: view.data_bell().sleeping() != 0,
        producers_waiting: view.space_bell().sleeping(),
    };
    Ok((info, opened.file))
}
