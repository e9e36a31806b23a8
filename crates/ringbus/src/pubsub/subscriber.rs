//! [`Subscriber`]: polls (`take`, `take_latest`, `peek`, `has_data` — pure shared-memory
//! reads, no system call) or sleeps (`receive`) until a publisher wakes it.
//!
//! A subscriber keeps, per publisher slot, a cursor: the occupancy word it last saw, its
//! mapping of that publisher's segment and the next position to read. One load of each
//! occupancy word per call tells whether a publisher came or went; mapping a new one is
//! the only time a poll makes system calls.

use super::publisher_view::{read_position, PublisherView};
use super::sample::Sample;
use super::settings::TopicBuilder;
use super::subscriber_core::SubscriberCore;
use super::topic::{Role, TopicHandle};
use crate::error::{Corruption, OpenError, ReceiveError, TakeError};
use crate::notify::Sleep;
use crate::notify::Wake;
use crate::ring::log::{EntryRead, EntryRecord};
use crate::shm::topic::{decode_occupancy, SlotState};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a look does with a message it found: `Ok(None)` if the message is gone (its
/// chunk was reused), else what the caller gets — a pinned [`Sample`] ([`pin`]), or what a
/// reader made of the bytes in place (`take_with`).
trait Deliver<T>: FnMut(&Arc<PublisherView>, u64, EntryRecord) -> Result<Option<T>, TakeError> {}

impl<T, F: FnMut(&Arc<PublisherView>, u64, EntryRecord) -> Result<Option<T>, TakeError>> Deliver<T> for F {}

/// Pins the message's chunk and hands it out as a [`Sample`].
fn pin(view: &Arc<PublisherView>, position: u64, record: EntryRecord) -> Result<Option<Sample>, TakeError> {
    view.pin(position, record)
}

#[derive(Debug, Default, Clone)]
struct Cursor {
    occupancy: u64,
    view: Option<Arc<PublisherView>>,
    next: u64,
    /// Reliable subscribers: the read position last told to the publisher (see
    /// [`read_position`]).
    reported: u64,
    /// Where `next` was when the publisher's count last went backwards: below it, only
    /// the count may say a message is there (the entries still hold messages taken).
    rewound_from: u64,
}

/// Receives a topic's messages from every publisher on it. Messages of one publisher
/// arrive in order, each at most once; publishers are interleaved round-robin.
///
/// Made by [`TopicBuilder::subscriber`]. Each message comes as a [`Sample`]: the bytes in
/// the publisher's chunk, pinned until the sample is dropped (at most `max_held` at once).
/// Poll with [`take`](Subscriber::take), [`take_latest`](Subscriber::take_latest),
/// [`take_all`](Subscriber::take_all) or [`peek`](Subscriber::peek) — shared-memory reads,
/// no system call — or sleep until a message comes with [`receive`](Subscriber::receive)
/// or a [`WaitSet`](crate::WaitSet). A subscriber that falls more than `depth` messages
/// behind a publisher loses the oldest ([`lost`](Subscriber::lost)), unless it is
/// [`reliable`](TopicBuilder::reliable).
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// use std::time::Duration;
/// let mut publisher = node.topic("chatter").publisher()?;
/// let mut subscriber = node.topic("chatter").subscriber()?;
/// publisher.publish_copy(b"hello")?;
///
/// // Sleeps only if nothing is there; a publish wakes it.
/// let sample = subscriber.receive(Some(Duration::from_secs(1)))?;
/// assert_eq!(&*sample, b"hello");
/// assert_eq!(sample.position(), 0); // the publisher's first message
/// assert_eq!(sample.publisher(), publisher.id());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Subscriber {
    core: Arc<SubscriberCore>,
    cursors: Box<[Cursor]>,
    wake: Wake,
    /// Publishers never overwrite what it has not taken (see `pubsub::backpressure`).
    reliable: bool,
    keep_last: u64,
    round_robin: usize,
    taken: u64,
    lost: u64,
    /// Messages moved past without taking or losing them (`take_latest`).
    skipped: u64,
    /// `read_mark − (taken + lost + skipped)`, wrapping (see `SubscriberSlot::read_mark`).
    mark_base: u32,
}

