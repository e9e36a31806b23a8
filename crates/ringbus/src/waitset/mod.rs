//! [`WaitSet`]: one wait over topics, shared-memory words, latches, semaphores, fds,
//! intervals, deadlines and peer death — events in shared memory and fds together, which
//! `epoll` alone cannot wait on.
//!
//! A wait first *looks* at every shared-memory source (plain loads, no system call) and
//! fires due timers; only if nothing is ready does it register on each source's futex word
//! (a topic's sleepers count, a latch's waiters bit, a semaphore's sleepers count), look
//! once more, and sleep on all the words at once through its backend — `futex_waitv`
//! alone, or inside io_uring or epoll when fds are attached. Wakers need nothing but the
//! word: a publish, `Latch::set`, `Semaphore::post` or [`crate::wake`] from any process.

pub(crate) mod backend;
#[cfg(all(test, not(miri)))] // thousands of runs: too slow under Miri, and no unsafe code
mod interleavings;
pub mod probe;
mod source;

pub use backend::{Backend, BackendChoice};

use crate::sys::clock::monotonic_ns;
use backend::{Completion, Sleeper};
use source::{Armed, Registration, Source};
use std::cell::RefCell;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

/// Identifies an attached source in the events a wait returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(u64);

/// What an fd source waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interest {
    /// Data to read, or the other end hung up (`POLLIN`).
    Readable,
    /// Room to write (`POLLOUT`).
    Writable,
    /// Either.
    Both,
}

impl Interest {
    fn poll_events(self) -> u32 {
        match self {
            Interest::Readable => backend::READABLE,
            Interest::Writable => backend::WRITABLE,
            Interest::Both => backend::READABLE | backend::WRITABLE,
        }
    }
}

/// What became ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The subscriber may have data: `take` until it returns `None`. For a queue's
    /// consumer: a command is ready; pop until `None`.
    Data,
    /// The word changed; its new value (the next wait waits for it to change again).
    Word(u32),
    /// The latch is set (reported at every wait until it is reset).
    LatchSet,
    /// A semaphore token was taken for you: `post` it back when done.
    Token,
    /// The fd is ready (level-triggered: reported at every wait until drained).
    Fd {
        /// Reading will not block.
        readable: bool,
        /// Writing will not block.
        writable: bool,
        /// The other end hung up, or the fd is in error or invalid (`POLLHUP`, `POLLERR`,
        /// `POLLNVAL`): detach it, or it is reported at every wait.
        hangup: bool,
    },
    /// An interval elapsed; how many periods passed since it last fired (1 unless late).
    Interval(u64),
    /// The deadline passed (reported once).
    Deadline,
    /// The node's process is gone (reported once).
    PeerGone,
}

/// One ready source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// Which source: the key its [`Attachment::key`] gave (or the `Key` an
    /// [`Executor`](crate::Executor) method returned).
    pub key: Key,
    /// What happened to it.
    pub kind: EventKind,
}

