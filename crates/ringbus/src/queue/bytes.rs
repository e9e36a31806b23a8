//! Queues of commands whose type is known only at run time — a name, a size and an
//! alignment, checked by every opener as a Rust type is — moved as bytes. This is what C,
//! C++ and Python programs use, and what a Rust program uses to share a queue with them
//! ([`QueueBuilder::type_name`](super::QueueBuilder::type_name) gives a Rust type the name
//! they use).

use super::handle::{Consumer, Producer, PushError, QueueError};
use super::open::QueueBuilder;
use crate::error::OpenError;
use crate::shm::queue::MAX_COMMAND_BYTES;
use crate::shm::topic::{PayloadType, MAX_TYPE_NAME_BYTES};
use crate::Node;
use std::time::{Duration, Instant};

/// A command type given at run time: the name every opener of the queue must give, and the
/// size and alignment of one command. Made with [`CommandType::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandType(PayloadType);

/// The command type of a queue opened with [`Node::raw_queue`]: its commands are moved as
/// bytes, one [`CommandType`]'s size each.
#[derive(Debug, Clone, Copy)]
pub enum RawCommand {}

impl CommandType {
    /// A command type named `name` (1 to 256 bytes; by convention the same in every
    /// language, e.g. `"arm.move"`), of `size` bytes (1 to 65536) aligned to `align` (a
    /// power of two up to 4096). Invalid values are [`OpenError::InvalidConfig`].
    pub fn new(name: &str, size: usize, align: usize) -> Result<CommandType, OpenError> {
        let invalid =
            |field, value: usize, reason| Err(OpenError::InvalidConfig { field, value: value as u64, reason });
        if name.is_empty() || name.len() > MAX_TYPE_NAME_BYTES {
            return invalid("command type name length", name.len(), "1 to 256 bytes");
        }
        if size == 0 || size as u64 > MAX_COMMAND_BYTES {
            return invalid("command size", size, "1 to 65536 bytes");
        }
        if !align.is_power_of_two() || align > 4096 {
            return invalid("command alignment", align, "a power of two, 1 to 4096");
        }
        Ok(CommandType(PayloadType { name: name.to_string(), size: size as u64, align: align as u32 }))
    }

    /// The command type of Rust type `T`, named `name` (`None`: Rust's name of `T`).
    pub(crate) fn of<T: crate::Pod>(name: Option<&str>) -> Result<CommandType, OpenError> {
        let rust = PayloadType::of::<T>();
        CommandType::new(name.unwrap_or(&rust.name), rust.size as usize, rust.align as usize)
    }

    /// The name openers must give.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Bytes of one command.
    pub fn size(&self) -> usize {
        self.0.size as usize
    }

    /// The alignment of one command in the ring.
    pub fn align(&self) -> usize {
        self.0.align as usize
    }
}

impl Node {
    /// Opens the command queue `name` whose commands are of the run-time type `command`
    /// (moved as bytes): configure it, then call `.producer()` or `.consumer()`.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// use ringbus::CommandType;
    /// let command = CommandType::new("arm.move", 8, 4)?;
    /// let mut consumer = node.raw_queue("arm/moves", command.clone()).capacity(16).consumer()?;
    /// let mut producer = node.raw_queue("arm/moves", command).producer()?;
    /// producer.push_bytes(&[1, 0, 0, 0, 2, 0, 0, 0])?;
    /// let mut out = [0u8; 8];
    /// assert!(consumer.pop_bytes(&mut out)?);
    /// assert_eq!(out, [1, 0, 0, 0, 2, 0, 0, 0]);
    /// // A Rust program opens it with a type of that size and alignment, and that name.
    /// let typed = node.queue::<[i32; 2]>("arm/moves").type_name("arm.move").producer();
    /// assert!(typed.is_err()); // SPSC: the raw producer above is the one producer
    /// # consumer.unlink();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn raw_queue(&self, name: &str, command: CommandType) -> QueueBuilder<RawCommand> {
        QueueBuilder::new(self.clone(), name, command.0)
    }
}

