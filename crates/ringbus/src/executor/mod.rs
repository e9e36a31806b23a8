//! [`Executor`]: one thread running timers, per-message subscription callbacks, inputs read
//! by timers, and fd / word callbacks, all over one [`WaitSet`].
//!
//! Why two styles: a node that receives topics at 10, 30 and 50 Hz and processes them in a
//! 10 Hz timer wastes most of its CPU waking up for messages it throws away. Here the cheap
//! style is one line away from the usual one: an [`Input`] made from a `Wake::OnData`
//! subscriber is filled by the executor as messages arrive (one wake-up per message, the
//! callback style); made from a `Wake::Never` subscriber it is read by the timer itself and
//! nothing wakes the thread between ticks (the polling style). The timer's code is the
//! same.

mod input;

pub use input::{Drained, Input};

use crate::waitset::{EventKind, Interest, Key, WaitSet, WaitSetError};
use crate::{Sample, Subscriber, TakeError};
use std::os::fd::BorrowedFd;
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

/// Handed to every callback: ask the executor to stop after this round.
#[derive(Debug, Default)]
pub struct Control {
    stop: bool,
}

impl Control {
    /// [`Executor::spin`] returns once the current round of callbacks is done.
    pub fn stop(&mut self) {
        self.stop = true;
    }
}

/// Counters of one executor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecutorStats {
    /// Waits that returned with something to do: the thread's wake-ups (a wait that found
    /// work without sleeping counts too).
    pub wakeups: u64,
    /// Timer callbacks run.
    pub timer_calls: u64,
    /// Messages handed to subscription callbacks or queued into callback-style inputs.
    pub messages: u64,
}

/// Why a round of the executor failed. The executor stays usable: call `spin` again.
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    /// The wait underneath failed (see [`WaitSetError`]); no callback ran.
    #[error(transparent)]
    WaitSet(#[from] WaitSetError),
    /// A subscription or callback-style input could not take its messages (see
    /// [`TakeError`]); the callbacks before it in the round ran, those after it did not.
    #[error("taking from a subscription failed: {0}")]
    Take(#[from] TakeError),
}

type Callback<'a> = Box<dyn FnMut(EventKind, &mut Control) -> Result<(), TakeError> + 'a>;

/// Runs callbacks on one thread. See the [module documentation](self).
///
/// Register timers ([`Executor::timer`]), per-message callbacks
/// ([`Executor::subscription`]), inputs for timers to read ([`Executor::input`]), fds and
/// words; then [`spin`](Executor::spin) until a callback calls [`Control::stop`], or
/// [`spin_once`](Executor::spin_once) / [`spin_for`](Executor::spin_for) for a bounded
/// time. Callbacks may borrow from the caller for the executor's lifetime `'a`.
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// use ringbus::{Executor, Wake};
/// use std::time::Duration;
/// let mut publisher = node.topic("chatter").publisher()?;
/// let mut executor = Executor::new()?;
///
/// // Callback style: called once per message, as it arrives.
/// executor.subscription(node.topic("chatter").subscriber()?, |sample, _control| {
///     assert_eq!(&*sample, b"hello");
/// })?;
///
/// // Polling style: nothing wakes the thread for this input; the timer reads it.
/// let input = executor.input(node.topic("chatter").wake(Wake::Never).subscriber()?)?;
/// executor.timer(Duration::from_millis(10), move |control| {
///     if let Ok(Some(latest)) = input.latest() {
///         assert_eq!(&**latest, b"hello");
///         control.stop(); // spin returns after this round
///     }
/// })?;
///
/// publisher.publish_copy(b"hello")?;
/// executor.spin_for(Duration::from_secs(5))?;
/// assert_eq!(executor.stats().messages, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Executor<'a> {
    wait_set: WaitSet<'a>,
    callbacks: Vec<(Key, Callback<'a>)>,
    stats: std::rc::Rc<std::cell::Cell<ExecutorStats>>,
    events: Vec<crate::Event>,
}

impl std::fmt::Debug for Executor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor").field("wait_set", &self.wait_set).field("callbacks", &self.callbacks.len()).finish()
    }
}

