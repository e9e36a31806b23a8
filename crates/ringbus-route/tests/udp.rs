//! `udp-in` endpoints of a real router on loopback: batched receive and send count every
//! frame exactly, datagrams carrying several frames (received, and sent packed), and the
//! peer limit.

mod common;

use common::{client, heartbeat, router, sources, udp_in, wait_until};
use ringbus_route::config::EndpointConfig;
use ringbus_route::dialect::Dialect;
use ringbus_route::endpoint::{MAX_DATAGRAM, MAX_UDP_PEERS};
use ringbus_route::frame::Framer;
use ringbus_route::outbox::PACKED_DATAGRAM;
use std::net::UdpSocket;

/// Receives datagrams until `count` frames have come; returns the frames, each as its
/// bytes, and how many datagrams carried them.
fn receive_frames(receiver: &UdpSocket, count: usize) -> (Vec<Vec<u8>>, usize) {
    let (mut framer, mut buf) = (Framer::new(), [0u8; MAX_DATAGRAM]);
    let (mut frames, mut datagrams) = (Vec::new(), 0);
    while frames.len() < count {
        let n = receiver.recv(&mut buf).unwrap();
        assert!(n <= PACKED_DATAGRAM, "a datagram of {n} bytes: packing stops at {PACKED_DATAGRAM}");
        datagrams += 1;
        framer.push(&buf[..n]);
        while let Some(frame) = framer.next_frame(Dialect::common()) {
            frames.push(frame.bytes().to_vec());
        }
        assert_eq!(framer.take_garbage(), 0, "a datagram holds whole frames only");
    }
    (frames, datagrams)
}

/// 2 000 frames in bursts (so the router reads and sends them in batches), 3 frames in one
/// datagram at the end: the receiver gets each once, byte for byte and in order, the
/// frames of one batch packed into shared datagrams, and the counters of both links say
/// exactly that.
#[test]
fn batched_forwarding_counts_every_frame_once() {
    let runtime = router();
    let (a, b) = (udp_in(&runtime, "a"), udp_in(&runtime, "b"));
    let (sender, receiver) = (client(), client());
    receiver.send_to(&heartbeat(2), b).unwrap(); // the receiver becomes a link of b
    wait_until("the receiver's link", || runtime.status().links.len() == 1);
    let frame = heartbeat(1);
    let mut datagrams = 0;
    for _ in 0..20 {
        for _ in 0..100 {
            sender.send_to(&frame, a).unwrap();
        }
        let (frames, carried_by) = receive_frames(&receiver, 100);
        assert!(frames.iter().all(|f| f == &frame), "forwarded as received");
        datagrams += carried_by;
    }
    assert!(datagrams <= 2000);
    eprintln!("2000 frames came in {datagrams} datagrams");
    let packed = [heartbeat(3), heartbeat(4), heartbeat(5)].concat();
    sender.send_to(&packed, a).unwrap();
    let (frames, carried_by) = receive_frames(&receiver, 3);
    assert_eq!(frames, [heartbeat(3), heartbeat(4), heartbeat(5)], "in order");
    assert_eq!(carried_by, 1, "the frames of one received datagram leave in one");
    let counters = |endpoint: &str| {
        let status = runtime.status();
        status.links.iter().find(|l| l.endpoint == endpoint).unwrap().counters
    };
    // A batch is counted once its send returns, which may be after the receiver has it.
    wait_until("the last batch counted", || counters("b").frames_out == 2003);
    let link = counters;
    assert_eq!((link("a").frames_in, link("a").frames_out), (2003, 0), "a had no link when b's heartbeat came");
    assert_eq!((link("b").frames_in, link("b").frames_out), (1, 2003));
    assert_eq!(link("b").bytes_out, 2000 * frame.len() as u64 + packed.len() as u64);
    assert_eq!(link("b").dropped_out, 0);
    runtime.shutdown();
}

/// A `udp-in` endpoint serves at most `MAX_UDP_PEERS` senders: further ones are refused
/// and counted, never made links.
#[test]
fn a_udp_in_endpoint_serves_a_bounded_number_of_peers() {
    let runtime = router();
    let a = udp_in(&runtime, "a");
    let extra = 6;
    let clients: Vec<UdpSocket> = (0..MAX_UDP_PEERS + extra).map(|_| client()).collect();
    for (i, c) in clients.iter().enumerate() {
        c.send_to(&heartbeat(1 + i as u8), a).unwrap();
        // One at a time, so which senders are served is known: the first ones.
        wait_until("the datagram to be read", || {
            let status = runtime.status();
            status.links.len() + status.refused_datagrams as usize == i + 1
        });
    }
    let status = runtime.status();
    assert_eq!((status.links.len(), status.refused_datagrams), (MAX_UDP_PEERS, extra as u64));
    runtime.shutdown();
}

/// A `udp-out` endpoint routes what its peer sends back and refuses, counting them, the
/// frames any other socket sends to its port; with `accept_any_sender` it routes both.
#[test]
fn udp_out_routes_its_peer_only_and_counts_strangers() {
    for any_sender in [false, true] {
        let runtime = router();
        let gcs = client();
        gcs.send_to(&heartbeat(255), udp_in(&runtime, "gcs")).unwrap();
        wait_until("the ground station's link", || runtime.status().links.len() == 1);
        let vehicle = client();
        let mut config =
            EndpointConfig::parse_spec(&format!("vehicle=udp-out:{}", vehicle.local_addr().unwrap())).unwrap();
        config.accept_any_sender = any_sender;
        let out = runtime.add(config).unwrap().expect("a udp-out endpoint has an address");
        if !any_sender {
            assert!(out.ip().is_loopback(), "bound to the interface that reaches the peer: {out}");
        }

        let stranger = client();
        for _ in 0..5 {
            stranger.send_to(&heartbeat(66), out).unwrap();
        }
        vehicle.send_to(&heartbeat(1), out).unwrap();
        if any_sender {
            let mut got = sources(&gcs, 6);
            got.sort();
            assert_eq!(got, [1, 66, 66, 66, 66, 66]);
            assert_eq!(runtime.status().refused_datagrams, 0);
        } else {
            assert_eq!(sources(&gcs, 1), [1], "the vehicle's frame, not the stranger's");
            wait_until("the stranger's datagrams counted", || runtime.status().refused_datagrams == 5);
            vehicle.send_to(&heartbeat(1), out).unwrap();
            assert_eq!(sources(&gcs, 1), [1], "nothing of the stranger's came in between");
        }
    }
}
