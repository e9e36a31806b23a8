//! Every interleaving of a foreign event loop's `poll(fd)` / `wait(0)` with publishes, on a
//! modelled kernel: the wait set runs for real, its backend is a model of what io_uring and
//! the epoll backend promise (a vector is queued by `arm`, checked against the words and
//! put to sleep at the next `wait`'s submit, completed by a wake; completions make the fd
//! readable until reaped). A publisher bumps a word and wakes it at the n-th step the
//! backend takes, for every n (and every pair of steps); the loop handles events as a
//! real one would. What must hold: whenever the loop goes back to sleeping on a quiet fd,
//! every publish so far has been reported — and one more publish makes the fd readable.

use super::backend::conformance::on_readiness;
use super::backend::{Backend, Completion, Sleeper};
use super::WaitSet;
use crate::sys::futex::WaitvEntry;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A request queued by the wait set, not yet seen by the kernel.
enum Request {
    Arm(u64, Vec<WaitvEntry>),
    Cancel(u64),
    Nop,
}

/// The kernel, the words and the publisher.
struct World {
    words: Vec<&'static AtomicU32>,
    queued: Vec<Request>,
    /// The vector asleep in the kernel.
    asleep: Option<(u64, Vec<WaitvEntry>)>,
    /// Completions posted, not reaped (`None`: a no-op's).
    posted: Vec<Option<Completion>>,
    /// The armed vector, until its completion is reaped (what the backend reports).
    armed: Option<u64>,
    /// Steps the backend has taken; the publisher runs after the steps in `publish_at`.
    step: u32,
    publish_at: Vec<u32>,
    published: u32,
}

impl World {
    fn readable(&self) -> bool {
        !self.posted.is_empty()
    }

    /// One step of the backend; the publisher may run after it.
    fn step(&mut self) {
        self.step += 1;
        if self.publish_at.contains(&self.step) {
            self.publish();
        }
    }

    /// Bumps a word (they take turns) and wakes whoever sleeps on it.
    fn publish(&mut self) {
        let word = self.words[self.published as usize % self.words.len()];
        self.published += 1;
        word.fetch_add(1, Ordering::SeqCst);
        let address = word.as_ptr() as u64;
        if let Some((id, entries)) = self.asleep.take() {
            match entries.iter().position(|e| e.address == address) {
                Some(i) => self.posted.push(Some(Completion::Futex { id, result: Ok(i) })),
                None => self.asleep = Some((id, entries)),
            }
        }
    }

    fn value(&self, address: u64) -> u64 {
        let word = self.words.iter().find(|w| w.as_ptr() as u64 == address).expect("a word of the model");
        word.load(Ordering::SeqCst) as u64
    }

    /// What `io_uring_enter` does with the queued requests.
    fn submit(&mut self) {
        for request in std::mem::take(&mut self.queued) {
            match request {
                Request::Arm(id, entries) => {
                    assert!(self.asleep.is_none(), "two vectors asleep at once");
                    if entries.iter().any(|e| self.value(e.address) != e.expected) {
                        let eagain = Err(io::Error::from_raw_os_error(libc::EAGAIN));
                        self.posted.push(Some(Completion::Futex { id, result: eagain }));
                    } else {
                        self.asleep = Some((id, entries));
                    }
                }
                Request::Cancel(id) => {
                    if self.asleep.as_ref().is_some_and(|(a, _)| *a == id) {
                        self.asleep = None;
                        let cancelled = Err(io::Error::from_raw_os_error(libc::ECANCELED));
                        self.posted.push(Some(Completion::Futex { id, result: cancelled }));
                    }
                }
                Request::Nop => self.posted.push(None),
            }
        }
    }
}

/// The backend the wait set sees: every call is a step of the world.
struct ModelSleeper(Arc<Mutex<World>>);

impl ModelSleeper {
    fn world(&self) -> MutexGuard<'_, World> {
        self.0.lock().expect("world")
    }
}

impl Sleeper for ModelSleeper {
    fn kind(&self) -> Backend {
        Backend::IoUring
    }

    fn add_fd(&mut self, _token: u64, _fd: RawFd, _events: u32) -> io::Result<()> {
        unreachable!("the model has no fds")
    }

    fn remove_fd(&mut self, _token: u64, _fd: RawFd) -> io::Result<()> {
        Ok(())
    }

