//! Links added and removed 10^5 times while two threads forward frames as fast as they can
//! through the lock-free table; run under AddressSanitizer by `scripts/test-route.sh`
//! (a use-after-free of a removed link would abort the run). Also checks, every so often,
//! that a removed link, once nobody holds it, is sent nothing more.

use mavlink::dialects::common::{MavMessage, COMMAND_LONG_DATA, HEARTBEAT_DATA};
use ringbus_route::frame::{self, encode};
use ringbus_route::link::{Filters, Link, Sink};
use ringbus_route::router::wait_unused;
use ringbus_route::Router;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const CYCLES: u32 = 100_000;
/// Every this many cycles, the removed link is checked to get nothing more.
const CHECK_EVERY: u32 = 1_000;

fn link(name: &str) -> Arc<Link> {
    Arc::new(Link::new(name, name.into(), &Filters::default(), Sink::Discard))
}

fn forward(router: &Router, from: &Link, stop: &AtomicBool, frames: &AtomicU64) {
    let heartbeat = encode(true, 0, 1, 1, &MavMessage::HEARTBEAT(HEARTBEAT_DATA::default()));
    let data = COMMAND_LONG_DATA { target_system: 2, target_component: 1, ..Default::default() };
    let command = encode(true, 0, 1, 1, &MavMessage::COMMAND_LONG(data));
    let frames_of =
        [frame::whole(&heartbeat, router.dialect()).unwrap(), frame::whole(&command, router.dialect()).unwrap()];
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        router.receive(from, &frames_of[(n % 2) as usize]);
        n += 1;
    }
    frames.fetch_add(n, Ordering::Relaxed);
}

#[test]
fn links_churn_under_full_forwarding_without_use_after_free() {
    let router = Arc::new(Router::new(10_000));
    let sources = [link("source-a"), link("source-b")];
    for s in &sources {
        router.add(s.clone());
    }
    let stop = Arc::new(AtomicBool::new(false));
    let frames = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = sources
        .iter()
        .map(|source| {
            let (router, source, stop, frames) = (router.clone(), source.clone(), stop.clone(), frames.clone());
            std::thread::spawn(move || forward(&router, &source, &stop, &frames))
        })
        .collect();
    let mut freed = Vec::new();
    for cycle in 0..CYCLES {
        let churned = link("churn");
        churned.seen.learn(2, 1, 0); // a target of the command frames lives here
        router.add(churned.clone());
        let gone = router.remove_where(&|l| l.id == churned.id);
        assert_eq!(gone.len(), 1);
        drop(gone);
        if cycle % CHECK_EVERY == 0 {
            assert!(wait_unused(&churned, Duration::from_secs(10)), "cycle {cycle}: a forwarding thread kept the link");
            let out = churned.counters.snapshot().frames_out;
            std::thread::sleep(Duration::from_micros(500));
            assert_eq!(churned.counters.snapshot().frames_out, out, "cycle {cycle}: sent to after its removal");
        }
        freed.push(Arc::downgrade(&churned));
        if freed.len() > 64 {
            freed.remove(0);
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    assert!(freed.iter().all(|w| w.upgrade().is_none()), "every removed link was freed once its readers were done");
    assert!(frames.load(Ordering::Relaxed) > 0);
    assert_eq!(router.links().len(), 2);
}
