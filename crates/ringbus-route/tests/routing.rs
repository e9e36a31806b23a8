//! The routing rule on real links with queue sinks: broadcast, targets, component 0, no
//! echo, filters in and out, expiry, closed links, counters.

use mavlink::dialects::common::{MavMessage, COMMAND_LONG_DATA, HEARTBEAT_DATA};
use ringbus_route::filter::Filter;
use ringbus_route::frame::{self, encode};
use ringbus_route::link::{Filters, Link, Sink};
use ringbus_route::Router;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

struct Peer {
    link: Arc<Link>,
    inbox: Receiver<Vec<u8>>,
}

impl Peer {
    fn got(&self) -> Vec<Vec<u8>> {
        self.inbox.try_iter().collect()
    }
}

fn peer(router: &Router, name: &str, filters: Filters) -> Peer {
    let (queue, inbox) = std::sync::mpsc::sync_channel(64);
    let link = Arc::new(Link::new(name, name.into(), &filters, Sink::Queue(queue)));
    router.add(link.clone());
    Peer { link, inbox }
}

fn send(router: &Router, from: &Peer, bytes: &[u8]) {
    let f = frame::whole(bytes, router.dialect()).expect("a whole frame");
    router.receive(&from.link, &f);
}

fn heartbeat(system: u8, component: u8) -> Vec<u8> {
    encode(true, 0, system, component, &MavMessage::HEARTBEAT(HEARTBEAT_DATA::default()))
}

fn command(from: (u8, u8), to: (u8, u8)) -> Vec<u8> {
    let data = COMMAND_LONG_DATA { target_system: to.0, target_component: to.1, ..Default::default() };
    encode(true, 0, from.0, from.1, &MavMessage::COMMAND_LONG(data))
}

fn three() -> (Router, Peer, Peer, Peer) {
    let router = Router::new(10_000);
    let (gcs, vehicle, other) = (
        peer(&router, "gcs", Filters::default()),
        peer(&router, "vehicle", Filters::default()),
        peer(&router, "other", Filters::default()),
    );
    (router, gcs, vehicle, other)
}

#[test]
fn broadcasts_reach_every_other_link_and_never_echo() {
    let (router, gcs, vehicle, other) = three();
    let hb = heartbeat(1, 1);
    send(&router, &vehicle, &hb);
    assert_eq!((gcs.got(), other.got(), vehicle.got().len()), (vec![hb.clone()], vec![hb], 0));
    let to_all = command((255, 190), (0, 0));
    send(&router, &gcs, &to_all);
    assert_eq!((vehicle.got(), other.got(), gcs.got().len()), (vec![to_all.clone()], vec![to_all], 0));
    let c = vehicle.link.counters.snapshot();
    assert_eq!((c.frames_in, c.frames_out, c.bytes_in as usize), (1, 1, hb_len()));
}

fn hb_len() -> usize {
    heartbeat(1, 1).len()
}

#[test]
fn targeted_frames_go_only_where_the_target_was_heard() {
    let (router, gcs, vehicle, other) = three();
    let cmd = command((255, 190), (1, 1));
    send(&router, &gcs, &cmd);
    assert_eq!((vehicle.got().len(), other.got().len(), router.unroutable()), (0, 0, 1), "nobody heard yet");
    send(&router, &vehicle, &heartbeat(1, 1));
    send(&router, &other, &heartbeat(2, 1));
    let _ = (gcs.got(), vehicle.got(), other.got());
    send(&router, &gcs, &cmd);
    assert_eq!((vehicle.got(), other.got().len()), (vec![cmd], 0));
    send(&router, &gcs, &command((255, 190), (1, 0)));
    assert_eq!((vehicle.got().len(), other.got().len()), (1, 0), "component 0: any component of system 1");
    send(&router, &gcs, &command((255, 190), (1, 2)));
    assert_eq!((vehicle.got().len(), other.got().len()), (0, 0), "component 2 of system 1 was never heard");
    send(&router, &vehicle, &command((1, 1), (1, 1)));
    assert_eq!(vehicle.got().len(), 0, "not back out of the link it came in, even to its own target");
}

#[test]
fn routes_expire_unless_heard_again() {
    let (router, gcs, vehicle, _other) = three();
    router.clock.set_ms(1_000);
    send(&router, &vehicle, &heartbeat(1, 1));
    router.clock.set_ms(10_999);
    send(&router, &gcs, &command((255, 190), (1, 1)));
    assert_eq!(vehicle.got().len(), 1);
    router.clock.set_ms(11_002);
    send(&router, &gcs, &command((255, 190), (1, 1)));
    assert_eq!(vehicle.got().len(), 0, "expired");
    send(&router, &vehicle, &heartbeat(1, 1));
    send(&router, &gcs, &command((255, 190), (1, 1)));
    assert_eq!(vehicle.got().len(), 1, "heard again");
}

#[test]
fn filters_block_and_allow_in_and_out_and_count() {
    let router = Router::new(10_000);
    let input = Filter { block_msg: vec![76], ..Filter::default() };
    let output = Filter { allow_src_system: vec![1], block_src_component: vec![2], ..Filter::default() };
    let picky = peer(&router, "picky", Filters { input, output });
    let a = peer(&router, "a", Filters::default());
    send(&router, &picky, &command((9, 9), (0, 0)));
    assert_eq!(a.got().len(), 0, "COMMAND_LONG blocked on the way in");
    send(&router, &picky, &heartbeat(9, 9));
    assert_eq!(a.got().len(), 1);
    send(&router, &a, &heartbeat(1, 1));
    send(&router, &a, &heartbeat(1, 2));
    send(&router, &a, &heartbeat(3, 1));
    assert_eq!(picky.got(), vec![heartbeat(1, 1)], "only system 1, not its component 2");
    let c = picky.link.counters.snapshot();
    assert_eq!((c.frames_in, c.filtered_in, c.frames_out, c.filtered_out), (2, 1, 1, 2));
}

#[test]
fn closed_or_removed_links_get_nothing() {
    let (router, gcs, vehicle, other) = three();
    let gone = router.remove_where(&|l| l.endpoint == "other");
    assert_eq!(gone.len(), 1);
    assert!(gone[0].is_closed());
    send(&router, &gcs, &heartbeat(255, 190));
    assert_eq!((vehicle.got().len(), other.got().len()), (1, 0));
    other.link.deliver(&heartbeat(1, 1));
    assert_eq!(other.got().len(), 0, "a closed link sends nothing even through an old list");
    drop(gone);
    assert!(ringbus_route::router::wait_unused(&other.link, std::time::Duration::from_secs(1)));
}