impl<'a> Executor<'a> {
    /// An executor over a new wait set (the cheapest backend; see [`WaitSet::new`]).
    pub fn new() -> Result<Executor<'a>, WaitSetError> {
        Ok(Self::with_wait_set(WaitSet::new()?))
    }

    /// An executor over a wait set you configured (a forced backend, say).
    pub fn with_wait_set(wait_set: WaitSet<'a>) -> Executor<'a> {
        Executor { wait_set, callbacks: Vec::new(), stats: Default::default(), events: Vec::new() }
    }

    fn add(&mut self, key: Key, callback: Callback<'a>) -> Key {
        self.callbacks.push((key, callback));
        key
    }

    /// Calls `callback` every `period`, first one period from now. Late ticks are not
    /// queued up: a tick that finds several periods passed runs once.
    pub fn timer(
        &mut self,
        period: Duration,
        mut callback: impl FnMut(&mut Control) + 'a,
    ) -> Result<Key, WaitSetError> {
        let key = self.wait_set.attach_interval(period)?.keep();
        let stats = self.stats.clone();
        Ok(self.add(
            key,
            Box::new(move |_, control| {
                bump(&stats, |s| s.timer_calls += 1);
                callback(control);
                Ok(())
            }),
        ))
    }

    /// Calls `callback` once per message of `subscriber` (which must be `Wake::OnData`),
    /// oldest first. The sample is yours: keep it (it stays pinned) or drop it.
    pub fn subscription(
        &mut self,
        mut subscriber: Subscriber,
        mut callback: impl FnMut(Sample, &mut Control) + 'a,
    ) -> Result<Key, WaitSetError> {
        let key = self.wait_set.attach_subscriber(&subscriber)?.keep();
        let stats = self.stats.clone();
        Ok(self.add(
            key,
            Box::new(move |_, control| {
                while let Some(sample) = subscriber.take()? {
                    bump(&stats, |s| s.messages += 1);
                    callback(sample, control);
                }
                Ok(())
            }),
        ))
    }

    /// An [`Input`] fed from `subscriber`, read by your timers with [`Input::latest`] or
    /// [`Input::take_all`]. Its style follows the subscriber's wake mode — the one line
    /// that differs between the two styles:
    ///
    /// * `Wake::OnData`: callback style — the executor wakes for every message and keeps
    ///   the newest `max_held − 1` samples (pinned, no copy) until a timer reads them;
    /// * `Wake::Never`: polling style — nothing wakes the thread; the timer's read takes
    ///   what arrived since the last one, straight from shared memory.
    pub fn input(&mut self, subscriber: Subscriber) -> Result<Input, WaitSetError> {
        if subscriber.wake_mode() == crate::Wake::Never {
            return Ok(Input::polling(subscriber));
        }
        let key = self.wait_set.attach_subscriber(&subscriber)?.keep();
        let (input, mut fill) = Input::callback(subscriber);
        let stats = self.stats.clone();
        self.add(
            key,
            Box::new(move |_, _| {
                let n = fill()?;
                bump(&stats, |s| s.messages += n);
                Ok(())
            }),
        );
        Ok(input)
    }

    /// Calls `callback` when `fd` is ready (level-triggered: drain it).
    pub fn fd(
        &mut self,
        fd: BorrowedFd<'a>,
        interest: Interest,
        mut callback: impl FnMut(EventKind, &mut Control) + 'a,
    ) -> Result<Key, WaitSetError> {
        let key = self.wait_set.attach_fd(fd, interest)?.keep();
        Ok(self.add(
            key,
            Box::new(move |kind, control| {
                callback(kind, control);
                Ok(())
            }),
        ))
    }

    /// Calls `callback` with the new value whenever `word` changes (see
    /// [`WaitSet::attach_word`]).
    pub fn word(
        &mut self,
        word: &'a AtomicU32,
        expected: u32,
        mut callback: impl FnMut(u32, &mut Control) + 'a,
    ) -> Result<Key, WaitSetError> {
        let key = self.wait_set.attach_word(word, expected)?.keep();
        Ok(self.add(
            key,
            Box::new(move |kind, control| {
                if let EventKind::Word(value) = kind {
                    callback(value, control);
                }
                Ok(())
            }),
        ))
    }

    /// Removes a timer, subscription, input feed, fd or word callback.
    pub fn remove(&mut self, key: Key) {
        self.wait_set.detach(key);
        self.callbacks.retain(|(k, _)| *k != key);
    }

    /// The wait set underneath, to attach more sources whose events you do not need
    /// callbacks for.
    pub fn wait_set(&self) -> &WaitSet<'a> {
        &self.wait_set
    }

    /// Wake-ups, timer calls and messages so far (counted since [`Executor::new`]).
    pub fn stats(&self) -> ExecutorStats {
        self.stats.get()
    }

    /// Waits at most `timeout` (`None`: until something is ready) and runs the callbacks
    /// of whatever became ready. Returns whether a callback asked to stop.
    pub fn spin_once(&mut self, timeout: Option<Duration>) -> Result<bool, ExecutorError> {
        let mut events = std::mem::take(&mut self.events);
        let waited = self.wait_set.wait_into(timeout, &mut events);
        let result = waited.map_err(ExecutorError::from).and_then(|()| self.dispatch(&events));
        self.events = events;
        result
    }

    fn dispatch(&mut self, events: &[crate::Event]) -> Result<bool, ExecutorError> {
        if events.is_empty() {
            return Ok(false);
        }
        bump(&self.stats, |s| s.wakeups += 1);
        let mut control = Control::default();
        for event in events {
            if let Some((_, callback)) = self.callbacks.iter_mut().find(|(k, _)| *k == event.key) {
                callback(event.kind, &mut control)?;
            }
        }
        Ok(control.stop)
    }

    /// Runs until a callback calls [`Control::stop`].
    pub fn spin(&mut self) -> Result<(), ExecutorError> {
        while !self.spin_once(None)? {}
        Ok(())
    }

    /// Runs for `duration` (or until a callback stops it).
    pub fn spin_for(&mut self, duration: Duration) -> Result<(), ExecutorError> {
        let end = Instant::now() + duration;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() || self.spin_once(Some(left))? {
                return Ok(());
            }
        }
    }
}

fn bump(stats: &std::cell::Cell<ExecutorStats>, f: impl FnOnce(&mut ExecutorStats)) {
    let mut s = stats.get();
    f(&mut s);
    stats.set(s);
}
