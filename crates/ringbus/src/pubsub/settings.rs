//! Topic names, topic settings and their defaults, and the builder that opens topics.

use crate::error::OpenError;
use crate::notify::Wake;
use crate::shm::pod::Pod;
pub(crate) use crate::shm::root::file_name;
use crate::shm::topic::{PayloadType, TopicConfig};
use crate::Node;

pub use crate::shm::root::MAX_TOPIC_NAME_BYTES;
pub use crate::shm::topic::{
    MAX_CHUNKS, MAX_DEPTH, MAX_HELD, MAX_PAYLOAD_BYTES, MAX_POOL_BYTES, MAX_PUBLISHERS, MAX_SUBSCRIBERS,
};

/// Settings given to a [`TopicBuilder`]; `None` means "the existing topic's value, or the
/// default when creating it".
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    pub max_publishers: Option<u32>,
    pub max_subscribers: Option<u32>,
    pub depth: Option<u32>,
    pub history: Option<u32>,
    pub max_held: Option<u32>,
    pub chunks: Option<u32>,
    pub max_payload_bytes: Option<u64>,
    pub pool_bytes: Option<u64>,
    pub preallocate: Option<bool>,
    pub payload: Option<PayloadType>,
    /// The payload type was given by name (not Rust's name of a type): typed loans of a
    /// type of its size and alignment are allowed under that name.
    pub payload_declared: bool,
}

pub(crate) const DEFAULT_MAX_PUBLISHERS: u32 = 4;
pub(crate) const DEFAULT_MAX_SUBSCRIBERS: u32 = 16;
pub(crate) const DEFAULT_DEPTH: u32 = 16;
pub(crate) const DEFAULT_MAX_HELD: u32 = 4;
pub(crate) const DEFAULT_MAX_PAYLOAD_BYTES: u64 = 4096;
/// The default memory budget of one publisher of an on-demand topic...
pub(crate) const DEFAULT_POOL_BYTES: u64 = 1 << 30;
/// ...raised for topics whose largest message is big, so that a few of them fit.
pub(crate) const DEFAULT_POOL_MESSAGES: u64 = 4;
/// Topics whose messages are at most this big preallocate by default: their whole pool
/// is small, and on demand each chunk would still take a page.
pub(crate) const PREALLOCATE_UP_TO_BYTES: u64 = 4096;

impl Settings {
    /// The configuration to create a topic with.
    pub(crate) fn resolve(&self) -> Result<(TopicConfig, PayloadType), OpenError> {
        self.check_payload()?;
        let payload = self.payload.clone().unwrap_or_else(PayloadType::bytes);
        let depth = self.depth.unwrap_or(DEFAULT_DEPTH);
        let max_subscribers = self.max_subscribers.unwrap_or(DEFAULT_MAX_SUBSCRIBERS);
        let max_held = self.max_held.unwrap_or(DEFAULT_MAX_HELD);
        let default_payload = if self.payload.is_some() { payload.size } else { DEFAULT_MAX_PAYLOAD_BYTES };
        let max_payload_bytes = self.max_payload_bytes.unwrap_or(default_payload);
        let chunk_count = match self.chunks {
            Some(c) => c,
            None => TopicConfig::default_chunk_count(depth, max_subscribers, max_held).min(u32::MAX as u64) as u32,
        };
        let config = TopicConfig {
            max_publishers: self.max_publishers.unwrap_or(DEFAULT_MAX_PUBLISHERS),
            max_subscribers,
            depth,
            history: self.history.unwrap_or(0),
            max_held,
            chunk_count,
            max_payload_bytes,
            pool_bytes: self
                .pool_bytes
                .unwrap_or(DEFAULT_POOL_BYTES.max(max_payload_bytes.saturating_mul(DEFAULT_POOL_MESSAGES))),
            preallocate: self.preallocate.unwrap_or(max_payload_bytes <= PREALLOCATE_UP_TO_BYTES) as u32,
            reserved0: 0,
        };
        config.check().map_err(|(field, value, reason)| OpenError::InvalidConfig { field, value, reason })?;
        if payload.size > config.max_payload_bytes {
            return Err(OpenError::InvalidConfig {
                field: "max_payload_bytes",
                value: config.max_payload_bytes,
                reason: "smaller than the payload type",
            });
        }
        Ok((config, payload))
    }

