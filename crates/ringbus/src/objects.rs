//! [`Latch`] and [`Semaphore`]: named objects under the ringbus root, usable across
//! processes. The file holds the futex words ([`crate::shm::latch_semaphore`]); a handle
//! maps it and runs the protocols of [`crate::notify`] over them.

use crate::error::OpenError;
use crate::notify::latch::{LatchWord, SetOutcome};
use crate::notify::semaphore::{PostOutcome, SemaphoreWords};
use crate::notify::TimedOut;
use crate::shm::header::SegmentKind;
use crate::shm::latch_semaphore::{ObjectRecord, ObjectWords, OBJECT_BYTES};
use crate::shm::{segment, Region, Root};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// One mapped object file.
#[derive(Debug)]
pub(crate) struct ObjectHandle {
    name: String,
    path: PathBuf,
    region: Region,
    _file: File,
}

impl ObjectHandle {
    /// Opens the object `name`, creating it with `initial` if it does not exist.
    fn open(root: &Root, kind: SegmentKind, name: &str, initial: u32) -> Result<ObjectHandle, OpenError> {
        let (canonical, file_name) = crate::shm::root::file_name(name)?;
        let prefix = match kind {
            SegmentKind::Latch => crate::shm::root::LATCH_PREFIX,
            _ => crate::shm::root::SEMAPHORE_PREFIX,
        };
        let path = root.object_path(prefix, &file_name);
        loop {
            if let Some(opened) = segment::open(&path, kind, true)? {
                ObjectRecord::validate(&opened.region, &opened.header).map_err(|e| segment::header_error(&path, e))?;
                return Ok(ObjectHandle { name: canonical, path, region: opened.region, _file: opened.file });
            }
            let init = |r: &Region| ObjectRecord::init(r, kind, initial);
            if let Some(created) = segment::create(root, &path, OBJECT_BYTES, init)? {
                return Ok(ObjectHandle { name: canonical, path, region: created.region, _file: created.file });
            }
        }
    }

    fn words(&self) -> ObjectWords<'_> {
        ObjectRecord::words(&self.region)
    }

    fn count_wake(&self, woken: Option<u32>) {
        self.words().count_wake(woken);
    }

    pub(crate) fn word(&self) -> &std::sync::atomic::AtomicU32 {
        self.words().word
    }
}

impl crate::Node {
    /// Opens the [`Latch`] `name` under this node's root, creating it if needed.
    pub fn latch(&self, name: &str) -> Result<Latch, OpenError> {
        Latch::open(self.root(), name)
    }

    /// Opens the [`Semaphore`] `name` under this node's root, creating it with `initial`
    /// tokens if it does not exist.
    pub fn semaphore(&self, name: &str, initial: u32) -> Result<Semaphore, OpenError> {
        Semaphore::open(self.root(), name, initial)
    }
}

/// Counters an object keeps in shared memory (for `ringbus info` and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WakeStats {
    /// `FUTEX_WAKE` calls made by `set` / `post`.
    pub wake_calls: u64,
    /// Sleepers those calls woke (a semaphore's calls wake at most one each).
    pub woken: u64,
    /// `set` / `post` calls that found nobody asleep and made no system call.
    pub skipped: u64,
}

impl WakeStats {
    pub(crate) fn read(w: &ObjectWords<'_>) -> WakeStats {
        let (wake_calls, woken, skipped) = w.wake_counters();
        WakeStats { wake_calls, woken, skipped }
    }
}

macro_rules! object_common {
    ($ty:ident) => {
        impl $ty {
            /// The object's name.
            pub fn name(&self) -> &str {
                &self.handle.name
            }

            /// The object's file under the ringbus root.
            pub fn path(&self) -> &Path {
                &self.handle.path
            }

            /// Removes the name, like `sem_unlink`: handles already open keep working;
            /// the next open of the name creates a new object.
            pub fn unlink(&self) {
                segment::remove(&self.handle.path);
            }

            /// Wake counters kept in shared memory by every process using the object.
            pub fn stats(&self) -> WakeStats {
                WakeStats::read(&self.handle.words())
            }
        }
    };
}

/// A one-bit event between processes, like PostgreSQL's latch: `set` wakes every waiter
/// (one system call, none if nobody waits); the owner `reset`s it before looking for work.
/// Cheap to clone; clones share the mapping.
///
/// A latch is named, under the root: every process that opens the name
/// ([`Node::latch`](crate::Node::latch) or [`Latch::open`]) shares it, and it stays until
/// [`unlink`](Latch::unlink)ed (or the root is cleaned). Wait on it alone with
/// [`Latch::wait`], or with other sources in a [`WaitSet`](crate::WaitSet).
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// use ringbus::Latch;
/// use std::time::Duration;
/// let work_ready = node.latch("worker/ready")?;
/// // Another handle of the same latch, as another process would open it.
/// let other = Latch::open(node.root(), "worker/ready")?;
///
/// work_ready.reset(); // reset, look for work, then wait: a set in between is not missed
/// assert!(other.set()); // it was not set: this set it (and woke any waiter)
/// work_ready.wait(Some(Duration::from_secs(1)))?; // returns at once: it is set
/// assert!(work_ready.is_set());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Latch {
    pub(crate) handle: Arc<ObjectHandle>,
}
object_common!(Latch);