impl Subscriber {
    pub(crate) fn new(builder: TopicBuilder) -> Result<Subscriber, OpenError> {
        let (wake, reliable) = (builder.wake, builder.reliable);
        if builder.reliable && builder.keep_last.is_some() {
            return Err(OpenError::InvalidConfig {
                field: "keep_last",
                value: builder.keep_last.unwrap_or(0) as u64,
                reason: "a reliable subscriber takes every message; leave keep_last unset",
            });
        }
        if builder.keep_last == Some(0) {
            return Err(OpenError::InvalidConfig {
                field: "keep_last",
                value: 0,
                reason: "must be 1..=depth of the topic",
            });
        }
        let node = builder.node.clone();
        let (topic, slot, reclaimed) = TopicHandle::join(&builder, Role::Subscriber, |t, slot, reclaimed| {
            if reclaimed {
                t.reclaim_subscriber(slot);
            }
            t.segment.subscriber(slot).activate(wake as u32, reliable, node.id(), crate::sys::fs::pid());
            Ok(reclaimed)
        })?;
        let config = *topic.segment.config();
        let core = Arc::new(SubscriberCore::new(topic, slot, reclaimed, node));
        let keep_last = builder.keep_last.unwrap_or(config.depth);
        if keep_last == 0 || keep_last > config.depth {
            return Err(OpenError::InvalidConfig {
                field: "keep_last",
                value: keep_last as u64,
                reason: "must be 1..=depth of the topic",
            });
        }
        let cursors = vec![Cursor::default(); config.max_publishers as usize].into_boxed_slice();
        let joined_at = core.wake_word_now();
        let mut sub = Subscriber {
            core,
            cursors,
            wake,
            reliable,
            keep_last: keep_last as u64,
            round_robin: 0,
            taken: 0,
            lost: 0,
            skipped: 0,
            mark_base: joined_at,
        };
        match sub.refresh(true) {
            Ok(()) => {
                // History we start behind was published before we joined.
                // Saturating: the count may have moved (or been scribbled) since the refresh.
                let history: u64 = sub
                    .cursors
                    .iter()
                    .filter_map(|c| Some(c.view.as_ref()?.published().saturating_sub(c.next)))
                    .fold(0, u64::saturating_add);
                sub.mark_base = joined_at.wrapping_sub(history as u32);
                sub.publish_counters();
                if reliable {
                    // After the read positions are written: a publisher that sees the bit
                    // sees where we read.
                    sub.core.topic.segment.reliable_set().insert(sub.core.slot);
                }
                Ok(sub)
            }
            Err(TakeError::Attach(e)) => Err(e),
            Err(TakeError::Corrupted { corruption, .. }) => {
                Err(OpenError::Corrupted { path: sub.core.topic.path.clone(), corruption })
            }
            Err(TakeError::HeldLimit { .. } | TakeError::Truncated { .. } | TakeError::TopicTruncated { .. }) => {
                unreachable!("attaching publishers pins no chunk and reads no message")
            }
        }
    }

    /// Attaches to publishers that appeared and notices those that left. On the first call
    /// (`joining`), existing publishers are read from `history` messages back; publishers
    /// that appear later are read from their first message.
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn refresh(&mut self, joining: bool) -> Result<(), TakeError> {
        for slot in 0..self.cursors.len() {
            // This runs for every slot on every take: one load and a compare, unless the
            // publisher came, went or was replaced.
            let word = self.core.topic.publisher_occupancy(slot as u32);
            if word != self.cursors[slot].occupancy {
                self.occupancy_moved(slot, word, joining)?;
            }
        }
        if self.reliable {
            for slot in 0..self.cursors.len() {
                self.report_read(slot);
            }
        }
        Ok(())
    }