    /// Checks every explicitly given setting against an existing topic.
    pub(crate) fn check_against(
        &self,
        topic: &str,
        existing: &TopicConfig,
        existing_payload: &PayloadType,
    ) -> Result<(), OpenError> {
        self.check_payload()?;
        let fields: [(&'static str, Option<u64>, u64); 9] = [
            ("max_publishers", self.max_publishers.map(u64::from), existing.max_publishers as u64),
            ("max_subscribers", self.max_subscribers.map(u64::from), existing.max_subscribers as u64),
            ("depth", self.depth.map(u64::from), existing.depth as u64),
            ("history", self.history.map(u64::from), existing.history as u64),
            ("max_held", self.max_held.map(u64::from), existing.max_held as u64),
            ("chunks", self.chunks.map(u64::from), existing.chunk_count as u64),
            ("max_payload_bytes", self.max_payload_bytes, existing.max_payload_bytes),
            ("pool_bytes", self.pool_bytes, existing.pool_bytes),
            ("preallocate", self.preallocate.map(u64::from), existing.preallocate as u64),
        ];
        for (field, requested, existing) in fields {
            if let Some(requested) = requested.filter(|&r| r != existing) {
                return Err(OpenError::ConfigMismatch { topic: topic.to_string(), field, existing, requested });
            }
        }
        match &self.payload {
            Some(p) if p != existing_payload => Err(OpenError::TypeMismatch {
                topic: topic.to_string(),
                existing: describe(existing_payload),
                requested: describe(p),
            }),
            _ => Ok(()),
        }
    }
}

impl Settings {
    /// A payload type given at run time must be one a topic can record.
    fn check_payload(&self) -> Result<(), OpenError> {
        let Some(p) = &self.payload else { return Ok(()) };
        let invalid = |field, value: u64, reason| Err(OpenError::InvalidConfig { field, value, reason });
        if p.name.is_empty() || p.name.len() > crate::shm::topic::MAX_TYPE_NAME_BYTES {
            return invalid("payload type name length", p.name.len() as u64, "1 to 256 bytes");
        }
        if p.size == 0 {
            return invalid("payload type size", 0, "at least 1 byte");
        }
        if !p.align.is_power_of_two() || p.align > 4096 {
            return invalid("payload type alignment", p.align as u64, "a power of two, 1 to 4096");
        }
        Ok(())
    }
}

fn describe(p: &PayloadType) -> String {
    format!("{} (size {}, align {})", p.name, p.size, p.align)
}

/// Opens a topic as a publisher or subscriber, creating it if it does not exist.
///
/// Every setting left unset accepts whatever the existing topic has (or the default when
/// this call creates it); every setting given must match an existing topic exactly, or the
/// open fails with [`OpenError::ConfigMismatch`] naming the field.
///
/// | setting | default | limit |
/// |---|---|---|
/// | `max_publishers` | 4 | 1..=64 |
/// | `max_subscribers` | 16 | 1..=1024 |
/// | `depth` (log entries per publisher) | 16 | power of two, 1..=65536 |
/// | `history` (samples a late joiner gets) | 0 | ≤ depth |
/// | `max_held` (samples one subscriber may hold) | 4 | 1..=256 |
/// | `max_payload_bytes` | 4096, or the payload type's size | 1 B..=1 GiB |
/// | `chunks` | depth + max_subscribers × max_held + 1 | depth+1..=2^20 |
/// | `preallocate` (reserve every chunk's memory up front) | true if `max_payload_bytes` ≤ 4096, else false | |
/// | `pool_bytes` (most payload memory one publisher holds, on demand) | 1 GiB, or 4 × `max_payload_bytes` if more | `max_payload_bytes`..=16 TiB |
///
/// Memory: unless the topic preallocates, a publisher's chunks hold memory only for the
/// messages lent in them (whole pages), so a topic may declare a `max_payload_bytes` of
/// hundreds of MiB and pay only for the messages actually in flight — lent, in the log
/// (`depth`), or held by subscribers. A loan that would take the publisher's memory over
/// `pool_bytes` fails with [`crate::LoanError::PoolBudget`]; a full tmpfs fails the loan
/// with [`crate::LoanError::NoSpace`] (never a `SIGBUS`). A loan gets the free chunk
/// already sized closest above it; growing a chunk costs one system call on that loan, and
/// a publisher holding more than twice the bytes in flight plus 2 MiB gives idle memory
/// back in bulk. Once every size of a stream has been seen, its loans make no system call.
/// A preallocated pool
/// reserves `chunks × max_payload_bytes` when the publisher is created and never makes a
/// system call on a loan.
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// // The first to open the topic creates it with these settings...
/// let mut publisher =
///     node.topic("lidar/scan").max_payload_bytes(64 * 1024).depth(8).history(2).publisher()?;
/// for message in [&b"first"[..], b"second", b"third"] {
///     publisher.publish_copy(message)?;
/// }
/// // ...later openers accept them (or give the same values), and a late subscriber gets
/// // the last `history` messages.
/// let mut subscriber = node.topic("lidar/scan").subscriber()?;
/// assert_eq!(&*subscriber.take()?.expect("history"), b"second");
/// assert_eq!(&*subscriber.take()?.expect("history"), b"third");
/// assert!(subscriber.take()?.is_none());
///
/// // A setting that disagrees with the existing topic is refused.
/// let other = node.topic("lidar/scan").depth(16).subscriber();
/// assert!(matches!(other, Err(ringbus::OpenError::ConfigMismatch { field: "depth", .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct TopicBuilder {
    pub(crate) node: Node,
    pub(crate) name: String,
    pub(crate) settings: Settings,
    pub(crate) wake: Wake,
    pub(crate) keep_last: Option<u32>,
    pub(crate) direct_wakes: Option<u32>,
    pub(crate) reliable: bool,
    pub(crate) when_full: Option<super::WhenFull>,
    pub(crate) open_wait: crate::open_wait::OpenWait,
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        pub fn $name(mut self, value: $ty) -> Self {
            self.settings.$name = Some(value);
            self
        }
    };
}