    fn arm(&mut self, id: u64, entries: Vec<WaitvEntry>) -> io::Result<()> {
        let mut world = self.world();
        assert!(world.armed.is_none(), "arm without disarming the vector before");
        world.queued.push(Request::Arm(id, entries));
        world.armed = Some(id);
        world.step();
        Ok(())
    }

    fn disarm(&mut self) {
        let mut world = self.world();
        if let Some(id) = world.armed.take() {
            world.queued.push(Request::Cancel(id));
        }
        world.step();
    }

    fn armed(&self) -> Option<u64> {
        self.world().armed
    }

    fn wait(&mut self, deadline_ns: Option<u64>, out: &mut Vec<Completion>) -> io::Result<()> {
        assert!(deadline_ns.is_some_and(|d| d <= crate::sys::clock::monotonic_ns()), "the model only polls");
        let mut world = self.world();
        world.step();
        world.submit();
        world.step();
        for completion in std::mem::take(&mut world.posted).into_iter().flatten() {
            if let Completion::Futex { id, .. } = completion {
                if world.armed == Some(id) {
                    world.armed = None;
                }
            }
            out.push(completion);
        }
        world.step();
        Ok(())
    }

    fn raw_fd(&self) -> Option<RawFd> {
        Some(0)
    }

    fn keep_readable(&mut self) -> io::Result<()> {
        let mut world = self.world();
        if world.posted.is_empty() {
            world.queued.push(Request::Nop);
            world.submit();
        }
        world.step();
        Ok(())
    }
}

/// How the foreign loop calls the wait set when its fd is readable.
#[derive(Debug, Clone, Copy)]
enum Style {
    /// `wait(0)` until it returns nothing (what `ringbus.aio.wait` does).
    UntilEmpty,
    /// One `wait(0)` per readiness, then back to polling (a plain epoll loop).
    OncePerReadiness,
}

/// Runs the loop with publishes after the given steps; panics if a publish is lost.
fn run(words: usize, publish_at: &[u32], style: Style) {
    let words: Vec<&'static AtomicU32> = (0..words).map(|_| &*Box::leak(Box::new(AtomicU32::new(0)))).collect();
    let world = World {
        words: words.clone(),
        queued: Vec::new(),
        asleep: None,
        posted: Vec::new(),
        armed: None,
        step: 0,
        publish_at: publish_at.to_vec(),
        published: 0,
    };
    let world = Arc::new(Mutex::new(world));
    let set = WaitSet::with_sleeper(Box::new(ModelSleeper(Arc::clone(&world))));
    let keys: Vec<_> = words.iter().map(|w| set.attach_word(w, 0).expect("attach").keep()).collect();
    set.as_raw_fd().expect("fd");
    let mut reported = vec![0u32; words.len()];
    for _ in 0..200 {
        if !world.lock().expect("world").readable() {
            let seen: Vec<u32> = words.iter().map(|w| w.load(Ordering::SeqCst)).collect();
            assert_eq!(
                reported, seen,
                "the loop sleeps on a quiet fd with publishes unreported ({style:?}, {publish_at:?})"
            );
            let mut w = world.lock().expect("world");
            w.publish();
            assert!(w.readable(), "a publish to a loop asleep on the fd left it quiet ({style:?}, {publish_at:?})");
            return;
        }
        on_readiness(&set, &keys, &mut reported, matches!(style, Style::OncePerReadiness));
    }
    panic!("the fd stays readable forever ({style:?}, {publish_at:?})");
}

/// More steps than any run takes (4 without publishes, 16 at most with two): a publish
/// lands after every step a run can take.
const STEPS: u32 = 24;

#[test]
fn no_publish_is_lost_whatever_step_it_comes_after() {
    for style in [Style::UntilEmpty, Style::OncePerReadiness] {
        for words in 1..=2 {
            for at in 1..=STEPS {
                run(words, &[at], style);
            }
        }
    }
}

#[test]
fn no_pair_of_publishes_is_lost_whatever_steps_they_come_after() {
    for style in [Style::UntilEmpty, Style::OncePerReadiness] {
        for words in 1..=2 {
            for first in 1..=STEPS {
                for second in first..=STEPS {
                    run(words, &[first, second], style);
                }
            }
        }
    }
}
