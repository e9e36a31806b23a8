//! [`Publisher`] and [`Loan`]: write a message in place, then publish it in O(1).
//!
//! The functions a loan and its publish run through (here, in `loan`, `notify`, `pool`,
//! `ring` and `shm`) are `#[inline]`, so that an application built without link-time
//! optimisation still gets them inlined across the crate boundary. A publisher that sleeps
//! between messages then runs its publish on fewer cold code pages (BENCHMARKS.md,
//! "Link-time optimisation").

use super::backpressure::{Laggard, Room, WhenFull, LIVENESS_CHECK, PUBLISHER_WAITER};
use super::loan::{DetachedLoan, Loan};
use super::payload_memory::PayloadMemory;
use super::settings::TopicBuilder;
use super::sleeper_audit::SleeperAudit;
use super::topic::{Role, TopicHandle};
use crate::error::{LoanError, OpenError};
use crate::pool::allocator::ChunkAllocator;
use crate::ring::log::EntryRecord;
use crate::shm::pod::Pod;
use crate::shm::publisher::{ClaimedChunk, PublisherGeometry, PublisherSegment};
use crate::shm::segment;
use crate::shm::topic::PayloadType;
use crate::Node;
use std::time::Duration;

/// Counters of one publisher (also visible to other processes in the topic segment).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PublisherStats {
    /// Messages published.
    pub publishes: u64,
    /// Publishes that made the wake system call (someone was asleep).
    pub wake_syscalls: u64,
    /// Publishes that skipped it (nobody was asleep).
    pub wakes_skipped: u64,
    /// Payload bytes published.
    pub payload_bytes: u64,
    /// Loans that waited for a reliable subscriber to make room.
    pub blocked: u64,
    /// Nanoseconds those loans waited, in all.
    pub blocked_ns: u64,
}

/// Publishes on one topic. Each publisher owns a broadcast log and a pool of payload
/// chunks; publishing writes one log entry and one position, whatever the number of
/// subscribers, and makes a system call only if a subscriber sleeps.
///
/// Made by [`TopicBuilder::publisher`]. A message is written in place: [`Publisher::loan`]
/// (or [`loan_uninit`](Publisher::loan_uninit), [`loan_value`](Publisher::loan_value),
/// [`loan_slice`](Publisher::loan_slice)) lends a chunk of the pool, and
/// [`Loan::publish`] publishes it; [`Publisher::publish_copy`] and
/// [`publish_value`](Publisher::publish_value) do both for small messages. Dropping the
/// publisher leaves the topic; subscribers can still take what it published.
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// let mut publisher = node.topic("chatter").max_payload_bytes(256).publisher()?;
/// let mut subscriber = node.topic("chatter").subscriber()?;
///
/// let mut loan = publisher.loan(256)?; // zeroed, at the largest size
/// let text = b"hello";
/// loan[..text.len()].copy_from_slice(text);
/// loan.truncate(text.len()); // the real size, once known
/// loan.publish();
///
/// assert_eq!(&*subscriber.take()?.expect("published"), b"hello");
/// assert_eq!(publisher.stats().publishes, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Publisher {
    topic: TopicHandle,
    slot: u32,
    incarnation: u32,
    segment: PublisherSegment,
    allocator: ChunkAllocator,
    /// The memory each chunk holds (`None`: the pool is preallocated).
    memory: Option<PayloadMemory>,
    /// The chunk for the next loan, claimed right after the previous publish so that the
    /// cache miss on its pin words (last written by subscribers) falls outside the loan.
    spare: Option<ClaimedChunk>,
    next: u64,
    stats: PublisherStats,
    /// Sleepers a publish wakes itself; with more asleep, the first of them wakes the rest.
    direct_wakes: u32,
    /// The room reliable subscribers leave, and what a loan does when there is none.
    room: Room,
    when_full: WhenFull,
    /// Loans lent and not yet published or given back (each will take the next position).
    lent: u64,
    /// When to look for subscribers that died asleep.
    sleeper_audit: SleeperAudit,
    /// The payload type this publisher named ([`TopicBuilder::payload_type_named`]): typed
    /// loans of a type of its layout are that type.
    named_payload: Option<PayloadType>,
    _node: Node,
}

