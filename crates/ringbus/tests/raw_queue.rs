//! Queues of a command type given at run time (what C, C++ and Python programs use): bytes
//! in and out, shared with Rust programs that give their type the same name, size and
//! alignment; batches that wrap the ring; SPSC and MPSC; and every mismatch refused when
//! the queue is opened.

mod common;

use common::TestRoot;
use ringbus::{CommandType, OpenError, PushError, QueueError};

/// A 12-byte command, aligned to 4: what a C struct of three `int32_t` is.
fn arm_move() -> CommandType {
    CommandType::new("arm.move", 12, 4).unwrap()
}

fn bytes_of(command: [i32; 3]) -> [u8; 12] {
    let mut out = [0u8; 12];
    for (chunk, value) in out.chunks_exact_mut(4).zip(command) {
        chunk.copy_from_slice(&value.to_ne_bytes());
    }
    out
}

#[test]
fn raw_and_typed_openers_share_a_queue_both_ways() {
    for mpsc in [false, true] {
        let root = TestRoot::new();
        let node = root.node("test");
        let raw = |name| {
            let builder = node.raw_queue(name, arm_move()).capacity(4);
            if mpsc {
                builder.mpsc()
            } else {
                builder.spsc()
            }
        };
        let typed = |name| {
            let builder = node.queue::<[i32; 3]>(name).type_name("arm.move").capacity(4);
            if mpsc {
                builder.mpsc()
            } else {
                builder.spsc()
            }
        };
        // Rust pushes, a raw consumer pops, through several wraps of a 4-slot ring.
        let mut consumer = raw("to_c").consumer().unwrap();
        let mut producer = typed("to_c").producer().unwrap();
        let mut out = [0u8; 12 * 3];
        for round in 0..5 {
            let sent: Vec<[i32; 3]> = (0..3).map(|i| [round, i, -i]).collect();
            assert_eq!(producer.push_batch(&sent).unwrap(), 3);
            assert_eq!(consumer.pop_batch_bytes(&mut out).unwrap(), 3);
            let expected: Vec<u8> = sent.iter().flat_map(|c| bytes_of(*c)).collect();
            assert_eq!(out.as_slice(), expected, "round {round}");
        }
        // A raw producer pushes, Rust pops: one at a time, then a batch that wraps.
        let mut consumer = typed("to_rust").consumer().unwrap();
        let mut producer = raw("to_rust").producer().unwrap();
        assert_eq!(producer.command_size(), 12);
        producer.push_bytes(&bytes_of([7, 8, 9])).unwrap();
        assert_eq!(consumer.pop().unwrap(), Some([7, 8, 9]));
        let batch: Vec<u8> = (0..6).flat_map(|i| bytes_of([i, i, i])).collect();
        assert_eq!(producer.push_batch_bytes(&batch).unwrap(), 4, "as many as fit");
        assert!(matches!(producer.push_bytes(&bytes_of([0; 3])), Err(PushError::Full(()))));
        let mut got = [[0i32; 3]; 4];
        assert_eq!(consumer.pop_batch(&mut got).unwrap(), 4);
        assert_eq!(got, [[0; 3], [1; 3], [2; 3], [3; 3]]);
        consumer.unlink();
    }
}

#[test]
fn a_blocking_raw_push_waits_for_room() {
    let root = TestRoot::new();
    let node = root.node("test");
    let mut producer = node.raw_queue("q", arm_move()).capacity(2).producer().unwrap();
    let mut consumer = node.raw_queue("q", arm_move()).consumer().unwrap();
    for i in 0..2 {
        producer.push_bytes(&bytes_of([i; 3])).unwrap();
    }
    let timeout = Some(std::time::Duration::from_millis(20));
    assert!(matches!(producer.push_bytes_timeout(&bytes_of([2; 3]), timeout), Err(PushError::Full(()))));
    let popper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut out = [0u8; 12];
        assert!(consumer.pop_bytes(&mut out).unwrap());
        out
    });
    producer.push_bytes_timeout(&bytes_of([2; 3]), None).unwrap();
    assert_eq!(popper.join().unwrap(), bytes_of([0; 3]));
}

#[test]
fn another_name_size_or_alignment_is_refused_when_opening() {
    let root = TestRoot::new();
    let node = root.node("test");
    let _consumer = node.raw_queue("q", arm_move()).consumer().unwrap();
    let open = |command: CommandType| node.raw_queue("q", command).producer().map(drop);
    let mismatch = |r: Result<(), OpenError>| match r {
        Err(OpenError::TypeMismatch { existing, requested, .. }) => format!("{existing} / {requested}"),
        other => panic!("expected a type mismatch, got {other:?}"),
    };
    assert_eq!(mismatch(open(CommandType::new("arm.stop", 12, 4).unwrap())), "arm.move / arm.stop");
    assert_eq!(
        mismatch(open(CommandType::new("arm.move", 16, 4).unwrap())),
        "arm.move (12 bytes, aligned to 4) / arm.move (16 bytes, aligned to 4)"
    );
    assert!(mismatch(open(CommandType::new("arm.move", 12, 8).unwrap())).contains("aligned to 8"));
    // The messages name a queue, and say what to do.
    let second = node.raw_queue("q", arm_move()).consumer().unwrap_err().to_string();
    assert!(
        second.starts_with("queue \"q\" already has its maximum of 1 live consumers. A queue has one consumer"),
        "{second}"
    );
    let capacity = node.raw_queue("q", arm_move()).capacity(2).producer().unwrap_err().to_string();
    assert!(capacity.starts_with("queue \"q\" exists with capacity = 1024, but 2 was requested"), "{capacity}");
    // A Rust type without the shared name is refused too.
    let typed = node.queue::<[i32; 3]>("q").producer().map(drop);
    assert!(mismatch(typed).starts_with("arm.move / [i32; 3]"));
}

#[test]
fn invalid_command_types_and_partial_commands_are_refused() {
    for (name, size, align, field) in [
        ("", 4, 4, "command type name length"),
        ("x", 0, 1, "command size"),
        ("x", 65537, 1, "command size"),
        ("x", 4, 3, "command alignment"),
        ("x", 4, 8192, "command alignment"),
    ] {
        match CommandType::new(name, size, align) {
            Err(OpenError::InvalidConfig { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{name:?} {size} {align}: {other:?}"),
        }
    }
    assert!(CommandType::new(&"n".repeat(257), 4, 4).is_err());
    let root = TestRoot::new();
    let node = root.node("test");
    let mut producer = node.raw_queue("q", arm_move()).producer().unwrap();
    let mut consumer = node.raw_queue("q", arm_move()).consumer().unwrap();
    let partial = QueueError::CommandSize { command: 12, given: 13 };
    assert_eq!(producer.push_batch_bytes(&[0; 13]), Err(partial.clone()));
    assert!(matches!(producer.push_bytes(&[0; 13]), Err(PushError::Queue(e)) if e == partial));
    assert_eq!(consumer.pop_batch_bytes(&mut [0; 13]), Err(partial));
    assert_eq!(consumer.pop_bytes(&mut [0; 24]), Err(QueueError::CommandSize { command: 12, given: 24 }));
    assert_eq!(consumer.pop_batch_bytes(&mut []), Ok(0));
}
