//! The command queue segment (`queue.<name>`): configuration, the two positions, the two
//! doorbells and the slots.
//!
//! ```text
//!    0 QueueHeader (512 B): SegmentHeader, QueueConfig, command type, name
//!  512 tail       next position producers claim         (producers' line; SPSC lock byte)
//!  640 head       next position the consumer reads      (consumer's line; its lock byte)
//!  768 data doorbell: word (u32), sleepers mask (u64 at +8)   (the consumer sleeps here)
//!  896 space doorbell: word, sleepers mask                    (producers sleep here)
//! 1024 producer entries: 64 × 64 B, MPSC only; each its producer's lock byte and claim
//!      word (the position it is claiming from, or NO_CLAIM; see `ring::queue`)
//! 5120 slots: capacity × stride; MPSC: mark (u64, position + 1), then the command;
//!      SPSC: the command alone
//! ```
//! Each position and doorbell has a 128-byte block of its own (x86 cores prefetch lines
//! in aligned pairs, so two hot words on neighbouring lines still interfere, as in
//! crossbeam's `CachePadded`), each producer entry its own line: a push touches the
//! producer's lines and the slot, and only a reload of the cached head touches the
//! consumer's.

use super::header::{corrupt, HeaderError, SegmentHeader, SegmentKind};
use super::pod::Pod;
use super::topic::{PayloadType, MAX_NAME_BYTES, MAX_TYPE_NAME_BYTES};
use super::{Region, Shared};
use crate::notify::doorbell::Doorbell;
use crate::notify::Wake;
use crate::ring::queue::{Mode, Positions, Ring, Slots, NO_CLAIM};
use crate::sync::{AtomicU32, AtomicU64, Ordering};
use std::marker::PhantomData;
use std::mem::{offset_of, size_of};
use std::ptr::NonNull;

pub(crate) const MAX_CAPACITY: u32 = 1 << 24;
/// Largest command: a slot is meant for a small fixed-size record, not a payload.
pub(crate) const MAX_COMMAND_BYTES: u64 = 64 * 1024;
const TAIL_OFFSET: usize = 512;
const HEAD_OFFSET: usize = 640;
const DATA_BELL_OFFSET: usize = 768;
const SPACE_BELL_OFFSET: usize = 896;
const PRODUCERS_OFFSET: usize = 1024;
const PRODUCER_ENTRY_BYTES: usize = 64;
/// Producers an MPSC queue takes at once (each holds one entry while it lives).
pub const MAX_QUEUE_PRODUCERS: u32 = 64;
const SLOTS_OFFSET: usize = PRODUCERS_OFFSET + MAX_QUEUE_PRODUCERS as usize * PRODUCER_ENTRY_BYTES;
const _: () = assert!(SLOTS_OFFSET == 5120);
/// The control lock: held by an opener from its open (a creator: from birth) until it has
/// claimed its role, and by a sweep (`clean`) while it decides whether to remove the queue,
/// so a sweep never removes a queue someone is joining.
pub(crate) const CONTROL_LOCK_BYTE: u64 = 0;
/// The liveness lock bytes: the SPSC producer's and the consumer's.
pub(crate) const PRODUCER_LOCK_BYTE: u64 = TAIL_OFFSET as u64;
pub(crate) const CONSUMER_LOCK_BYTE: u64 = HEAD_OFFSET as u64;

/// The consumer's bit in the data doorbell's sleepers, and the SPSC producer's in the
/// space doorbell's.
pub(crate) const ONLY_SLEEPER: u64 = 1;

/// MPSC producer entry `entry`'s bit in the space doorbell's sleepers.
pub(crate) fn producer_sleeper_bit(entry: u32) -> u64 {
    1 << entry
}
const _: () = assert!(MAX_QUEUE_PRODUCERS <= 64, "one sleeper bit per producer entry");

/// The liveness lock byte of MPSC producer entry `entry` (< [`MAX_QUEUE_PRODUCERS`]).
pub(crate) fn producer_entry_lock_byte(entry: u32) -> u64 {
    assert!(entry < MAX_QUEUE_PRODUCERS, "ringbus bug: producer entry {entry}");
    (PRODUCERS_OFFSET + entry as usize * PRODUCER_ENTRY_BYTES) as u64
}

