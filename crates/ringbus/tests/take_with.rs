//! `Subscriber::take_with`: messages read in place without a pin, in order with `take`,
//! and a message the publisher overwrites while it is being read dropped and counted lost.

mod common;

use common::TestRoot;

#[test]
fn take_with_reads_in_place_in_order_and_pins_nothing() {
    let root = TestRoot::new();
    let node = root.node("t");
    let mut publisher = node.topic("ticks").depth(64).max_payload_bytes(64).publisher().unwrap();
    let mut subscriber = node.topic("ticks").subscriber().unwrap();
    assert_eq!(subscriber.take_with(|b| b.to_vec()).unwrap(), None, "nothing yet");
    for i in 0..40u8 {
        publisher.publish_copy(&[i, i]).unwrap();
    }
    let mut seen = Vec::new();
    for k in 0..40 {
        let got = match k % 3 {
            0 => subscriber.take().unwrap().map(|s| s[0]),
            _ => subscriber
                .take_with(|b| {
                    assert_eq!(b.len(), 2);
                    b[0]
                })
                .unwrap(),
        };
        seen.push(got.expect("published"));
    }
    assert_eq!(seen, (0..40).collect::<Vec<u8>>(), "one stream, whichever call reads it");
    assert_eq!(subscriber.take_with(|b| b.len()).unwrap(), None);
    assert_eq!((subscriber.taken(), subscriber.lost(), subscriber.held()), (40, 0, 0));
    assert_eq!(publisher.chunks_held_by_subscribers(), 0, "no chunk pinned");
}

#[test]
fn a_message_overwritten_while_read_is_dropped_counted_lost_and_the_next_read() {
    let root = TestRoot::new();
    let node = root.node("t");
    let topic = || node.topic("lap").depth(2).max_payload_bytes(64);
    let mut publisher = topic().publisher().unwrap();
    let mut subscriber = topic().subscriber().unwrap();
    publisher.publish_copy(b"m0").unwrap();
    let mut calls = 0;
    let got = subscriber
        .take_with(|bytes| {
            calls += 1;
            if calls == 1 {
                // While m0 is read, the publisher laps the subscriber: m2 takes m0's entry.
                publisher.publish_copy(b"m1").unwrap();
                publisher.publish_copy(b"m2").unwrap();
            }
            bytes.to_vec()
        })
        .unwrap();
    assert_eq!(got.as_deref(), Some(&b"m1"[..]), "m0's read is dropped; m1 is read next");
    assert_eq!((calls, subscriber.taken(), subscriber.lost()), (2, 1, 1));
    assert_eq!(subscriber.take_with(|b| b.to_vec()).unwrap().as_deref(), Some(&b"m2"[..]));
}
