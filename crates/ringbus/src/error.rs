//! Errors, one enum per operation. Every message says what went wrong *and* what to do.

use std::io;
use std::path::PathBuf;

/// Why a value read from shared memory was rejected. The peer that wrote it is buggy,
/// crashed mid-write or scribbled; the link to it is unusable, nothing else is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corruption {
    /// What was being read (`"log entry chunk index"`, `"segment state"`, ...).
    pub what: &'static str,
    /// The value found.
    pub found: u64,
    /// The bound or expected value it violated.
    pub limit: u64,
}

impl std::fmt::Display for Corruption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is {} (expected {})", self.what, self.found, self.limit)
    }
}

/// Creating or opening a node, topic, publisher, subscriber, command queue, latch or
/// semaphore.
///
/// Most variants are about the environment (the root, the filesystem, another process) or
/// about settings that disagree; the message of each says what to do. A topic that the
/// failed open created is removed again.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// A system call on a file under the root failed for a reason not covered by a
    /// variant of its own (permissions, too many open files, ...). Look at `source`.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done: `"create"`, `"open"`, `"map"`, `"lock"`, ...
        action: &'static str,
        /// The file (or, for a few actions, the root directory).
        path: PathBuf,
        /// The error the system call returned.
        source: io::Error,
    },
    /// The root directory cannot be created, is not a directory (a symbolic link counts as
    /// not one), belongs to another user, is writable by group or others, or cannot be
    /// written. Point `RINGBUS_ROOT` (or [`Node::with_root`](crate::Node::with_root)) at a
    /// directory of mode 0700 that you own, on a tmpfs.
    #[error("the ringbus root {path} is unusable: {reason}. Point RINGBUS_ROOT at a directory you own on a tmpfs (e.g. /dev/shm/ringbus-$UID)")]
    RootUnusable {
        /// The root directory.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The filesystem of the root has too little free space for a new segment (a topic,
    /// a preallocated publisher pool, a queue). Checked before the file is used, so it is
    /// this error and never a `SIGBUS` later. Enlarge the tmpfs, or ask for less: a smaller
    /// `depth`, `max_payload_bytes`, `chunks`, `max_subscribers` or queue capacity, or an
    /// on-demand pool (`preallocate(false)`).
    #[error("not enough shared memory for {path}: it needs {needed_bytes} bytes and the filesystem has {free_bytes} free. Enlarge the tmpfs (docker: --shm-size; host: mount -o remount,size=... /dev/shm) or lower depth / max_payload_bytes / max_subscribers")]
    NoSpace {
        /// The segment that could not be created.
        path: PathBuf,
        /// Bytes it needs.
        needed_bytes: u64,
        /// Bytes the filesystem had free.
        free_bytes: u64,
    },
    /// The filesystem of the root has no free inodes, so no file can be created however
    /// much space is free. Remove files that are no longer needed ([`clean`](crate::clean)
    /// removes what dead processes left), or mount the tmpfs with more inodes.
    #[error("no file can be created for {path}: the filesystem holding the ringbus root has no free inodes (files), whatever its free bytes. Remove what is no longer needed (`ringbus clean` removes what dead processes left), or allow more files (host: mount -o remount,nr_inodes=... /dev/shm)")]
    NoInodes {
        /// The file that could not be created.
        path: PathBuf,
    },
    /// A name breaks the naming rules. Topic, queue, latch and semaphore names are 1 to
    /// [`MAX_TOPIC_NAME_BYTES`](crate::MAX_TOPIC_NAME_BYTES) bytes of segments of
    /// `[A-Za-z0-9_-]` separated by `/` (one leading `/` is ignored); node names are 1 to
    /// 64 bytes without control characters.
    #[error("invalid name {name:?}: {reason}")]
    InvalidName {
        /// The name as given.
        name: String,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// A setting is out of its range (see the table of [`TopicBuilder`](crate::TopicBuilder)
    /// and [`QueueBuilder::capacity`](crate::queue::QueueBuilder::capacity)) or conflicts
    /// with another one (`keep_last` on a reliable subscriber, `direct_wakes(0)`, a
    /// semaphore's initial count above [`MAX_SEMAPHORE_COUNT`](crate::MAX_SEMAPHORE_COUNT)).
    /// Nothing was created; fix the value named.
    #[error("invalid setting {field} = {value}: {reason}")]
    InvalidConfig {
        /// The setting (`"depth"`, `"keep_last"`, `"capacity"`, ...).
        field: &'static str,
        /// The value given (or derived from the others).
        value: u64,
        /// The range or rule it breaks.
        reason: &'static str,
    },
    /// The topic or queue exists with another value of a setting that this open gave
    /// explicitly. Give the same value in every process, or leave the setting unset to
    /// accept whatever the existing object has. To change it, the object must go first (a
    /// topic goes when its last participant leaves).
    #[error("{} {topic:?} exists with {field} = {existing}, but {requested} was requested. Use the same setting everywhere, or leave it unset to accept the existing one", object_of(field))]
    ConfigMismatch {
        /// The topic's (or queue's) name.
        topic: String,
        /// The setting that differs.
        field: &'static str,
        /// Its value in the existing object.
        existing: u64,
        /// The value this open asked for.
        requested: u64,
    },
    /// The topic was created for another payload type (see
    /// [`TopicBuilder::payload_type`](crate::TopicBuilder::payload_type)), or the queue for
    /// another command type. Types are compared by name, size and alignment; use the same
    /// type in every process.
    #[error("{topic:?} carries the type {existing}, but {requested} was requested; every process must give the same type (its name, size and alignment)")]
    TypeMismatch {
        /// The topic's (or queue's) name.
        topic: String,
        /// The type the existing object records.
        existing: String,
        /// The type this open asked for.
        requested: String,
    },
    /// A file where a segment should be is not one of ours (wrong magic, a symbolic link,
    /// or another object's name inside). Something other than ringbus writes into the root:
    /// remove the file, or use a root of ringbus's own.
    #[error("{path} is not a ringbus segment ({reason}); something else wrote into the ringbus root. Remove the file or run `ringbus clean --foreign`")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What gave it away.
        reason: String,
    },
    /// The segment was written by a ringbus with another shared-memory layout
    /// ([`LAYOUT_VERSION`](crate::diagnostics::LAYOUT_VERSION)). Processes of two versions
    /// cannot talk; run one version, or give each its own root.
    #[error("{path} has layout version {found}, this library speaks version {expected}. Stop the processes of the other version and run `ringbus clean --foreign`, or rebuild them against the same ringbus")]
    VersionMismatch {
        /// The segment.
        path: PathBuf,
        /// The version it carries.
        found: u32,
        /// The version this library speaks.
        expected: u32,
    },
    /// A value in the segment is out of bounds: the process that wrote it is buggy or died
    /// while building it. The segment is not used; remove it once nobody uses it
    /// ([`clean_with`](crate::clean_with) with `foreign` set removes corrupted segments).
    #[error("{path} is corrupted: {corruption}. The process that wrote it is buggy or died mid-write; run `ringbus clean --foreign` once its users are gone")]
    Corrupted {
        /// The segment.
        path: PathBuf,
        /// The value rejected.
        corruption: Corruption,
    },
    /// Another process held the object's lock for the whole open timeout: a participant
    /// stopped (Ctrl-Z, a debugger) while it joined or left. Resume or kill it, or give
    /// the builder a longer `open_timeout` (default
    /// [`DEFAULT_OPEN_TIMEOUT`](crate::DEFAULT_OPEN_TIMEOUT)).
    #[error("gave up opening {path} after {waited_ms} ms: another process holds its lock — a participant stopped (Ctrl-Z, a debugger) while joining or leaving. Resume or kill it (`ringbus info` names the participants), or give the builder a longer open_timeout")]
    LockTimedOut {
        /// The object's file.
        path: PathBuf,
        /// How long the open waited, in milliseconds.
        waited_ms: u64,
    },
    /// The builder's `cancel_flag` was raised while the open waited for a busy lock.
    /// Nothing was joined; the caller asked to stop, so stop.
    #[error("opening {path} was cancelled while another process held its lock")]
    Interrupted {
        /// The object's file.
        path: PathBuf,
    },
    /// Every slot of the role is taken by a live participant: the topic's
    /// `max_publishers` or `max_subscribers`, a queue's one consumer (or one SPSC
    /// producer), or [`MAX_QUEUE_PRODUCERS`](crate::queue::MAX_QUEUE_PRODUCERS) MPSC
    /// producers. Slots of dead processes are reclaimed, so this counts live ones: close
    /// some, or recreate the topic with a larger limit.
    #[error("{} {topic:?} already has its maximum of {limit} live {role}s. {}", object_of(role), too_many_hint(role))]
    TooMany {
        /// The topic's (or queue's) name.
        topic: String,
        /// `"publisher"`, `"subscriber"`, `"producer"` or `"consumer"`.
        role: &'static str,
        /// How many of that role the object admits.
        limit: u32,
    },
}