/// Why a wait set could not attach or wait.
#[derive(Debug, thiserror::Error)]
pub enum WaitSetError {
    /// A subscriber created with [`Wake::Never`](crate::Wake::Never) was attached; nothing
    /// ever wakes it. Read it from an interval ([`WaitSet::attach_interval`]) instead, or
    /// subscribe with `Wake::OnData`.
    #[error(
        "a subscriber created with Wake::Never is never woken and cannot be attached; poll it from an interval instead"
    )]
    PollingOnly,
    /// The attach would make more than [`MAX_WORDS`] shared-memory sources (subscribers,
    /// words, latches, semaphores), the most one `futex_waitv` sleeps on. Split them over
    /// several wait sets (one per thread).
    #[error(
        "more than 128 shared-memory sources are attached (the futex_waitv limit); split them over several wait sets"
    )]
    TooManyWords,
    /// The backend forced with [`BackendChoice::Force`] cannot do what was asked (the
    /// futex backend watches no fd and gives out none). Use [`BackendChoice::Auto`].
    #[error("the {backend:?} backend cannot {what}; use BackendChoice::Auto")]
    Unsupported {
        /// The forced backend.
        backend: Backend,
        /// What it was asked to do.
        what: &'static str,
    },
    /// A wait without a timeout found nothing that could ever become ready (no source that
    /// sleeps, no timer, no fd): it would never return. Attach something, or give a
    /// timeout.
    #[error("nothing is attached that could ever become ready, and no timeout was given: the wait would never return")]
    NothingToWaitFor,
    /// A system call of the backend failed (creating an io_uring, epoll or eventfd,
    /// adding an fd, waiting), for lack of memory or of fds (`ulimit -n`), say. See the
    /// inner error.
    #[error("the wait set's backend failed: {0}")]
    Io(#[from] io::Error),
    /// [`WaitSet::attach_peer_death`] could not read the peer's node file or open a pidfd
    /// on its process (see the inner error).
    #[error("cannot watch the peer node: {0}")]
    Peer(#[from] crate::OpenError),
}

/// The most shared-memory sources one wait set sleeps on (the `futex_waitv` limit).
pub const MAX_WORDS: usize = crate::sys::futex::WAITV_MAX;

/// How many times a wait whose deadline has passed looks again because the armed vector
/// ended under it (a word moved between the look and the sleep); then it returns and
/// leaves a foreign loop's fd readable. Reached only by words that keep moving.
const MAX_LOOKS_AFTER_DEADLINE: u32 = 64;

struct ArmedVector {
    id: u64,
    keys: Vec<Key>,
    entries: Vec<crate::sys::futex::WaitvEntry>,
    registrations: Vec<Registration>,
}

struct Inner<'a> {
    choice: BackendChoice,
    sleeper: Box<dyn Sleeper>,
    sources: Vec<(Key, Source<'a>)>,
    next_key: u64,
    next_vector: u64,
    /// Vectors handed to the backend whose completion has not been seen yet.
    outstanding: Vec<ArmedVector>,
    /// Fd events reaped but not returned yet.
    pending: Vec<Event>,
    /// A foreign loop polls our fd: stay on an fd-capable backend.
    fd_wanted: bool,
}

/// Waits on many sources at once. See the [module documentation](self).
///
/// Not `Sync`: one thread waits on it. Attachments detach when their [`Attachment`]
/// guard drops (or call [`Attachment::keep`] and later [`WaitSet::detach`]).
///
/// Attach sources, then [`wait`](WaitSet::wait): it returns the [`Event`]s of the sources
/// that are ready, each with the [`Key`] its attachment gave. A wait that finds something
/// ready makes no system call.
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// use ringbus::{EventKind, WaitSet};
/// use std::time::Duration;
/// let mut publisher = node.topic("chatter").publisher()?;
/// let mut subscriber = node.topic("chatter").subscriber()?;
/// let stop = node.latch("stop")?;
///
/// let wait_set = WaitSet::new()?;
/// let data = wait_set.attach_subscriber(&subscriber)?;
/// let stopped = wait_set.attach_latch(&stop)?;
///
/// publisher.publish_copy(b"hello")?; // from any process
/// stop.set(); // from any process
/// let events = wait_set.wait(Some(Duration::from_secs(5)))?; // at once: both are ready
/// for event in &events {
///     if event.key == data.key() {
///         while let Some(sample) = subscriber.take()? {
///             assert_eq!(&*sample, b"hello");
///         }
///     } else if event.key == stopped.key() {
///         assert_eq!(event.kind, EventKind::LatchSet);
///     }
/// }
/// assert_eq!(events.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct WaitSet<'a> {
    inner: RefCell<Inner<'a>>,
}

impl std::fmt::Debug for WaitSet<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.borrow();
        f.debug_struct("WaitSet")
            .field("backend", &inner.sleeper.kind())
            .field("sources", &inner.sources.len())
            .finish()
    }
}