    /// The occupancy word of publisher `slot` moved to `word`: attaches to the publisher
    /// it names, if that is a new one. Out of line: it runs when publishers come and go,
    /// and keeping it out of the take path keeps that path on fewer pages of code.
    #[cold]
    #[inline(never)]
    fn occupancy_moved(&mut self, slot: usize, word: u64, joining: bool) -> Result<(), TakeError> {
        let history = self.core.topic.segment.config().history as u64;
        let cursor = &mut self.cursors[slot];
        cursor.occupancy = word;
        let (incarnation, state) = match decode_occupancy(word) {
            Err(raw) => {
                // The view stays: a scribbled word must not cut us off a live
                // publisher (which writes its word back on its next publish).
                let corruption = Corruption { what: "publisher slot state", found: raw as u64, limit: 1 };
                return Err(TakeError::Corrupted { publisher_slot: slot as u32, corruption });
            }
            Ok(decoded) => decoded,
        };
        // A publisher that left keeps its file until its slot is reused, so what it
        // published can still be drained; a slot never used has incarnation 0.
        let never_used = state == SlotState::Free && incarnation == 0;
        if never_used || cursor.view.as_ref().is_some_and(|v| v.incarnation == incarnation) {
            return Ok(());
        }
        // No file for that incarnation (a scribbled word, or a publisher that died
        // before going live) or an attach error: the view we have stays.
        if let Some(view) = PublisherView::attach(&self.core, slot as u32, incarnation)? {
            if let Some(old) = cursor.view.take() {
                // Saturating, like every count made of a peer's values: a bad publisher
                // can claim any position.
                self.lost = self.lost.saturating_add(old.published().saturating_sub(cursor.next));
            }
            let published = view.published();
            cursor.next = if joining { published - published.min(history) } else { 0 };
            cursor.reported = 0;
            cursor.rewound_from = 0;
            cursor.view = Some(view);
        }
        Ok(())
    }

    /// A reliable subscriber tells the publisher of `slot` how far it has read, and rings
    /// its room doorbell (a system call only when that publisher waits for room).
    #[inline]
    fn report_read(&mut self, slot: usize) {
        let cursor = &mut self.cursors[slot];
        if !self.reliable || cursor.reported == read_position(cursor.next) {
            return;
        }
        if let Some(view) = &cursor.view {
            view.report_read(cursor.next);
            cursor.reported = read_position(cursor.next);
        }
    }

    /// Reads the next message of one publisher; `advance` = take (else peek).
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn read_from<T>(
        &mut self,
        slot: usize,
        advance: bool,
        deliver: &mut impl Deliver<T>,
    ) -> Result<Option<T>, TakeError> {
        let read = self.read_from_log(slot, advance, deliver);
        self.report_read(slot);
        // Looked at after the read: what it found may be the zeros that replaced the pages
        // past the file's new end. The link is dropped; the other publishers go on.
        if self.cursors[slot].view.as_ref().is_some_and(|v| v.segment.truncated()) {
            self.cursors[slot].view = None;
            return Err(TakeError::Truncated { publisher_slot: slot as u32 });
        }
        read
    }

    /// Whether the topic's own file was truncated under us.
    fn check_topic(&self) -> Result<(), TakeError> {
        match self.core.topic.segment.truncated() {
            true => Err(TakeError::TopicTruncated { path: self.core.topic.path.clone() }),
            false => Ok(()),
        }
    }

    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn read_from_log<T>(
        &mut self,
        slot: usize,
        advance: bool,
        deliver: &mut impl Deliver<T>,
    ) -> Result<Option<T>, TakeError> {
        let depth = self.core.topic.segment.config().depth;
        let every_message = self.keep_last == depth as u64;
        let Some(view) = self.cursors[slot].view.clone() else {
            return Ok(None);
        };
        loop {
            // Every unread message is wanted (no `keep_last` below the depth): an entry
            // that holds the next one is taken without a look at the published count,
            // the line the publisher writes last. Anything else (nothing new, a lap, a
            // bad peer's values) is for the published count to tell.
            let (position, rewound_from) = (self.cursors[slot].next, self.cursors[slot].rewound_from);
            if every_message && position >= rewound_from && position < u64::MAX {
                let entry = view.segment.entry(crate::ring::index(position, depth));
                if let EntryRead::Ready(record) = entry.read(position) {
                    match self.deliver_one(slot, &view, position, record, advance, deliver)? {
                        Some(value) => return Ok(Some(value)),
                        None => continue,
                    }
                }
            }
            let cursor = &mut self.cursors[slot];
            let mut published = view.published();
            if every_message && published.checked_add(1) == Some(cursor.next) {
                // The entry is written before the count: the message just taken from its
                // entry may not be counted yet. Nothing new.
                published = cursor.next;
            }
            let Some(backlog) = crate::ring::backlog(published, cursor.next) else {
                let corruption =
                    Corruption { what: "published position (went backwards)", found: published, limit: cursor.next };
                cursor.rewound_from = cursor.rewound_from.max(cursor.next);
                cursor.next = published;
                return Err(TakeError::Corrupted { publisher_slot: slot as u32, corruption });
            };
            if backlog == 0 {
                if cursor.occupancy as u32 == SlotState::Free as u32 {
                    cursor.view = None; // drained a publisher that left
                }
                return Ok(None);
            }
            if backlog > self.keep_last {
                self.lost = self.lost.saturating_add(backlog - self.keep_last);
                cursor.next = published - self.keep_last;
            }
            let position = cursor.next;
            let record = match view.segment.entry(crate::ring::index(position, depth)).read(position) {
                EntryRead::Ready(record) => record,
                EntryRead::Overwritten => {
                    self.lost = self.lost.saturating_add(1);
                    cursor.next += 1;
                    continue;
                }
                EntryRead::Behind { sequence } => {
                    self.lost = self.lost.saturating_add(1);
                    cursor.next += 1;
                    let corruption = Corruption { what: "log entry sequence", found: sequence, limit: position + 1 };
                    return Err(TakeError::Corrupted { publisher_slot: slot as u32, corruption });
                }
            };
            if let Some(value) = self.deliver_one(slot, &view, position, record, advance, deliver)? {
                return Ok(Some(value));
            }
        }
    }

