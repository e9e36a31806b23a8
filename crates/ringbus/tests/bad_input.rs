//! Bad input: corrupted, foreign, truncated and mismatched segments; unusable roots; a
//! full tmpfs. Every case is a typed error that says what to do, never a crash, and
//! leaves nothing half-created. The bytes are corrupted on purpose, in real files.

mod common;

use common::{Mount, TestRoot};
use ringbus::{Node, OpenError, TakeError};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn poke(path: &Path, offset: u64, bytes: &[u8]) -> Vec<u8> {
    let mut f = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    let mut old = vec![0u8; bytes.len()];
    std::os::unix::fs::FileExt::read_exact_at(&f, &mut old, offset).unwrap();
    f.seek(SeekFrom::Start(offset)).unwrap();
    f.write_all(bytes).unwrap();
    old
}

#[test]
fn corrupted_topic_headers_are_typed_errors() {
    let root = TestRoot::new();
    let node = root.node("t");
    let _publisher = node.topic("hdr").publisher().unwrap();
    let topic = root.file_path("topic.hdr");
    let cases: [(u64, &[u8], &str); 6] = [
        (0, b"XINGBUS\0", "not a ringbus segment"),
        (8, &99u32.to_le_bytes(), "layout version 99"),
        (12, &7u32.to_le_bytes(), "segment kind"),
        (60, &5u32.to_le_bytes(), "segment state"),
        (72 + 8, &3u32.to_le_bytes(), "depth"),
        (392, &4000u32.to_le_bytes(), "topic name length"),
    ];
    for (offset, bytes, expected) in cases {
        let old = poke(&topic, offset, bytes);
        let err = node.topic("hdr").subscriber().unwrap_err();
        assert!(
            matches!(err, OpenError::Foreign { .. } | OpenError::VersionMismatch { .. } | OpenError::Corrupted { .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(message.contains(expected), "{message:?} should mention {expected:?}");
        assert!(message.contains("ringbus clean") || message.contains("rebuild"), "{message:?} says what to do");
        poke(&topic, offset, &old);
    }
    assert!(node.topic("hdr").subscriber().is_ok(), "restored bytes open again");
}

#[test]
fn foreign_truncated_symlinked_and_open_files_are_refused() {
    let root = TestRoot::new();
    let node = root.node("t");
    let write = |name: &str, bytes: &[u8], mode: u32| {
        let p = root.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    write("topic.garbage", &[0xFF; 4096], 0o600);
    write("topic.short", b"RINGBUS", 0o600);
    write("topic.wide", &[0; 1024], 0o644);
    std::os::unix::fs::symlink("/etc/hostname", root.path().join("topic.link")).unwrap();
    for (name, expected) in
        [("garbage", "bad magic"), ("short", "truncated"), ("wide", "mode 644"), ("link", "symbolic link")]
    {
        let err = node.topic(name).subscriber().unwrap_err();
        assert!(matches!(err, OpenError::Foreign { .. }), "{name}: {err:?}");
        assert!(err.to_string().contains(expected), "{name}: {err}");
    }
    assert_eq!(std::fs::read_link(root.path().join("topic.link")).unwrap(), Path::new("/etc/hostname"), "untouched");
}

#[test]
fn corrupted_log_entries_and_positions_are_reported_and_survived() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("log").depth(8).max_payload_bytes(64).publisher().unwrap();
    let mut subscriber = node.topic("log").subscriber().unwrap();
    let file = root.file_path("pub.log.");
    const ENTRY: u64 = 256; // first log entry (see shm::publisher)
    publisher.publish_copy(b"one").unwrap();
    poke(&file, ENTRY + 8, &u32::MAX.to_le_bytes()); // chunk index out of range
    let err = subscriber.take().unwrap_err();
    assert!(
        matches!(&err, TakeError::Corrupted { corruption, .. } if corruption.what == "log entry chunk index"),
        "{err}"
    );

    publisher.publish_copy(b"two").unwrap();
    poke(&file, ENTRY + 32 + 16, &(1u64 << 40).to_le_bytes()); // length beyond max_payload_bytes
    let err = subscriber.take().unwrap_err();
    assert!(matches!(&err, TakeError::Corrupted { corruption, .. } if corruption.what == "log entry length"), "{err}");

    publisher.publish_copy(b"three").unwrap();
    assert_eq!(&*subscriber.take().unwrap().unwrap(), b"three", "the link recovers after bad entries");
    assert_eq!(subscriber.lost(), 2);

    poke(&file, 192, &1u64.to_le_bytes()); // `published` goes backwards
    let err = subscriber.take().unwrap_err();
    assert!(matches!(&err, TakeError::Corrupted { corruption, .. } if corruption.what.contains("backwards")), "{err}");
    assert!(subscriber.take().unwrap().is_none());
}

/// A message is readable from its log entry before the publisher stores its count: a
/// subscriber that took it so and then finds the count one behind sees nothing new, not a
/// count that went backwards.
#[test]
fn a_count_one_behind_the_entries_is_a_publish_in_flight() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("flight").max_payload_bytes(64).publisher().unwrap();
    let mut subscriber = node.topic("flight").subscriber().unwrap();
    publisher.publish_copy(b"one").unwrap();
    publisher.publish_copy(b"two").unwrap();
    assert_eq!(subscriber.take().unwrap().map(|s| s.to_vec()), Some(b"one".to_vec()));
    assert_eq!(subscriber.take().unwrap().map(|s| s.to_vec()), Some(b"two".to_vec()));
    poke(&root.file_path("pub.flight."), 192, &1u64.to_le_bytes()); // the count says one
    assert!(subscriber.take().unwrap().is_none());
    assert_eq!(subscriber.lost(), 0);
}

#[test]
fn a_version_mismatch_on_a_publisher_segment_is_named() {
    let root = TestRoot::new();
    let node = root.node("t");
    let _publisher = node.topic("ver").publisher().unwrap();
    poke(&root.file_path("pub.ver."), 8, &99u32.to_le_bytes());
    let err = node.topic("ver").subscriber().unwrap_err();
    let expected = ringbus::diagnostics::LAYOUT_VERSION;
    assert!(matches!(err, OpenError::VersionMismatch { found: 99, expected: e, .. } if e == expected), "{err:?}");
}

#[test]
fn unusable_roots_are_explained() {
    let scratch = TestRoot::new();
    let file = scratch.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let open = std::fs::create_dir(scratch.path().join("open")).map(|_| scratch.path().join("open")).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    for (root, expected) in
        [(file.clone(), "not a directory"), (open, "chmod 700"), (file.join("below"), "cannot create")]
    {
        let err = Node::with_root("t", &root).unwrap_err();
        assert!(matches!(err, OpenError::RootUnusable { .. }), "{err:?}");
        assert!(err.to_string().contains(expected) && err.to_string().contains("RINGBUS_ROOT"), "{err}");
    }
}

#[test]
fn a_read_only_root_is_explained() {
    let mount = Mount::tmpfs("ro,size=1M,mode=700");
    let err = Node::with_root("t", mount.0.path()).unwrap_err();
    assert!(matches!(err, OpenError::RootUnusable { .. }), "{err:?}");
    assert!(err.to_string().contains("not writable"), "{err}");
}

#[test]
fn a_full_tmpfs_is_a_typed_error_and_leaves_nothing_half_created() {
    let mount = Mount::tmpfs("size=4M,mode=700");
    let node = Node::with_root("t", mount.0.path()).unwrap();
    let before: Vec<_> = std::fs::read_dir(mount.0.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    // A preallocated pool reserves every chunk when the publisher is created.
    let err = node
        .topic("big")
        .max_payload_bytes(1 << 20)
        .depth(4)
        .max_subscribers(4)
        .preallocate(true)
        .publisher()
        .unwrap_err();
    assert!(matches!(err, OpenError::NoSpace { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("--shm-size") && message.contains("free"), "{message}");
    let after: Vec<_> = std::fs::read_dir(mount.0.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(before, after, "no topic, publisher or temporary file left behind");
    let mut small = node.topic("small").max_payload_bytes(64).publisher().unwrap();
    small.publish_copy(b"still works").unwrap();
}

/// A tmpfs with bytes to spare but no inode left: the error says inodes, not bytes.
#[test]
fn a_tmpfs_out_of_inodes_is_named_as_such() {
    let Some(mount) = Mount::try_tmpfs("size=4M,nr_inodes=8,mode=700") else { return };
    let node = Node::with_root("t", mount.0.path()).unwrap();
    for i in 0..100 {
        if std::fs::write(mount.0.path().join(format!("filler{i}")), b"").is_err() {
            break;
        }
    }
    let err = node.topic("small").max_payload_bytes(64).publisher().unwrap_err();
    let message = err.to_string();
    assert!(message.contains("no free inodes") && message.contains("nr_inodes"), "{message}");
    assert!(!message.contains("bytes and the filesystem has"), "{message}");
}

/// A publisher segment that claims `u64::MAX` messages: the subscriber believes at most
/// 2^63 (no publisher gets there), counts the gap as lost and keeps going (typed errors for
/// that publisher), never a panic or an overflow.
#[test]
fn a_published_count_of_u64_max_never_overflows_a_subscribers_counts() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("huge").publisher().unwrap();
    let mut subscriber = node.topic("huge").subscriber().unwrap();
    publisher.publish_copy(b"one").unwrap();
    assert_eq!(&*subscriber.take().unwrap().unwrap(), b"one");
    let segment = root.file_path("pub.huge");
    poke(&segment, 192, &u64::MAX.to_le_bytes()); // the published count
    for _ in 0..3 {
        let _ = subscriber.take(); // Corrupted or nothing: either way no panic
    }
    assert!(subscriber.lost() > 0);
    let _ = subscriber.take_latest();
    poke(&segment, 192, &u64::MAX.to_le_bytes());
    let _ = subscriber.take();
    assert!(subscriber.lost() >= 1 << 62, "counted up to the cap, not wrapped: {}", subscriber.lost());
}

/// Found by fuzzing: a reliable bit scribbled on a free subscriber slot (with the reliable
/// count) made a publisher spin forever waiting for room from a reader nobody could
/// reclaim. It is no reader: the publisher goes past a whole log's worth.
#[test]
fn a_reliable_bit_of_a_free_subscriber_slot_holds_no_publisher_back() {
    let root = TestRoot::new();
    let node = root.node("t");
    let _first = node.topic("scribbled").depth(2).max_subscribers(4).publisher().unwrap();
    let topic = root.file_path("topic.scribbled");
    poke(&topic, 524, &1u32.to_le_bytes()); // reliable count
    poke(&topic, 576, &(1u64 << 2).to_le_bytes()); // reliable set: slot 2, which is free
    let mut publisher = node.topic("scribbled").when_full(ringbus::WhenFull::Fail).publisher().unwrap();
    common::with_watchdog(std::time::Duration::from_secs(10), "publishing past the depth", move || {
        for _ in 0..5 {
            publisher.publish_copy(b"x").unwrap();
        }
    });
}

/// Found by fuzzing: a queue whose consumer position a peer set to `u64::MAX` overflowed
/// a consumer's first pop; it is refused when the queue is opened.
#[test]
fn a_queue_position_near_u64_max_is_refused_on_open() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut producer = node.queue::<u64>("scribbled").capacity(4).mpsc().producer().unwrap();
    producer.push(1).unwrap();
    let queue = root.file_path("queue.scribbled");
    poke(&queue, 640, &u64::MAX.to_le_bytes()); // the consumer position
    for err in
        [node.queue::<u64>("scribbled").consumer().unwrap_err(), node.queue::<u64>("scribbled").producer().unwrap_err()]
    {
        assert!(err.to_string().contains("consumer position"), "{err}");
    }
}

/// Found by fuzzing: the same count of `u64::MAX` overflowed a reliable subscriber's read
/// position once it had moved past every message it could.
#[test]
fn a_published_count_of_u64_max_never_overflows_a_reliable_subscribers_read_position() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("huge").publisher().unwrap();
    let mut subscriber = node.topic("huge").reliable().subscriber().unwrap();
    publisher.publish_copy(b"one").unwrap();
    assert_eq!(&*subscriber.take().unwrap().unwrap(), b"one");
    poke(&root.file_path("pub.huge"), 192, &u64::MAX.to_le_bytes()); // the published count
    for _ in 0..40 {
        let _ = subscriber.take(); // Corrupted or nothing: either way no panic
    }
}
