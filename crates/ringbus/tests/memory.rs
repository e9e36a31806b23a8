//! A publisher's memory follows the messages in flight: chunks reserve whole pages as they
//! are lent and give them back when a much smaller message follows; a budget and a full
//! tmpfs are typed errors on the loan; a preallocated pool reserves everything up front.
//! Memory is measured as the kernel counts it (the allocated blocks of the files).

mod common;

use common::{Mount, TestRoot};
use ringbus::diagnostics::SyscallCounter;
use ringbus::{LoanError, Node};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// Bytes of memory the files of `root` hold (`st_blocks`, as `du` counts them).
fn allocated(root: &Path) -> u64 {
    std::fs::read_dir(root).unwrap().map(|e| e.unwrap().metadata().unwrap().blocks() * 512).sum()
}

/// A message of `len` bytes whose every byte says which message it is.
fn publish_marked(publisher: &mut ringbus::Publisher, len: usize, mark: u8) {
    let mut loan = publisher.loan_uninit(len).unwrap();
    loan.fill(mark);
    loan.publish();
}

#[test]
fn memory_follows_the_messages_in_flight_not_the_largest_message() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("cam").max_payload_bytes(64 * MIB).publisher().unwrap();
    let mut subscriber = node.topic("cam").subscriber().unwrap();
    let virtual_bytes = std::fs::metadata(root.file_path("pub.")).unwrap().len();
    assert!(virtual_bytes > 81 * 64 * MIB, "the chunks have room for the largest message: {virtual_bytes}");

    for i in 0..100u8 {
        publish_marked(&mut publisher, 5, i);
        assert_eq!(&*subscriber.take().unwrap().unwrap(), &[i; 5]);
    }
    let small = allocated(root.path());
    assert!(small <= 2 * MIB, "5-byte messages on a 64 MiB topic hold {small} bytes");
    assert!(publisher.reserved_payload_bytes() <= 17 * 4096, "{}", publisher.reserved_payload_bytes());

    publish_marked(&mut publisher, (32 * MIB) as usize, 0xAB);
    let big = subscriber.take().unwrap().unwrap();
    assert_eq!(big.len() as u64, 32 * MIB);
    assert!(big.iter().all(|&b| b == 0xAB), "the whole large message arrives");
    drop(big);
    assert!(allocated(root.path()) >= 32 * MIB, "the large message is backed by memory");

    // Once the large message has left the log, its chunk serves small messages again and
    // gives its memory back.
    for i in 0..40u8 {
        publish_marked(&mut publisher, 5, i);
        assert_eq!(&*subscriber.take().unwrap().unwrap(), &[i; 5]);
    }
    let after = allocated(root.path());
    assert!(after <= 2 * MIB, "the large message's memory was given back: {after} bytes held");
}

#[test]
fn a_preallocated_pool_reserves_every_chunk_when_the_publisher_is_created() {
    let root = TestRoot::new();
    let node = root.node("t");
    let publisher =
        node.topic("fixed").max_payload_bytes(MIB).chunks(20).depth(8).preallocate(true).publisher().unwrap();
    assert!(allocated(root.path()) >= 20 * MIB, "{}", allocated(root.path()));
    assert_eq!(publisher.reserved_payload_bytes(), 20 * MIB);
    let err = node.topic("fixed").preallocate(false).subscriber().unwrap_err();
    assert!(err.to_string().contains("preallocate"), "a mismatch names the setting: {err}");
}

#[test]
fn a_loan_over_pool_bytes_is_a_typed_error_and_smaller_loans_still_work() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("pc").max_payload_bytes(4 * MIB).pool_bytes(4 * MIB).publisher().unwrap();
    publish_marked(&mut publisher, (3 * MIB) as usize, 1);
    let err = publisher.loan_uninit((2 * MIB) as usize).unwrap_err();
    assert_eq!(err, LoanError::PoolBudget { requested: 2 * MIB, pool_bytes: 4 * MIB, reserved_bytes: 5 * MIB });
    assert!(err.to_string().contains("larger pool_bytes"), "{err}");
    publish_marked(&mut publisher, (512 << 10) as usize, 2);
    assert!(publisher.reserved_payload_bytes() <= 4 * MIB);
    let invalid = node.topic("tiny").max_payload_bytes(4 * MIB).pool_bytes(MIB).publisher().unwrap_err();
    assert!(invalid.to_string().contains("pool_bytes"), "{invalid}");
}