    /// Checks the entry `record` read for `position` of publisher `slot` and hands it to
    /// `deliver`; `Ok(None)`: the message is gone (its chunk reused), counted lost, and the
    /// cursor moved past it.
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn deliver_one<T>(
        &mut self,
        slot: usize,
        view: &Arc<PublisherView>,
        position: u64,
        record: EntryRecord,
        advance: bool,
        deliver: &mut impl Deliver<T>,
    ) -> Result<Option<T>, TakeError> {
        let cursor = &mut self.cursors[slot];
        if let Err(e) = view.validate(&record) {
            self.lost = self.lost.saturating_add(1);
            cursor.next += 1;
            return Err(e);
        }
        match deliver(view, position, record)? {
            None => {
                self.lost = self.lost.saturating_add(1);
                cursor.next += 1;
                Ok(None)
            }
            Some(value) => {
                if advance {
                    cursor.next += 1;
                    self.taken += 1;
                }
                Ok(Some(value))
            }
        }
    }

    fn moved_past(&self) -> u64 {
        self.taken.saturating_add(self.lost).saturating_add(self.skipped)
    }

    /// A look that started at wake word `word` found nothing new: everything published
    /// before that word was bumped is behind us, so the read mark is exactly `word`
    /// (this also heals any miscount from publishes racing our join).
    fn drained(&mut self, word: u32) {
        self.mark_base = word.wrapping_sub(self.moved_past() as u32);
        self.core.drained(word);
    }

    /// Whether the last look emptied the topic and nothing was published since: one load
    /// of the wake word, no look at the publishers.
    pub(crate) fn nothing_new(&self) -> bool {
        self.core.sleep_value().is_some()
    }

