//! Commands against crashed, stopped and scribbling peers: `echo` survives a bad link,
//! a subscriber killed asleep stops costing publishes a wake call, a stopped participant
//! holding a topic's lock does not hold a command past its timeout or Ctrl-C.

mod common;

use common::{files_in, ringbus, wait_until, Background};
use std::path::Path;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

fn node(root: &Path) -> ringbus::Node {
    ringbus::Node::with_root("test", root).unwrap()
}

fn poke(path: &Path, offset: u64, bytes: &[u8]) {
    std::os::unix::fs::FileExt::write_all_at(
        &std::fs::OpenOptions::new().write(true).open(path).unwrap(),
        bytes,
        offset,
    )
    .unwrap();
}

/// The file of publisher slot `slot` (first incarnation) of `topic`.
fn publisher_file(root: &Path, topic: &str, slot: u32) -> std::path::PathBuf {
    let name = files_in(root)
        .into_iter()
        .find(|f| f.starts_with(&format!("pub.{topic}.")) && f.ends_with(&format!(".{slot}.1")))
        .unwrap_or_else(|| panic!("no file of publisher {slot} in {:?}", files_in(root)));
    root.join(name)
}

#[test]
fn echo_keeps_reading_the_other_publishers_after_one_link_is_corrupted() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let mut good = node.topic("mixed").max_payload_bytes(64).publisher().unwrap();
    let mut bad = node.topic("mixed").publisher().unwrap();
    let echo = Background::start(&["echo", "mixed", "--json"], root.path(), &scratch, "echo");
    let root_handle = ringbus::Root::open(root.path()).unwrap();
    wait_until(LIMIT, "the echo to subscribe", || {
        ringbus::inspect::topic(&root_handle, "mixed").unwrap().is_some_and(|t| !t.subscribers.is_empty())
    });
    bad.publish_copy(b"bad-1").unwrap();
    wait_until(LIMIT, "bad-1 printed", || echo.stdout().contains("bad-1"));
    // The bad publisher's `published` count goes backwards: a corrupted link.
    poke(&publisher_file(root.path(), "mixed", 1), 192, &0u64.to_le_bytes());
    good.publish_copy(b"good-1").unwrap();
    wait_until(LIMIT, "good-1 printed after the corruption", || echo.stdout().contains("good-1"));
    good.publish_copy(b"good-2").unwrap();
    wait_until(LIMIT, "good-2 printed", || echo.stdout().contains("good-2"));
    drop(echo);
    let _ = ringbus(&["clean"], Some(root.path()), &scratch, LIMIT);
}

#[test]
fn a_subscriber_killed_asleep_stops_costing_each_publish_a_wake_call() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let mut publisher = node.topic("sleepy").max_payload_bytes(64).publisher().unwrap();
    let echo = Background::start(&["echo", "sleepy"], root.path(), &scratch, "echo");
    let root_handle = ringbus::Root::open(root.path()).unwrap();
    let sleepers = || ringbus::inspect::topic(&root_handle, "sleepy").unwrap().map_or(0, |t| t.sleepers);
    wait_until(LIMIT, "the echo asleep", || sleepers() == 1);
    echo.signal(libc::SIGKILL);
    drop(echo); // reaps it
    assert_eq!(sleepers(), 1, "the dead echo is still counted asleep");

    let before = publisher.stats().wake_syscalls;
    for i in 0..1000u32 {
        publisher.publish_copy(&i.to_le_bytes()).unwrap();
    }
    let wake_calls = publisher.stats().wake_syscalls - before;
    // Each publish that saw a sleeper counted made exactly one FUTEX_WAKE (the publisher's
    // own count of its calls); the first one found nobody and took the dead one back.
    assert!(wake_calls <= 3, "{wake_calls} wake calls over 1000 publishes after the kill");
    assert_eq!(sleepers(), 0, "the dead echo's registration is gone");
}