/// The configuration of a queue, fixed at its creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct QueueConfig {
    pub capacity: u32,
    /// 1 SPSC, 2 MPSC.
    pub mode: u32,
    pub slot_stride: u32,
    pub command_offset: u32,
    /// At most [`MAX_COMMAND_BYTES`].
    pub type_size: u32,
    pub type_align: u32,
    pub type_name_len: u32,
    /// 0: waiters sleep and are woken ([`Wake::OnData`]); 1: nobody ever sleeps, so no
    /// push or pop checks for sleepers ([`Wake::Never`]).
    pub wake: u32,
}
const _: () = assert!(size_of::<QueueConfig>() == 32);

impl QueueConfig {
    /// The configuration for `capacity` commands of `command` in `mode`; `None` if out of
    /// range (the caller names the field).
    pub(crate) fn new(
        capacity: u32,
        mode: Mode,
        wake: Wake,
        command: &PayloadType,
    ) -> Result<QueueConfig, (&'static str, u64)> {
        if !capacity.is_power_of_two() || !(2..=MAX_CAPACITY).contains(&capacity) {
            return Err(("capacity", capacity as u64));
        }
        if command.size == 0 || command.size > MAX_COMMAND_BYTES {
            return Err(("command size", command.size));
        }
        if !command.align.is_power_of_two() || command.align > 4096 {
            return Err(("command alignment", command.align as u64));
        }
        // MPSC slots start with their mark word; SPSC slots are the command alone (a
        // 32-byte command packs two to a cache line instead of straddling lines).
        let (align, command_offset) = match mode {
            Mode::Spsc => (command.align as u64, 0),
            Mode::Mpsc => {
                let align = command.align.max(8) as u64;
                (align, 8u64.next_multiple_of(align))
            }
        };
        let slot_stride = (command_offset + command.size).next_multiple_of(align);
        Ok(QueueConfig {
            capacity,
            mode: match mode {
                Mode::Spsc => 1,
                Mode::Mpsc => 2,
            },
            slot_stride: slot_stride as u32,
            command_offset: command_offset as u32,
            type_size: command.size as u32,
            type_align: command.align,
            type_name_len: command.name.len() as u32,
            wake: match wake {
                Wake::OnData => 0,
                Wake::Never => 1,
            },
        })
    }

    /// Whether waiters sleep on the doorbells (else every wait polls).
    pub(crate) fn wake(&self) -> Wake {
        if self.wake == 0 {
            Wake::OnData
        } else {
            Wake::Never
        }
    }

    pub(crate) fn mode(&self) -> Mode {
        if self.mode == 1 {
            Mode::Spsc
        } else {
            Mode::Mpsc
        }
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        SLOTS_OFFSET as u64 + self.capacity as u64 * self.slot_stride as u64
    }
}

#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct QueueHeader {
    pub common: SegmentHeader,
    pub config: QueueConfig,
    pub type_name: [u8; MAX_TYPE_NAME_BYTES],
    pub name_len: u32,
    pub reserved0: u32,
    pub name: [u8; MAX_NAME_BYTES],
    pub reserved1: [u8; 24],
}
const _: () = assert!(offset_of!(QueueHeader, config) == 64);
const _: () = assert!(offset_of!(QueueHeader, type_name) == 96);
const _: () = assert!(offset_of!(QueueHeader, name) == 360);
const _: () = assert!(size_of::<QueueHeader>() == TAIL_OFFSET);
// SAFETY: repr(C), integers and byte arrays only.
unsafe impl Shared for QueueHeader {}

/// Writes a fresh queue header (state still Initializing); slots start zeroed.
pub(crate) fn init(region: &Region, config: &QueueConfig, name: &str, command: &PayloadType) {
    let mut header = QueueHeader {
        common: SegmentHeader::new(SegmentKind::Queue, size_of::<QueueHeader>() as u32, config.total_bytes()),
        config: *config,
        type_name: [0; MAX_TYPE_NAME_BYTES],
        name_len: name.len() as u32,
        reserved0: 0,
        name: [0; MAX_NAME_BYTES],
        reserved1: [0; 24],
    };
    header.type_name[..command.name.len()].copy_from_slice(command.name.as_bytes());
    header.name[..name.len()].copy_from_slice(name.as_bytes());
    region.write_plain(0, header);
    for entry in 0..MAX_QUEUE_PRODUCERS as usize {
        let claim = region.get::<AtomicU64>(PRODUCERS_OFFSET + entry * PRODUCER_ENTRY_BYTES);
        claim.store(NO_CLAIM, crate::sync::Ordering::Relaxed);
    }
}

