//! Words, latches, semaphores and wait sets between real processes: no system call when
//! nobody sleeps, no lost wake-up, no thundering herd, wrap-around, and a million
//! ping-pongs through a wait set without a hang.
//!
//! Child processes are this test binary re-executed with `RINGBUS_TEST_CHILD=<role>`
//! running the `child_entry` test, which does nothing in a normal run.

mod common;

use common::*;
use ringbus::diagnostics::SyscallCounter;
use ringbus::waitset::{Backend, BackendChoice, Interest};
use ringbus::{EventKind, Node, WaitSet};
use std::io::{BufRead, BufReader};
use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(120);

fn words_from_env() -> SharedWords {
    SharedWords::open(std::path::Path::new(&std::env::var("WORDS").unwrap()))
}

#[test]
fn child_entry() {
    let Some(role) = child_role() else { return };
    let node = Node::new(&role).unwrap();
    match role.as_str() {
        "token-worker" => {
            let words = words_from_env();
            let (holders, max_seen, acquired) = (words.word(0), words.word(1), words.word(2));
            let sem = node.semaphore("tokens", 0).unwrap();
            for _ in 0..env_u64("ROUNDS") {
                sem.wait();
                let now = holders.fetch_add(1, Ordering::SeqCst) + 1;
                max_seen.fetch_max(now, Ordering::SeqCst);
                acquired.fetch_add(1, Ordering::SeqCst);
                std::hint::spin_loop();
                std::thread::yield_now();
                holders.fetch_sub(1, Ordering::SeqCst);
                sem.post().unwrap();
            }
        }
        "pong" => {
            let words = words_from_env();
            let (ping, pong) = (words.word(0), words.word(1));
            let backend = backend_from(&std::env::var("BACKEND").unwrap());
            let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            let set = WaitSet::with_backend(BackendChoice::Force(backend)).unwrap();
            let _a = set.attach_word(ping, env_u64("START") as u32).unwrap();
            let _s = (backend != Backend::Futex).then(|| set.attach_fd(socket.as_fd(), Interest::Readable).unwrap());
            println!("ready");
            let rounds = env_u64("ROUNDS") as u32;
            let mut answered = 0;
            while answered < rounds {
                for event in set.wait(Some(LONG)).unwrap() {
                    let EventKind::Word(v) = event.kind else { panic!("unexpected {event:?}") };
                    pong.store(v, Ordering::Release);
                    ringbus::wake(pong, 1);
                    answered = v.wrapping_sub(env_u64("START") as u32);
                }
            }
        }
        "latch-setter" => {
            let latch = node.latch("work").unwrap();
            std::thread::sleep(Duration::from_millis(50));
            assert!(latch.set());
        }
        "peer" => {
            println!("node {}", node.id());
            std::thread::sleep(LONG);
        }
        "seccomp" => {
            refuse_io_uring_setup();
            let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            let set = WaitSet::new().unwrap();
            let key = set.attach_fd(socket.as_fd(), Interest::Readable).unwrap();
            socket.send_to(b"x", socket.local_addr().unwrap()).unwrap();
            let events = set.wait(Some(LONG)).unwrap();
            assert_eq!(events[0].key, key.key());
            println!("backend {:?}", set.backend());
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn set_and_post_with_nobody_asleep_make_no_system_call() {
    let root = TestRoot::new();
    let node = root.node("quiet");
    let latch = node.latch("l").unwrap();
    let sem = node.semaphore("s", 0).unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    let start = counter.start().unwrap();
    assert!(latch.set());
    assert!(!latch.set());
    latch.reset();
    assert!(latch.set());
    sem.post().unwrap();
    assert!(sem.try_wait());
    assert!(!sem.try_wait());
    let calls = counter.since(start).unwrap();
    assert_eq!(calls, 0, "set/post/try_wait with nobody asleep made {calls} system calls");
    assert_eq!(latch.stats().wake_calls + sem.stats().wake_calls, 0);
    assert_eq!(latch.stats().skipped, 2);
    latch.unlink();
    sem.unlink();
}

/// P processes share T tokens: never more than T hold one, every acquisition is
/// counted, every post wakes at most one sleeper, and all T tokens come back.
#[test]
fn semaphore_never_lets_more_than_t_hold_and_each_post_wakes_one() {
    const P: usize = 6;
    const T: u32 = 2;
    const ROUNDS: u64 = 300;
    let root = TestRoot::new();
    let words = SharedWords::create();
    let node = root.node("tokens-parent");
    let sem = node.semaphore("tokens", 0).unwrap();
    let env = [("WORDS", words.path().display().to_string()), ("ROUNDS", ROUNDS.to_string())];
    let children: Vec<_> = (0..P).map(|_| spawn_child("child_entry", "token-worker", root.path(), &env)).collect();
    std::thread::sleep(Duration::from_millis(100)); // let some fall asleep before the first token
    for _ in 0..T {
        sem.post().unwrap();
    }
    for child in children {
        assert!(wait_child(child, LONG, "token worker").success());
    }
    assert_eq!(words.word(2).load(Ordering::SeqCst) as u64, P as u64 * ROUNDS);
    let max = words.word(1).load(Ordering::SeqCst);
    assert!((1..=T).contains(&max), "{max} processes held a token at once with {T} tokens");
    assert_eq!(sem.value(), T, "tokens were lost or invented");
    let stats = sem.stats();
    assert!(stats.woken <= stats.wake_calls, "a post woke more than one sleeper: {stats:?}");
    assert!(stats.wake_calls > 0, "nobody ever slept, the test proved nothing: {stats:?}");
    sem.unlink();
}

fn backend_from(name: &str) -> Backend {
    match name {
        "futex" => Backend::Futex,
        "io_uring" => Backend::IoUring,
        "epoll" => Backend::Epoll,
        other => panic!("unknown backend {other}"),
    }
}

/// A million round trips between two processes through wait sets on words (futex
/// backend), with the words starting just below `u32::MAX` so they wrap around on the way.
#[test]
fn a_million_ping_pongs_through_a_wait_set_never_hang() {
    let rounds = std::env::var("RINGBUS_PINGPONGS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    ping_pong("futex", rounds);
}

/// The same through io_uring and epoll, each side also watching a UDP socket.
#[test]
fn ping_pongs_through_io_uring_and_epoll_wait_sets_with_a_socket_attached_never_hang() {
    for backend in ["io_uring", "epoll"] {
        ping_pong(backend, 20_000);
    }
}

fn ping_pong(backend: &str, rounds: u64) {
    let start: u32 = u32::MAX - 500;
    let root = TestRoot::new();
    let words = SharedWords::create();
    let (ping, pong) = (words.word(0), words.word(1));
    ping.store(start, Ordering::Relaxed);
    pong.store(start, Ordering::Relaxed);
    let env = [
        ("WORDS", words.path().display().to_string()),
        ("ROUNDS", rounds.to_string()),
        ("START", start.to_string()),
        ("BACKEND", backend.to_string()),
    ];
    let mut child = spawn_child("child_entry", "pong", root.path(), &env);
    // Kept open until the child exits: its test harness still writes to it.
    let mut out = BufReader::new(child.stdout.take().unwrap());
    read_until_line(&mut out, "ready");
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let set = WaitSet::with_backend(BackendChoice::Force(backend_from(backend))).unwrap();
    let _a = set.attach_word(pong, start).unwrap();
    let _s = (backend != "futex").then(|| set.attach_fd(socket.as_fd(), Interest::Readable).unwrap());
    let began = Instant::now();
    for i in 1..=rounds {
        let v = start.wrapping_add(i as u32);
        ping.store(v, Ordering::Release);
        ringbus::wake(ping, 1);
        loop {
            let events = set.wait(Some(LONG)).unwrap();
            assert!(!events.is_empty(), "round {i}: no answer within {LONG:?}");
            if events.iter().any(|e| e.kind == EventKind::Word(v)) {
                break;
            }
        }
    }
    eprintln!("{rounds} ping-pongs through {backend} in {:?}", began.elapsed());
    assert!(wait_child(child, LONG, "pong").success());
    assert!(ping.load(Ordering::Relaxed) < start, "the words never wrapped around");
}

#[test]
fn latch_set_by_another_process_wakes_a_wait_set_also_watching_a_word_and_an_interval() {
    let root = TestRoot::new();
    let node = root.node("latch-owner");
    let latch = node.latch("work").unwrap();
    let words = SharedWords::create();
    let set = WaitSet::new().unwrap();
    let latch_key = set.attach_latch(&latch).unwrap();
    let _word = set.attach_word(words.word(5), 0).unwrap();
    let interval = set.attach_interval(Duration::from_millis(5)).unwrap();
    assert_eq!(set.backend(), Backend::Futex);
    let child = spawn_child("child_entry", "latch-setter", root.path(), &[]);
    let (mut ticks, began) = (0, Instant::now());
    'outer: loop {
        assert!(began.elapsed() < LONG, "the latch was never seen set");
        for event in set.wait(Some(LONG)).unwrap() {
            match event.kind {
                EventKind::LatchSet if event.key == latch_key.key() => break 'outer,
                EventKind::Interval(n) if event.key == interval.key() => ticks += n,
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    assert!(latch.is_set());
    assert!(ticks >= 1, "the interval never fired while waiting ~50 ms");
    latch.reset();
    assert!(set.wait(Some(Duration::ZERO)).unwrap().iter().all(|e| e.key != latch_key.key()));
    assert!(wait_child(child, LONG, "latch setter").success());
    latch.unlink();
}

#[test]
fn taking_the_last_message_leaves_a_wait_set_nothing_to_report() {
    let root = TestRoot::new();
    let node = root.node("ws-last");
    let mut sub = node.topic("last").max_publishers(3).subscriber().unwrap();
    let mut publishers: Vec<_> = (0..3).map(|_| node.topic("last").publisher().unwrap()).collect();
    let set = WaitSet::new().unwrap();
    let key = set.attach_subscriber(&sub).unwrap().keep();
    let data_now = |set: &WaitSet| set.wait(Some(Duration::ZERO)).unwrap().iter().any(|e| e.key == key);
    // Every order in which the take that empties the topic meets the publishers: the
    // round-robin start moves with each take.
    for round in 0u64..6 {
        let senders = 1 + round as usize % 3;
        for (i, p) in publishers.iter_mut().take(senders).enumerate() {
            p.publish_copy(&(round * 10 + i as u64).to_le_bytes()).unwrap();
        }
        for left in (0..senders).rev() {
            assert!(data_now(&set), "round {round}: {} message(s) unread but no event", left + 1);
            assert!(sub.take().unwrap().is_some(), "round {round}: the event had no message");
        }
        assert!(!data_now(&set), "round {round}: an event after the last message was taken");
        assert!(sub.take().unwrap().is_none());
    }
    assert_eq!((sub.taken(), sub.lost()), (12, 0));
}

#[test]
fn a_wait_set_reports_every_message_of_a_subscriber_exactly_once() {
    let root = TestRoot::new();
    let node = root.node("ws-sub");
    let mut sub = node.topic("ws").depth(64).subscriber().unwrap();
    let mut publisher = node.topic("ws").publisher().unwrap();
    let set = WaitSet::new().unwrap();
    let key = set.attach_subscriber(&sub).unwrap().keep();
    // The sender stays at most 32 messages ahead (the depth is 64), so a descheduled
    // receiver on a busy machine never loses any: every message must be reported.
    let consumed = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let seen = consumed.clone();
    let sender = std::thread::spawn(move || {
        for i in 0u64..2000 {
            while i >= seen.load(std::sync::atomic::Ordering::Relaxed) + 32 {
                std::thread::sleep(Duration::from_micros(50));
            }
            publisher.publish_copy(&i.to_le_bytes()).unwrap();
            if i % 7 == 0 {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    });
    let mut next = 0u64;
    while next < 2000 {
        let events = set.wait(Some(LONG)).unwrap();
        assert!(events.iter().all(|e| e.key == key && e.kind == EventKind::Data), "{events:?}");
        assert!(!events.is_empty(), "no data within {LONG:?}");
        while let Some(sample) = sub.take().unwrap() {
            assert_eq!(*sample.value::<u64>().unwrap(), next);
            next += 1;
            consumed.store(next, std::sync::atomic::Ordering::Relaxed);
        }
    }
    sender.join().unwrap();
    assert_eq!(sub.lost(), 0);
    set.detach(key);
    let polling = node.topic("ws").wake(ringbus::Wake::Never).subscriber().unwrap();
    assert!(matches!(set.attach_subscriber(&polling), Err(ringbus::WaitSetError::PollingOnly)));
}

#[test]
fn peer_death_is_an_event() {
    for backend in [BackendChoice::Auto, BackendChoice::Force(Backend::Epoll)] {
        let root = TestRoot::new();
        let _me = root.node("watcher");
        let mut child = spawn_child("child_entry", "peer", root.path(), &[]);
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        let id = loop {
            line.clear();
            assert!(out.read_line(&mut line).unwrap() > 0, "peer exited early");
            // The harness prints "test child_entry ... " on the same line.
            if let Some((_, id)) = line.trim().rsplit_once("node ") {
                break id.parse::<u64>().unwrap();
            }
        };
        let set = WaitSet::with_backend(backend).unwrap();
        let peer = set.attach_peer_death(&ringbus::Root::open(root.path()).unwrap(), id).unwrap();
        assert_ne!(set.backend(), Backend::Futex, "a pidfd needs an fd-capable backend");
        assert!(set.wait(Some(Duration::from_millis(20))).unwrap().is_empty(), "alive peer reported dead");
        child.kill().unwrap();
        let events = set.wait(Some(LONG)).unwrap();
        assert_eq!(events, vec![ringbus::Event { key: peer.key(), kind: EventKind::PeerGone }]);
        let _ = child.wait();
        assert!(set.wait(Some(Duration::from_millis(10))).unwrap().is_empty(), "death reported twice");
        // Attaching to a node that is already gone reports it at once.
        let late = set.attach_peer_death(&ringbus::Root::open(root.path()).unwrap(), id).unwrap();
        assert_eq!(set.wait(Some(Duration::ZERO)).unwrap()[0].key, late.key());
    }
}

/// A foreign event loop (plain epoll) sleeps on the wait set's fd, then collects its
/// events with a zero-timeout wait, which re-arms it.
#[test]
fn a_plain_epoll_loop_drives_a_wait_set_through_its_fd() {
    for backend in [Backend::IoUring, Backend::Epoll] {
        let words = SharedWords::create();
        let set = WaitSet::with_backend(BackendChoice::Force(backend)).unwrap();
        let word = set.attach_word(words.word(0), 0).unwrap();
        let fd = set.as_raw_fd().unwrap();
        // SAFETY: plain epoll calls on descriptors this test owns.
        let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        assert!(epfd >= 0);
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: 7 };
        // SAFETY: epfd and fd are open; ev lives across the call.
        assert_eq!(unsafe { libc::epoll_ctl(epfd, libc::EPOLL_CTL_ADD, fd, &mut ev) }, 0);
        let path = words.path().to_path_buf();
        for round in 1..=50u32 {
            let path = path.clone();
            let waker = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(1));
                let other = SharedWords::open(&path);
                other.word(0).store(round, Ordering::Release);
                ringbus::wake(other.word(0), 1);
            });
            let mut seen = None;
            let began = Instant::now();
            while seen.is_none() {
                assert!(began.elapsed() < LONG, "{backend:?}: the fd never became readable");
                let mut out = [libc::epoll_event { events: 0, u64: 0 }; 4];
                // SAFETY: `out` has room for 4 events.
                let n = unsafe { libc::epoll_wait(epfd, out.as_mut_ptr(), 4, 1000) };
                assert!(n >= 0 || std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted);
                for e in set.wait(Some(Duration::ZERO)).unwrap() {
                    assert_eq!(e.key, word.key());
                    seen = Some(e.kind);
                }
            }
            assert_eq!(seen, Some(EventKind::Word(round)), "{backend:?} round {round}");
            waker.join().unwrap();
        }
        // SAFETY: closing the epoll fd this test created.
        unsafe { libc::close(epfd) };
    }
}

/// Attached semaphores hand out tokens as events: one per wait, and one post wakes the
/// sleeping wait set.
#[test]
fn a_wait_set_takes_semaphore_tokens_for_its_owner() {
    let root = TestRoot::new();
    let node = root.node("sem-ws");
    let sem = node.semaphore("ws", 2).unwrap();
    for backend in [Backend::Futex, Backend::IoUring, Backend::Epoll] {
        let set = WaitSet::with_backend(BackendChoice::Force(backend)).unwrap();
        let key = set.attach_semaphore(&sem).unwrap();
        assert_eq!(
            set.wait(Some(Duration::ZERO)).unwrap(),
            vec![ringbus::Event { key: key.key(), kind: EventKind::Token }]
        );
        assert_eq!(set.wait(Some(Duration::ZERO)).unwrap().len(), 1);
        assert_eq!(sem.value(), 0);
        assert!(set.wait(Some(Duration::from_millis(5))).unwrap().is_empty(), "a token out of nowhere");
        let poster = {
            let sem = sem.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                sem.post().unwrap();
                sem.post().unwrap();
            })
        };
        let mut tokens = 0;
        while tokens < 2 {
            let events = set.wait(Some(LONG)).unwrap();
            assert!(!events.is_empty(), "{backend:?}: the post never woke the wait set");
            tokens += events.len();
        }
        poster.join().unwrap();
        assert_eq!(sem.value(), 0);
        sem.post().unwrap();
        sem.post().unwrap();
    }
    assert!(sem.stats().wake_calls >= 1, "the wait set was never asleep: {:?}", sem.stats());
    sem.unlink();
}

#[test]
fn a_wait_that_could_never_return_is_an_error() {
    let set = WaitSet::new().unwrap();
    assert!(matches!(set.wait(None), Err(ringbus::WaitSetError::NothingToWaitFor)));
    assert!(set.wait(Some(Duration::from_millis(1))).unwrap().is_empty());
    let deadline = set.attach_deadline(Instant::now()).unwrap();
    assert_eq!(set.wait(None).unwrap(), vec![ringbus::Event { key: deadline.key(), kind: EventKind::Deadline }]);
    assert!(matches!(set.wait(None), Err(ringbus::WaitSetError::NothingToWaitFor)), "a fired deadline fires once");
    drop(deadline);
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let futex_only = WaitSet::with_backend(BackendChoice::Force(Backend::Futex)).unwrap();
    assert!(matches!(
        futex_only.attach_fd(socket.as_fd(), Interest::Readable),
        Err(ringbus::WaitSetError::Unsupported { .. })
    ));
}

/// Installs a seccomp filter that makes `io_uring_setup` fail with EPERM, as container
/// runtimes' default profiles do.
fn refuse_io_uring_setup() {
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    let filter = [
        // A = seccomp_data.nr
        libc::sock_filter { code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16, jt: 0, jf: 0, k: 0 },
        // if A == io_uring_setup: next, else skip one
        libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: libc::SYS_io_uring_setup as u32,
        },
        libc::sock_filter {
            code: (libc::BPF_RET | libc::BPF_K) as u16,
            jt: 0,
            jf: 0,
            k: SECCOMP_RET_ERRNO | libc::EPERM as u32,
        },
        libc::sock_filter { code: (libc::BPF_RET | libc::BPF_K) as u16, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
    ];
    let prog = libc::sock_fprog { len: filter.len() as u16, filter: filter.as_ptr() as *mut libc::sock_filter };
    // SAFETY: prctl with plain integer arguments; no memory is passed.
    assert_eq!(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }, 0);
    let prog_ptr = &prog as *const libc::sock_fprog;
    // SAFETY: `prog` points to `filter`, both alive across the call; the kernel copies them.
    let installed = unsafe { libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, prog_ptr) };
    assert_eq!(installed, 0);
}

/// Where io_uring is refused (here by a real seccomp filter), attaching an fd falls back
/// to epoll and still works.
#[test]
fn a_process_refused_io_uring_by_seccomp_falls_back_to_epoll() {
    let root = TestRoot::new();
    let child = spawn_child("child_entry", "seccomp", root.path(), &[]);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "seccomp child failed");
    assert!(String::from_utf8_lossy(&out.stdout).contains("backend Epoll"), "{}", String::from_utf8_lossy(&out.stdout));
}