/// Keeps a source attached; detaches it on drop.
#[derive(Debug)]
#[must_use = "the source is detached as soon as its Attachment is dropped"]
pub struct Attachment<'s, 'a> {
    set: &'s WaitSet<'a>,
    key: Key,
}

impl Attachment<'_, '_> {
    /// The key the source's events carry ([`Event::key`]).
    pub fn key(&self) -> Key {
        self.key
    }

    /// Keeps the source attached after this guard is gone; detach it with
    /// [`WaitSet::detach`].
    pub fn keep(self) -> Key {
        let key = self.key;
        std::mem::forget(self);
        key
    }
}

impl Drop for Attachment<'_, '_> {
    fn drop(&mut self) {
        self.set.detach(self.key);
    }
}

fn deadline_ns(timeout: Duration) -> u64 {
    monotonic_ns().saturating_add(timeout.as_nanos().min(u64::MAX as u128) as u64)
}

impl<'a> WaitSet<'a> {
    /// A wait set on the cheapest backend (see [`BackendChoice::Auto`]).
    pub fn new() -> Result<WaitSet<'a>, WaitSetError> {
        Self::with_backend(BackendChoice::Auto)
    }

    /// A wait set on a chosen backend.
    pub fn with_backend(choice: BackendChoice) -> Result<WaitSet<'a>, WaitSetError> {
        let choice = match (choice, backend::from_env()) {
            (BackendChoice::Auto, Some(forced)) => BackendChoice::Force(forced),
            (c, _) => c,
        };
        let kind = match choice {
            BackendChoice::Auto => Backend::Futex,
            BackendChoice::Force(b) => b,
        };
        Ok(Self::on(choice, backend::build(kind)?))
    }

    /// A wait set on a model of a backend.
    #[cfg(test)]
    fn with_sleeper(sleeper: Box<dyn Sleeper>) -> WaitSet<'a> {
        Self::on(BackendChoice::Force(sleeper.kind()), sleeper)
    }

    fn on(choice: BackendChoice, sleeper: Box<dyn Sleeper>) -> WaitSet<'a> {
        let inner = Inner {
            choice,
            sleeper,
            sources: Vec::new(),
            next_key: 0,
            next_vector: 0,
            outstanding: Vec::new(),
            pending: Vec::new(),
            fd_wanted: false,
        };
        WaitSet { inner: RefCell::new(inner) }
    }

    /// The backend in use right now.
    pub fn backend(&self) -> Backend {
        self.inner.borrow().sleeper.kind()
    }

    fn attach(&self, source: Source<'a>) -> Result<Attachment<'_, 'a>, WaitSetError> {
        let mut inner = self.inner.borrow_mut();
        let key = Key(inner.next_key);
        inner.next_key += 1;
        if source.is_memory() && inner.sources.iter().filter(|(_, s)| s.is_memory()).count() >= MAX_WORDS {
            return Err(WaitSetError::TooManyWords);
        }
        if let Some((fd, events)) = source.fd() {
            inner.ensure_fd_backend()?;
            inner.sleeper.add_fd(key.0, fd, events)?;
        }
        if inner.fd_wanted {
            // The armed vector lacks the new source: a foreign loop must call `wait`,
            // which arms it.
            if let Err(e) = inner.sleeper.keep_readable() {
                if let Some((fd, _)) = source.fd() {
                    let _ = inner.sleeper.remove_fd(key.0, fd);
                }
                return Err(e.into());
            }
        }
        inner.sources.push((key, source));
        Ok(Attachment { set: self, key })
    }

    /// Wakes on data for `subscriber` (which must be `Wake::OnData`). The subscriber stays
    /// usable: on [`EventKind::Data`], `take` from it until `None`.
    pub fn attach_subscriber(&self, subscriber: &crate::Subscriber) -> Result<Attachment<'_, 'a>, WaitSetError> {
        if subscriber.wake_mode() == crate::Wake::Never {
            return Err(WaitSetError::PollingOnly);
        }
        self.attach(Source::Subscriber(subscriber.core().clone()))
    }

    /// Wakes when a command is ready for `consumer` (of a queue created with
    /// `Wake::OnData`). The consumer stays usable: on [`EventKind::Data`], pop from it until
    /// `None`. Do not also wait on it elsewhere (`Consumer::wait` in another thread) while
    /// the wait set sleeps on it: both would sleep as the queue's one consumer.
    pub fn attach_queue<T>(&self, consumer: &crate::Consumer<T>) -> Result<Attachment<'_, 'a>, WaitSetError> {
        if consumer.wake_mode() == crate::Wake::Never {
            return Err(WaitSetError::PollingOnly);
        }
        self.attach(Source::Queue(consumer.view()))
    }

    /// Wakes while requests wait for `server` (a [`Server`](crate::service::Server) or a
    /// [`RawServer`](crate::service::RawServer)): on [`EventKind::Data`],
    /// `serve_once(Some(Duration::ZERO), ..)` answers them without sleeping. Do not also
    /// call `serve_once` with a timeout in another thread while the wait set sleeps on it.
    pub fn attach_server(
        &self,
        server: &impl AsRef<crate::service::RawServer>,
    ) -> Result<Attachment<'_, 'a>, WaitSetError> {
        self.attach_queue(server.as_ref().requests())
    }

    /// Wakes when `word` differs from `expected` — any `AtomicU32` in memory shared with
    /// the wakers (a `MAP_SHARED` mapping), woken by [`crate::wake`]. After each
    /// [`EventKind::Word`], the value reported becomes the new `expected`.
    pub fn attach_word(&self, word: &'a AtomicU32, expected: u32) -> Result<Attachment<'_, 'a>, WaitSetError> {
        self.attach(Source::Word { word, expected })
    }

    /// Wakes while `latch` is set.
    pub fn attach_latch(&self, latch: &crate::Latch) -> Result<Attachment<'_, 'a>, WaitSetError> {
        self.attach(Source::Latch(latch.clone()))
    }

    /// Takes a token of `semaphore` for you whenever one is free: each
    /// [`EventKind::Token`] is one token you now hold and must `post` back.
    pub fn attach_semaphore(&self, semaphore: &crate::Semaphore) -> Result<Attachment<'_, 'a>, WaitSetError> {
        self.attach(Source::Semaphore(semaphore.clone()))
    }

    /// Wakes when `fd` is readable and/or writable (level-triggered). Moves the wait set
    /// to an fd-capable backend (io_uring, or epoll where io_uring is refused).
    pub fn attach_fd(&self, fd: BorrowedFd<'a>, interest: Interest) -> Result<Attachment<'_, 'a>, WaitSetError> {
        self.attach(Source::Fd { fd: fd.as_raw_fd(), interest })
    }

    /// Fires every `period`, first one period from now.
    pub fn attach_interval(&self, period: Duration) -> Result<Attachment<'_, 'a>, WaitSetError> {
        let period_ns = (period.as_nanos().min(u64::MAX as u128) as u64).max(1);
        self.attach(Source::Interval { period_ns, next_ns: monotonic_ns().saturating_add(period_ns) })
    }

    /// Fires once at `at`.
    pub fn attach_deadline(&self, at: Instant) -> Result<Attachment<'_, 'a>, WaitSetError> {
        self.attach(Source::Deadline { at_ns: deadline_ns(at.saturating_duration_since(Instant::now())), fired: false })
    }

    /// Fires once when the node `node_id` under `root` is gone (its process exited or was
    /// killed) — at once if it is gone already. Watches a pidfd, so it moves the wait set
    /// to an fd-capable backend.
    pub fn attach_peer_death(&self, root: &crate::Root, node_id: u64) -> Result<Attachment<'_, 'a>, WaitSetError> {
        let pidfd = crate::registry::peer_pidfd(root, node_id)?;
        let gone = pidfd.is_none();
        let attachment = self.attach(Source::PeerDeath { pidfd })?;
        if gone {
            self.inner.borrow_mut().pending.push(Event { key: attachment.key, kind: EventKind::PeerGone });
        }
        Ok(attachment)
    }

    /// Detaches a source (what dropping its [`Attachment`] does).
    pub fn detach(&self, key: Key) {
        let mut inner = self.inner.borrow_mut();
        let Some(i) = inner.sources.iter().position(|(k, _)| *k == key) else {
            return;
        };
        let (_, source) = inner.sources.remove(i);
        if let Some((fd, _)) = source.fd() {
            let _ = inner.sleeper.remove_fd(key.0, fd);
        }
        if inner.outstanding.iter().any(|v| v.keys.contains(&key)) {
            inner.sleeper.disarm();
        }
        inner.pending.retain(|e| e.key != key);
    }

    /// An fd that becomes readable when a [`WaitSet::wait`] would report something, for
    /// a foreign event loop (epoll, asyncio, tokio): poll it, then call
    /// `wait(Some(Duration::ZERO))`. The first call moves the wait set to an fd-capable
    /// backend and arms it; from then on, every wait leaves the set either armed (a
    /// publish, wake or fd makes the fd readable) or the fd readable (it returned events,
    /// or a source was attached: call `wait` again), so a loop that sleeps on the fd
    /// whenever it is quiet misses nothing — whether it calls `wait(Some(ZERO))` until
    /// that returns nothing, or once per readiness. Later calls only return the fd.
    pub fn as_raw_fd(&self) -> Result<RawFd, WaitSetError> {
        let mut inner = self.inner.borrow_mut();
        if !inner.fd_wanted {
            inner.ensure_fd_backend()?;
            inner.fd_wanted = true;
            let mut events = Vec::new();
            inner.wait_into(Some(monotonic_ns()), &mut events)?;
            // The look took what was pending; it is all reported by the next wait.
            inner.pending.extend(events);
        }
        inner
            .sleeper
            .raw_fd()
            .ok_or(WaitSetError::Unsupported { backend: inner.sleeper.kind(), what: "give out an fd" })
    }

    /// Waits until something is ready or `timeout` passes (`None`: forever) and returns
    /// what is ready (empty on timeout). Never returns an empty list before the timeout.
    pub fn wait(&self, timeout: Option<Duration>) -> Result<Vec<Event>, WaitSetError> {
        let mut events = Vec::new();
        self.wait_into(timeout, &mut events)?;
        Ok(events)
    }

    /// [`WaitSet::wait`] into a caller's vector (cleared first), to reuse its allocation.
    pub fn wait_into(&self, timeout: Option<Duration>, events: &mut Vec<Event>) -> Result<(), WaitSetError> {
        events.clear();
        self.inner.borrow_mut().wait_into(timeout.map(deadline_ns), events)
    }

    /// Calls `on_event` for every event until it returns `ControlFlow::Break`.
    pub fn run(&self, mut on_event: impl FnMut(&Event) -> std::ops::ControlFlow<()>) -> Result<(), WaitSetError> {
        let mut events = Vec::new();
        loop {
            self.wait_into(None, &mut events)?;
            for event in &events {
                if on_event(event).is_break() {
                    return Ok(());
                }
            }
        }
    }
}

