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

/// Creating or opening a node, topic, publisher or subscriber.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot {action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: io::Error },
    #[error("the ringbus root {path} is unusable: {reason}. Point RINGBUS_ROOT at a directory you own on a tmpfs (e.g. /dev/shm/ringbus-$UID)")]
    RootUnusable { path: PathBuf, reason: String },
    #[error("not enough shared memory for {path}: it needs {needed_bytes} bytes and the filesystem has {free_bytes} free. Enlarge the tmpfs (docker: --shm-size; host: mount -o remount,size=... /dev/shm) or lower depth / max_payload_bytes / max_subscribers")]
    NoSpace { path: PathBuf, needed_bytes: u64, free_bytes: u64 },
    #[error("no file can be created for {path}: the filesystem holding the ringbus root has no free inodes (files), whatever its free bytes. Remove what is no longer needed (`ringbus clean` removes what dead processes left), or allow more files (host: mount -o remount,nr_inodes=... /dev/shm)")]
    NoInodes { path: PathBuf },
    #[error("invalid name {name:?}: {reason}")]
    InvalidName { name: String, reason: &'static str },
    #[error("invalid topic setting {field} = {value}: {reason}")]
    InvalidConfig { field: &'static str, value: u64, reason: &'static str },
    #[error("topic {topic:?} exists with {field} = {existing}, but {requested} was requested. Use the same setting everywhere, or leave it unset to accept the existing one")]
    ConfigMismatch { topic: String, field: &'static str, existing: u64, requested: u64 },
    #[error("topic {topic:?} carries payload type {existing}, but {requested} was requested")]
    TypeMismatch { topic: String, existing: String, requested: String },
    #[error("{path} is not a ringbus segment ({reason}); something else wrote into the ringbus root. Remove the file or run `ringbus clean`")]
    Foreign { path: PathBuf, reason: String },
    #[error("{path} has layout version {found}, this library speaks version {expected}. Stop the processes of the other version and run `ringbus clean`, or rebuild them against the same ringbus")]
    VersionMismatch { path: PathBuf, found: u32, expected: u32 },
    #[error("{path} is corrupted: {corruption}. The process that wrote it is buggy or died mid-write; run `ringbus clean` once its users are gone")]
    Corrupted { path: PathBuf, corruption: Corruption },
    #[error("gave up opening {path} after {waited_ms} ms: another process holds its lock — a participant stopped (Ctrl-Z, a debugger) while joining or leaving. Resume or kill it (`ringbus info` names the participants), or give the builder a longer open_timeout")]
    LockTimedOut { path: PathBuf, waited_ms: u64 },
    #[error("opening {path} was cancelled while another process held its lock")]
    Interrupted { path: PathBuf },
    #[error("topic {topic:?} already has its maximum of {limit} live {role}s. Create the topic with a larger max_{role}s, or close some {role}s")]
    TooMany { topic: String, role: &'static str, limit: u32 },
}

/// Why a directory that must be private to this user (the root, a router's control
/// directory) cannot be used: checked by [`crate::create_private_dir`] and
/// [`crate::check_private_dir`].
#[derive(Debug, thiserror::Error)]
pub enum PrivateDirError {
    #[error("cannot create it: {0}")]
    Create(io::Error),
    #[error("cannot stat it: {0}")]
    Stat(io::Error),
    #[error("it is not a directory (or it is a symbolic link)")]
    NotADirectory,
    #[error("it is owned by uid {owner}, not by us (uid {us})")]
    Owner { owner: u32, us: u32 },
    #[error("its mode {mode:o} lets others write into it; chmod 700 it")]
    Writable { mode: u32 },
}

impl PrivateDirError {
    /// Whether the directory simply does not exist (nothing has created it yet).
    pub fn is_missing(&self) -> bool {
        matches!(self, PrivateDirError::Stat(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// Getting a loan from a publisher.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoanError {
    #[error("a loan of {requested} bytes exceeds the topic's max_payload_bytes of {max}; create the topic with a larger max_payload_bytes")]
    TooLarge { requested: u64, max: u64 },
    #[error("all {chunks} chunks are held by subscribers or the log; subscribers are holding samples longer than max_held allows, or the topic was created with too few chunks")]
    PoolExhausted { chunks: u32 },
    #[error("payload type {requested} does not match the topic's {existing}")]
    TypeMismatch { existing: String, requested: String },
    #[error("no shared memory left for a loan of {requested} bytes: the filesystem holding the ringbus root has {free_bytes} bytes free. Enlarge the tmpfs (docker: --shm-size; host: mount -o remount,size=... /dev/shm), or loan less; smaller loans may still succeed")]
    NoSpace { requested: u64, free_bytes: u64 },
    #[error("a loan of {requested} bytes would take this publisher's payload memory to {reserved_bytes} bytes, over the topic's pool_bytes of {pool_bytes}. Create the topic with a larger pool_bytes, or keep fewer or smaller messages in flight (depth, max_held)")]
    PoolBudget { requested: u64, pool_bytes: u64, reserved_bytes: u64 },
    #[error("the reliable subscriber in slot {subscriber_slot} (pid {pid}) has not taken the message this loan would overwrite ({depth} messages back; waited {waited_ms} ms). It is slow or stopped: wait longer (the publisher's when_full), create the topic with a larger depth, or make that subscriber lossy")]
    Full { subscriber_slot: u32, pid: u32, depth: u32, waited_ms: u64 },
    #[error("cannot reserve shared memory for a loan of {requested} bytes: {reason}")]
    Reserve { requested: u64, reason: String },
    #[error("{path} was truncated by another process while this publisher had it mapped; the publisher cannot go on: drop it and create a new one (`ringbus clean` removes what is left)")]
    Truncated { path: PathBuf },
}

/// Taking a sample from a subscriber without blocking.
#[derive(Debug, thiserror::Error)]
pub enum TakeError {
    #[error("this subscriber already holds max_held = {max_held} samples; drop some before taking more")]
    HeldLimit { max_held: u32 },
    #[error(
        "publisher slot {publisher_slot} wrote a bad value: {corruption}; its samples are skipped until it is replaced"
    )]
    Corrupted { publisher_slot: u32, corruption: Corruption },
    #[error("cannot attach to a new publisher: {0}")]
    Attach(#[from] OpenError),
    #[error("the file of publisher slot {publisher_slot} was truncated by another process while mapped; its samples are skipped until it is replaced")]
    Truncated { publisher_slot: u32 },
    #[error("{path} was truncated by another process while this subscriber had it mapped; the subscriber cannot go on: drop it and subscribe again (`ringbus clean` removes what is left)")]
    TopicTruncated { path: PathBuf },
}

/// Waiting for a sample.
#[derive(Debug, thiserror::Error)]
pub enum ReceiveError {
    #[error("no sample arrived before the timeout")]
    Timeout,
    #[error("this subscriber was created with Wake::Never and is never woken; poll it with take()/take_latest() instead of receive()")]
    PollingOnly,
    #[error(transparent)]
    Take(#[from] TakeError),
}

/// Viewing a sample or loan as a typed value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    #[error("the payload is {actual} bytes but {type_name} needs {expected}")]
    Size { type_name: &'static str, expected: usize, actual: usize },
    #[error("the payload is {actual} bytes, not a whole number of {type_name} ({element} bytes each)")]
    SliceSize { type_name: &'static str, element: usize, actual: usize },
    #[error("the payload is not aligned to {align} bytes as {type_name} needs")]
    Alignment { type_name: &'static str, align: usize },
}

pub(crate) fn io_err<'p>(action: &'static str, path: &'p std::path::Path) -> impl FnOnce(io::Error) -> OpenError + 'p {
    move |source| OpenError::Io { action, path: path.to_path_buf(), source }
}