/// Reads and validates a queue header: the returned configuration is safe to index with.
pub(crate) fn read(region: &Region) -> Result<(QueueConfig, String, PayloadType), HeaderError> {
    let common = SegmentHeader::read(region, SegmentKind::Queue)?;
    if common.header_bytes as usize != size_of::<QueueHeader>() || region.len() < size_of::<QueueHeader>() {
        return Err(corrupt("queue header size", common.header_bytes as u64, size_of::<QueueHeader>() as u64));
    }
    let h: QueueHeader = region.read_plain(0);
    if h.reserved0 != 0 || h.reserved1 != [0; 24] {
        return Err(corrupt("reserved queue header bytes", 1, 0));
    }
    let name = text(&h.name, h.name_len, "queue name length")?;
    let type_name = text(&h.type_name, h.config.type_name_len, "command type name length")?;
    let command = PayloadType { name: type_name, size: h.config.type_size as u64, align: h.config.type_align };
    if !(1..=2).contains(&h.config.mode) {
        return Err(corrupt("queue mode", h.config.mode as u64, 2));
    }
    if h.config.wake > 1 {
        return Err(corrupt("queue wake policy", h.config.wake as u64, 1));
    }
    let expected = QueueConfig::new(h.config.capacity, h.config.mode(), h.config.wake(), &command)
        .map_err(|(what, value)| corrupt(what, value, 0))?;
    if expected != h.config {
        return Err(corrupt("queue slot layout", h.config.slot_stride as u64, expected.slot_stride as u64));
    }
    if h.config.total_bytes() != region.len() as u64 {
        return Err(corrupt("queue segment length", region.len() as u64, h.config.total_bytes()));
    }
    Ok((h.config, name, command))
}

fn text(bytes: &[u8], len: u32, what: &'static str) -> Result<String, HeaderError> {
    let s = bytes.get(..len as usize).ok_or(corrupt(what, len as u64, bytes.len() as u64))?;
    String::from_utf8(s.to_vec()).map_err(|_| corrupt(what, len as u64, 0))
}

/// The words and slots of a validated queue segment, located once: the hot path indexes
/// them without a bounds check per access (the slots' bounds were checked here, and every
/// index is masked by the capacity).
#[derive(Debug)]
pub(crate) struct QueueView {
    tail: NonNull<AtomicU64>,
    head: NonNull<AtomicU64>,
    data_bell: (NonNull<AtomicU32>, NonNull<AtomicU64>),
    space_bell: (NonNull<AtomicU32>, NonNull<AtomicU64>),
    /// The producer entries' claim words (MPSC).
    claims: [NonNull<AtomicU64>; MAX_QUEUE_PRODUCERS as usize],
    slots: NonNull<u8>,
    stride: usize,
    command_offset: usize,
    /// The command type's size (at most the stride less the offset: checked in `read`).
    command_bytes: usize,
    mask: usize,
    /// [`Wake::Never`]: the doorbells are never rung and waiters poll.
    polling: bool,
    /// Several producers: a slot's mark says whether its command is written.
    mpsc: bool,
    /// The mapping every pointer above points into: owned here, so it outlives them (its
    /// address does not change when the view moves).
    _region: Region,
}

// SAFETY: the pointers address the shared mapping the view owns; they are used only for atomics and volatile copies of `Pod`
// commands, which any thread may do.
unsafe impl Send for QueueView {}
// SAFETY: as above; `&QueueView` hands out only shared references to atomics.
unsafe impl Sync for QueueView {}

impl QueueView {
    /// Locates the words and slots of `region`, whose header `config` was read from and
    /// validated, and keeps the region.
    pub(crate) fn new(region: Region, config: &QueueConfig) -> QueueView {
        let bell = |offset| {
            (NonNull::from(region.get::<AtomicU32>(offset)), NonNull::from(region.get::<AtomicU64>(offset + 8)))
        };
        let slots_len = config.capacity as usize * config.slot_stride as usize;
        QueueView {
            tail: NonNull::from(region.get::<AtomicU64>(TAIL_OFFSET)),
            head: NonNull::from(region.get::<AtomicU64>(HEAD_OFFSET)),
            data_bell: bell(DATA_BELL_OFFSET),
            space_bell: bell(SPACE_BELL_OFFSET),
            claims: std::array::from_fn(|entry| {
                NonNull::from(region.get::<AtomicU64>(PRODUCERS_OFFSET + entry * PRODUCER_ENTRY_BYTES))
            }),
            slots: region.pointer(SLOTS_OFFSET, slots_len),
            stride: config.slot_stride as usize,
            command_offset: config.command_offset as usize,
            command_bytes: config.type_size as usize,
            mask: config.capacity as usize - 1,
            polling: config.wake() == Wake::Never,
            mpsc: config.mode() == Mode::Mpsc,
            _region: region,
        }
    }

