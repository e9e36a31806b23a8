//! `ringbus record`, `replay` and `mcap info` with real processes: publisher processes (this
//! test binary re-executed, see [`publisher_process`]) publish numbered messages, the
//! recorder writes them, and the file is read back with the `mcap` crate and checked byte
//! for byte; SIGINT, SIGTERM and SIGKILL of the recorder; replay into `ringbus echo`
//! processes; files split by size; bad files. Nothing here asserts on speed.

mod common;

use common::{ringbus, root, wait_until, Background};
use std::path::Path;
use std::time::Duration;

/// Set in a re-executed test binary: `topic,size,hz,count,typed` of the messages to publish.
const PUBLISHER_ENV: &str = "RINGBUS_RECORD_TEST_PUBLISHER";
const WATCHDOG: Duration = Duration::from_secs(120);

/// The typed topic's payload.
#[derive(Clone, Copy)]
#[repr(C)]
struct Pose {
    sequence: u64,
    x: f64,
    y: f64,
}
// SAFETY: repr(C), a u64 and two f64s: no padding, and every bit pattern is a valid Pose.
unsafe impl ringbus::Pod for Pose {}

/// Message `i` of a topic whose messages are `size` bytes: its number, then a pattern.
fn payload(i: u64, size: usize) -> Vec<u8> {
    let mut bytes: Vec<u8> = (0..size).map(|j| (j as u64).wrapping_mul(31).wrapping_add(i * 7) as u8).collect();
    let n = size.min(8);
    bytes[..n].copy_from_slice(&i.to_le_bytes()[..n]);
    bytes
}

fn pose(i: u64) -> Pose {
    Pose { sequence: i, x: i as f64 * 0.5, y: -(i as f64) }
}

fn pose_bytes(i: u64) -> Vec<u8> {
    let p = pose(i);
    [p.sequence.to_le_bytes(), p.x.to_le_bytes(), p.y.to_le_bytes()].concat()
}

/// The process role: publishes the messages its environment describes once the topic
/// has a subscriber, then waits until every live subscriber has taken them all.
#[test]
#[ignore = "the publisher process the other tests start, not a test of its own"]
fn publisher_process() {
    let Ok(spec) = std::env::var(PUBLISHER_ENV) else { return };
    let fields: Vec<&str> = spec.split(',').collect();
    let (topic, size, hz, count, typed) = (
        fields[0],
        fields[1].parse::<usize>().unwrap(),
        fields[2].parse::<f64>().unwrap(),
        fields[3].parse::<u64>().unwrap(),
        fields[4] == "typed",
    );
    let node = ringbus::Node::new("record-test-publisher").unwrap();
    let builder = node.topic(topic).depth(64);
    let builder = if typed { builder.payload_type::<Pose>() } else { builder.max_payload_bytes(size as u64) };
    let mut publisher = builder.publisher().unwrap();
    let subscribers = || {
        let info = ringbus::inspect::topic(node.root(), topic).unwrap().unwrap();
        info.subscribers.into_iter().filter(|s| s.alive).collect::<Vec<_>>()
    };
    wait_until(WATCHDOG, "a subscriber", || !subscribers().is_empty());
    let start = std::time::Instant::now();
    for i in 0..count {
        let due = start + Duration::from_secs_f64(i as f64 / hz);
        std::thread::sleep(due.saturating_duration_since(std::time::Instant::now()));
        if typed {
            publisher.publish_value(&pose(i)).unwrap();
        } else {
            publisher.publish_copy(&payload(i, size)).unwrap();
        }
    }
    wait_until(WATCHDOG, "the subscribers to take every message", || subscribers().iter().all(|s| s.taken >= count));
}

/// A publisher process of `count` messages of `size` bytes at `hz` on `topic`; size 0:
/// [`Pose`] values on a topic of that type.
fn publisher(root: &Path, scratch: &tempfile::TempDir, topic: &str, size: usize, hz: u32, count: u64) -> Background {
    let typed = if size == 0 { "typed" } else { "bytes" };
    let spec = format!("{topic},{size},{hz},{count},{typed}");
    let args = ["publisher_process", "--exact", "--ignored", "--nocapture", "--test-threads=1"];
    let me = std::env::current_exe().unwrap();
    Background::start_program(&me, &args, &[(PUBLISHER_ENV, &spec)], root, scratch, &topic.replace('/', "."))
}