/// What kind of object a setting or role belongs to, for messages: the queue settings and
/// roles are a queue's, the others a topic's.
fn object_of(setting_or_role: &str) -> &'static str {
    match setting_or_role {
        "capacity" | "producer" | "consumer" => "queue",
        s if s.starts_with("producers") || s.starts_with("wake (") => "queue",
        _ => "topic",
    }
}

/// What to do when a role is full.
fn too_many_hint(role: &str) -> String {
    match role {
        "consumer" => "A queue has one consumer at a time: close the other one, or stop its process".into(),
        "producer" => "An SPSC queue takes one producer at a time (create it .mpsc() for up to 64), and an MPSC one \
                       64: close some producers"
            .into(),
        _ => format!("Create the topic with a larger max_{role}s, or close some {role}s"),
    }
}

/// Why a directory that must be private to this user (the root, a router's control
/// directory) cannot be used: checked by [`crate::create_private_dir`] and
/// [`crate::check_private_dir`].
#[derive(Debug, thiserror::Error)]
pub enum PrivateDirError {
    /// `mkdir` failed (a parent is missing or not writable, ...) with this error.
    #[error("cannot create it: {0}")]
    Create(io::Error),
    /// Its metadata could not be read; [`PrivateDirError::is_missing`] tells whether it
    /// simply does not exist.
    #[error("cannot stat it: {0}")]
    Stat(io::Error),
    /// The path is a file, a symbolic link (never followed) or anything but a directory.
    #[error("it is not a directory (or it is a symbolic link)")]
    NotADirectory,
    /// Another user owns the directory, so files in it may not be ours. Use a directory
    /// of your own.
    #[error("it is owned by uid {owner}, not by us (uid {us})")]
    Owner {
        /// The directory's owner.
        owner: u32,
        /// This process's effective uid.
        us: u32,
    },
    /// Group or others may create files in it. `chmod 700` the directory.
    #[error("its mode {mode:o} lets others write into it; chmod 700 it")]
    Writable {
        /// The directory's permission bits (`0o7777` of its mode).
        mode: u32,
    },
}

