//! The executor: timers, per-message callbacks, inputs in the callback and the polling
//! style (same timer code, one line apart), fds and words, and `take_all`.

mod common;

use common::TestRoot;
use ringbus::{Executor, Input, Wake};
use std::cell::{Cell, RefCell};
use std::io::Write;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn u64_of(sample: &ringbus::Sample) -> u64 {
    u64::from_le_bytes(sample[..8].try_into().unwrap())
}

#[test]
fn take_all_returns_everything_since_the_last_call_or_the_newest_and_what_was_lost() {
    let root = TestRoot::new();
    let node = root.node("take-all");
    let mut publisher = node.topic("fifty-hz").depth(8).publisher().unwrap();
    let mut subscriber = node.topic("fifty-hz").wake(Wake::Never).subscriber().unwrap();
    let mut next = 0u64;
    for _tick in 0..3 {
        for _ in 0..5 {
            publisher.publish_copy(&next.to_le_bytes()).unwrap();
            next += 1;
        }
        let mut all = subscriber.take_all();
        let values: Vec<u64> = all.by_ref().map(|s| u64_of(&s.unwrap())).collect();
        assert_eq!(values, (next - 5..next).collect::<Vec<_>>(), "every message since the last call");
        assert_eq!(all.lost(), 0);
    }
    // A period longer than the depth covers: the newest 8, and 12 reported lost.
    for _ in 0..20 {
        publisher.publish_copy(&next.to_le_bytes()).unwrap();
        next += 1;
    }
    let mut all = subscriber.take_all();
    let values: Vec<u64> = all.by_ref().map(|s| u64_of(&s.unwrap())).collect();
    assert_eq!(values, (next - 8..next).collect::<Vec<_>>());
    assert_eq!(all.lost(), 12);
    assert!(subscriber.take_all().next().is_none(), "nothing new");
}

/// One timer over three topics reading the latest of each and publishing a sum: the
/// typical ROS 2 node. `wake` is the one line that differs between the styles.
fn three_topic_node(wake: Wake) -> (ringbus::executor::ExecutorStats, u64, u64) {
    let root = TestRoot::new();
    let node = root.node("three-topics");
    let stop = Arc::new(AtomicBool::new(false));
    let published = Arc::new(AtomicU64::new(0));
    let mut publishers: Vec<_> = ["a", "b", "c"].iter().map(|t| node.topic(t).publisher().unwrap()).collect();
    let feeder = {
        let (stop, published) = (stop.clone(), published.clone());
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                publishers[(i % 3) as usize].publish_copy(&i.to_le_bytes()).unwrap();
                published.fetch_add(1, Ordering::Relaxed);
                i += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
            publishers.iter().map(|p| p.stats().wake_syscalls).sum::<u64>()
        })
    };
    let mut output = node.topic("d").publisher().unwrap();
    let mut executor = Executor::new().unwrap();
    let inputs: Vec<Input> = ["a", "b", "c"]
        .iter()
        .map(|t| executor.input(node.topic(t).wake(wake).subscriber().unwrap()).unwrap()) // <- the one line
        .collect();
    let ticks = Rc::new(Cell::new(0u32));
    let counter = ticks.clone();
    executor
        .timer(Duration::from_millis(20), move |control| {
            let sum: u64 = inputs.iter().filter_map(|i| i.latest().unwrap()).map(|s| u64_of(&s)).sum();
            output.publish_copy(&sum.to_le_bytes()).unwrap();
            counter.set(counter.get() + 1);
            if counter.get() == 15 {
                control.stop();
            }
        })
        .unwrap();
    executor.spin().unwrap();
    stop.store(true, Ordering::Relaxed);
    let wake_syscalls = feeder.join().unwrap();
    assert_eq!(ticks.get(), 15);
    (executor.stats(), published.load(Ordering::Relaxed), wake_syscalls)
}

#[test]
fn polling_inputs_wake_the_thread_only_for_its_timer_and_cost_publishers_no_wake_call() {
    let (stats, published, wake_syscalls) = three_topic_node(Wake::Never);
    assert_eq!(stats.wakeups, stats.timer_calls, "only the timer woke the thread");
    assert_eq!(stats.timer_calls, 15);
    assert_eq!(stats.messages, 0, "no message was delivered by a wake-up");
    assert!(published > 0);
    assert_eq!(wake_syscalls, 0, "publishers never made a wake system call for polling subscribers");
}