fn finish(mut process: Background, what: &str) {
    let status = process.wait(WATCHDOG);
    assert!(status.success(), "{what} failed: {status:?}");
}

/// Stops the recorder with `signal` and checks it finished the file cleanly.
fn stop(recorder: Background, signal: i32) {
    recorder.signal(signal);
    finish(recorder, "the recorder");
}

/// Every message of the file, in file order: (topic, log time, payload).
fn messages(path: &Path) -> Vec<(String, u64, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap();
    mcap::MessageStream::new(&bytes)
        .unwrap()
        .map(|m| m.unwrap())
        .map(|m| (m.channel.topic.clone(), m.log_time, m.data.into_owned()))
        .collect()
}

/// The payloads of `topic` in `messages`.
fn payloads_of(messages: &[(String, u64, Vec<u8>)], topic: &str) -> Vec<Vec<u8>> {
    messages.iter().filter(|m| m.0 == topic).map(|m| m.2.clone()).collect()
}

fn info(path: &Path, scratch: &tempfile::TempDir, partial: bool) -> serde_json::Value {
    let file = path.to_str().unwrap();
    let args =
        if partial { vec!["mcap", "info", file, "--json", "--partial"] } else { vec!["mcap", "info", file, "--json"] };
    let run = ringbus(&args, None, scratch, WATCHDOG);
    assert!(run.status.success(), "mcap info failed: {}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn channel<'a>(info: &'a serde_json::Value, topic: &str) -> &'a serde_json::Value {
    info["channels"].as_array().unwrap().iter().find(|c| c["topic"] == topic).unwrap()
}

#[test]
fn three_topics_from_three_processes_are_recorded_byte_for_byte() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let file = scratch.path().join("run.mcap");
    let args = ["record", "small", "big", "pose", "-o", file.to_str().unwrap()];
    let recorder = Background::start(&args, root.path(), &scratch, "recorder");
    let publishers = [
        publisher(root.path(), &scratch, "small", 64, 1000, 2000),
        publisher(root.path(), &scratch, "big", 1 << 20, 30, 60),
        publisher(root.path(), &scratch, "pose", 0, 100, 200),
    ];
    for p in publishers {
        finish(p, "a publisher");
    }
    stop(recorder, libc::SIGINT);

    let info = info(&file, &scratch, false);
    for (topic, count, bytes) in [("small", 2000, 2000 * 64), ("big", 60, 60 << 20), ("pose", 200, 200 * 24)] {
        let c = channel(&info, topic);
        assert_eq!(
            (c["messages"].as_u64(), c["bytes"].as_u64(), c["lost"].as_u64()),
            (Some(count), Some(bytes), Some(0))
        );
    }
    assert!(channel(&info, "pose")["type"].as_str().unwrap().ends_with("Pose"), "{info}");
    assert_eq!(channel(&info, "small")["type"], "bytes");

    let all = messages(&file);
    assert_eq!(payloads_of(&all, "small"), (0..2000).map(|i| payload(i, 64)).collect::<Vec<_>>());
    assert_eq!(payloads_of(&all, "big"), (0..60).map(|i| payload(i, 1 << 20)).collect::<Vec<_>>());
    assert_eq!(payloads_of(&all, "pose"), (0..200).map(pose_bytes).collect::<Vec<_>>());
    for topic in ["small", "big", "pose"] {
        let times: Vec<u64> = all.iter().filter(|m| m.0 == topic).map(|m| m.1).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{topic}: log times (publisher timestamps) go back");
    }
}

#[test]
fn sigterm_finishes_the_file_and_all_records_topics_that_appear_later() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let file = scratch.path().join("all.mcap");
    let recorder =
        Background::start(&["record", "--all", "-o", file.to_str().unwrap()], root.path(), &scratch, "recorder");
    wait_until(WATCHDOG, "the recorder's node", || common::files_in(root.path()).iter().any(|f| f.starts_with("node")));
    finish(publisher(root.path(), &scratch, "late/one", 100, 200, 300), "the publisher");
    stop(recorder, libc::SIGTERM);

    let bytes = std::fs::read(&file).unwrap();
    let summary = mcap::Summary::read(&bytes).unwrap().expect("a summary section");
    assert_eq!(summary.stats.expect("statistics").message_count, 300);
    assert!(!summary.chunk_indexes.is_empty(), "chunks are indexed");
    assert_eq!(summary.metadata_indexes.len(), 1, "the recording's metadata (losses)");
    assert_eq!(payloads_of(&messages(&file), "late/one"), (0..300).map(|i| payload(i, 100)).collect::<Vec<_>>());
}