impl PrivateDirError {
    /// Whether the directory simply does not exist (nothing has created it yet).
    pub fn is_missing(&self) -> bool {
        matches!(self, PrivateDirError::Stat(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// Getting a loan from a publisher.
///
/// Every variant but [`LoanError::Truncated`] leaves the publisher usable: a later loan may
/// succeed (once subscribers drop samples, once memory is freed, with a smaller size).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoanError {
    /// The loan asks for more than the topic's `max_payload_bytes`. Loan less, or create
    /// the topic with a larger `max_payload_bytes`.
    #[error("a loan of {requested} bytes exceeds the topic's max_payload_bytes of {max}; create the topic with a larger max_payload_bytes")]
    TooLarge {
        /// Bytes asked for.
        requested: u64,
        /// The topic's `max_payload_bytes`.
        max: u64,
    },
    /// Every chunk of this publisher is in its log, held by a subscriber, or lent and not
    /// yet published. The default `chunks` (depth + max_subscribers × max_held + 1) cover
    /// a full log and every subscriber holding `max_held` samples, so look for detached
    /// loans never published or discarded, or a topic created with too few `chunks`.
    #[error("all {chunks} chunks are held by subscribers or the log; subscribers are holding samples longer than max_held allows, or the topic was created with too few chunks")]
    PoolExhausted {
        /// The publisher's chunk count.
        chunks: u32,
    },
    /// [`Publisher::loan_value`](crate::Publisher::loan_value) or `publish_value` was asked
    /// for a type other than the topic's payload type. Use the topic's type.
    #[error("payload type {requested} does not match the topic's {existing}")]
    TypeMismatch {
        /// The topic's payload type.
        existing: String,
        /// The type asked for.
        requested: String,
    },
    /// The filesystem of the root is full, so the pages of an on-demand chunk could not be
    /// reserved (this error, never a `SIGBUS`). Smaller loans may still succeed. Enlarge
    /// the tmpfs, or keep fewer or smaller messages in flight.
    #[error("no shared memory left for a loan of {requested} bytes: the filesystem holding the ringbus root has {free_bytes} bytes free. Enlarge the tmpfs (docker: --shm-size; host: mount -o remount,size=... /dev/shm), or loan less; smaller loans may still succeed")]
    NoSpace {
        /// Bytes asked for.
        requested: u64,
        /// Bytes the filesystem had free.
        free_bytes: u64,
    },
    /// The loan would take this publisher's payload memory over the topic's `pool_bytes`
    /// (on-demand pools). Create the topic with a larger `pool_bytes`, or keep fewer or
    /// smaller messages in flight (`depth`, `max_held`).
    #[error("a loan of {requested} bytes would take this publisher's payload memory to {reserved_bytes} bytes, over the topic's pool_bytes of {pool_bytes}. Create the topic with a larger pool_bytes, or keep fewer or smaller messages in flight (depth, max_held)")]
    PoolBudget {
        /// Bytes asked for.
        requested: u64,
        /// The topic's `pool_bytes`.
        pool_bytes: u64,
        /// The payload memory the publisher would hold with this loan.
        reserved_bytes: u64,
    },
    /// A reliable subscriber has not taken the message this loan would overwrite, and the
    /// publisher's [`WhenFull`](crate::WhenFull) said to fail at once or its wait ran
    /// out. Try again later, wait longer, create the topic with a larger `depth`, or make
    /// that subscriber lossy.
    #[error("the reliable subscriber in slot {subscriber_slot} (pid {pid}) has not taken the message this loan would overwrite ({depth} messages back; waited {waited_ms} ms). It is slow or stopped: wait longer (the publisher's when_full), create the topic with a larger depth, or make that subscriber lossy")]
    Full {
        /// The lagging subscriber's slot in the topic.
        subscriber_slot: u32,
        /// Its process id.
        pid: u32,
        /// The topic's depth.
        depth: u32,
        /// How long this loan waited, in milliseconds.
        waited_ms: u64,
    },
    /// Reserving the pages of an on-demand chunk failed for another reason than a full
    /// filesystem (`reason` is the system's error). Rare; report it.
    #[error("cannot reserve shared memory for a loan of {requested} bytes: {reason}")]
    Reserve {
        /// Bytes asked for.
        requested: u64,
        /// The system call's error.
        reason: String,
    },
    /// Another process truncated the topic's file or this publisher's while it was mapped.
    /// The publisher is unusable: drop it and create a new one.
    #[error("{path} was truncated by another process while this publisher had it mapped; the publisher cannot go on: drop it and create a new one (`ringbus clean --foreign` removes what is left)")]
    Truncated {
        /// The truncated file.
        path: PathBuf,
    },
}

/// Taking a sample from a subscriber without blocking.
///
/// Every variant but [`TakeError::TopicTruncated`] leaves the subscriber usable: the error
/// is about one call (or one publisher), and the next `take` goes on with the others.
#[derive(Debug, thiserror::Error)]
pub enum TakeError {
    /// The subscriber already holds the topic's `max_held` samples (each pins a chunk of
    /// the publisher's). Drop some samples, then take again; nothing was consumed.
    #[error("this subscriber already holds max_held = {max_held} samples; drop some before taking more")]
    HeldLimit {
        /// The topic's `max_held`.
        max_held: u32,
    },
    /// A publisher wrote an impossible value (a bad chunk index, length or position). The
    /// message is counted lost; take again to go on with the next one and with the other
    /// publishers.
    #[error(
        "publisher slot {publisher_slot} wrote a bad value: {corruption}; its samples are skipped until it is replaced"
    )]
    Corrupted {
        /// The publisher's slot in the topic.
        publisher_slot: u32,
        /// The value rejected.
        corruption: Corruption,
    },
    /// A publisher that joined since the last take could not be mapped (see the inner
    /// error). Take again: the other publishers are read, and the attach is tried again.
    #[error("cannot attach to a new publisher: {0}")]
    Attach(#[from] OpenError),
    /// Another process truncated one publisher's file while it was mapped; that
    /// publisher's messages are dropped until its slot gets a new publisher. Take again
    /// for the others.
    #[error("the file of publisher slot {publisher_slot} was truncated by another process while mapped; its samples are skipped until it is replaced")]
    Truncated {
        /// The publisher's slot in the topic.
        publisher_slot: u32,
    },
    /// Another process truncated the topic's own file while it was mapped. The subscriber
    /// is unusable: drop it and subscribe again.
    #[error("{path} was truncated by another process while this subscriber had it mapped; the subscriber cannot go on: drop it and subscribe again (`ringbus clean --foreign` removes what is left)")]
    TopicTruncated {
        /// The topic's file.
        path: PathBuf,
    },
}

/// Waiting for a sample.
#[derive(Debug, thiserror::Error)]
pub enum ReceiveError {
    /// Nothing arrived within the timeout. The subscriber is unchanged; receive again.
    #[error("no sample arrived before the timeout")]
    Timeout,
    /// The subscriber was created with [`Wake::Never`](crate::Wake::Never), which is never
    /// woken. Poll it with `take` or `take_latest`, or subscribe with `Wake::OnData`.
    #[error("this subscriber was created with Wake::Never and is never woken; poll it with take()/take_latest() instead of receive()")]
    PollingOnly,
    /// The take after the wake-up failed: see [`TakeError`].
    #[error(transparent)]
    Take(#[from] TakeError),
}

/// Viewing a sample or loan as a typed value.
///
/// Each means the bytes are not what the reader assumed: the publisher sent another type
/// (declare it with [`TopicBuilder::payload_type`](crate::TopicBuilder::payload_type) so
/// that every opener is checked), or a slice of another element type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// The payload's length differs from the size of the type.
    #[error("the payload is {actual} bytes but {type_name} needs {expected}")]
    Size {
        /// The type asked for.
        type_name: &'static str,
        /// Its size in bytes.
        expected: usize,
        /// The payload's length in bytes.
        actual: usize,
    },
    /// The payload's length is not a whole number of elements (or the element type has
    /// size 0).
    #[error("the payload is {actual} bytes, not a whole number of {type_name} ({element} bytes each)")]
    SliceSize {
        /// The element type asked for.
        type_name: &'static str,
        /// Its size in bytes.
        element: usize,
        /// The payload's length in bytes.
        actual: usize,
    },
    /// The payload does not start at a multiple of the type's alignment. Chunks are aligned
    /// to at least 64 bytes and to the topic's payload type, so this takes a type aligned
    /// to more than 64 bytes that the topic was not created with.
    #[error("the payload is not aligned to {align} bytes as {type_name} needs")]
    Alignment {
        /// The type asked for.
        type_name: &'static str,
        /// Its alignment in bytes.
        align: usize,
    },
}

pub(crate) fn io_err<'p>(action: &'static str, path: &'p std::path::Path) -> impl FnOnce(io::Error) -> OpenError + 'p {
    move |source| OpenError::Io { action, path: path.to_path_buf(), source }
}