#[test]
fn a_full_tmpfs_fails_the_large_loan_with_no_space_and_smaller_loans_still_work() {
    let mount = Mount::tmpfs("size=4M,mode=700");
    let node = Node::with_root("t", mount.0.path()).unwrap();
    let mut publisher = node.topic("big").max_payload_bytes(64 * MIB).depth(4).publisher().unwrap();
    let mut subscriber = node.topic("big").subscriber().unwrap();
    publish_marked(&mut publisher, (3 * MIB) as usize, 3);
    let err = publisher.loan_uninit((2 * MIB) as usize).unwrap_err();
    assert!(matches!(err, LoanError::NoSpace { requested, .. } if requested == 2 * MIB), "{err:?}");
    assert!(err.to_string().contains("--shm-size"), "{err}");
    publish_marked(&mut publisher, 64 << 10, 4);
    let first = subscriber.take().unwrap().unwrap();
    assert!(first.len() as u64 == 3 * MIB && first.iter().all(|&b| b == 3), "nothing published was lost");
    let second = subscriber.take().unwrap().unwrap();
    assert!(second.len() == 64 << 10 && second.iter().all(|&b| b == 4));
    assert!(subscriber.take().unwrap().is_none(), "the failed loan published nothing");
}

#[test]
fn taking_a_large_message_makes_no_system_call() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("big").max_payload_bytes(16 * MIB).publisher().unwrap();
    let mut subscriber = node.topic("big").subscriber().unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    publish_marked(&mut publisher, MIB as usize, 0);
    drop(subscriber.take().unwrap().unwrap()); // attaches to the publisher: maps its segment
    for i in 1..20u8 {
        publish_marked(&mut publisher, MIB as usize, i);
        let start = counter.start().unwrap();
        let sample = subscriber.take().unwrap().unwrap();
        let (first, last) = (sample[0], sample[sample.len() - 1]);
        drop(sample);
        assert_eq!(counter.since(start).unwrap(), 0, "take {i} made system calls");
        assert_eq!((first, last), (i, i));
    }
}

/// Small and large messages alternating: each loan finds a free chunk already sized for
/// it, so once every size has been seen, lending and publishing make no system call.
#[test]
fn alternating_sizes_settle_into_chunks_sized_for_each_without_system_calls() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("mixed").max_payload_bytes(MIB).depth(4).publisher().unwrap();
    let mut subscriber = node.topic("mixed").wake(ringbus::Wake::Never).subscriber().unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    let sizes = [64usize, MIB as usize, 200, (MIB / 2) as usize];
    let mut calls = Vec::new();
    for i in 0..64 {
        let start = counter.start().unwrap();
        publish_marked(&mut publisher, sizes[i % sizes.len()], i as u8);
        calls.push(counter.since(start).unwrap());
        let sample = subscriber.take().unwrap().unwrap();
        assert!(sample.len() == sizes[i % sizes.len()] && sample.iter().all(|&b| b == i as u8));
    }
    assert_eq!(calls[32..], [0; 32], "system calls per publish: {calls:?}");
    let reserved = publisher.reserved_payload_bytes();
    let in_log = MIB + MIB / 2 + 64 + 200;
    assert!(reserved <= 2 * in_log + 2 * MIB, "{reserved} bytes for {in_log} in the log");
}