/// `len` bytes as exactly one command (or body) of `size` bytes, or the error that says
/// they are not.
pub(crate) fn one_command(len: usize, size: usize) -> Result<(), QueueError> {
    match len == size {
        true => Ok(()),
        false => Err(QueueError::CommandSize { command: size, given: len }),
    }
}

/// `len` bytes as a count of whole commands of `size`, or the error that says they are not.
fn whole_commands(len: usize, size: usize) -> Result<usize, QueueError> {
    match len % size {
        0 => Ok(len / size),
        _ => Err(QueueError::CommandSize { command: size, given: len }),
    }
}

impl Producer<RawCommand> {
    /// Pushes as many of the commands in `commands` (whole commands back to back) as fit,
    /// in order; returns how many. Never blocks; wakes the consumer only if it sleeps.
    pub fn push_batch_bytes(&mut self, commands: &[u8]) -> Result<usize, QueueError> {
        let h = &self.handle;
        let size = h.view.command_bytes();
        let count = whole_commands(commands.len(), size)?;
        let positions = h.view.producer_positions(self.entry);
        let n = self.side.push_with(positions, &*h.view, count, |slot, run| {
            h.view.write_bytes(slot, &commands[run.start * size..run.end * size]);
        })?;
        if n > 0 {
            h.view.data_bell().ring();
        }
        Ok(n)
    }

    /// Pushes one command (exactly [`CommandType::size`] bytes), or fails with
    /// [`PushError::Full`] if the queue is full. Never blocks.
    pub fn push_bytes(&mut self, command: &[u8]) -> Result<(), PushError<()>> {
        one_command(command.len(), self.command_size())?;
        match self.push_batch_bytes(command)? {
            1 => Ok(()),
            _ => Err(PushError::Full(())),
        }
    }

    /// Pushes one command, waiting at most `timeout` (`None`: forever) for room.
    pub fn push_bytes_timeout(&mut self, command: &[u8], timeout: Option<Duration>) -> Result<(), PushError<()>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            match self.push_bytes(command) {
                Err(PushError::Full(())) => {}
                done => return done,
            }
            if !self.wait_for_room(deadline) {
                return Err(PushError::Full(()));
            }
        }
    }

    /// Bytes of one command of this queue.
    pub fn command_size(&self) -> usize {
        self.handle.view.command_bytes()
    }
}

impl Consumer<RawCommand> {
    /// Pops up to `out.len() / command size` commands into `out`, oldest first, back to
    /// back; returns how many. `out` must hold whole commands. Never blocks.
    pub fn pop_batch_bytes(&mut self, out: &mut [u8]) -> Result<usize, QueueError> {
        let size = self.command_size();
        let count = whole_commands(out.len(), size)?;
        let mut n = self.pop_bytes_once(out, count)?;
        if n == 0 && self.skip_abandoned()? {
            n = self.pop_bytes_once(out, count)?;
        }
        if n > 0 {
            self.handle.view.space_bell().ring();
        }
        Ok(n)
    }

    /// Pops one command into `out` (exactly [`CommandType::size`] bytes); whether there
    /// was one. Never blocks.
    pub fn pop_bytes(&mut self, out: &mut [u8]) -> Result<bool, QueueError> {
        one_command(out.len(), self.command_size())?;
        Ok(self.pop_batch_bytes(out)? == 1)
    }

    /// Bytes of one command of this queue.
    pub fn command_size(&self) -> usize {
        self.handle.view.command_bytes()
    }

    fn pop_bytes_once(&mut self, out: &mut [u8], count: usize) -> Result<usize, QueueError> {
        let view = &self.handle.view;
        let size = view.command_bytes();
        let n = self.side.pop_with(view.positions(), &**view, count, |slot, run| {
            view.read_bytes(slot, &mut out[run.start * size..run.end * size]);
        })?;
        Ok(n)
    }
}