#[test]
fn callback_inputs_wake_the_thread_for_messages_too() {
    let (stats, published, wake_syscalls) = three_topic_node(Wake::OnData);
    assert_eq!(stats.timer_calls, 15);
    assert!(stats.messages > 0 && stats.messages <= published, "{stats:?}, {published} published");
    assert!(stats.wakeups > stats.timer_calls, "messages woke the thread: {stats:?}");
    assert!(wake_syscalls > 0, "the executor slept on the topics, so publishers woke it");
}

#[test]
fn callback_inputs_hand_every_message_to_take_all_up_to_max_held() {
    let root = TestRoot::new();
    let node = root.node("queue");
    let mut publisher = node.topic("q").max_held(4).publisher().unwrap();
    let mut executor = Executor::new().unwrap();
    let input = executor.input(node.topic("q").subscriber().unwrap()).unwrap();
    assert!(!input.is_polling());
    for i in 0..3u64 {
        publisher.publish_copy(&i.to_le_bytes()).unwrap();
    }
    executor.spin_once(Some(Duration::from_secs(10))).unwrap();
    let mut seen = Vec::new();
    assert_eq!(input.take_all(|s| seen.push(u64_of(s))).unwrap(), ringbus::executor::Drained { taken: 3, lost: 0 });
    assert_eq!(seen, [0, 1, 2]);
    for i in 3..10u64 {
        publisher.publish_copy(&i.to_le_bytes()).unwrap();
    }
    executor.spin_once(Some(Duration::from_secs(10))).unwrap();
    seen.clear();
    let drained = input.take_all(|s| seen.push(u64_of(s))).unwrap();
    assert_eq!(seen, [7, 8, 9], "the newest, with the one `last` keeps pinned: max_held 4");
    assert_eq!(drained, ringbus::executor::Drained { taken: 3, lost: 4 });
    assert_eq!(u64_of(&input.latest().unwrap().unwrap()), 9, "latest stays the newest");
}

#[test]
fn subscription_callbacks_run_once_per_message_and_may_publish() {
    let root = TestRoot::new();
    let node = root.node("relay");
    let mut source = node.topic("in").depth(64).publisher().unwrap();
    let mut relayed = node.topic("out").depth(64).wake(Wake::Never).subscriber().unwrap();
    let mut sink = node.topic("out").depth(64).publisher().unwrap();
    let mut executor = Executor::new().unwrap();
    let calls = Rc::new(RefCell::new(Vec::new()));
    let log = calls.clone();
    executor
        .subscription(node.topic("in").subscriber().unwrap(), move |sample, control| {
            let v = u64_of(&sample);
            log.borrow_mut().push(v);
            sink.publish_copy(&(v * 10).to_le_bytes()).unwrap();
            if v == 19 {
                control.stop();
            }
        })
        .unwrap();
    let feeder = std::thread::spawn(move || {
        for i in 0..20u64 {
            source.publish_copy(&i.to_le_bytes()).unwrap();
            std::thread::sleep(Duration::from_millis(1));
        }
        source
    });
    executor.spin().unwrap();
    drop(feeder.join().unwrap());
    assert_eq!(*calls.borrow(), (0..20).collect::<Vec<_>>());
    let out: Vec<u64> = relayed.take_all().map(|s| u64_of(&s.unwrap())).collect();
    assert_eq!(out, (0..20).map(|v| v * 10).collect::<Vec<_>>());
    assert_eq!(executor.stats().messages, 20);
}

#[test]
fn fds_and_words_mix_in() {
    let (mut writer, reader) = std::os::unix::net::UnixStream::pair().unwrap();
    let word = AtomicU32::new(0);
    let seen = Rc::new(RefCell::new(Vec::new()));
    {
        let mut executor = Executor::new().unwrap();
        let log = seen.clone();
        let reading = &reader;
        executor
            .fd(std::os::fd::AsFd::as_fd(&reader), ringbus::Interest::Readable, move |kind, _| {
                let mut buf = [0u8; 16];
                let n = std::io::Read::read(&mut &*reading, &mut buf).unwrap();
                log.borrow_mut().push(format!("fd {kind:?} {n}"));
            })
            .unwrap();
        let log = seen.clone();
        executor
            .word(&word, 0, move |value, control| {
                log.borrow_mut().push(format!("word {value}"));
                control.stop();
            })
            .unwrap();
        writer.write_all(b"hi").unwrap();
        executor.spin_once(Some(Duration::from_secs(10))).unwrap();
        word.store(7, Ordering::Relaxed);
        ringbus::wake(&word, 1);
        executor.spin().unwrap();
    }
    let seen = seen.borrow();
    assert_eq!(seen[0], "fd Fd { readable: true, writable: false, hangup: false } 2");
    assert_eq!(seen.last().unwrap(), "word 7");
}