#[test]
fn sigkill_leaves_a_file_readable_up_to_its_last_complete_chunk() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let file = scratch.path().join("killed.mcap");
    let recorder = Background::start(&["record", "beat", "-o", file.to_str().unwrap()], root.path(), &scratch, "rec");
    let beat = publisher(root.path(), &scratch, "beat", 64, 1000, 1_000_000);
    // Chunks are closed at least once a second: wait for the first to reach the file.
    let readable = || std::fs::metadata(&file).is_ok_and(|m| m.len() > 512) && messages_readable(&file) > 0;
    wait_until(WATCHDOG, "a complete chunk in the file", readable);
    recorder.signal(libc::SIGKILL);
    drop(recorder);
    drop(beat);

    let run = ringbus(&["mcap", "info", file.to_str().unwrap()], None, &scratch, WATCHDOG);
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stderr.contains("is incomplete") && run.stderr.contains("--partial"), "{}", run.stderr);
    let info = info(&file, &scratch, true);
    assert_eq!(info["complete"], false);
    let n = channel(&info, "beat")["messages"].as_u64().unwrap();
    assert!(n > 0, "{info}");
    // The crate's streaming reader yields the same messages, then stops at the cut.
    let bytes = std::fs::read(&file).unwrap();
    let read: Vec<Vec<u8>> =
        mcap::MessageStream::new(&bytes).unwrap().map_while(Result::ok).map(|m| m.data.into_owned()).collect();
    assert_eq!(read, (0..n).map(|i| payload(i, 64)).collect::<Vec<_>>());
}

/// Messages a reader gets from the file as it is now (written to by a recorder).
fn messages_readable(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    mcap::MessageStream::new(&bytes).map_or(0, |stream| stream.map_while(Result::ok).count())
}

#[test]
fn max_bytes_splits_into_numbered_complete_files() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let file = scratch.path().join("split.mcap");
    let args = ["record", "frames", "-o", file.to_str().unwrap(), "--max-bytes", "3MiB", "--compression", "none"];
    let recorder = Background::start(&args, root.path(), &scratch, "recorder");
    finish(publisher(root.path(), &scratch, "frames", 1 << 20, 20, 10), "the publisher");
    stop(recorder, libc::SIGINT);

    let mut names = common::files_in(scratch.path());
    names.retain(|n| n.starts_with("split"));
    names.sort();
    assert_eq!(names, ["split-000.mcap", "split-001.mcap", "split-002.mcap", "split-003.mcap"]);
    let mut all = Vec::new();
    for name in names {
        let path = scratch.path().join(name);
        let len = std::fs::metadata(&path).unwrap().len();
        assert!(len <= (3 << 20) + (1 << 20) + 64 * 1024, "{} is {len} bytes", path.display());
        all.extend(payloads_of(&messages(&path), "frames"));
    }
    assert_eq!(all, (0..10).map(|i| payload(i, 1 << 20)).collect::<Vec<_>>());
}

#[test]
fn replay_publishes_in_order_with_the_recorded_timing() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let file = scratch.path().join("source.mcap");
    let recorder = Background::start(&["record", "a", "b", "-o", file.to_str().unwrap()], root.path(), &scratch, "r");
    let publishers =
        [publisher(root.path(), &scratch, "a", 64, 100, 100), publisher(root.path(), &scratch, "b", 100_000, 20, 20)];
    for p in publishers {
        finish(p, "a publisher");
    }
    stop(recorder, libc::SIGINT);
    let recorded = messages(&file);

    // A fresh root: replay creates the topics with their recorded settings.
    let replay_root = common::root();
    let echo = |topic: &str, count: &str| {
        let args = ["echo", topic, "--json", "--count", count, "--max-bytes", "8", "--reliable"];
        Background::start(&args, replay_root.path(), &scratch, &format!("echo-{topic}"))
    };
    let (mut echo_a, mut echo_b) = (echo("a", "100"), echo("b", "20"));
    let args = ["replay", file.to_str().unwrap(), "--wait-subscribers", "1"];
    let replay = Background::start(&args, replay_root.path(), &scratch, "replay");
    finish(replay, "the replay");
    assert!(echo_a.wait(WATCHDOG).success() && echo_b.wait(WATCHDOG).success());

    for (echo, topic, count) in [(&echo_a, "a", 100u64), (&echo_b, "b", 20)] {
        check_replayed(echo, &recorded, topic, count, 1.0);
    }

    // One topic only, renamed, twice as fast.
    let mut echo_a2 = echo("a2", "100");
    let args = [
        "replay",
        file.to_str().unwrap(),
        "--topics",
        "a",
        "--remap",
        "a=a2",
        "--rate",
        "2",
        "--wait-subscribers",
        "1",
    ];
    finish(Background::start(&args, replay_root.path(), &scratch, "replay2"), "the second replay");
    assert!(echo_a2.wait(WATCHDOG).success());
    check_replayed(&echo_a2, &recorded, "a", 100, 2.0);
}

