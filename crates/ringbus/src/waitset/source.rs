//! What a wait set waits on: each attached source, how to tell it is ready without a
//! system call, and how to register it as a sleeper on its futex word.

use super::{EventKind, Interest};
use crate::notify::latch::LatchWord;
use crate::pubsub::subscriber_core::SubscriberCore;
use crate::shm::queue::{QueueView, ONLY_SLEEPER};
use crate::sys::futex::WaitvEntry;
use crate::{Latch, Semaphore};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

#[derive(Debug)]
pub(crate) enum Source<'a> {
    Subscriber(Arc<SubscriberCore>),
    /// A queue's consumer: ready when a command is at its head.
    Queue(Arc<QueueView>),
    /// Ready when the word differs from `expected`; `expected` then becomes what was seen.
    Word {
        word: &'a AtomicU32,
        expected: u32,
    },
    Latch(Latch),
    /// Ready when a token was taken on the user's behalf.
    Semaphore(Semaphore),
    Fd {
        fd: RawFd,
        interest: Interest,
    },
    /// A node's process; `None` once its death was reported (or found at attach).
    PeerDeath {
        pidfd: Option<OwnedFd>,
    },
    Interval {
        period_ns: u64,
        next_ns: u64,
    },
    Deadline {
        at_ns: u64,
        fired: bool,
    },
}

/// What must be undone when a sleep on a source ends.
#[derive(Debug)]
pub(crate) enum Registration {
    /// Counted in a topic's sleepers.
    Topic(Arc<SubscriberCore>),
    /// Counted in a semaphore's sleepers.
    Semaphore(Semaphore),
    /// The consumer's bit among a queue's data sleepers.
    Queue(Arc<QueueView>),
    /// Nothing (a word, or a latch whose waiters bit heals itself).
    Nothing,
}

impl Registration {
    pub(crate) fn undo(self) {
        match self {
            Registration::Topic(core) => core.unregister_sleeper(),
            Registration::Semaphore(s) => s.words().unregister(),
            Registration::Queue(view) => view.data_bell().unregister(ONLY_SLEEPER),
            Registration::Nothing => {}
        }
    }

    /// The sleep was woken through this entry.
    pub(crate) fn woken(&self) {
        if let Registration::Topic(core) = self {
            core.relay();
        }
    }
}

/// The outcome of registering a source to sleep.
pub(crate) enum Armed {
    /// Sleep on this entry; undo the registration when the sleep ends.
    Sleep(WaitvEntry, Registration),
    /// Ready after all (found while registering): no registration is left behind.
    Ready(EventKind),
}

impl Source<'_> {
    pub(crate) fn is_memory(&self) -> bool {
        matches!(
            self,
            Source::Subscriber(_) | Source::Queue(_) | Source::Word { .. } | Source::Latch(_) | Source::Semaphore(_)
        )
    }

    /// The fd to watch and its `poll` events, for fd-backed sources.
    pub(crate) fn fd(&self) -> Option<(RawFd, u32)> {
        match self {
            Source::Fd { fd, interest } => Some((*fd, interest.poll_events())),
            Source::PeerDeath { pidfd: Some(fd) } => Some((fd.as_raw_fd(), super::backend::READABLE)),
            _ => None,
        }
    }

    /// Looks without registering or sleeping: shared-memory reads only.
    pub(crate) fn check(&mut self) -> Option<EventKind> {
        match self {
            Source::Subscriber(core) => core.sleep_value().is_none().then_some(EventKind::Data),
            Source::Queue(view) => view.command_ready().then_some(EventKind::Data),
            Source::Word { word, expected } => {
                // Acquire: pairs with the Release store of whoever changed the word.
                let now = word.load(Ordering::Acquire);
                (now != *expected).then(|| {
                    *expected = now;
                    EventKind::Word(now)
                })
            }
            Source::Latch(latch) => latch.is_set().then_some(EventKind::LatchSet),
            Source::Semaphore(sem) => sem.try_wait().then_some(EventKind::Token),
            _ => None,
        }
    }

    /// Registers as a sleeper and looks once more (the look after registering is what
    /// makes a concurrent wake impossible to miss).
    pub(crate) fn arm(&mut self) -> Option<Armed> {
        Some(match self {
            Source::Subscriber(core) => {
                let word = core.register_sleeper();
                match core.sleep_value() {
                    Some(v) if v == word => {
                        Armed::Sleep(WaitvEntry::new(core.wake_word(), v), Registration::Topic(core.clone()))
                    }
                    _ => {
                        core.unregister_sleeper();
                        Armed::Ready(EventKind::Data)
                    }
                }
            }
            Source::Queue(view) => {
                let bell = view.data_bell();
                let seen = bell.register(ONLY_SLEEPER);
                match view.command_ready() {
                    false => Armed::Sleep(WaitvEntry::new(bell.word, seen), Registration::Queue(view.clone())),
                    true => {
                        bell.unregister(ONLY_SLEEPER);
                        Armed::Ready(EventKind::Data)
                    }
                }
            }
            Source::Word { word, expected } => {
                let entry = WaitvEntry::new(word, *expected);
                match self.check() {
                    Some(kind) => Armed::Ready(kind),
                    None => Armed::Sleep(entry, Registration::Nothing),
                }
            }
            Source::Latch(latch) => loop {
                if let Some(v) = LatchWord(latch.handle.word()).register() {
                    break Armed::Sleep(WaitvEntry::new(latch.handle.word(), v), Registration::Nothing);
                }
                if latch.is_set() {
                    break Armed::Ready(EventKind::LatchSet);
                }
            },
            Source::Semaphore(sem) => {
                let words = sem.words();
                if words.register() {
                    words.unregister();
                    match sem.try_wait() {
                        true => Armed::Ready(EventKind::Token),
                        // Another took it between our two looks: sleep next round.
                        false => return self.arm(),
                    }
                } else {
                    Armed::Sleep(WaitvEntry::new(words.count, 0), Registration::Semaphore(sem.clone()))
                }
            }
            _ => return None,
        })
    }
}