    /// The positions, as the consumer, an SPSC producer or an observer sees them.
    #[inline]
    pub(crate) fn positions(&self) -> Positions<'_> {
        // SAFETY: in the mapping we own, aligned atomics (checked by `Region::get` in `new`).
        unsafe { Positions { tail: self.tail.as_ref(), head: self.head.as_ref(), claim: None } }
    }

    /// The positions as a producer sees them: with its claim word if it is an MPSC
    /// producer holding entry `entry`.
    #[inline]
    pub(crate) fn producer_positions(&self, entry: Option<u32>) -> Positions<'_> {
        Positions { claim: entry.map(|e| self.claim_word(e)), ..self.positions() }
    }

    /// The claim word of producer entry `entry` (< [`MAX_QUEUE_PRODUCERS`]).
    #[inline]
    fn claim_word(&self, entry: u32) -> &AtomicU64 {
        // SAFETY: as in `positions`; `entry` indexes the array (panics past it).
        unsafe { self.claims[entry as usize].as_ref() }
    }

    /// MPSC producer `entry`'s claim word now: the lowest position it may still be
    /// writing, or [`NO_CLAIM`].
    pub(crate) fn claim(&self, entry: u32) -> u64 {
        // Acquire: pairs with the Release withdrawal after a producer's marks.
        self.claim_word(entry).load(Ordering::Acquire)
    }

    /// A new owner of producer entry `entry`, under its lock: clears what a dead one left.
    pub(crate) fn reset_claim(&self, entry: u32) {
        self.claim_word(entry).store(NO_CLAIM, Ordering::Relaxed);
    }

    #[inline]
    fn bell(&self, words: &(NonNull<AtomicU32>, NonNull<AtomicU64>)) -> Doorbell<'_> {
        // SAFETY: as in `positions`.
        unsafe { Doorbell { word: words.0.as_ref(), sleepers: words.1.as_ref(), polling: self.polling } }
    }

    /// Whether a command is ready at the consumer's head as shared memory says (for a wait
    /// set, which has no consumer side: the consumer publishes its head after every pop).
    /// A hostile head can only make it wrong — a spurious wake-up, or a look that finds
    /// nothing — never unsafe.
    #[cfg(not(loom))]
    pub(crate) fn command_ready(&self) -> bool {
        let positions = self.positions();
        // Relaxed: only the consumer writes it, and a wait set runs on its thread.
        let head = positions.head.load(Ordering::Relaxed);
        match self.mpsc {
            // Acquire: pairs with the producer's Release tail store / mark.
            false => positions.tail.load(Ordering::Acquire) > head,
            true => self.mark(head as usize & self.mask).load(Ordering::Acquire) == head.wrapping_add(1),
        }
    }

    /// The doorbell the consumer sleeps on.
    #[inline]
    pub(crate) fn data_bell(&self) -> Doorbell<'_> {
        self.bell(&self.data_bell)
    }

    /// The doorbell producers sleep on while the queue is full.
    #[inline]
    pub(crate) fn space_bell(&self) -> Doorbell<'_> {
        self.bell(&self.space_bell)
    }

    /// Byte `offset` of slot `index` (masked into the ring).
    #[inline]
    fn slot(&self, index: usize, offset: usize) -> *mut u8 {
        // SAFETY: `index & mask < capacity` and `offset + size ≤ stride`, so the address
        // lies in the slots range checked in `new`.
        unsafe { self.slots.as_ptr().add((index & self.mask) * self.stride + offset) }
    }

    /// The slots, holding commands of type `T` — whose name, size and alignment the caller
    /// checked against the header.
    #[inline]
    pub(crate) fn slots<T: Pod>(&self) -> ViewSlots<'_, T> {
        ViewSlots { view: self, _command: PhantomData }
    }
}

/// [`QueueView`]'s slots as the ring algorithm sees them.
pub(crate) struct ViewSlots<'v, T> {
    view: &'v QueueView,
    _command: PhantomData<T>,
}

/// Runs this short are copied command by command: a call to `memcpy` for a run of one
/// 32-byte command cost more than the rest of a push (measured single-threaded).
const SMALL_RUN: usize = 4;

impl Ring for QueueView {
    #[inline]
    fn capacity(&self) -> u64 {
        self.mask as u64 + 1
    }

