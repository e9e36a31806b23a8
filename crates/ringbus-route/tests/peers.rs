//! `udp-in` peers come and go: a silent peer expires (its link removed, counted), a full
//! table makes room for a new peer by dropping the one silent longest — never one that
//! keeps talking — and each endpoint counts what it refused.

mod common;

use common::{add, client, endpoint, heartbeat, router, sources, udp_in, wait_until};
use ringbus_route::endpoint::{MAX_UDP_PEERS, MIN_SILENCE_TO_EVICT};
use std::net::UdpSocket;

/// A peer silent for the endpoint's `peer_expiry_ms` stops being a link; when it speaks
/// again it is a new link, served as before.
#[test]
fn a_silent_peer_expires_and_comes_back_as_a_new_link() {
    let runtime = router();
    let gcs = add(&runtime, "gcs=udp-in:127.0.0.1:0", |c| c.peer_expiry_ms = Some(200)).unwrap();
    let vehicle = client();
    vehicle.send_to(&heartbeat(1), udp_in(&runtime, "vehicle")).unwrap();
    let station = client();
    station.send_to(&heartbeat(255), gcs).unwrap();
    wait_until("both links", || runtime.status().links.len() == 2);
    // The vehicle's endpoint keeps the router's expiry (60 s): only the station expires.
    wait_until("the silent station to expire", || endpoint(&runtime, "gcs").counters.expired_peers == 1);
    let status = runtime.status();
    assert_eq!(status.links.iter().map(|l| l.endpoint.as_str()).collect::<Vec<_>>(), ["vehicle"]);
    assert_eq!(endpoint(&runtime, "vehicle").counters.expired_peers, 0);

    station.send_to(&heartbeat(255), gcs).unwrap();
    wait_until("the station's new link", || runtime.status().links.len() == 2);
    assert_eq!(sources(&vehicle, 1), [255], "the new link is routed like the first");
    runtime.shutdown();
}

/// A full table refuses a new peer while every peer has spoken within
/// `MIN_SILENCE_TO_EVICT`; after that, each new peer takes the place of the one silent
/// longest, and a peer that kept talking keeps its link.
#[test]
fn a_full_table_makes_room_by_dropping_the_longest_silent_peer() {
    let runtime = router();
    let gcs = udp_in(&runtime, "gcs");
    let clients: Vec<UdpSocket> = (0..MAX_UDP_PEERS).map(|_| client()).collect();
    for (i, c) in clients.iter().enumerate() {
        c.send_to(&heartbeat(1 + i as u8), gcs).unwrap();
        wait_until("the peer's link", || runtime.status().links.len() == i + 1);
        if i == 0 {
            std::thread::sleep(std::time::Duration::from_millis(50)); // the first is the oldest
        }
    }
    let late = client();
    late.send_to(&heartbeat(200), gcs).unwrap();
    wait_until("the refusal", || endpoint(&runtime, "gcs").counters.refused_datagrams == 1);
    assert_eq!(runtime.status().refused_datagrams, 1, "the router's total");

    // The last client keeps talking while the others fall silent.
    let talker = &clients[MAX_UDP_PEERS - 1];
    let talker_address = talker.local_addr().unwrap().to_string();
    let deadline = std::time::Instant::now() + MIN_SILENCE_TO_EVICT + std::time::Duration::from_millis(300);
    while std::time::Instant::now() < deadline {
        talker.send_to(&heartbeat(MAX_UDP_PEERS as u8), gcs).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let first = clients[0].local_addr().unwrap().to_string();
    late.send_to(&heartbeat(200), gcs).unwrap();
    wait_until("the eviction", || endpoint(&runtime, "gcs").counters.evicted_peers == 1);
    let peers: Vec<String> = runtime.status().links.into_iter().map(|l| l.peer).collect();
    assert_eq!(peers.len(), MAX_UDP_PEERS);
    assert!(peers.contains(&late.local_addr().unwrap().to_string()), "the new peer is served");
    assert!(!peers.contains(&first), "the first peer, silent longest, made room");
    assert!(peers.contains(&talker_address), "the peer that kept talking stays");
    assert_eq!(endpoint(&runtime, "gcs").counters.refused_datagrams, 1, "nothing more refused");
    runtime.shutdown();
}
