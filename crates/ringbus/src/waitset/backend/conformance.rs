//! One conformance suite for the asynchronous backends (io_uring, epoll): each backend's
//! tests call these with a fresh sleeper. Every wait is bounded, so a bug fails instead
//! of hanging.

use super::{Backend, BackendChoice, Completion, Sleeper, READABLE};
use crate::sys::clock::monotonic_ns;
use crate::sys::epoll::Epoll;
use crate::sys::futex::{self, WaitvEntry};
use crate::{EventKind, Interest, WaitSet};
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How long a test waits for something that must happen.
const PATIENCE: Duration = Duration::from_secs(5);
/// How long a test waits to see that something does not happen.
const QUIET: Duration = Duration::from_millis(50);

/// The suite as `#[test]`s for one backend: `conformance_tests!(make_sleeper_expr, Backend::X)`.
macro_rules! conformance_tests {
    ($sleeper:expr, $backend:expr) => {
        #[test]
        fn wake_reports_the_index_of_the_word() {
            $crate::waitset::backend::conformance::wake_reports_the_index_of_the_word($sleeper);
        }

        #[test]
        fn a_word_that_differs_reports_eagain() {
            $crate::waitset::backend::conformance::a_word_that_differs_reports_eagain($sleeper);
        }

        #[test]
        fn fds_are_level_triggered() {
            $crate::waitset::backend::conformance::fds_are_level_triggered($sleeper);
        }

        #[test]
        fn disarm_reports_the_cancelled_vector() {
            $crate::waitset::backend::conformance::disarm_reports_the_cancelled_vector($sleeper);
        }

        #[test]
        fn a_past_deadline_returns_at_once() {
            $crate::waitset::backend::conformance::a_past_deadline_returns_at_once($sleeper);
        }

        #[test]
        fn removed_fd_is_not_reported() {
            $crate::waitset::backend::conformance::removed_fd_is_not_reported($sleeper);
        }

        #[test]
        fn the_fd_is_readable_when_a_wait_would_report() {
            $crate::waitset::backend::conformance::the_fd_is_readable_when_a_wait_would_report($sleeper);
        }

        #[test]
        fn a_full_vector_is_woken_and_cancelled() {
            $crate::waitset::backend::conformance::a_full_vector_is_woken_and_cancelled($sleeper);
        }

        #[test]
        fn drop_with_an_armed_vector_is_prompt() {
            $crate::waitset::backend::conformance::drop_with_an_armed_vector_is_prompt($sleeper);
        }

        #[test]
        fn a_wait_set_reports_fds_and_words() {
            $crate::waitset::backend::conformance::a_wait_set_reports_fds_and_words($backend);
        }

        #[test]
        fn keep_readable_lasts_until_the_next_wait() {
            $crate::waitset::backend::conformance::keep_readable_lasts_until_the_next_wait($sleeper);
        }

        #[test]
        fn a_foreign_loop_hears_every_publish() {
            $crate::waitset::backend::conformance::a_foreign_loop_hears_every_publish($backend, false);
            $crate::waitset::backend::conformance::a_foreign_loop_hears_every_publish($backend, true);
        }
    };
}
pub(crate) use conformance_tests;

fn after(d: Duration) -> u64 {
    monotonic_ns() + d.as_nanos() as u64
}

/// Waits until a completion matching `want` arrives (panics after [`PATIENCE`]); returns
/// every completion seen.
fn wait_until(s: &mut dyn Sleeper, want: impl Fn(&Completion) -> bool) -> Vec<Completion> {
    let give_up = after(PATIENCE);
    let mut seen = Vec::new();
    while !seen.iter().any(&want) {
        assert!(monotonic_ns() < give_up, "nothing expected came within {PATIENCE:?}; saw {seen:?}");
        s.wait(Some(give_up), &mut seen).expect("wait");
    }
    seen
}

/// Everything a wait of [`QUIET`] reports.
fn quiet_wait(s: &mut dyn Sleeper) -> Vec<Completion> {
    let mut seen = Vec::new();
    s.wait(Some(after(QUIET)), &mut seen).expect("wait");
    seen
}

