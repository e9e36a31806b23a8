//! `ringbus::inspect`: the counters tools read agree exactly with what was published and
//! consumed, and keeping them costs publish and take no system call.

mod common;

use common::TestRoot;
use ringbus::diagnostics::SyscallCounter;
use ringbus::inspect::{self, ObjectKind};
use ringbus::{Root, Wake};

#[test]
fn topic_counters_and_lag_match_what_was_published_and_consumed() {
    let root = TestRoot::new();
    let node = root.node("inspect");
    let mut publisher = node.topic("a/b").max_payload_bytes(64).depth(16).history(2).publisher().unwrap();
    let mut early = node.topic("a/b").subscriber().unwrap();
    let mut polling = node.topic("a/b").wake(Wake::Never).subscriber().unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");

    let start = counter.start().unwrap();
    for i in 0..10u8 {
        publisher.publish_copy(&vec![i; i as usize + 1]).unwrap();
    }
    let mut taken = 0;
    for _ in 0..4 {
        taken += early.take().unwrap().map(|s| s.len()).unwrap();
    }
    assert_eq!(counter.since(start).unwrap(), 0, "10 publishes and 4 takes with their counters: no system call");
    assert_eq!(taken, 1 + 2 + 3 + 4);
    assert_eq!(polling.take_latest().unwrap().unwrap()[0], 9);
    let late = node.topic("a/b").subscriber().unwrap(); // starts 2 (history) behind

    let info = inspect::topic(&Root::open(root.path()).unwrap(), "/a/b").unwrap().expect("the topic exists");
    assert_eq!(info.name, "a/b");
    assert_eq!((info.settings.depth, info.settings.history, info.settings.max_payload_bytes), (16, 2, 64));
    assert_eq!(info.payload_type, "bytes");
    let [p] = &info.publishers[..] else { panic!("one publisher: {:?}", info.publishers) };
    assert!(p.alive);
    assert_eq!(p.pid, std::process::id());
    assert_eq!(p.node_id, node.id());
    assert_eq!((p.stats.publishes, p.stats.payload_bytes), (10, (1..=10).sum::<u64>()));
    assert_eq!((p.stats.wake_syscalls, p.stats.wakes_skipped), (0, 10), "nobody slept");
    let rows: Vec<_> = info.subscribers.iter().map(|s| (s.wake, s.taken, s.lost, s.lag, s.held, s.alive)).collect();
    assert_eq!(
        rows,
        vec![
            (Wake::OnData, 4, 0, 6, 0, true),
            (Wake::Never, 1, 0, 0, 0, true), // take_latest skipped 9: not lost, not lagging
            (Wake::OnData, 0, 0, 2, 0, true),
        ]
    );
    drop(late);

    // Draining heals the mark exactly; a held sample shows up.
    let held = early.take().unwrap().unwrap();
    while early.take().unwrap().is_some() {}
    let info = inspect::topic(&Root::open(root.path()).unwrap(), "a/b").unwrap().unwrap();
    assert_eq!((info.subscribers[0].taken, info.subscribers[0].lag, info.subscribers[0].held), (10, 0, 1));
    assert_eq!(info.subscribers.len(), 2, "the dropped subscriber's slot is free");
    drop(held);
}

#[test]
fn lost_messages_and_keep_last_count_as_moved_past() {
    let root = TestRoot::new();
    let node = root.node("inspect");
    let mut publisher = node.topic("k").depth(4).publisher().unwrap();
    let mut sub = node.topic("k").keep_last(2).subscriber().unwrap();
    for i in 0..9u64 {
        publisher.publish_copy(&i.to_le_bytes()).unwrap();
    }
    assert!(sub.take().unwrap().is_some());
    let info = inspect::topic(&Root::open(root.path()).unwrap(), "k").unwrap().unwrap();
    let s = &info.subscribers[0];
    assert_eq!((s.taken, s.lost, s.lag), (1, 7, 1), "9 published = 1 taken + 7 lost + 1 waiting");
}

#[test]
fn snapshot_lists_nodes_objects_and_foreign_files() {
    let root = TestRoot::new();
    let node = root.node("lister");
    let latch = node.latch("ready").unwrap();
    latch.set();
    let sem = node.semaphore("jobs/tokens", 3).unwrap();
    assert!(sem.try_wait());
    let _sub = node.topic("t").subscriber().unwrap();
    std::fs::write(root.path().join("stray.txt"), b"not ours").unwrap();

    let snap = inspect::snapshot(&Root::open(root.path()).unwrap());
    assert_eq!(snap.topics.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["t"]);
    let [n] = &snap.nodes[..] else { panic!("one node: {:?}", snap.nodes) };
    assert_eq!((n.id, n.name.as_str(), n.pid, n.alive), (node.id(), "lister", std::process::id(), true));
    let objects: Vec<_> =
        snap.objects.iter().map(|o| (o.kind, o.name.as_str(), o.value, o.generation_or_initial)).collect();
    assert_eq!(objects, [(ObjectKind::Latch, "ready", 1, 1), (ObjectKind::Semaphore, "jobs/tokens", 2, 3)]);
    assert_eq!(snap.objects[0].stats.skipped, 1, "the set found nobody asleep");
    let [problem] = &snap.problems[..] else { panic!("one problem: {:?}", snap.problems) };
    assert!(problem.path.ends_with("stray.txt") && problem.reason.contains("not a ringbus file"));

    let dry =
        ringbus::clean_with(&Root::open(root.path()).unwrap(), ringbus::CleanOptions { dry_run: true, foreign: true })
            .unwrap();
    assert_eq!(dry.removed.len(), 1, "only the stray file: {:?}", dry.removed);
    assert!(root.path().join("stray.txt").exists(), "a dry run removes nothing");
    let kept = ringbus::clean(&Root::open(root.path()).unwrap()).unwrap();
    assert!(kept.removed.is_empty() && kept.skipped.len() == 1, "{kept:?}");
    std::fs::remove_file(root.path().join("stray.txt")).unwrap();
    latch.unlink();
    sem.unlink();
}