impl TopicBuilder {
    pub(crate) fn new(node: Node, name: &str) -> TopicBuilder {
        TopicBuilder {
            node,
            name: name.to_string(),
            settings: Settings::default(),
            wake: Wake::OnData,
            keep_last: None,
            direct_wakes: None,
            reliable: false,
            when_full: None,
            open_wait: Default::default(),
        }
    }

    /// How long joining waits for another participant holding the topic's lock (one
    /// stopped by Ctrl-Z or a debugger while it joined or left) before it fails with
    /// [`OpenError::LockTimedOut`](crate::OpenError::LockTimedOut); default
    /// [`DEFAULT_OPEN_TIMEOUT`](crate::DEFAULT_OPEN_TIMEOUT).
    pub fn open_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.open_wait.timeout = Some(timeout);
        self
    }

    /// A flag that, once set (by a Ctrl-C handler, say), makes a join waiting for a busy
    /// topic lock give up with [`OpenError::Interrupted`](crate::OpenError::Interrupted).
    pub fn cancel_flag(mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.open_wait.cancel = Some(flag);
        self
    }

    setter!(/// Most publishers the topic admits at once: 1..=64, default 4. One more fails
        /// with [`OpenError::TooMany`]; a dead publisher's slot is reused. The topic's file
        /// keeps a slot per publisher; each live publisher has a segment of its own (its log
        /// and payload pool).
        max_publishers: u32);
    setter!(/// Most subscribers the topic admits at once: 1..=1024, default 16. One more fails
        /// with [`OpenError::TooMany`]; a dead subscriber's slot is reclaimed. Part of the
        /// default `chunks`: each subscriber may hold `max_held` chunks of every publisher.
        max_subscribers: u32);
    setter!(/// Log entries per publisher: a power of two, 1..=65536, default 16. A subscriber
        /// more than `depth` messages behind a publisher loses the oldest (counted in
        /// [`Subscriber::lost`](crate::Subscriber::lost)); a publisher waits instead for a
        /// [`reliable`](TopicBuilder::reliable) one. A log entry is 32 bytes.
        depth: u32);
    setter!(/// Past messages of each publisher that a subscriber joining late receives:
        /// 0..=`depth`, default 0 (a new subscriber gets only what is published after it
        /// joins). See the example above.
        history: u32);
    setter!(/// Samples one subscriber may hold at once: 1..=256, default 4. Each held
        /// [`Sample`](crate::Sample) pins a chunk of its publisher's pool; one take more
        /// fails with [`TakeError::HeldLimit`](crate::TakeError::HeldLimit) until a sample
        /// is dropped.
        ///
        /// ```
        /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
        /// # let node = ringbus::Node::with_root("doc", dir.path())?;
        /// let mut publisher = node.topic("frames").max_held(1).publisher()?;
        /// let mut subscriber = node.topic("frames").subscriber()?;
        /// publisher.publish_copy(b"one")?;
        /// publisher.publish_copy(b"two")?;
        /// let first = subscriber.take()?.expect("published");
        /// assert!(matches!(subscriber.take(), Err(ringbus::TakeError::HeldLimit { max_held: 1 })));
        /// drop(first); // lets go of its chunk
        /// assert_eq!(&*subscriber.take()?.expect("still there"), b"two");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        max_held: u32);
    setter!(/// Payload chunks per publisher: `depth` + 1..=2^20, default `depth` +
        /// `max_subscribers` × `max_held` + 1 (a full log, every subscriber holding
        /// `max_held` samples, and the next loan). Fewer chunks make a preallocated pool
        /// smaller, at the price of [`LoanError::PoolExhausted`](crate::LoanError::PoolExhausted)
        /// when subscribers hold many samples.
        chunks: u32);
    setter!(/// Largest message a loan may ask for, in bytes: 1..=1 GiB, default 4096 (or the
        /// size of the [`payload_type`](TopicBuilder::payload_type)). A larger loan fails
        /// with [`LoanError::TooLarge`](crate::LoanError::TooLarge). An on-demand pool pays
        /// only for the messages in flight, so a large limit costs nothing until large
        /// messages are sent.
        max_payload_bytes: u64);
    setter!(/// Most payload memory one publisher may hold at once, in bytes, for on-demand
        /// pools: `max_payload_bytes`..=16 TiB, default 1 GiB (or 4 × `max_payload_bytes`
        /// if more). A loan that would go over fails with
        /// [`LoanError::PoolBudget`](crate::LoanError::PoolBudget). See the table above.
        pool_bytes: u64);
    setter!(/// Whether every chunk's memory is reserved when a publisher is created (a fixed
        /// pool: no system call on any loan, memory for the worst case) instead of as
        /// messages are lent. Default: true when `max_payload_bytes` ≤ 4096.
        preallocate: bool);

    /// Declares the payload type: its name, size and alignment are recorded in the topic
    /// when it is created, and every opener that declares a type is checked against it
    /// ([`OpenError::TypeMismatch`]). Chunks are aligned for it, and `max_payload_bytes`
    /// defaults to its size. Without it the topic carries bytes.
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
    /// publisher.publish_value(&Pose { x: 1.0, y: 2.0 })?;
    /// assert_eq!(subscriber.take()?.expect("published").value::<Pose>()?.y, 2.0);
    ///
    /// // Another type is refused when the topic is opened, not when a message is read.
    /// let wrong = node.topic("pose").payload_type::<u64>().subscriber();
    /// assert!(matches!(wrong, Err(ringbus::OpenError::TypeMismatch { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn payload_type<T: Pod>(mut self) -> Self {
        self.settings.payload = Some(PayloadType::of::<T>());
        self.settings.payload_declared = false;
        self
    }

    /// As [`payload_type`](TopicBuilder::payload_type), with `T` named as programs in
    /// other languages name it (C, C++, Python give a type's name at run time): every
    /// opener must give the same name, size and alignment. [`Publisher::loan_value`] of
    /// `T` works on such a topic from a handle opened this way.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// // A C++ program publishes `geometry.Pose`, two doubles (RINGBUS_PAYLOAD in its header).
    /// let mut cpp = node.topic("pose").payload_type_named("geometry.Pose", 16, 8).publisher()?;
    /// let mut subscriber = node.topic("pose").payload_type_as::<[f64; 2]>("geometry.Pose").subscriber()?;
    /// cpp.publish_copy(&[0u8; 16])?;
    /// assert_eq!(subscriber.take()?.expect("published").value::<[f64; 2]>()?, &[0.0, 0.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Publisher::loan_value`]: crate::Publisher::loan_value
    pub fn payload_type_as<T: Pod>(self, name: &str) -> Self {
        self.payload_type_named(name, std::mem::size_of::<T>(), std::mem::align_of::<T>())
    }

    /// The payload type given at run time — a name (1 to 256 bytes), a size and an
    /// alignment (a power of two up to 4096) — for programs that have no Rust type (the C
    /// and C++ bindings use it). Out of range: [`OpenError::InvalidConfig`] at the open.
    pub fn payload_type_named(mut self, name: &str, size: usize, align: usize) -> Self {
        self.settings.payload = Some(PayloadType { name: name.to_string(), size: size as u64, align: align as u32 });
        self.settings.payload_declared = true;
        self
    }

    /// Subscribers only: whether `receive()` may sleep and be woken ([`Wake::OnData`], the
    /// default) or the subscriber only polls ([`Wake::Never`]: it is never counted among
    /// the sleepers, so it costs publishers nothing, and `receive` fails with
    /// [`ReceiveError::PollingOnly`](crate::ReceiveError::PollingOnly)).
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// use ringbus::{ReceiveError, Wake};
    /// let mut poller = node.topic("status").wake(Wake::Never).subscriber()?;
    /// assert!(matches!(poller.receive(None), Err(ReceiveError::PollingOnly)));
    /// assert!(poller.take()?.is_none()); // polling works, and makes no system call
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wake(mut self, wake: Wake) -> Self {
        self.wake = wake;
        self
    }

    /// Publishers only: how many sleeping subscribers a publish wakes itself (default 2);
    /// with more asleep, it wakes `k`, and the first of them to run wakes all the others
    /// with one call of its own (the wake relay). Either way the publish makes one system
    /// call. A small `k` keeps the publish
    /// short whatever the number of sleepers; a larger one (say 16) gets the subscribers
    /// running sooner when the CPUs are busy, e.g. many topics published back to back, at
    /// the price of a longer publish (measured in BENCHMARKS.md, "Who wakes whom").
    pub fn direct_wakes(mut self, k: u32) -> Self {
        self.direct_wakes = Some(k);
        self
    }

    /// Subscribers only: a reliable subscriber loses nothing — no publisher overwrites a
    /// message it has not taken; a publisher that would waits (or fails, as its
    /// [`TopicBuilder::when_full`] says) until it does. Lossy subscribers of the same topic
    /// are unaffected. Reliability starts when the subscriber joins: publishers already
    /// there are read from `history` messages back, later ones from their first message.
    /// Costs the subscriber one fence per take, and publishers no system call while it
    /// keeps up; a subscriber that dies stops holding anyone back.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// use ringbus::{LoanError, WhenFull};
    /// let mut subscriber = node.topic("commands").depth(2).reliable().subscriber()?;
    /// let mut publisher = node.topic("commands").when_full(WhenFull::Fail).publisher()?;
    /// publisher.publish_copy(b"one")?;
    /// publisher.publish_copy(b"two")?;
    /// // A third message would overwrite "one", which the reliable subscriber has not taken.
    /// assert!(matches!(publisher.publish_copy(b"three"), Err(LoanError::Full { .. })));
    /// assert_eq!(&*subscriber.take()?.expect("kept"), b"one");
    /// publisher.publish_copy(b"three")?; // room again
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reliable(mut self) -> Self {
        self.reliable = true;
        self
    }

    /// Publishers only: what a loan does when a reliable subscriber has not taken the
    /// message it would overwrite: [`WhenFull::Fail`](super::WhenFull::Fail) at once, or
    /// [`WhenFull::Wait`](super::WhenFull::Wait) at most a while (default: wait as long as
    /// it takes). Either ends in [`LoanError::Full`](crate::LoanError::Full); see
    /// [`TopicBuilder::reliable`] for an example.
    /// [`Publisher::set_when_full`](crate::Publisher::set_when_full) changes it later.
    pub fn when_full(mut self, when_full: super::WhenFull) -> Self {
        self.when_full = Some(when_full);
        self
    }

    /// Subscribers only: keep at most the newest `k` unread samples per publisher; older
    /// ones are skipped and counted in [`crate::Subscriber::lost`]. Default and maximum:
    /// the topic's depth. Not with [`reliable`](TopicBuilder::reliable), which keeps all.
    ///
    /// ```
    /// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
    /// # let node = ringbus::Node::with_root("doc", dir.path())?;
    /// let mut publisher = node.topic("temperature").publisher()?;
    /// let mut subscriber = node.topic("temperature").keep_last(1).subscriber()?;
    /// for reading in [&b"20.5"[..], b"20.7", b"20.6"] {
    ///     publisher.publish_copy(reading)?;
    /// }
    /// assert_eq!(&*subscriber.take()?.expect("newest"), b"20.6");
    /// assert_eq!(subscriber.lost(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn keep_last(mut self, k: u32) -> Self {
        self.keep_last = Some(k);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_encoded() {
        assert_eq!(file_name("/lidar/points").unwrap(), ("lidar/points".into(), "lidar.points".into()));
        for bad in ["", "/", "a//b", "a/", "a.b", "a b", "../x", &"x".repeat(101)] {
            assert!(matches!(file_name(bad), Err(OpenError::InvalidName { .. })), "{bad:?} accepted");
        }
    }

    #[test]
    fn defaults_size_the_pool_so_the_publisher_can_always_allocate() {
        let (c, p) = Settings::default().resolve().unwrap();
        assert_eq!(c.chunk_count, 16 + 16 * 4 + 1);
        assert_eq!(p, PayloadType::bytes());
    }

    #[test]
    fn only_explicit_settings_must_match() {
        let (existing, payload) = Settings::default().resolve().unwrap();
        let s = Settings { depth: Some(16), ..Default::default() };
        assert!(s.check_against("t", &existing, &payload).is_ok());
        let s = Settings { depth: Some(32), ..Default::default() };
        let e = s.check_against("t", &existing, &payload).unwrap_err();
        assert!(matches!(e, OpenError::ConfigMismatch { field: "depth", existing: 16, requested: 32, .. }), "{e}");
    }

    #[test]
    fn out_of_range_settings_are_refused() {
        let s = Settings { depth: Some(3), ..Default::default() };
        assert!(matches!(s.resolve(), Err(OpenError::InvalidConfig { field: "depth", .. })));
        let s = Settings { max_payload_bytes: Some(2 << 30), ..Default::default() };
        assert!(matches!(s.resolve(), Err(OpenError::InvalidConfig { field: "max_payload_bytes", .. })));
    }
}
