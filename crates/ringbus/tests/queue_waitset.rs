//! A queue's consumer in a wait set: every command pushed by another thread one at a time
//! is reported and popped, through each backend (futex alone; io_uring and epoll with a
//! socket attached too), with no lost wake-up; a polling queue is refused.

mod common;

use common::{with_watchdog, TestRoot};
use ringbus::waitset::{Backend, BackendChoice, Interest};
use ringbus::{EventKind, WaitSet, WaitSetError, Wake};
use std::os::fd::AsFd;
use std::time::Duration;

const COMMANDS: u64 = 20_000;

fn every_command_arrives(backend: &'static str) {
    with_watchdog(Duration::from_secs(120), backend, move || {
        let root = TestRoot::new();
        let node = root.node("test");
        let mut consumer = node.queue::<u64>("jobs").capacity(8).mpsc().consumer().unwrap();
        let mut producer = node.queue::<u64>("jobs").mpsc().producer().unwrap();
        let pusher = std::thread::spawn(move || {
            for i in 0..COMMANDS {
                producer.push_timeout(i, None).unwrap();
                if i % 64 == 0 {
                    std::thread::sleep(Duration::from_micros(200)); // let the consumer fall asleep
                }
            }
        });
        let choice = BackendChoice::Force(backend_named(backend));
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let set = WaitSet::with_backend(choice).unwrap();
        let jobs = set.attach_queue(&consumer).unwrap();
        let _quiet = (backend != "futex").then(|| set.attach_fd(socket.as_fd(), Interest::Readable).unwrap());
        let (mut next, mut events) = (0, 0);
        while next < COMMANDS {
            for event in set.wait(Some(Duration::from_secs(30))).unwrap() {
                assert_eq!((event.key, event.kind), (jobs.key(), EventKind::Data));
                events += 1;
                while let Some(command) = consumer.pop().unwrap() {
                    assert_eq!(command, next, "in order, each once");
                    next += 1;
                }
            }
        }
        pusher.join().unwrap();
        assert!(events <= COMMANDS, "{events} events for {COMMANDS} commands");
        consumer.unlink();
    });
}

fn backend_named(name: &str) -> Backend {
    match name {
        "futex" => Backend::Futex,
        "io_uring" => Backend::IoUring,
        _ => Backend::Epoll,
    }
}

#[test]
fn a_wait_set_reports_every_command_of_a_queue() {
    for backend in ["futex", "io_uring", "epoll"] {
        every_command_arrives(backend);
    }
}

#[test]
fn a_polling_queue_cannot_be_attached() {
    let root = TestRoot::new();
    let node = root.node("test");
    let consumer = node.queue::<u64>("polled").wake(Wake::Never).consumer().unwrap();
    let set = WaitSet::new().unwrap();
    assert!(matches!(set.attach_queue(&consumer), Err(WaitSetError::PollingOnly)));
}

/// A source that is ready at every wait (a queue that always holds a command, as under a
/// steady stream) never hides a ready fd: both are reported by the same wait — the fd once
/// per wait while it stays readable — through io_uring and epoll alike.
#[test]
fn a_busy_queue_never_starves_an_fd() {
    for backend in ["io_uring", "epoll"] {
        let root = TestRoot::new();
        let node = root.node("test");
        let consumer = node.queue::<u64>("busy").capacity(8).consumer().unwrap();
        let mut producer = node.queue::<u64>("busy").producer().unwrap();
        let (reader, writer) = std::os::unix::net::UnixStream::pair().unwrap();
        let set = WaitSet::with_backend(BackendChoice::Force(backend_named(backend))).unwrap();
        let jobs = set.attach_queue(&consumer).unwrap();
        let socket = set.attach_fd(reader.as_fd(), Interest::Readable).unwrap();
        producer.push(1).unwrap(); // never popped: the queue is ready at every wait
        std::io::Write::write_all(&mut &writer, b"x").unwrap();
        for round in 0..3 {
            let keys: Vec<_> = set.wait(Some(Duration::from_secs(10))).unwrap().into_iter().map(|e| e.key).collect();
            assert!(keys.contains(&jobs.key()), "{backend}: the queue");
            let socket_events = keys.iter().filter(|&&k| k == socket.key()).count();
            assert_eq!(
                socket_events, 1,
                "{backend}, wait {round}: the socket, once, in the same wait as the busy queue"
            );
        }
        consumer.unlink();
    }
}
