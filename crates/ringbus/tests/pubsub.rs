//! Publish/subscribe behaviour inside one process (several handles, separate slots).

mod common;

use common::TestRoot;
use ringbus::{LoanError, OpenError, ReceiveError, TakeError, Wake};
use std::time::Duration;

/// Takes every available sample and returns the first byte of each.
fn first_bytes_of_all(subscriber: &mut ringbus::Subscriber) -> Vec<u8> {
    std::iter::from_fn(|| subscriber.take().unwrap().map(|s| s[0])).collect()
}

#[test]
fn publish_take_and_teardown_leave_nothing_behind() {
    let root = TestRoot::new();
    {
        let node = root.node("t");
        let mut publisher = node.topic("chatter").max_payload_bytes(64).publisher().unwrap();
        let mut subscriber = node.topic("chatter").subscriber().unwrap();
        assert!(!subscriber.has_data());
        assert!(subscriber.take().unwrap().is_none());
        for i in 0..40u32 {
            publisher.publish_copy(&i.to_le_bytes()).unwrap();
            let s = subscriber.take().unwrap().expect("published");
            assert_eq!(s.value::<u32>().copied(), Ok(i));
            assert_eq!(s.position(), i as u64);
        }
        assert_eq!((subscriber.taken(), subscriber.lost()), (40, 0));
        assert_eq!(publisher.stats().publishes, 40);
        assert_eq!(publisher.stats().wake_syscalls, 0, "nobody slept");
    }
    assert_eq!(root.files(), Vec::<String>::new(), "last one out removes every file");
}

#[test]
fn dropping_an_unpublished_loan_returns_the_chunk() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("loans").depth(2).max_subscribers(1).max_held(1).publisher().unwrap();
    let free = publisher.free_chunks();
    for _ in 0..100 {
        let mut loan = publisher.loan(8).unwrap();
        loan[0] = 1;
    }
    assert_eq!(publisher.free_chunks(), free);
    let mut sub = node.topic("loans").subscriber().unwrap();
    assert!(sub.take().unwrap().is_none(), "nothing was published");
}

#[test]
fn detached_loans_publish_discard_and_stay_with_their_publisher() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("detached").depth(2).max_subscribers(1).max_held(1).publisher().unwrap();
    let other = node.topic("detached").publisher().unwrap();
    let mut sub = node.topic("detached").subscriber().unwrap();
    let free = publisher.free_chunks();
    for _ in 0..100 {
        let loan = publisher.loan_detached(8).unwrap();
        publisher.discard_detached(loan);
    }
    assert_eq!(publisher.free_chunks(), free, "discarded loans give their chunks back");
    assert!(sub.take().unwrap().is_none(), "nothing was published");

    let mut loan = publisher.loan_detached(16).unwrap();
    publisher.detached_bytes(&mut loan).copy_from_slice(b"detached message");
    let address = publisher.detached_address(&loan);
    assert_eq!(publisher.detached_bytes(&mut loan).as_ptr() as usize, address);
    loan.truncate(8);
    assert_eq!(loan.len(), 8);
    let stray = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| other.detached_address(&loan)));
    assert!(stray.is_err(), "another publisher refuses a loan it did not lend");
    publisher.publish_detached(loan);
    assert_eq!(&*sub.take().unwrap().expect("published"), b"detached");
    let too_large = publisher.loan_detached(4097).unwrap_err();
    assert_eq!(too_large, LoanError::TooLarge { requested: 4097, max: 4096 });
}

#[test]
fn keep_last_skips_and_counts_what_was_lost() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("k").depth(8).publisher().unwrap();
    let mut subscriber = node.topic("k").keep_last(3).subscriber().unwrap();
    for i in 0..10u8 {
        publisher.publish_copy(&[i]).unwrap();
    }
    let got = first_bytes_of_all(&mut subscriber);
    assert_eq!(got, vec![7, 8, 9]);
    assert_eq!(subscriber.lost(), 7);
}

#[test]
fn a_lapped_subscriber_counts_overwritten_messages() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("lap").depth(4).publisher().unwrap();
    let mut subscriber = node.topic("lap").subscriber().unwrap();
    for i in 0..100u8 {
        publisher.publish_copy(&[i]).unwrap();
    }
    let got = first_bytes_of_all(&mut subscriber);
    assert_eq!(got, vec![96, 97, 98, 99]);
    assert_eq!(subscriber.lost(), 96);
}

#[test]
fn late_joiners_get_history() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("h").depth(8).history(3).publisher().unwrap();
    for i in 0..5u8 {
        publisher.publish_copy(&[i]).unwrap();
    }
    let mut late = node.topic("h").subscriber().unwrap();
    let got = first_bytes_of_all(&mut late);
    assert_eq!(got, vec![2, 3, 4]);
    assert_eq!(late.lost(), 0);
}