fn is_futex(id: u64) -> impl Fn(&Completion) -> bool {
    move |c| matches!(c, Completion::Futex { id: i, .. } if *i == id)
}

fn futex_result(seen: &[Completion], id: u64) -> &std::io::Result<usize> {
    seen.iter()
        .find_map(|c| match c {
            Completion::Futex { id: i, result } if *i == id => Some(result),
            _ => None,
        })
        .expect("a completion of the vector")
}

fn fd_events(seen: &[Completion], token: u64) -> Option<u32> {
    seen.iter().find_map(|c| match c {
        Completion::Fd { token: t, revents } if *t == token => Some(*revents),
        _ => None,
    })
}

/// Wakes `word` until a sleeper is woken (the backend may not sleep yet when we start).
fn wake_a_sleeper(word: &AtomicU32, stop: &AtomicBool) {
    let give_up = Instant::now() + PATIENCE;
    while !stop.load(Ordering::Relaxed) && Instant::now() < give_up {
        if futex::wake(word, 1).expect("wake") > 0 {
            return;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// Arms `id` over two words and wakes the second from another thread; returns every
/// completion seen meanwhile.
fn arm_and_wake(s: &mut dyn Sleeper, id: u64) -> Vec<Completion> {
    let words = [AtomicU32::new(0), AtomicU32::new(0)];
    s.arm(id, vec![WaitvEntry::new(&words[0], 0), WaitvEntry::new(&words[1], 0)]).expect("arm");
    assert_eq!(s.armed(), Some(id));
    let stop = AtomicBool::new(false);
    let seen = thread::scope(|scope| {
        scope.spawn(|| wake_a_sleeper(&words[1], &stop));
        let seen = wait_until(s, is_futex(id));
        stop.store(true, Ordering::Relaxed);
        seen
    });
    assert_eq!(futex_result(&seen, id).as_ref().ok(), Some(&1), "woken through word 1: {seen:?}");
    assert_eq!(s.armed(), None);
    seen
}

pub(super) fn wake_reports_the_index_of_the_word(mut s: Box<dyn Sleeper>) {
    arm_and_wake(&mut *s, 7);
    // And again: a second vector after the first completed.
    arm_and_wake(&mut *s, 8);
}

pub(super) fn a_word_that_differs_reports_eagain(mut s: Box<dyn Sleeper>) {
    let words = [AtomicU32::new(0), AtomicU32::new(3)];
    s.arm(1, vec![WaitvEntry::new(&words[0], 0), WaitvEntry::new(&words[1], 0)]).expect("arm");
    let seen = wait_until(&mut *s, is_futex(1));
    let result = futex_result(&seen, 1);
    assert_eq!(result.as_ref().map_err(|e| e.raw_os_error()).err(), Some(Some(libc::EAGAIN)), "{seen:?}");
    assert_eq!(s.armed(), None);
}

pub(super) fn fds_are_level_triggered(mut s: Box<dyn Sleeper>) {
    let (mut reader, mut writer) = std::io::pipe().expect("pipe");
    s.add_fd(3, reader.as_raw_fd(), READABLE).expect("add_fd");
    assert_eq!(fd_events(&quiet_wait(&mut *s), 3), None, "an empty pipe is not readable");
    writer.write_all(b"xy").expect("write");
    for round in 0..3 {
        let seen = wait_until(&mut *s, |c| matches!(c, Completion::Fd { token: 3, .. }));
        let revents = fd_events(&seen, 3).expect("fd completion");
        assert_ne!(revents & libc::POLLIN as u32, 0, "round {round}: {revents:#x}");
    }
    let mut buf = [0u8; 2];
    reader.read_exact(&mut buf).expect("read");
    assert_eq!(fd_events(&quiet_wait(&mut *s), 3), None, "a drained pipe is not reported");
    s.remove_fd(3, reader.as_raw_fd()).expect("remove_fd");
}

pub(super) fn removed_fd_is_not_reported(mut s: Box<dyn Sleeper>) {
    let (reader, mut writer) = std::io::pipe().expect("pipe");
    writer.write_all(b"x").expect("write");
    s.add_fd(4, reader.as_raw_fd(), READABLE).expect("add_fd");
    s.remove_fd(4, reader.as_raw_fd()).expect("remove_fd");
    assert_eq!(fd_events(&quiet_wait(&mut *s), 4), None, "removed before any wait");

    s.add_fd(5, reader.as_raw_fd(), READABLE).expect("add_fd");
    wait_until(&mut *s, |c| matches!(c, Completion::Fd { token: 5, .. }));
    s.remove_fd(5, reader.as_raw_fd()).expect("remove_fd");
    assert_eq!(fd_events(&quiet_wait(&mut *s), 5), None, "removed after a report");
}

pub(super) fn disarm_reports_the_cancelled_vector(mut s: Box<dyn Sleeper>) {
    let word = AtomicU32::new(0);
    // Disarmed before any wait handed it to the kernel or the helper.
    s.arm(1, vec![WaitvEntry::new(&word, 0)]).expect("arm");
    s.disarm();
    assert_eq!(s.armed(), None);
    let seen = wait_until(&mut *s, is_futex(1));
    let result = futex_result(&seen, 1);
    assert!(result.as_ref().is_err_and(|e| e.raw_os_error() == Some(libc::ECANCELED)), "{seen:?}");

    // Disarmed while asleep.
    s.arm(2, vec![WaitvEntry::new(&word, 0)]).expect("arm");
    let early = quiet_wait(&mut *s);
    assert!(!early.iter().any(is_futex(2)), "nothing woke vector 2: {early:?}");
    s.disarm();
    let seen = wait_until(&mut *s, is_futex(2));
    let result = futex_result(&seen, 2);
    assert!(result.as_ref().is_err_and(|e| e.raw_os_error() == Some(libc::ECANCELED)), "{seen:?}");

    // Disarmed, re-armed at once: both are reported, the second one woken.
    s.arm(3, vec![WaitvEntry::new(&word, 0)]).expect("arm");
    s.disarm();
    let mut seen = arm_and_wake(&mut *s, 4);
    if !seen.iter().any(is_futex(3)) {
        seen = wait_until(&mut *s, is_futex(3));
    }
    assert!(futex_result(&seen, 3).is_err(), "{seen:?}");
}

pub(super) fn a_past_deadline_returns_at_once(mut s: Box<dyn Sleeper>) {
    let word = AtomicU32::new(0);
    s.arm(1, vec![WaitvEntry::new(&word, 0)]).expect("arm");
    for deadline in [0, monotonic_ns().saturating_sub(1), monotonic_ns()] {
        let start = Instant::now();
        let mut seen = Vec::new();
        s.wait(Some(deadline), &mut seen).expect("wait");
        assert!(start.elapsed() < Duration::from_millis(500), "blocked {:?}", start.elapsed());
        assert!(seen.is_empty(), "{seen:?}");
    }
    assert_eq!(s.armed(), Some(1));
    s.disarm();
    wait_until(&mut *s, is_futex(1));
}

/// 128 words (the limit; the epoll helper has no room left for its cancel word).
pub(super) fn a_full_vector_is_woken_and_cancelled(mut s: Box<dyn Sleeper>) {
    let words: Vec<AtomicU32> = (0..futex::WAITV_MAX).map(|_| AtomicU32::new(0)).collect();
    let entries = || words.iter().map(|w| WaitvEntry::new(w, 0)).collect::<Vec<_>>();
    s.arm(1, entries()).expect("arm");
    let stop = AtomicBool::new(false);
    let seen = thread::scope(|scope| {
        scope.spawn(|| wake_a_sleeper(&words[127], &stop));
        let seen = wait_until(&mut *s, is_futex(1));
        stop.store(true, Ordering::Relaxed);
        seen
    });
    assert_eq!(futex_result(&seen, 1).as_ref().ok(), Some(&127), "{seen:?}");

    s.arm(2, entries()).expect("arm");
    quiet_wait(&mut *s);
    let start = Instant::now();
    s.disarm();
    let seen = wait_until(&mut *s, is_futex(2));
    assert!(futex_result(&seen, 2).as_ref().is_err_and(|e| e.raw_os_error() == Some(libc::ECANCELED)), "{seen:?}");
    assert!(start.elapsed() < Duration::from_secs(1), "cancel took {:?}", start.elapsed());
}

/// Dropping a backend whose vector sleeps neither hangs nor waits long.
pub(super) fn drop_with_an_armed_vector_is_prompt(mut s: Box<dyn Sleeper>) {
    let word = AtomicU32::new(0);
    s.arm(1, vec![WaitvEntry::new(&word, 0)]).expect("arm");
    quiet_wait(&mut *s);
    let start = Instant::now();
    drop(s);
    assert!(start.elapsed() < Duration::from_millis(500), "drop took {:?}", start.elapsed());
}

pub(super) fn the_fd_is_readable_when_a_wait_would_report(mut s: Box<dyn Sleeper>) {
    let fd = s.raw_fd().expect("an asynchronous backend has an fd");
    let outer = Epoll::new().expect("epoll");
    outer.add(fd, libc::EPOLLIN as u32, 0).expect("watch the backend's fd");
    let word = AtomicU32::new(0);
    s.arm(9, vec![WaitvEntry::new(&word, 0)]).expect("arm");
    let mut seen = Vec::new();
    s.wait(Some(0), &mut seen).expect("wait"); // submit
    let mut ready = Vec::new();
    outer.wait(Some(QUIET), &mut ready).expect("epoll_wait");
    assert!(ready.is_empty(), "nothing to report yet");
    let stop = AtomicBool::new(false);
    thread::scope(|scope| {
        scope.spawn(|| wake_a_sleeper(&word, &stop));
        // A loop polling the ring fd from the thread that submitted sees EINTR first: the
        // completion is posted by task work that interrupts the poll.
        let give_up = Instant::now() + PATIENCE;
        while ready.is_empty() && Instant::now() < give_up {
            outer.wait(Some(give_up - Instant::now()), &mut ready).expect("epoll_wait");
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert_eq!(ready.len(), 1, "the backend's fd became readable");
    s.wait(Some(0), &mut seen).expect("wait");
    assert_eq!(futex_result(&seen, 9).as_ref().ok(), Some(&0), "{seen:?}");
}

/// A whole wait set forced onto `backend`: a pipe and a word.
pub(super) fn a_wait_set_reports_fds_and_words(backend: Backend) {
    let word = AtomicU32::new(0);
    let (reader, mut writer) = std::io::pipe().expect("pipe");
    let set = WaitSet::with_backend(BackendChoice::Force(backend)).expect("wait set");
    assert_eq!(set.backend(), backend);
    let fd_key = set.attach_fd(reader.as_fd(), Interest::Readable).expect("attach_fd").keep();
    let word_key = set.attach_word(&word, 0).expect("attach_word").keep();
    assert_eq!(set.wait(Some(QUIET)).expect("wait"), vec![], "nothing is ready");

    writer.write_all(b"x").expect("write");
    let events = set.wait(Some(PATIENCE)).expect("wait");
    let readable = EventKind::Fd { readable: true, writable: false, hangup: false };
    assert!(events.iter().any(|e| e.key == fd_key && e.kind == readable), "{events:?}");
    let mut buf = [0u8; 1];
    (&reader).read_exact(&mut buf).expect("read");

    let events = thread::scope(|scope| {
        scope.spawn(|| {
            thread::sleep(QUIET);
            // Release: pairs with the Acquire load of the wait set's look.
            word.store(9, Ordering::Release);
            crate::wake(&word, 1);
        });
        set.wait(Some(PATIENCE)).expect("wait")
    });
    assert!(events.iter().any(|e| e.key == word_key && e.kind == EventKind::Word(9)), "{events:?}");
    let events = set.wait(Some(QUIET)).expect("wait");
    assert!(events.iter().all(|e| e.key != word_key), "the word is not reported twice: {events:?}");
}

/// Whether `fd` is readable now.
fn readable(fd: std::os::fd::RawFd) -> bool {
    let outer = Epoll::new().expect("epoll");
    outer.add(fd, libc::EPOLLIN as u32, 0).expect("watch the backend's fd");
    let mut ready = Vec::new();
    outer.wait(Some(Duration::ZERO), &mut ready).expect("epoll_wait");
    !ready.is_empty()
}

pub(super) fn keep_readable_lasts_until_the_next_wait(mut s: Box<dyn Sleeper>) {
    let fd = s.raw_fd().expect("an asynchronous backend has an fd");
    assert!(!readable(fd), "a new backend's fd is quiet");
    s.keep_readable().expect("keep readable");
    s.keep_readable().expect("keep readable");
    assert!(readable(fd), "readable after keep_readable");
    assert!(readable(fd), "and still, until a wait");
    let mut seen = Vec::new();
    s.wait(Some(0), &mut seen).expect("wait");
    assert!(seen.is_empty(), "keep_readable reports nothing: {seen:?}");
    assert!(!readable(fd), "quiet again after the wait");
}

/// A foreign event loop — epoll on the wait set's fd, then `wait(0)` (until it returns
/// nothing, or once per readiness) — against a thread that bumps three words and wakes
/// them 3000 times: every bump is reported, and the loop never waits [`PATIENCE`] on a
/// quiet fd while a bump is unreported. One word is attached after the fd was taken.
pub(super) fn a_foreign_loop_hears_every_publish(backend: Backend, once_per_readiness: bool) {
    const BUMPS: u32 = 3000;
    let words = [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)];
    let set = WaitSet::with_backend(BackendChoice::Force(backend)).expect("wait set");
    let mut keys: Vec<_> = words[..2].iter().map(|w| set.attach_word(w, 0).expect("attach_word").keep()).collect();
    let outer = Epoll::new().expect("epoll");
    outer.add(set.as_raw_fd().expect("fd"), libc::EPOLLIN as u32, 0).expect("watch the wait set's fd");
    // Attached while the loop already sleeps on the fd: the next wait arms it.
    keys.push(set.attach_word(&words[2], 0).expect("attach_word").keep());
    let mut reported = [0u32; 3];
    let want = [BUMPS / 3; 3];
    thread::scope(|scope| {
        scope.spawn(|| {
            for i in 0..BUMPS {
                let word = &words[i as usize % 3];
                // Release: pairs with the Acquire load of the wait set's look.
                word.fetch_add(1, Ordering::Release);
                crate::wake(word, u32::MAX);
                if i % 7 == 0 {
                    thread::yield_now();
                }
            }
        });
        let mut ready = Vec::new();
        while reported != want {
            ready.clear();
            let give_up = Instant::now() + PATIENCE;
            // The first poll after a submit may end early (EINTR, see above): poll again.
            while ready.is_empty() && Instant::now() < give_up {
                outer.wait(Some(give_up - Instant::now()), &mut ready).expect("epoll_wait");
            }
            assert!(!ready.is_empty(), "the fd stayed quiet for {PATIENCE:?} with {reported:?} of {want:?} reported");
            on_readiness(&set, &keys, &mut reported, once_per_readiness);
        }
    });
}

/// What a foreign loop does when the fd of `set` (whose sources are words) is readable:
/// `wait(0)` until it returns nothing, or once; each word's latest value goes to
/// `reported`, by its index in `keys`.
pub(crate) fn on_readiness(
    set: &WaitSet<'_>,
    keys: &[crate::waitset::Key],
    reported: &mut [u32],
    once_per_readiness: bool,
) {
    loop {
        let events = set.wait(Some(Duration::ZERO)).expect("wait");
        for event in &events {
            let i = keys.iter().position(|k| *k == event.key).expect("a key of ours");
            let EventKind::Word(value) = event.kind else { panic!("{event:?}") };
            reported[i] = value;
        }
        if events.is_empty() || once_per_readiness {
            return;
        }
    }
}
