//! Segment files truncated under live mappings (by another process, by hand, by a full
//! filesystem): the process that maps them gets a typed error for that topic or publisher
//! link and goes on; other topics are unaffected. A SIGBUS that is not about a ringbus
//! mapping still ends the process as it would without ringbus.

mod common;

use common::{child_role, spawn_child, wait_child, TestRoot};
use ringbus::{LoanError, TakeError};
use std::time::Duration;

fn truncate(path: &std::path::Path, len: u64) {
    std::fs::OpenOptions::new().write(true).open(path).unwrap().set_len(len).unwrap();
}

#[test]
fn a_truncated_publisher_file_is_an_error_for_that_link_only() {
    for len in [0, 100, 8192] {
        let root = TestRoot::new();
        let node = root.node("t");
        let topic = || node.topic("cut").max_payload_bytes(64 * 1024).depth(8);
        let mut victim = topic().publisher().unwrap();
        let mut survivor = topic().publisher().unwrap();
        let mut subscriber = topic().subscriber().unwrap();
        let big = vec![7u8; 60 * 1024];
        victim.publish_copy(&big).unwrap();
        assert_eq!(subscriber.take().unwrap().unwrap().len(), big.len());

        truncate(&root.file_path("pub.cut."), len);
        // The victim finds out on its next loan or the one after (its first access past the
        // new end), never by dying.
        let err = (0..4).find_map(|_| victim.publish_copy(&big).err()).expect("the victim fails");
        assert!(matches!(&err, LoanError::Truncated { .. }), "{len}: {err:?}");
        assert!(err.to_string().contains("truncated"), "{err}");

        let mut errors = 0;
        survivor.publish_copy(b"alive").unwrap();
        let mut got = Vec::new();
        for _ in 0..8 {
            match subscriber.take() {
                Ok(Some(s)) => got.push(s.to_vec()),
                Ok(None) => break,
                Err(TakeError::Truncated { publisher_slot: 0 }) => errors += 1,
                Err(e) => panic!("{len}: {e:?}"),
            }
        }
        assert!(got.contains(&b"alive".to_vec()), "{len}: the other publisher is still read");
        assert!(errors <= 1, "{len}: the truncated link is reported once, then dropped");
    }
}

#[test]
fn a_truncated_topic_file_is_an_error_for_that_topic_only() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("cut").publisher().unwrap();
    let mut subscriber = node.topic("cut").subscriber().unwrap();
    let mut other_publisher = node.topic("other").publisher().unwrap();
    let mut other_subscriber = node.topic("other").subscriber().unwrap();
    publisher.publish_copy(b"one").unwrap();

    truncate(&root.file_path("topic.cut"), 0);
    let err = subscriber.take().unwrap_err();
    assert!(matches!(err, TakeError::TopicTruncated { .. }), "{err:?}");
    let err = subscriber.receive(Some(Duration::from_millis(10))).unwrap_err();
    assert!(matches!(err, ringbus::ReceiveError::Take(TakeError::TopicTruncated { .. })), "{err:?}");
    let err = (0..2).find_map(|_| publisher.publish_copy(b"two").err()).expect("the publisher fails");
    assert!(matches!(err, LoanError::Truncated { .. }), "{err:?}");

    other_publisher.publish_copy(b"fine").unwrap();
    assert_eq!(&*other_subscriber.take().unwrap().unwrap(), b"fine");
    // The last one out of the truncated topic removes it and its publisher files.
    drop((publisher, subscriber));
    assert!(root.files().iter().all(|f| !f.contains(".cut")), "{:?}", root.files());
}

/// Child: maps a file of its own, truncates it and touches it, after ringbus has installed
/// its handler. Not a ringbus mapping: the process must die of SIGBUS as usual.
#[test]
fn child_entry() {
    let Some(role) = child_role() else { return };
    assert_eq!(role, "foreign-sigbus");
    // The parent's root (it dies here, so it must not own anything to clean up).
    let root = std::path::PathBuf::from(std::env::var("RINGBUS_ROOT").unwrap());
    let _publisher = ringbus::Node::new("t").unwrap().topic("any").publisher().unwrap(); // installs the handler
    let path = root.join("not-ringbus");
    let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
    file.set_len(4096).unwrap();
    // SAFETY: a fresh shared mapping of our own file; the read below is meant to fault.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ,
            libc::MAP_SHARED,
            std::os::fd::AsRawFd::as_raw_fd(&file),
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    file.set_len(0).unwrap();
    println!("touching");
    // SAFETY: deliberately reads a page past the end of the file: SIGBUS.
    let byte = unsafe { std::ptr::read_volatile(p.cast::<u8>()) };
    println!("survived reading {byte}");
}

#[test]
fn a_sigbus_outside_ringbus_mappings_still_ends_the_process() {
    let root = TestRoot::new();
    let child = spawn_child("child_entry", "foreign-sigbus", root.path(), &[]);
    let status = wait_child(child, Duration::from_secs(30), "the child");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGBUS), "{status:?}");
    // What the dead child left goes with the root (`TestRoot` removes it).
}