#[test]
fn typed_slices_carry_arrays_of_plain_data() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("points").max_payload_bytes(MIB).publisher().unwrap();
    let mut subscriber = node.topic("points").subscriber().unwrap();
    let mut loan = publisher.loan_slice::<[f32; 4]>(1000).unwrap();
    for (i, point) in loan.slice_mut::<[f32; 4]>().unwrap().iter_mut().enumerate() {
        *point = [i as f32, 2.0 * i as f32, 0.5, 1.0];
    }
    loan.publish();
    let sample = subscriber.take().unwrap().unwrap();
    let points = sample.slice::<[f32; 4]>().unwrap();
    assert_eq!(points.len(), 1000);
    assert_eq!(points[999], [999.0, 1998.0, 0.5, 1.0]);
    assert!(sample.slice::<[f64; 3]>().is_err(), "16000 bytes are not a whole number of 24-byte elements");
    let too_many = publisher.loan_slice::<u64>(usize::MAX / 4).unwrap_err();
    assert!(matches!(too_many, LoanError::TooLarge { .. }), "{too_many:?}");
}

/// Sizes that make chunks grow and shrink: each message's bytes all equal its mark, so a
/// subscriber can tell a whole message from one trimmed or rewritten under it.
#[test]
fn messages_of_varying_sizes_arrive_whole_while_chunks_grow_and_shrink() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("vary").max_payload_bytes(8 * MIB).depth(4).publisher().unwrap();
    let mut subscriber = node.topic("vary").subscriber().unwrap();
    let sizes = [5u64, 6 * MIB, 4096, 3 * MIB, 100, 8 * MIB, 1, 2 * MIB + 7];
    let mut held = Vec::new();
    for round in 0..6 {
        for (i, &len) in sizes.iter().enumerate() {
            let mark = (round * sizes.len() + i) as u8;
            publish_marked(&mut publisher, len as usize, mark);
            let sample = subscriber.take().unwrap().unwrap();
            assert_eq!(sample.len() as u64, len);
            // Keep some samples across later publishes: their chunks must not be trimmed.
            if i % 3 == 0 {
                held.push((mark, sample));
                if held.len() > 3 {
                    held.remove(0);
                }
            }
            for (m, s) in &held {
                assert!(s.iter().all(|b| b == m), "a held sample changed under its reader");
            }
        }
    }
    assert_eq!(subscriber.lost(), 0);
}

#[test]
fn child_entry() {
    let Some(role) = common::child_role() else { return };
    assert_eq!(role, "varying-publisher");
    let node = Node::new("varying").unwrap();
    let mut publisher = node.topic("vary").max_payload_bytes(8 * MIB).depth(8).publisher().unwrap();
    println!("ready");
    let sizes = [5u64, 6 * MIB, 4096, 3 * MIB, 100, 8 * MIB, 1, 2 * MIB + 7];
    for i in 0u64.. {
        publish_marked(&mut publisher, sizes[i as usize % sizes.len()] as usize, i as u8);
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// A publisher SIGKILLed while it grows and trims chunks: every message that arrives is
/// whole, and once everyone is gone nothing is left in the root.
#[test]
fn a_publisher_killed_mid_stream_leaves_whole_messages_and_no_memory_behind() {
    use std::os::unix::process::ExitStatusExt;
    use std::time::Duration;
    let root = TestRoot::new();
    let node = root.node("t");
    let mut subscriber = node.topic("vary").max_payload_bytes(8 * MIB).depth(8).subscriber().unwrap();
    let mut child = common::spawn_child("child_entry", "varying-publisher", root.path(), &[]);
    common::read_until_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), "ready");
    let check = |sample: ringbus::Sample| {
        let mark = sample.position() as u8;
        assert!(sample.iter().all(|&b| b == mark), "message {} arrived torn", sample.position());
    };
    let mut received = 0;
    while received < 200 {
        check(subscriber.receive(Some(Duration::from_secs(30))).expect("the publisher went silent"));
        received += 1;
    }
    child.kill().unwrap();
    let status = common::wait_child(child, Duration::from_secs(10), "publisher");
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    while let Some(sample) = subscriber.take().unwrap() {
        check(sample);
    }
    drop(subscriber);
    drop(node);
    ringbus::clean(&ringbus::Root::open(root.path()).unwrap()).unwrap();
    assert_eq!(root.files(), Vec::<String>::new(), "files left behind");
}