    /// Whether everything publisher `slot` has published so far is behind us (a slot with
    /// no publisher attached by the last `refresh` has nothing: whatever it publishes
    /// later bumps the wake word).
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn caught_up(&self, slot: usize) -> bool {
        let cursor = &self.cursors[slot];
        cursor.view.as_ref().is_none_or(|v| v.holds_older(cursor.next))
    }

    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn publish_counters(&self) {
        let read_mark = self.mark_base.wrapping_add(self.moved_past() as u32);
        self.core.topic.segment.subscriber(self.core.slot).record_counters(self.taken, self.lost, read_mark);
    }

    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    fn next_from_any<T>(&mut self, advance: bool, deliver: &mut impl Deliver<T>) -> Result<Option<T>, TakeError> {
        let word = self.core.wake_word_now();
        self.refresh(false)?;
        let (n, first) = (self.cursors.len(), self.round_robin);
        let result = 'found: {
            for k in 0..n {
                let slot = (first + k) % n;
                let result = self.read_from(slot, advance, deliver);
                if matches!(result, Ok(None)) {
                    continue;
                }
                if advance {
                    self.round_robin = (slot + 1) % n;
                    // The publishers looked at before this one had nothing; if this one
                    // and those not looked at have nothing either after the message
                    // taken, the look drained the topic: the next `receive` (or wait
                    // set) sleeps without looking again.
                    if matches!(result, Ok(Some(_))) && (k..n).all(|j| self.caught_up((first + j) % n)) {
                        self.drained(word);
                    }
                }
                break 'found result;
            }
            self.drained(word);
            Ok(None)
        };
        self.publish_counters();
        self.check_topic()?;
        result
    }

    /// The next unread message, if any (`Ok(None)`: nothing new). Never blocks; no system
    /// call, except to map the segment of a publisher that joined since the last look.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("chatter").publisher()?;
    /// let mut subscriber = node.topic("chatter").subscriber()?;
    /// publisher.publish_copy(b"one")?;
    /// publisher.publish_copy(b"two")?;
    ///
    /// let mut received = Vec::new();
    /// while let Some(sample) = subscriber.take()? {
    ///     received.push(sample.to_vec()); // copied out; the sample (and its pin) goes here
    /// }
    /// assert_eq!(received, [b"one".to_vec(), b"two".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    pub fn take(&mut self) -> Result<Option<Sample>, TakeError> {
        self.next_from_any(true, &mut pin)
    }

    /// The next unread message, read in place by `read` without pinning its chunk:
    /// `Ok(Some(what read returned))`, or `Ok(None)` when nothing is new. Never blocks; no
    /// system call (except to map a publisher that joined since the last look), and no
    /// store to memory the publisher reads: the cheapest way to poll.
    ///
    /// Nothing holds the chunk while `read` runs, so a publisher that laps this subscriber
    /// meanwhile (`depth` newer messages) may be rewriting the bytes `read` sees. After
    /// `read` returns, the log is checked: if the message was overwritten, what `read`
    /// returned is dropped, the message counts as [`lost`](Subscriber::lost), and `read`
    /// is called again on the next message. So `read` must only compute its result from
    /// the bytes (copy them out, parse them, sum them), never act on them before it has
    /// returned; to keep a message, or to act on it while reading, use
    /// [`take`](Subscriber::take), which pins it.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("ticks").publisher()?;
    /// let mut subscriber = node.topic("ticks").subscriber()?;
    /// publisher.publish_copy(&7u64.to_le_bytes())?;
    ///
    /// let tick = subscriber.take_with(|bytes| u64::from_le_bytes(bytes.try_into().unwrap_or_default()))?;
    /// assert_eq!(tick, Some(7));
    /// assert_eq!(subscriber.take_with(|bytes| bytes.len())?, None); // nothing new
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn take_with<R>(&mut self, mut read: impl FnMut(&[u8]) -> R) -> Result<Option<R>, TakeError> {
        self.next_from_any(true, &mut |view: &Arc<PublisherView>, position, record| {
            Ok(view.read_with(position, record, &mut read))
        })
    }

    /// The next unread message without consuming it (the next `take` returns it again).
    pub fn peek(&mut self) -> Result<Option<Sample>, TakeError> {
        self.next_from_any(false, &mut pin)
    }

    /// Every message not taken yet, oldest first, one pinned sample at a time; see
    /// [`TakeAll`](super::TakeAll). Read from a timer, this is the polling style of an
    /// [`Executor`](crate::Executor): nothing wakes the process between ticks.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("chatter").publisher()?;
    /// let mut subscriber = node.topic("chatter").subscriber()?;
    /// for i in 0..3u8 {
    ///     publisher.publish_copy(&[i])?;
    /// }
    ///
    /// let mut all = subscriber.take_all();
    /// let mut bytes = Vec::new();
    /// for sample in &mut all {
    ///     bytes.push(sample?[0]);
    /// }
    /// assert_eq!(bytes, [0, 1, 2]);
    /// assert_eq!(all.lost(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn take_all(&mut self) -> super::TakeAll<'_> {
        let c = *self.core.topic.segment.config();
        let limit = c.depth as u64 * c.max_publishers as u64;
        super::TakeAll::new(self, limit)
    }

    /// The newest message, skipping (not counting as lost) everything older. With several
    /// publishers, the newest of each is compared by timestamp and the others are skipped.
    /// For state that only matters now (a position, a setting). Never blocks.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("position").publisher()?;
    /// let mut subscriber = node.topic("position").subscriber()?;
    /// for fix in [&b"fix 1"[..], b"fix 2", b"fix 3"] {
    ///     publisher.publish_copy(fix)?;
    /// }
    /// assert_eq!(&*subscriber.take_latest()?.expect("published"), b"fix 3");
    /// assert!(subscriber.take()?.is_none()); // the older ones were skipped
    /// assert_eq!(subscriber.lost(), 0); // and not counted as lost
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn take_latest(&mut self) -> Result<Option<Sample>, TakeError> {
        let word = self.core.wake_word_now();
        self.refresh(false)?;
        let mut newest: Option<Sample> = None;
        for slot in 0..self.cursors.len() {
            let cursor = &mut self.cursors[slot];
            let Some(view) = cursor.view.as_ref() else {
                continue;
            };
            let published = view.published();
            if published <= cursor.next {
                continue;
            }
            self.skipped = self.skipped.saturating_add(published - 1 - cursor.next);
            cursor.next = published - 1;
            let Some(sample) = self.read_from(slot, true, &mut pin)? else {
                continue;
            };
            if newest.as_ref().is_none_or(|n| sample.timestamp_ns() > n.timestamp_ns()) {
                newest = Some(sample);
            }
        }
        self.drained(word);
        self.publish_counters();
        self.check_topic()?;
        Ok(newest)
    }

    /// Whether `take` would find something (or a publisher came or went). No system call.
    pub fn has_data(&self) -> bool {
        self.cursors
            .iter()
            .enumerate()
            .any(|(slot, c)| !self.caught_up(slot) || self.core.topic.publisher_occupancy(slot as u32) != c.occupancy)
    }

    /// Waits for the next message, at most `timeout` (`None`: forever). Sleeps in the
    /// kernel only if nothing is there; publishers see it asleep and wake it.
    ///
    /// Fails with [`ReceiveError::Timeout`] when nothing came in time,
    /// [`ReceiveError::PollingOnly`] on a [`Wake::Never`] subscriber, or the [`TakeError`]
    /// of the take.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// use ringbus::ReceiveError;
    /// use std::time::Duration;
    /// let mut publisher = node.topic("chatter").publisher()?;
    /// let mut subscriber = node.topic("chatter").subscriber()?;
    ///
    /// let waited = subscriber.receive(Some(Duration::from_millis(10)));
    /// assert!(matches!(waited, Err(ReceiveError::Timeout)));
    ///
    /// std::thread::scope(|s| {
    ///     s.spawn(|| publisher.publish_copy(b"ping"));
    ///     let sample = subscriber.receive(Some(Duration::from_secs(5))).expect("published");
    ///     assert_eq!(&*sample, b"ping");
    /// });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(unsafe_code)] // only to place the code: see the crate root
    #[link_section = ".text.hot.ringbus"]
    pub fn receive(&mut self, timeout: Option<Duration>) -> Result<Sample, ReceiveError> {
        if self.wake == Wake::Never {
            return Err(ReceiveError::PollingOnly);
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            // After a look that drained the topic, the wake word tells whether anything
            // was published since: one load instead of a look at every publisher.
            if !self.nothing_new() {
                if let Some(sample) = self.take()? {
                    return Ok(sample);
                }
            }
            let remaining = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if remaining == Some(Duration::ZERO) {
                return Err(ReceiveError::Timeout);
            }
            let t = &self.core.topic.segment;
            let mark = t.subscriber(self.core.slot).sleep_mark();
            if t.wake_words().sleep(mark, || !self.nothing_new(), remaining) == Sleep::TimedOut {
                return self.take()?.ok_or(ReceiveError::Timeout);
            }
        }
    }

    /// Messages taken so far.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Messages skipped because they were overwritten before being taken (`keep_last`,
    /// or a publisher lapping a slow subscriber).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Samples this subscriber holds right now.
    pub fn held(&self) -> u32 {
        self.core.held()
    }

    /// Whether it sleeps and is woken (`Wake::OnData`) or only polls (`Wake::Never`).
    pub fn wake_mode(&self) -> Wake {
        self.wake
    }

    pub(crate) fn core(&self) -> &Arc<SubscriberCore> {
        &self.core
    }

    /// The topic's name.
    pub fn topic_name(&self) -> &str {
        &self.core.topic.name
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        // Samples it handed out may keep its slot a while; it takes nothing more, so it
        // stops holding publishers back now.
        if self.reliable {
            self.core.topic.segment.reliable_set().remove(self.core.slot);
        }
    }
}