#[test]
fn peek_does_not_consume_and_take_latest_skips() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("p").publisher().unwrap();
    let mut subscriber = node.topic("p").subscriber().unwrap();
    publisher.publish_copy(b"a").unwrap();
    publisher.publish_copy(b"b").unwrap();
    let peeked = subscriber.peek().unwrap().unwrap();
    let taken = subscriber.take().unwrap().unwrap();
    assert_eq!((&*peeked, &*taken), (&b"a"[..], &b"a"[..]));
    assert_eq!(peeked.address(), taken.address(), "the same chunk, pinned twice");
    drop(peeked);
    assert_eq!(&*taken, b"a", "still pinned by the second sample");
    publisher.publish_copy(b"c").unwrap();
    assert_eq!(&*subscriber.take_latest().unwrap().unwrap(), b"c");
    assert!(subscriber.take().unwrap().is_none());
    assert_eq!(subscriber.lost(), 0, "take_latest skips on purpose; nothing was lost");
}

#[test]
fn samples_are_zero_copy_views_of_the_loan() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("z").max_payload_bytes(1 << 20).publisher().unwrap();
    let mut subscriber = node.topic("z").subscriber().unwrap();
    let mut loan = publisher.loan_uninit(1 << 20).unwrap();
    loan.fill(0xAB);
    let chunk_offset = loan.address();
    loan.publish();
    let s = subscriber.take().unwrap().unwrap();
    assert_eq!(s.len(), 1 << 20);
    assert!(s.iter().all(|&b| b == 0xAB));
    // Different mappings of the same file in one process: the same offset in the file.
    assert_ne!(s.address(), chunk_offset, "the subscriber reads its own read-only mapping");
}

#[test]
fn payloads_of_64_mib_travel() {
    let root = TestRoot::new();
    let node = root.node("t");
    let size = 64 << 20;
    let mut publisher =
        node.topic("big").max_payload_bytes(size as u64).depth(2).max_subscribers(1).max_held(1).publisher().unwrap();
    let mut subscriber = node.topic("big").subscriber().unwrap();
    let mut loan = publisher.loan_uninit(size).unwrap();
    loan[0] = 1;
    loan[size - 1] = 2;
    loan.publish();
    let s = subscriber.take().unwrap().unwrap();
    assert_eq!((s.len(), s[0], s[size - 1]), (size, 1, 2));
}

#[test]
fn typed_topics_check_their_type() {
    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct Pose {
        x: f64,
        y: f64,
    }
    // SAFETY: repr(C), two f64, valid for any bit pattern.
    unsafe impl ringbus::Pod for Pose {}
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("pose").payload_type::<Pose>().publisher().unwrap();
    let mut subscriber = node.topic("pose").payload_type::<Pose>().subscriber().unwrap();
    publisher.publish_value(&Pose { x: 1.0, y: 2.0 }).unwrap();
    assert_eq!(subscriber.take().unwrap().unwrap().value::<Pose>(), Ok(&Pose { x: 1.0, y: 2.0 }));
    assert!(matches!(publisher.loan_value::<u64>(), Err(LoanError::TypeMismatch { .. })));
    let err = node.topic("pose").payload_type::<[u8; 3]>().subscriber().unwrap_err();
    assert!(matches!(err, OpenError::TypeMismatch { .. }), "{err}");
    assert!(err.to_string().contains("Pose"), "{err}");
}

#[test]
fn mismatched_settings_name_the_field() {
    let root = TestRoot::new();
    let node = root.node("t");
    let _p = node.topic("cfg").depth(8).publisher().unwrap();
    let err = node.topic("cfg").depth(16).subscriber().unwrap_err();
    assert!(matches!(err, OpenError::ConfigMismatch { field: "depth", existing: 8, requested: 16, .. }), "{err}");
    assert!(err.to_string().contains("depth"));
    assert!(node.topic("cfg").subscriber().is_ok(), "unset settings accept the existing topic");
}