impl Publisher {
    pub(crate) fn new(builder: TopicBuilder) -> Result<Publisher, OpenError> {
        let direct_wakes = builder.direct_wakes.unwrap_or(crate::notify::DEFAULT_DIRECT_WAKES);
        let named_payload = builder.settings.payload.clone().filter(|_| builder.settings.payload_declared);
        if direct_wakes == 0 {
            return Err(OpenError::InvalidConfig { field: "direct_wakes", value: 0, reason: "must be at least 1" });
        }
        let node = builder.node.clone();
        let (topic, slot, (segment, incarnation)) =
            TopicHandle::join(&builder, Role::Publisher, |t, slot, _reclaimed| {
                let shared = t.segment.publisher(slot);
                // The previous publisher's file stays after it leaves or dies, so subscribers
                // can drain it; the slot's next incarnation (this one) replaces it.
                let previous = (shared.occupancy() >> 32) as u32;
                segment::remove(&t.root.publisher_path(&t.file_name, t.topic_id, slot, previous));
                let incarnation = previous.wrapping_add(1);
                let geometry =
                    PublisherGeometry::new(t.segment.config(), t.payload.align).ok_or(OpenError::InvalidConfig {
                        field: "max_payload_bytes",
                        value: t.segment.config().max_payload_bytes,
                        reason: "max_payload_bytes × chunks exceeds 16 TiB",
                    })?;
                let path = t.root.publisher_path(&t.file_name, t.topic_id, slot, incarnation);
                // Left by a publisher of this slot that died between creating it and going live.
                segment::remove(&path);
                let segment = PublisherSegment::create(&t.root, &path, geometry, t.topic_id, slot, incarnation)?;
                // Reliable subscribers already there read this publisher from its first
                // message: it must not overwrite that before they take it.
                for reader in t.segment.reliable_set().slots() {
                    segment.read_position(reader).store(1, crate::sync::Ordering::Relaxed);
                }
                // Subscribers find a complete segment file once they see the new incarnation.
                shared.activate(node.id(), crate::sys::fs::pid(), incarnation);
                Ok((segment, incarnation))
            })?;
        let allocator = ChunkAllocator::new(topic.segment.config().chunk_count, topic.segment.config().depth);
        let memory = PayloadMemory::new(&segment.geometry, topic.root.path().to_path_buf());
        Ok(Publisher {
            topic,
            slot,
            incarnation,
            segment,
            allocator,
            memory,
            spare: None,
            next: 0,
            stats: PublisherStats::default(),
            direct_wakes,
            room: Room::default(),
            when_full: builder.when_full.unwrap_or(WhenFull::Wait(None)),
            lent: 0,
            sleeper_audit: SleeperAudit::default(),
            named_payload,
            _node: node,
        })
    }