    fn mark(&self, index: usize) -> &AtomicU64 {
        // SAFETY: MPSC slots start with an 8-aligned mark word (the stride is a multiple
        // of 8 and the slots start 64-aligned), valid for any bit pattern.
        unsafe { &*self.slot(index, 0).cast::<AtomicU64>() }
    }
}

impl<T> Ring for ViewSlots<'_, T> {
    #[inline]
    fn capacity(&self) -> u64 {
        self.view.capacity()
    }

    fn mark(&self, index: usize) -> &AtomicU64 {
        self.view.mark(index)
    }
}

impl<T: Pod> Slots<T> for ViewSlots<'_, T> {
    #[inline]
    fn write(&self, index: usize, value: &T) {
        // SAFETY: in bounds (`slot`), aligned for `T` (offset and stride are multiples of
        // its alignment); the ring protocol gives this slot to us alone until the consumer
        // reads it; a misbehaving peer racing us can only garble a `Pod`.
        unsafe { std::ptr::write_volatile(self.view.slot(index, self.view.command_offset).cast::<T>(), *value) }
    }

    #[inline]
    fn read(&self, index: usize) -> T {
        // SAFETY: in bounds and aligned as in `write`; every bit pattern is a valid `T`.
        unsafe { std::ptr::read_volatile(self.view.slot(index, self.view.command_offset).cast::<T>()) }
    }

    #[inline]
    fn write_run(&self, index: usize, values: &[T]) {
        if !self.packed() || values.len() <= SMALL_RUN {
            return values.iter().enumerate().for_each(|(i, v)| self.write(index + i, v));
        }
        assert!(index + values.len() <= self.view.mask + 1, "ringbus bug: a run past the ring's end");
        // SAFETY: packed slots are an array of `T` (stride = size, no mark), and the run
        // `[index, index + len)` lies inside the ring (asserted); the ring protocol gives
        // these slots to us alone until the consumer reads them.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), self.view.slot(index, 0).cast::<T>(), values.len()) }
    }

    #[inline]
    fn read_run(&self, index: usize, out: &mut [T]) {
        if !self.packed() || out.len() <= SMALL_RUN {
            return out.iter_mut().enumerate().for_each(|(i, v)| *v = self.read(index + i));
        }
        assert!(index + out.len() <= self.view.mask + 1, "ringbus bug: a run past the ring's end");
        // SAFETY: as in `write_run`; the commands are copied into our own buffer once, and
        // every bit pattern is a valid `T`.
        unsafe { std::ptr::copy_nonoverlapping(self.view.slot(index, 0).cast::<T>(), out.as_mut_ptr(), out.len()) }
    }
}

impl<T: Pod> ViewSlots<'_, T> {
    /// SPSC slots: the commands alone, back to back, so runs copy as one block.
    #[inline]
    fn packed(&self) -> bool {
        self.view.packed(std::mem::size_of::<T>())
    }
}

impl QueueView {
    /// Whether the slots hold commands of `size` bytes back to back (SPSC: no mark word).
    #[inline]
    fn packed(&self, size: usize) -> bool {
        self.command_offset == 0 && self.stride == size
    }

    /// The command size of the queue's type, as its header gave it (checked in `read`).
    #[inline]
    pub(crate) fn command_bytes(&self) -> usize {
        self.command_bytes
    }

    /// Copies `commands` — whole commands of [`QueueView::command_bytes`] each — into
    /// consecutive slots from `index` (no wrap: the ring algorithm splits runs). For
    /// commands whose type is known only at run time (other languages).
    pub(crate) fn write_bytes(&self, index: usize, commands: &[u8]) {
        let size = self.command_bytes;
        assert!(commands.len().is_multiple_of(size), "ringbus bug: a partial command");
        let count = commands.len() / size;
        assert!(index + count <= self.mask + 1, "ringbus bug: a run past the ring's end");
        if self.packed(size) {
            // SAFETY: packed slots are `count` commands back to back from slot `index`, all
            // inside the ring (asserted); the ring protocol gives these slots to us alone
            // until the consumer reads them.
            unsafe { std::ptr::copy_nonoverlapping(commands.as_ptr(), self.slot(index, 0), commands.len()) }
            return;
        }
        for (i, command) in commands.chunks_exact(size).enumerate() {
            // SAFETY: in bounds (`slot`: the command's bytes end within its stride); ours
            // alone as above.
            unsafe { std::ptr::copy_nonoverlapping(command.as_ptr(), self.slot(index + i, self.command_offset), size) }
        }
    }