impl Inner<'_> {
    /// Moves to io_uring (or epoll if io_uring is refused) when fds must be watched.
    fn ensure_fd_backend(&mut self) -> Result<(), WaitSetError> {
        if self.sleeper.kind() != Backend::Futex {
            return Ok(());
        }
        if let BackendChoice::Force(b) = self.choice {
            return Err(WaitSetError::Unsupported { backend: b, what: "watch fds" });
        }
        let sleeper = match backend::build(Backend::IoUring) {
            Ok(s) => s,
            Err(_) => backend::build(Backend::Epoll)?,
        };
        self.sleeper.disarm();
        self.settle();
        self.sleeper = sleeper;
        for (key, source) in &self.sources {
            if let Some((fd, events)) = source.fd() {
                self.sleeper.add_fd(key.0, fd, events)?;
            }
        }
        Ok(())
    }

    /// Undoes the registrations of vectors the old backend will never report.
    fn settle(&mut self) {
        for vector in self.outstanding.drain(..) {
            vector.registrations.into_iter().for_each(Registration::undo);
        }
    }

    fn look(&mut self, now_ns: u64, events: &mut Vec<Event>) {
        events.append(&mut self.pending);
        for (key, source) in &mut self.sources {
            let kind = match source {
                Source::Interval { period_ns, next_ns } if now_ns >= *next_ns => {
                    let periods = (now_ns - *next_ns) / *period_ns + 1;
                    *next_ns = next_ns.saturating_add(periods.saturating_mul(*period_ns));
                    Some(EventKind::Interval(periods))
                }
                Source::Deadline { at_ns, fired } if !*fired && now_ns >= *at_ns => {
                    *fired = true;
                    Some(EventKind::Deadline)
                }
                s => s.check(),
            };
            if let Some(kind) = kind {
                events.push(Event { key: *key, kind });
            }
        }
    }

    fn next_timer_ns(&self) -> Option<u64> {
        self.sources
            .iter()
            .filter_map(|(_, s)| match s {
                Source::Interval { next_ns, .. } => Some(*next_ns),
                Source::Deadline { at_ns, fired: false } => Some(*at_ns),
                _ => None,
            })
            .min()
    }

    /// Registers every shared-memory source and arms the backend with their words —
    /// unless the armed vector already holds exactly these words and values.
    fn arm(&mut self, events: &mut Vec<Event>) -> Result<(), WaitSetError> {
        let mut vector =
            ArmedVector { id: self.next_vector, keys: Vec::new(), entries: Vec::new(), registrations: Vec::new() };
        for (key, source) in &mut self.sources {
            match source.arm() {
                None => {}
                Some(Armed::Ready(kind)) => events.push(Event { key: *key, kind }),
                Some(Armed::Sleep(entry, registration)) => {
                    vector.keys.push(*key);
                    vector.entries.push(entry);
                    vector.registrations.push(registration);
                }
            }
        }
        let current = self.sleeper.armed().and_then(|id| self.outstanding.iter().find(|v| v.id == id));
        if !events.is_empty() || vector.entries.is_empty() || current.is_some_and(|c| c.entries == vector.entries) {
            vector.registrations.into_iter().for_each(Registration::undo);
            return Ok(());
        }
        if current.is_some() {
            self.sleeper.disarm();
        }
        self.next_vector += 1;
        self.sleeper.arm(vector.id, vector.entries.clone())?;
        self.outstanding.push(vector);
        Ok(())
    }

    /// Files what the backend reported; returns whether a futex vector ended.
    fn complete(&mut self, completions: Vec<Completion>) -> bool {
        let mut vector_ended = false;
        for completion in completions {
            match completion {
                Completion::Futex { id, result } => {
                    let Some(i) = self.outstanding.iter().position(|v| v.id == id) else {
                        continue;
                    };
                    let vector = self.outstanding.remove(i);
                    vector_ended = true;
                    if let Ok(entry) = result {
                        if let Some(r) = vector.registrations.get(entry) {
                            r.woken();
                        }
                    }
                    vector.registrations.into_iter().for_each(Registration::undo);
                }
                Completion::Fd { token, revents } => self.fd_ready(Key(token), revents),
            }
        }
        vector_ended
    }

    fn fd_ready(&mut self, key: Key, revents: u32) {
        let Some(i) = self.sources.iter().position(|(k, _)| *k == key) else {
            return;
        };
        let hangup = revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) as u32 != 0;
        let kind = match &mut self.sources[i].1 {
            Source::PeerDeath { pidfd } => {
                if let Some(fd) = pidfd.take() {
                    let _ = self.sleeper.remove_fd(key.0, fd.as_raw_fd());
                }
                EventKind::PeerGone
            }
            _ => EventKind::Fd {
                readable: revents & backend::READABLE != 0,
                writable: revents & backend::WRITABLE != 0,
                hangup,
            },
        };
        self.pending.push(Event { key, kind });
    }

    /// Looks, arms, sleeps until something is ready or the deadline passes.
    ///
    /// With a deadline already passed (`wait(0)`, what a foreign loop calls when the fd is
    /// readable), an fd backend must not return "nothing" while the fd is quiet and the
    /// words are unwatched: data published then would never make the fd readable. So a
    /// look that finds nothing always ends with the vector armed *and submitted* (the
    /// backend's `wait` submits); if that reaped the end of the armed vector (a word moved
    /// since the look, or a wake came), it looks and arms again. See [`Inner::finish`]
    /// for the other half (returning events).
    fn wait_into(&mut self, deadline_ns: Option<u64>, events: &mut Vec<Event>) -> Result<(), WaitSetError> {
        let mut completions = Vec::new();
        let mut looks_after_deadline = 0;
        loop {
            self.look(monotonic_ns(), events);
            if events.is_empty() {
                self.arm(events)?;
            }
            let now = monotonic_ns();
            let expired = deadline_ns.is_some_and(|d| now >= d);
            if !events.is_empty() {
                self.reap_ready_fds(events)?;
                return self.finish(events);
            }
            if expired && self.sleeper.kind() == Backend::Futex {
                return self.finish(events);
            }
            let wake_at = match (deadline_ns, self.next_timer_ns()) {
                (Some(d), Some(t)) => Some(d.min(t)),
                (d, t) => d.or(t),
            };
            if wake_at.is_none()
                && self.sleeper.armed().is_none()
                && !self.sources.iter().any(|(_, s)| s.fd().is_some())
            {
                return Err(WaitSetError::NothingToWaitFor);
            }
            self.sleeper.wait(wake_at, &mut completions)?;
            let vector_ended = self.complete(std::mem::take(&mut completions));
            if expired {
                events.append(&mut self.pending);
                if !events.is_empty() || !vector_ended || self.sleeper.armed().is_some() {
                    return self.finish(events);
                }
                looks_after_deadline += 1;
                if looks_after_deadline == MAX_LOOKS_AFTER_DEADLINE {
                    // Words that keep moving under every look: let the caller come back.
                    self.sleeper.keep_readable()?;
                    return Ok(());
                }
            }
        }
    }

    /// Shared-memory sources were ready without sleeping: also reports the fds that are
    /// ready now (the backend's completions so far, without blocking), or a source ready at
    /// every wait — a busy topic — would keep every fd from ever being reported.
    fn reap_ready_fds(&mut self, events: &mut Vec<Event>) -> Result<(), WaitSetError> {
        if self.sleeper.kind() == Backend::Futex || !self.sources.iter().any(|(_, s)| s.fd().is_some()) {
            return Ok(());
        }
        let mut completions = Vec::new();
        self.sleeper.wait(Some(0), &mut completions)?; // a past deadline: do not block
        self.complete(completions);
        // An fd reported by this wait already (level-triggered: still ready) once only.
        for event in std::mem::take(&mut self.pending) {
            if !events.iter().any(|e| e.key == event.key) {
                events.push(event);
            }
        }
        Ok(())
    }

    /// Ends a wait that returns `events`. The futex backend lets go of its vector. An fd
    /// backend whose fd a foreign loop polls keeps that fd readable until the next wait if
    /// there are events: the sources that were ready are not armed, and a loop that goes
    /// back to polling after handling them (instead of calling `wait(0)` until it returns
    /// nothing) must still hear of what arrives next — the next wait arms them.
    fn finish(&mut self, events: &[Event]) -> Result<(), WaitSetError> {
        if self.sleeper.kind() == Backend::Futex {
            self.sleeper.disarm();
            self.settle();
        } else if self.fd_wanted && !events.is_empty() {
            self.sleeper.keep_readable()?;
        }
        Ok(())
    }
}

impl Drop for WaitSet<'_> {
    fn drop(&mut self) {
        let inner = self.inner.get_mut();
        inner.sleeper.disarm();
        inner.settle();
    }
}