#[test]
fn limits_are_enforced_with_clear_errors() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("lim").max_subscribers(2).max_payload_bytes(16).max_held(2).publisher().unwrap();
    let mut a = node.topic("lim").subscriber().unwrap();
    let _b = node.topic("lim").subscriber().unwrap();
    let err = node.topic("lim").subscriber().unwrap_err();
    assert!(matches!(err, OpenError::TooMany { role: "subscriber", limit: 2, .. }), "{err}");
    assert_eq!(publisher.loan(17).unwrap_err(), LoanError::TooLarge { requested: 17, max: 16 });
    for i in 0..3u8 {
        publisher.publish_copy(&[i]).unwrap();
    }
    let s0 = a.take().unwrap().unwrap();
    let _s1 = a.take().unwrap().unwrap();
    assert!(matches!(a.take(), Err(TakeError::HeldLimit { max_held: 2 })));
    drop(s0);
    assert_eq!(a.take().unwrap().unwrap()[0], 2, "the refused message was not skipped");
    for bad in ["", "a b", "x/../y", "dots.not.allowed"] {
        assert!(matches!(node.topic(bad).publisher(), Err(OpenError::InvalidName { .. })), "{bad:?}");
    }
    assert!(matches!(node.topic("d").depth(3).publisher(), Err(OpenError::InvalidConfig { field: "depth", .. })));
    assert!(matches!(
        node.topic("kl").keep_last(0).subscriber(),
        Err(OpenError::InvalidConfig { field: "keep_last", .. })
    ));
    assert!(matches!(
        node.topic("kl").depth(4).keep_last(5).subscriber(),
        Err(OpenError::InvalidConfig { field: "keep_last", .. })
    ));
    assert!(matches!(
        node.topic("dw").direct_wakes(0).publisher(),
        Err(OpenError::InvalidConfig { field: "direct_wakes", .. })
    ));
}

#[test]
fn receive_times_out_and_polling_subscribers_cannot_block() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut waiting = node.topic("r").subscriber().unwrap();
    let mut polling = node.topic("r").wake(Wake::Never).subscriber().unwrap();
    assert!(matches!(waiting.receive(Some(Duration::from_millis(20))), Err(ReceiveError::Timeout)));
    assert!(matches!(polling.receive(None), Err(ReceiveError::PollingOnly)));
    let mut publisher = node.topic("r").publisher().unwrap();
    publisher.publish_copy(b"x").unwrap();
    assert_eq!(&*waiting.receive(Some(Duration::from_secs(5))).unwrap(), b"x");
    assert_eq!(&*polling.take().unwrap().unwrap(), b"x");
}

#[test]
fn receive_wakes_across_threads() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut subscriber = node.topic("w").subscriber().unwrap();
    let mut publisher = node.topic("w").publisher().unwrap();
    let waiter = std::thread::spawn(move || {
        let mut got = Vec::new();
        while got.last() != Some(&999) {
            got.push(*subscriber.receive(Some(Duration::from_secs(10))).unwrap().value::<u32>().unwrap());
        }
        (got, subscriber.lost())
    });
    for i in 0..1000u32 {
        publisher.publish_copy(&i.to_le_bytes()).unwrap();
        if i % 7 == 0 {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    let (got, lost) = waiter.join().unwrap();
    // Messages may be lost only by lapping (depth 16), and then they are counted; those
    // received are in order.
    assert!(got.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(got.len() as u64 + lost, 1000);
}

#[test]
fn several_publishers_are_all_received_in_order_each() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut p1 = node.topic("multi").depth(64).publisher().unwrap();
    let mut p2 = node.topic("multi").publisher().unwrap();
    let mut sub = node.topic("multi").subscriber().unwrap();
    for i in 0..20u8 {
        p1.publish_copy(&[1, i]).unwrap();
        p2.publish_copy(&[2, i]).unwrap();
    }
    let mut seen = std::collections::HashMap::<u8, Vec<u8>>::new();
    while let Some(s) = sub.take().unwrap() {
        seen.entry(s[0]).or_default().push(s[1]);
    }
    assert_eq!(seen[&1], (0..20).collect::<Vec<_>>());
    assert_eq!(seen[&2], (0..20).collect::<Vec<_>>());
    drop(p1);
    p2.publish_copy(&[2, 20]).unwrap();
    assert_eq!(sub.take().unwrap().unwrap()[1], 20);
}

#[test]
fn a_departed_publishers_messages_can_still_be_drained() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut sub = node.topic("drain").subscriber().unwrap();
    let mut p = node.topic("drain").publisher().unwrap();
    p.publish_copy(b"last words").unwrap();
    drop(p);
    assert_eq!(&*sub.take().unwrap().unwrap(), b"last words");
    assert!(sub.take().unwrap().is_none());
}

#[test]
fn samples_outlive_their_subscriber_and_publisher() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut p = node.topic("own").publisher().unwrap();
    let mut sub = node.topic("own").subscriber().unwrap();
    p.publish_copy(b"kept").unwrap();
    let s = sub.take().unwrap().unwrap();
    drop(sub);
    drop(p);
    assert_eq!(&*s, b"kept");
    drop(s);
    drop(node);
    assert_eq!(root.files(), Vec::<String>::new());
}