    /// Copies consecutive slots from `index` into `out` — whole commands (no wrap).
    pub(crate) fn read_bytes(&self, index: usize, out: &mut [u8]) {
        let size = self.command_bytes;
        assert!(out.len().is_multiple_of(size), "ringbus bug: a partial command");
        let count = out.len() / size;
        assert!(index + count <= self.mask + 1, "ringbus bug: a run past the ring's end");
        if self.packed(size) {
            // SAFETY: as in `write_bytes`; bytes have no invalid bit patterns, and a peer
            // racing us can only garble them.
            unsafe { std::ptr::copy_nonoverlapping(self.slot(index, 0), out.as_mut_ptr(), out.len()) }
            return;
        }
        for (i, command) in out.chunks_exact_mut(size).enumerate() {
            // SAFETY: as in `write_bytes`.
            unsafe {
                std::ptr::copy_nonoverlapping(self.slot(index + i, self.command_offset), command.as_mut_ptr(), size)
            }
        }
    }
}

/// A service request or response in a queue slot: correlation id, client id, body.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Envelope<T> {
    /// The call's correlation id, unique per client: the response carries its request's.
    pub id: u64,
    /// The calling client's id ([`Client::id`](crate::service::Client::id)).
    pub client: u64,
    /// The request or response itself.
    pub body: T,
}
// SAFETY: repr(C) of two u64s and a Pod; padding before `body` (for alignments above 8)
// carries no meaning, and every bit pattern of the fields is valid.
unsafe impl<T: Pod> Pod for Envelope<T> {}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    let mut facts = super::layout_facts!(QueueConfig: capacity, mode, slot_stride, command_offset, type_size, type_align, type_name_len, wake);
    facts.extend(super::layout_facts!(QueueHeader: common, config, type_name, name_len, reserved0, name, reserved1));
    let command = PayloadType { name: "sample".into(), size: 24, align: 8 };
    let mpsc = QueueConfig::new(8, Mode::Mpsc, Wake::OnData, &command).expect("a valid sample");
    let spsc = QueueConfig::new(8, Mode::Spsc, Wake::Never, &command).expect("a valid sample");
    facts.extend([
        ("tail", TAIL_OFFSET as u64),
        ("head", HEAD_OFFSET as u64),
        ("data bell", DATA_BELL_OFFSET as u64),
        ("space bell", SPACE_BELL_OFFSET as u64),
        ("producers", PRODUCERS_OFFSET as u64),
        ("producer entry", PRODUCER_ENTRY_BYTES as u64),
        ("queue slots", SLOTS_OFFSET as u64),
        ("sample mpsc stride", mpsc.slot_stride as u64),
        ("sample mpsc command offset", mpsc.command_offset as u64),
        ("sample spsc stride", spsc.slot_stride as u64),
        ("sample spsc wake", spsc.wake as u64),
    ]);
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_round_trips_and_refuses_a_bad_stride() {
        let command = PayloadType { name: "cmd".into(), size: 24, align: 8 };
        let config = QueueConfig::new(8, Mode::Mpsc, Wake::OnData, &command).unwrap();
        assert_eq!((config.command_offset, config.slot_stride), (8, 32));
        let c32 = PayloadType { name: "c".into(), size: 32, align: 8 };
        let spsc = QueueConfig::new(8, Mode::Spsc, Wake::Never, &c32).unwrap();
        assert_eq!((spsc.command_offset, spsc.slot_stride), (0, 32), "no mark word: two commands per line");
        let r = Region::heap(config.total_bytes() as usize);
        init(&r, &config, "jobs", &command);
        SegmentHeader::publish(&r);
        let (read_config, name, read_command) = read(&r).unwrap();
        assert_eq!((read_config, name.as_str(), read_command), (config, "jobs", command));
        r.write_plain::<u32>(offset_of!(QueueHeader, config) + 8, 16); // slot_stride
        assert!(matches!(read(&r), Err(HeaderError::Corrupted(c)) if c.what == "queue slot layout"));
        r.write_plain::<u32>(offset_of!(QueueHeader, config) + 8, 32);
        r.write_plain::<u32>(offset_of!(QueueHeader, config) + 28, 2); // wake
        assert!(matches!(read(&r), Err(HeaderError::Corrupted(c)) if c.what == "queue wake policy"));
        assert!(QueueConfig::new(3, Mode::Spsc, Wake::OnData, &PayloadType::bytes()).is_err());
    }
}
