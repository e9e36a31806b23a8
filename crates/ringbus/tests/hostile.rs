//! A hostile or scribbling peer with write access to the root: a forged publisher slot or
//! forged holder bits never starve a live publisher's subscribers, never exhaust its pool,
//! and never get a live topic torn down. The bytes are forged on purpose, in real files.

mod common;

use common::TestRoot;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

fn poke(path: &Path, offset: u64, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(offset)).unwrap();
    f.write_all(bytes).unwrap();
}

/// Where publisher slot 0's occupancy word (`incarnation << 32 | state`) lives in a topic
/// file (see `shm::topic`: the slots start after the header, wake line and reliable set).
const PUBLISHER_SLOT_0: u64 = 704;
/// Slot states (see `shm::topic::SlotState`).
const FREE: u64 = 0;
const ACTIVE: u64 = 1;

#[test]
fn a_forged_publisher_slot_word_does_not_cut_subscribers_off_a_live_publisher() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("forged").publisher().unwrap();
    let mut early = node.topic("forged").subscriber().unwrap();
    publisher.publish_copy(b"before").unwrap();
    assert_eq!(&*early.take().unwrap().unwrap(), b"before");

    // A plausible word naming an incarnation whose file does not exist.
    let topic = root.file_path("topic.forged");
    poke(&topic, PUBLISHER_SLOT_0, &(77u64 << 32 | ACTIVE).to_le_bytes());
    assert!(early.take().unwrap().is_none(), "nothing new, and no error: the old link stays");
    // A subscriber that joins now reads the forged word too.
    let mut late = node.topic("forged").subscriber().unwrap();

    publisher.publish_copy(b"after").unwrap(); // writes its word back
    assert_eq!(&*early.take().unwrap().unwrap(), b"after", "the subscriber that saw the forgery");
    // It attaches once the word is back, reading the publisher from its first message.
    let mut seen = Vec::new();
    while let Some(sample) = late.take().unwrap() {
        seen.push(sample.to_vec());
    }
    assert_eq!(seen.last().map(Vec::as_slice), Some(&b"after"[..]), "the subscriber that joined during it");

    // An unknown state: one typed error, then the link goes on.
    poke(&topic, PUBLISHER_SLOT_0, &(1u64 << 32 | 9).to_le_bytes());
    assert!(matches!(early.take(), Err(ringbus::TakeError::Corrupted { .. })));
    publisher.publish_copy(b"still").unwrap();
    assert_eq!(&*early.take().unwrap().unwrap(), b"still");
    assert_eq!(early.lost(), 0, "nothing was lost to the forgeries");
}

#[test]
fn a_forged_free_state_does_not_let_the_last_subscriber_tear_down_a_live_topic() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("kept").publisher().unwrap();
    let subscriber = node.topic("kept").subscriber().unwrap();
    let topic = root.file_path("topic.kept");
    poke(&topic, PUBLISHER_SLOT_0, &(1u64 << 32 | FREE).to_le_bytes());
    drop(subscriber); // the last one out by the state words, but the publisher's lock is held
    assert!(topic.exists(), "a live publisher's topic stays");
    let mut subscriber = node.topic("kept").subscriber().unwrap();
    publisher.publish_copy(b"here").unwrap();
    assert_eq!(&*subscriber.take().unwrap().unwrap(), b"here");
}

#[test]
fn forged_holder_bits_of_slots_nobody_owns_do_not_exhaust_the_pool() {
    let root = TestRoot::new();
    let node = root.node("t");
    let (depth, max_subscribers, chunks) = (8u64, 4u64, 12u64);
    let topic = node.topic("bits").depth(depth as u32).max_subscribers(max_subscribers as u32).chunks(chunks as u32);
    let mut publisher = topic.max_payload_bytes(64).publisher().unwrap();
    let mut subscriber = node.topic("bits").subscriber().unwrap();
    // Chunk words (see `shm::publisher`): after the log, at the next page, a doorbell line
    // and a read-position line per subscriber slot; then a line per chunk: generation
    // (8 bytes), then the holder bits.
    let control = 4096u64;
    let chunk_words = control + 64 + 64 * max_subscribers;
    let file = root.file_path("pub.bits.");
    // Slot 3 is nobody's; bit 63 is past the last slot.
    let forged = (1u64 << 3 | 1 << 63).to_le_bytes();
    for chunk in 0..chunks {
        poke(&file, chunk_words + 64 * chunk + 8, &forged);
    }
    for i in 0..3 * chunks {
        publisher.publish_copy(&i.to_le_bytes()).unwrap_or_else(|e| panic!("publish {i}: {e}"));
        let sample = subscriber.take().unwrap().expect("each message arrives");
        assert_eq!(&*sample, &i.to_le_bytes());
    }
    assert_eq!(publisher.chunks_held_by_subscribers(), 0, "the forged bits are gone");
}

/// Holds the OFD lock on byte 0 of `path` (a topic's control lock) as a participant
/// stopped mid-join would, until dropped.
struct HeldLock(#[allow(dead_code)] std::fs::File);

fn hold_control_lock(path: &Path) -> HeldLock {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    // SAFETY: all-zero is a valid flock; fcntl gets a valid fd and flock.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_len = 1;
    // SAFETY: as above.
    assert_eq!(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &mut fl) }, 0);
    HeldLock(file)
}

#[test]
fn a_join_behind_a_stopped_participant_times_out_or_is_cancelled() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("stalled").publisher().unwrap();
    let held = hold_control_lock(&root.file_path("topic.stalled"));

    let err = node.topic("stalled").open_timeout(Duration::from_millis(200)).subscriber().unwrap_err();
    assert!(matches!(err, ringbus::OpenError::LockTimedOut { .. }), "{err:?}");
    assert!(err.to_string().contains("stopped"), "{err}");

    let flag = Arc::new(AtomicBool::new(false));
    let raise = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::Relaxed);
        })
    };
    let err = node.topic("stalled").cancel_flag(flag).subscriber().unwrap_err();
    assert!(matches!(err, ringbus::OpenError::Interrupted { .. }), "{err:?}");
    raise.join().unwrap();

    // Leaving behind the stopped participant leaves without tear-down, and the topic works
    // once the lock is free again.
    drop(held);
    let mut subscriber = node.topic("stalled").subscriber().unwrap();
    publisher.publish_copy(b"through").unwrap();
    assert_eq!(&*subscriber.take().unwrap().unwrap(), b"through");
}