/// What `echo` printed of a replay of `topic` is its `count` messages in order, and
/// never earlier than their recorded spacing allows at `rate` (loosely: the replay's first
/// message may itself be late).
fn check_replayed(echo: &Background, recorded: &[(String, u64, Vec<u8>)], topic: &str, count: u64, rate: f64) {
    let lines: Vec<serde_json::Value> = echo.stdout().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let numbers: Vec<u64> = lines.iter().map(|l| number_in(l["hex"].as_str().unwrap())).collect();
    assert_eq!(numbers, (0..count).collect::<Vec<_>>(), "{topic}: every message, in order");
    let replayed: Vec<u64> = lines.iter().map(|l| l["timestamp_ns"].as_u64().unwrap()).collect();
    let original: Vec<u64> = recorded.iter().filter(|m| m.0 == topic).map(|m| m.1).collect();
    let span = |t: &[u64]| (t[t.len() - 1] - t[0]) as f64;
    assert!(span(&replayed) >= 0.9 * span(&original) / rate, "{topic}: {replayed:?} vs {original:?}");
}

/// The message number in the first 8 bytes, as `echo --json` prints them in hex.
fn number_in(hex: &str) -> u64 {
    let bytes: Vec<u8> = hex.split(' ').map(|b| u8::from_str_radix(b, 16).unwrap()).collect();
    u64::from_le_bytes(bytes.try_into().unwrap())
}

#[test]
fn bad_files_are_refused_with_what_is_wrong() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    let dir = scratch.path();
    let mut good = Vec::new();
    let mut writer = mcap::Writer::new(std::io::Cursor::new(&mut good)).unwrap();
    let channel = writer.add_channel(0, "t", "ringbus.bytes", &Default::default()).unwrap();
    for i in 0..100u64 {
        let header = mcap::records::MessageHeader { channel_id: channel, sequence: 0, log_time: i, publish_time: i };
        writer.write_to_known_channel(&header, &payload(i, 1000)).unwrap();
    }
    writer.finish().unwrap();
    drop(writer);
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("empty.mcap", Vec::new(), "is empty"),
        ("text.mcap", b"hello, not a recording\n".to_vec(), "is not an MCAP file"),
        ("v1.mcap", [&b"\x89MCAP1\r\n"[..], &good[8..]].concat(), "another format version"),
        ("cut.mcap", good[..good.len() / 2].to_vec(), "is incomplete"),
    ];
    for (name, bytes, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let file = path.to_str().unwrap();
        for args in [vec!["mcap", "info", file], vec!["replay", file], vec!["record", "--info", file]] {
            let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
            assert_eq!(run.status.code(), Some(1), "{args:?}");
            assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        }
    }
    // A complete MCAP file of another program: listed, but nothing in it to replay.
    let foreign = dir.join("foreign.mcap");
    std::fs::write(&foreign, &good).unwrap();
    let foreign = foreign.to_str().unwrap();
    let listed = ringbus(&["mcap", "info", foreign], Some(root.path()), &scratch, WATCHDOG);
    assert!(listed.status.success() && listed.stdout.contains("ringbus.bytes"), "{}", listed.stderr);
    for (args, says) in [
        (vec!["replay", foreign], "nothing to replay"),
        (vec!["replay", foreign, "--topics", "nope"], "has no topic \"nope\""),
        (vec!["replay", foreign, "--remap", "x"], "not OLD=NEW"),
    ] {
        let run = ringbus(&args, Some(root.path()), &scratch, WATCHDOG);
        assert!(!run.status.success() && run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
    let missing = dir.join("missing.mcap");
    let run = ringbus(&["replay", missing.to_str().unwrap()], Some(root.path()), &scratch, WATCHDOG);
    assert!(!run.status.success() && run.stderr.contains("No such file"), "{}", run.stderr);
}