/// Holds the OFD lock on byte 0 of `path` (a topic's control lock), as a participant
/// stopped by Ctrl-Z mid-join would, until dropped.
fn hold_control_lock(path: &Path) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    // SAFETY: all-zero is a valid flock; fcntl gets a valid fd and flock.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_len = 1;
    // SAFETY: as above.
    assert_eq!(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &mut fl) }, 0);
    file
}

#[test]
fn commands_behind_a_stopped_participant_honour_their_timeout_and_sigterm() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let node = node(root.path());
    let _publisher = node.topic("stalled").publisher().unwrap();
    // Joined before the lock is taken: its leave must not wait for it either.
    let joined = Background::start(&["echo", "stalled"], root.path(), &scratch, "joined");
    let root_handle = ringbus::Root::open(root.path()).unwrap();
    wait_until(LIMIT, "the echo to join", || {
        ringbus::inspect::topic(&root_handle, "stalled").unwrap().is_some_and(|t| !t.subscribers.is_empty())
    });
    let held =
        hold_control_lock(&root.path().join(files_in(root.path()).iter().find(|f| f.starts_with("topic.")).unwrap()));

    for args in [&["pub", "stalled", "x", "--timeout", "1"][..], &["hz", "stalled", "--timeout", "1"]] {
        let start = std::time::Instant::now();
        let run = ringbus(args, Some(root.path()), &scratch, LIMIT);
        assert_eq!(run.status.code(), Some(4), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("holds its lock"), "{args:?}: {}", run.stderr);
        // Generous: the watchdog would end it at 30 s; before, it waited for the lock forever.
        assert!(start.elapsed() < Duration::from_secs(10), "{args:?} took {:?}", start.elapsed());
    }
    let mut waiting = Background::start(&["echo", "stalled"], root.path(), &scratch, "waiting");
    std::thread::sleep(Duration::from_millis(300)); // inside its join, waiting for the lock
    let mut joined = joined;
    for echo in [&mut waiting, &mut joined] {
        echo.signal(libc::SIGTERM);
        assert!(echo.wait(Duration::from_secs(10)).success(), "SIGTERM ends it promptly and cleanly");
    }
    drop(held);
}

fn truncate(path: &Path) {
    std::fs::OpenOptions::new().write(true).open(path).unwrap().set_len(0).unwrap();
}

#[test]
fn pub_and_echo_survive_their_files_being_truncated_under_them() {
    use std::os::unix::process::ExitStatusExt;
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let root_handle = ringbus::Root::open(root.path()).unwrap();
    let topic = |name: &str| ringbus::inspect::topic(&root_handle, name).unwrap();
    let echo = Background::start(&["echo", "cut"], root.path(), &scratch, "echo");
    let mut publisher = Background::start(&["pub", "cut", "x", "--rate", "200"], root.path(), &scratch, "pub");
    wait_until(LIMIT, "messages flowing", || echo.stdout().lines().count() >= 5);

    // A publisher's file: the publisher gets a typed error and exits 1; the echo goes on.
    truncate(&publisher_file(root.path(), "cut", 0));
    let status = publisher.wait(LIMIT);
    assert_eq!((status.code(), status.signal()), (Some(1), None), "a typed error, not SIGBUS");
    let mut second = Background::start(&["pub", "cut", "y", "--rate", "200"], root.path(), &scratch, "second");
    wait_until(LIMIT, "the echo reading the next publisher", || echo.stdout().contains("\"y\""));

    // The topic's file: every participant gets a typed error and exits 1; the last one out
    // removes the topic's files.
    let mut echo = echo;
    let topic_file = root.path().join("topic.cut");
    truncate(&topic_file);
    for process in [&mut second, &mut echo] {
        let status = process.wait(LIMIT);
        assert_eq!((status.code(), status.signal()), (Some(1), None), "a typed error, not SIGBUS");
    }
    assert!(topic("cut").is_none());
    assert!(files_in(root.path()).iter().all(|f| !f.contains(".cut")), "{:?}", files_in(root.path()));
}