impl Latch {
    /// Opens the latch `name` under `root`, creating it (not set) if needed. Names follow
    /// the topic-name rules.
    pub fn open(root: &Root, name: &str) -> Result<Latch, OpenError> {
        Ok(Latch { handle: Arc::new(ObjectHandle::open(root, SegmentKind::Latch, name, 0)?) })
    }

    pub(crate) fn word(&self) -> LatchWord<'_> {
        LatchWord(self.handle.word())
    }

    /// Sets the latch and wakes every waiter. Idempotent; returns whether it was unset.
    /// No system call when nobody waits.
    pub fn set(&self) -> bool {
        match self.word().set() {
            SetOutcome::AlreadySet => false,
            SetOutcome::SetQuietly => {
                self.handle.count_wake(None);
                true
            }
            SetOutcome::Woke(n) => {
                self.handle.count_wake(Some(n));
                true
            }
        }
    }

    /// Clears the latch. Reset, *then* check for work, then wait: a set in between is
    /// never missed.
    pub fn reset(&self) {
        self.word().reset()
    }

    /// Whether the latch is set right now (one load, no system call). Another process may
    /// set or reset it the moment after.
    pub fn is_set(&self) -> bool {
        self.word().is_set()
    }

    /// Waits until the latch is set (returns at once if it is), at most `timeout`.
    pub fn wait(&self, timeout: Option<Duration>) -> Result<(), TimedOut> {
        self.word().wait(timeout)
    }
}

/// A counting semaphore between processes — job tokens without a pipe: `post` wakes
/// exactly one sleeper (no herd) and makes no system call when nobody sleeps.
/// Cheap to clone; clones share the mapping.
///
/// Named under the root like a [`Latch`], and kept until [`unlink`](Semaphore::unlink)ed.
/// A process that dies holding tokens does not give them back: post only what you took.
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// use std::time::Duration;
/// let jobs = node.semaphore("build/jobs", 2)?; // created with 2 tokens if new
/// assert!(jobs.try_wait());
/// assert!(jobs.try_wait());
/// assert!(!jobs.try_wait()); // none left: wait() would sleep until a post
/// jobs.post()?; // a job is done: its token back, one sleeper woken
/// jobs.wait_timeout(Duration::from_secs(1))?;
/// assert_eq!(jobs.value(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Semaphore {
    pub(crate) handle: Arc<ObjectHandle>,
}
object_common!(Semaphore);

/// `post` on a semaphore already holding [`MAX_SEMAPHORE_COUNT`](crate::MAX_SEMAPHORE_COUNT) tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the semaphore already holds the maximum of {max} tokens; a post without a matching wait is a bug")]
pub struct SemaphoreFull {
    /// The most tokens a semaphore holds: [`MAX_SEMAPHORE_COUNT`](crate::MAX_SEMAPHORE_COUNT).
    pub max: u32,
}

impl Semaphore {
    /// Opens the semaphore `name` under `root`, creating it with `initial` tokens if it
    /// does not exist (an existing semaphore keeps its count).
    pub fn open(root: &Root, name: &str, initial: u32) -> Result<Semaphore, OpenError> {
        if initial > crate::notify::semaphore::MAX_SEMAPHORE_COUNT {
            return Err(OpenError::InvalidConfig {
                field: "initial",
                value: initial as u64,
                reason: "a semaphore holds at most 2^31 - 1 tokens",
            });
        }
        Ok(Semaphore { handle: Arc::new(ObjectHandle::open(root, SegmentKind::Semaphore, name, initial)?) })
    }

    pub(crate) fn words(&self) -> SemaphoreWords<'_> {
        let w = self.handle.words();
        SemaphoreWords { count: w.word, sleepers: w.sleepers }
    }

    /// Returns a token and wakes exactly one sleeper, if any sleeps.
    pub fn post(&self) -> Result<(), SemaphoreFull> {
        match self.words().post() {
            PostOutcome::Full => return Err(SemaphoreFull { max: crate::notify::semaphore::MAX_SEMAPHORE_COUNT }),
            PostOutcome::Quiet => self.handle.count_wake(None),
            PostOutcome::Woke(n) => self.handle.count_wake(Some(n)),
        }
        Ok(())
    }

    /// Takes a token if one is free. Never blocks; no system call.
    pub fn try_wait(&self) -> bool {
        self.words().try_wait()
    }

    /// Takes a token, sleeping until one is free.
    pub fn wait(&self) {
        let _ = self.words().wait(None);
    }

    /// Takes a token, sleeping at most `timeout`.
    pub fn wait_timeout(&self, timeout: Duration) -> Result<(), TimedOut> {
        self.words().wait(Some(timeout))
    }

    /// Free tokens right now (a snapshot).
    pub fn value(&self) -> u32 {
        self.handle.words().word_now()
    }
}