    /// Lends `len` bytes of a free chunk to write a message into. The bytes are not cleared
    /// (they may hold an older message of this publisher); see [`Publisher::loan`].
    /// Never blocks and makes no system call unless dead subscribers' chunks must be
    /// reclaimed.
    #[inline]
    pub fn loan_uninit(&mut self, len: usize) -> Result<Loan<'_>, LoanError> {
        let detached = self.loan_detached(len)?;
        Ok(Loan::new(self, detached))
    }

    /// Like [`Publisher::loan_uninit`], but the loan does not borrow the publisher: for
    /// bindings (Python, C) whose loans are objects of their own. Write through
    /// [`Publisher::detached_bytes`], then [`Publisher::publish_detached`] or
    /// [`Publisher::discard_detached`] it on this publisher. A detached loan that is simply
    /// dropped keeps its chunk out of use until the publisher is dropped.
    #[inline]
    pub fn loan_detached(&mut self, len: usize) -> Result<DetachedLoan, LoanError> {
        let max = self.topic.segment.config().max_payload_bytes;
        if len as u64 > max {
            return Err(LoanError::TooLarge { requested: len as u64, max });
        }
        self.prefetch_publish_lines();
        let position = self.next + self.lent;
        if !self.room.allows(&self.topic, position) {
            self.wait_for_room(position)?;
        }
        let claim = match self.spare.take().or_else(|| self.segment.claim(&mut self.allocator)) {
            Some(c) => c,
            None => {
                self.reclaim_dead_subscribers();
                self.segment
                    .claim(&mut self.allocator)
                    .ok_or(LoanError::PoolExhausted { chunks: self.topic.segment.config().chunk_count })?
            }
        };
        let claim = match &mut self.memory {
            Some(memory) => memory.prepare(&self.segment, &mut self.allocator, claim, len as u64)?,
            None => claim,
        };
        // Looked at after the accesses above, which may have been the first to find a file
        // shorter than its mapping; then the chunk stays claimed: this publisher is done.
        self.check_truncation()?;
        self.lent += 1;
        Ok(DetachedLoan { claim, len: len as u64, lender: self.lender() })
    }

    /// Fails if the topic's file or this publisher's own was truncated under it.
    #[inline]
    fn check_truncation(&self) -> Result<(), LoanError> {
        let t = &self.topic;
        if t.segment.truncated() {
            return Err(LoanError::Truncated { path: t.path.clone() });
        }
        if self.segment.truncated() {
            let path = t.root.publisher_path(&t.file_name, t.topic_id, self.slot, self.incarnation);
            return Err(LoanError::Truncated { path });
        }
        Ok(())
    }

    /// Waits until the reliable subscribers have taken the message that publishing
    /// `position` overwrites, as `when_full` says; a dead subscriber is reclaimed.
    #[cold]
    fn wait_for_room(&mut self, position: u64) -> Result<(), LoanError> {
        let start = crate::sys::clock::monotonic_ns();
        let mut waited = false;
        let result = loop {
            let Err(Laggard { slot }) = self.room.look(&self.topic, &self.segment, self.next, position) else {
                break Ok(());
            };
            if !self.topic.is_alive(Role::Subscriber, slot) {
                self.reclaim_dead_subscribers();
                continue;
            }
            // A loan that may wait counts as one that waited from here, even when its time
            // runs out before it sleeps.
            waited |= !matches!(self.when_full, WhenFull::Fail | WhenFull::Wait(Some(Duration::ZERO)));
            let elapsed = Duration::from_nanos(crate::sys::clock::monotonic_ns() - start);
            let left = match self.when_full {
                WhenFull::Fail => None,
                WhenFull::Wait(None) => Some(LIVENESS_CHECK),
                WhenFull::Wait(Some(limit)) => limit.checked_sub(elapsed).filter(|d| !d.is_zero()),
            };
            let Some(left) = left else {
                let pid = self.topic.segment.subscriber(slot).snapshot().pid;
                break Err(LoanError::Full {
                    subscriber_slot: slot,
                    pid,
                    depth: self.topic.segment.config().depth,
                    waited_ms: elapsed.as_millis() as u64,
                });
            };
            let (topic, segment, next) = (&self.topic, &self.segment, self.next);
            let room = || super::backpressure::room_until(topic, segment, next).0 > position;
            segment.room_doorbell().wait(PUBLISHER_WAITER, room, Some(left.min(LIVENESS_CHECK)));
        };
        if waited {
            self.stats.blocked += 1;
            self.stats.blocked_ns += crate::sys::clock::monotonic_ns() - start;
            self.topic.segment.publisher(self.slot).record_blocked(self.stats.blocked, self.stats.blocked_ns);
        }
        result
    }

    /// Bytes of payload memory this publisher holds now (on demand: the chunks' extents;
    /// preallocated: the whole pool).
    pub fn reserved_payload_bytes(&self) -> u64 {
        match &self.memory {
            Some(m) => m.reserved(),
            None => self.segment.geometry.chunk_stride * self.segment.geometry.chunk_count as u64,
        }
    }

    /// Starts fetching every shared-memory line the loan and its publish will write, so that
    /// their cache misses overlap (the loaned payload's first line, the log entry, the
    /// published count, the wake word, this slot's counters, the pin words of the chunk the
    /// publish frees and claims as the next spare, and on demand the spare's extent and
    /// the log index's length in this process's books). Measured in BENCHMARKS.md,
    /// "Cold lines fetched together".
    #[inline]
    fn prefetch_publish_lines(&self) {
        use crate::sync::prefetch_for_write;
        let topic = &self.topic.segment;
        let index = crate::ring::index(self.next, topic.config().depth);
        if let Some(spare) = &self.spare {
            prefetch_for_write(self.segment.payload_address(spare.chunk) as *const u8);
        }
        prefetch_for_write(self.segment.entry_at(index) as *const _);
        prefetch_for_write(self.segment.published_line());
        prefetch_for_write(topic.wake_words().word as *const _);
        prefetch_for_write(topic.publisher(self.slot).counters_line());
        if let Some(chunk) = self.allocator.in_log_at(index) {
            prefetch_for_write(self.segment.chunk_words(chunk).generation as *const _);
        }
        if let (Some(memory), Some(spare)) = (&self.memory, &self.spare) {
            for line in memory.lines(spare.chunk, index) {
                prefetch_for_write(line);
            }
        }
    }

    /// The bytes of a detached loan of this publisher, writable.
    ///
    /// # Panics
    /// If `loan` was lent by another publisher.
    #[inline]
    pub fn detached_bytes<'a>(&'a self, loan: &'a mut DetachedLoan) -> &'a mut [u8] {
        self.check_lender(loan);
        self.segment.claimed_bytes(&mut loan.claim, loan.len)
    }

    /// Publishes a detached loan: what [`Loan::publish`] does.
    ///
    /// # Panics
    /// If `loan` was lent by another publisher.
    #[inline]
    pub fn publish_detached(&mut self, loan: DetachedLoan) {
        self.check_lender(&loan);
        self.lent -= 1;
        self.commit(loan.claim, loan.len);
    }

    /// Gives a detached loan's chunk back unpublished: what dropping a [`Loan`] does.
    ///
    /// # Panics
    /// If `loan` was lent by another publisher.
    pub fn discard_detached(&mut self, loan: DetachedLoan) {
        self.check_lender(&loan);
        self.lent -= 1;
        self.allocator.give_back(loan.claim.chunk);
    }

    /// Address of a detached loan's payload (to check zero-copy claims), as
    /// [`Loan::address`].
    pub fn detached_address(&self, loan: &DetachedLoan) -> usize {
        self.check_lender(loan);
        self.segment.payload_address(loan.claim.chunk)
    }

    /// The bytes of a loan of this publisher, read-only (what a [`Loan`] derefs to).
    pub(super) fn lent_bytes(&self, loan: &DetachedLoan) -> &[u8] {
        self.segment.payload(loan.claim.chunk, loan.len)
    }

    /// Who lends: unique among the publishers of a root over time (a slot's next
    /// publisher has the next incarnation; topic ids are random).
    #[inline]
    fn lender(&self) -> (u64, u32, u32) {
        (self.topic.topic_id, self.slot, self.incarnation)
    }

    #[inline]
    fn check_lender(&self, loan: &DetachedLoan) {
        assert!(loan.lender == self.lender(), "a detached loan goes back to the publisher that lent it");
    }

    /// Lends `len` bytes (at most the topic's `max_payload_bytes`) of a free chunk, zeroed,
    /// to write a message into; [`Loan::publish`] publishes it, dropping the loan gives the
    /// chunk back. [`Publisher::loan_uninit`] skips the zeroing, for a message that
    /// overwrites every byte.
    ///
    /// Errors: see [`LoanError`] — too large, no free chunk, no memory for an on-demand
    /// chunk, or a reliable subscriber in the way.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("chatter").publisher()?;
    /// let mut loan = publisher.loan(16)?;
    /// assert!(loan.iter().all(|&b| b == 0));
    /// loan[0] = 42;
    /// drop(loan); // not published: the chunk goes back to the pool
    /// assert_eq!(publisher.stats().publishes, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn loan(&mut self, len: usize) -> Result<Loan<'_>, LoanError> {
        let mut loan = self.loan_uninit(len)?;
        loan.fill(0);
        Ok(loan)
    }

    /// A loan sized for one `T`, uninitialised as [`Publisher::loan_uninit`]; write it
    /// through [`Loan::value_mut`]. `T` must be the topic's
    /// [`payload_type`](TopicBuilder::payload_type), or the topic untyped (else
    /// [`LoanError::TypeMismatch`]). Subscribers read it with
    /// [`Sample::value`](super::Sample::value).
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// #[derive(Clone, Copy)]
    /// #[repr(C)]
    /// struct Pose {
    ///     x: f64,
    ///     y: f64,
    /// }
    /// // SAFETY: repr(C), two f64s: no padding, and every bit pattern is a valid Pose.
    /// unsafe impl ringbus::Pod for Pose {}
    ///
    /// let mut publisher = node.topic("pose").payload_type::<Pose>().publisher()?;
    /// let mut subscriber = node.topic("pose").payload_type::<Pose>().subscriber()?;
    ///
    /// let mut loan = publisher.loan_value::<Pose>()?;
    /// *loan.value_mut::<Pose>()? = Pose { x: 1.0, y: 2.0 };
    /// loan.publish();
    ///
    /// let sample = subscriber.take()?.expect("published");
    /// let pose: &Pose = sample.value()?; // in place, in the publisher's chunk
    /// assert_eq!((pose.x, pose.y), (1.0, 2.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn loan_value<T: Pod>(&mut self) -> Result<Loan<'_>, LoanError> {
        let (existing, requested) = (&self.topic.payload, PayloadType::of::<T>());
        let named = self.named_payload.as_ref() == Some(existing)
            && (existing.size, existing.align) == (requested.size, requested.align);
        if *existing != PayloadType::bytes() && *existing != requested && !named {
            return Err(LoanError::TypeMismatch { existing: existing.name.clone(), requested: requested.name });
        }
        self.loan_uninit(std::mem::size_of::<T>())
    }

    /// A loan sized for `n` values of `T` (an array of plain data: points, pixels, a
    /// tensor), uninitialised as [`Publisher::loan_uninit`]; write it through
    /// [`Loan::slice_mut`]. Subscribers read it with [`super::Sample::slice`]. The type is
    /// not checked against the topic's: a slice is any number of `T`.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("points").max_payload_bytes(12 * 1024).publisher()?;
    /// let mut subscriber = node.topic("points").subscriber()?;
    ///
    /// let mut loan = publisher.loan_slice::<[f32; 3]>(2)?;
    /// loan.slice_mut::<[f32; 3]>()?.copy_from_slice(&[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]);
    /// loan.publish();
    ///
    /// let sample = subscriber.take()?.expect("published");
    /// assert_eq!(sample.slice::<[f32; 3]>()?, [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn loan_slice<T: Pod>(&mut self, n: usize) -> Result<Loan<'_>, LoanError> {
        let bytes = n.saturating_mul(std::mem::size_of::<T>());
        self.loan_uninit(bytes)
    }

    /// Copies `bytes` into a loan and publishes it: one copy, for small messages or bytes
    /// that already exist elsewhere. Fails as [`Publisher::loan`] does, and then publishes
    /// nothing.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("chatter").publisher()?;
    /// let mut subscriber = node.topic("chatter").subscriber()?;
    /// publisher.publish_copy(b"hello")?;
    /// assert_eq!(&*subscriber.take()?.expect("published"), b"hello");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn publish_copy(&mut self, bytes: &[u8]) -> Result<(), LoanError> {
        let mut loan = self.loan_uninit(bytes.len())?;
        loan.copy_from_slice(bytes);
        loan.publish();
        Ok(())
    }

    /// Publishes one plain-data value (a copy): [`Publisher::loan_value`], write, publish.
    pub fn publish_value<T: Pod>(&mut self, value: &T) -> Result<(), LoanError> {
        let mut loan = self.loan_value::<T>()?;
        *loan.value_mut::<T>().expect("a loan of size_of::<T>() bytes from an aligned chunk") = *value;
        loan.publish();
        Ok(())
    }

    #[inline]
    fn commit(&mut self, claim: ClaimedChunk, length: u64) {
        let position = self.next;
        let depth = self.topic.segment.config().depth;
        let index = crate::ring::index(position, depth);
        let record = EntryRecord {
            chunk: claim.chunk,
            generation: claim.generation,
            length,
            timestamp_ns: crate::sys::clock::monotonic_ns(),
        };
        self.segment.entry(index).write(position, record);
        self.allocator.enter_log(index, claim.chunk);
        if let Some(memory) = &mut self.memory {
            memory.logged(&self.segment, &self.allocator, index, length);
        }
        self.next = position + 1;
        // A subscriber that sees the new count sees the entry and every byte of the chunk.
        self.segment.set_published(self.next);
        let notified = self.topic.segment.wake_words().notify(self.direct_wakes);
        if notified == Some(0) && self.sleeper_audit.woke_nobody() {
            let found_dead = self.reclaim_dead_sleepers();
            self.sleeper_audit.audited(found_dead);
        }
        let woke = notified.is_some();
        self.stats.publishes += 1;
        self.stats.payload_bytes += length;
        let shared = self.topic.segment.publisher(self.slot);
        shared.record_publish(self.stats.publishes, self.stats.payload_bytes);
        shared.reassert(self.incarnation);
        let wakes = if woke { &mut self.stats.wake_syscalls } else { &mut self.stats.wakes_skipped };
        *wakes += 1;
        shared.record_wakes(woke, *wakes);
        self.spare = self.segment.claim(&mut self.allocator);
    }

    /// Slow path when no chunk is free: holder bits of subscriber slots nobody owns (their
    /// subscriber died, or a peer scribbled them) are cleared, under the slot's lock so a
    /// new owner cannot race us, and what dead subscribers left in the topic is taken back.
    fn reclaim_dead_subscribers(&mut self) {
        let max_subscribers = self.topic.segment.config().max_subscribers;
        for (word, bits) in self.segment.holders().into_iter().enumerate() {
            for bit in (0..64).filter(|b| bits & (1 << b) != 0) {
                let s = word as u32 * 64 + bit;
                if s >= max_subscribers {
                    self.segment.release_holder_everywhere(s); // no such slot: nobody's bit
                } else {
                    // A free slot nobody owns holds nothing; a dead owner's slot is
                    // reclaimed whole below.
                    self.topic.with_unowned_slot(Role::Subscriber, s, |occupied| {
                        if !occupied {
                            self.segment.release_holder_everywhere(s);
                        }
                    });
                }
            }
        }
        for s in 0..max_subscribers {
            self.reclaim_if_dead(s);
        }
    }

    /// A wake call found nobody: takes back what subscribers that died asleep left (see
    /// `sleeper_audit`). Returns whether it found one.
    fn reclaim_dead_sleepers(&mut self) -> bool {
        let mut found_dead = false;
        for s in 0..self.topic.segment.config().max_subscribers {
            if self.topic.segment.subscriber(s).says_asleep() {
                found_dead |= self.reclaim_if_dead(s);
            }
        }
        found_dead
    }

    /// If subscriber slot `s`'s owner is dead, takes back what it left: its holder bits in
    /// our chunks and its registrations in the topic. Returns whether it was dead.
    fn reclaim_if_dead(&self, s: u32) -> bool {
        let mut dead = false;
        self.topic.with_dead_slot(Role::Subscriber, s, || {
            self.segment.release_holder_everywhere(s);
            self.topic.reclaim_subscriber(s);
            dead = true;
        });
        dead
    }

    /// Chunks of this publisher that some subscriber holds, after reclaiming those held by
    /// dead subscribers (a diagnostic: scans every chunk, makes a system call per slot
    /// whose owner may be dead).
    pub fn chunks_held_by_subscribers(&mut self) -> u32 {
        self.reclaim_dead_subscribers();
        let g = self.segment.geometry;
        (0..g.chunk_count).filter(|&c| self.segment.chunk_words(c).is_held()).count() as u32
    }

    /// This publisher's counters.
    pub fn stats(&self) -> PublisherStats {
        self.stats
    }

    /// Changes what the next loans do when a reliable subscriber is `depth` behind (see
    /// [`super::TopicBuilder::when_full`]). A binding can lend with [`WhenFull::Fail`]
    /// first, holding its interpreter lock, and wait (releasing it) only when that fails.
    pub fn set_when_full(&mut self, when_full: WhenFull) {
        self.when_full = when_full;
    }

    /// Who this publisher is, as its subscribers see it in [`Sample::publisher`]: lets a
    /// process that also subscribes to the topic recognise (and skip) its own messages.
    ///
    /// [`Sample::publisher`]: super::Sample::publisher
    pub fn id(&self) -> super::PublisherId {
        super::PublisherId { slot: self.slot, incarnation: self.incarnation }
    }

    /// The topic's name.
    pub fn topic_name(&self) -> &str {
        &self.topic.name
    }

    /// The largest loan this topic allows.
    pub fn max_payload_bytes(&self) -> u64 {
        self.topic.segment.config().max_payload_bytes
    }

    /// Free chunks right now (not in the log, not held, not deferred, not the spare claimed
    /// for the next loan).
    pub fn free_chunks(&self) -> usize {
        self.allocator.free_count()
    }

    /// Subscribers currently asleep on this topic (read from shared memory).
    pub fn sleeping_subscribers(&self) -> u32 {
        self.topic.segment.wake_words().sleepers_now()
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        let (slot, incarnation) = (self.slot, self.incarnation);
        self.topic.leave(Role::Publisher, slot, |t| {
            // Release: subscribers that see Free also see everything published before. The
            // segment file stays for them to drain; the slot's next publisher or the
            // topic's tear-down removes it.
            t.segment.publisher(slot).release(incarnation);
        });
    }
}
