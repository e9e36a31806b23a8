//! One run of the table benchmark: forwarding threads routing frames through a router
//! over one table, a churn thread adding and removing links meanwhile if asked.

use super::{Point, RouteConfig, Table};
use mavlink::dialects::common::{MavMessage, COMMAND_LONG_DATA, HEARTBEAT_DATA};
use ringbus_route::frame::{self, encode};
use ringbus_route::link::{Filters, Link, Sink};
use ringbus_route::table::{LinkTable, Links, MutexLinks};
use ringbus_route::Router;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

/// Mean ns per frame over the forwarding threads, per metric.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub(crate) decision_ns: f64,
    pub(crate) forward_ns: f64,
    pub(crate) churn_cycles: u64,
}

fn link(name: &str) -> Arc<Link> {
    Arc::new(Link::new(name, name.into(), &Filters::default(), Sink::Discard))
}

pub(crate) fn measure(run: &Point, config: &RouteConfig) -> Measured {
    match run.table {
        Table::LockFree => measure_on::<Links>(run, config),
        Table::Mutex => measure_on::<MutexLinks>(run, config),
    }
}

fn measure_on<T: LinkTable + Default + 'static>(run: &Point, config: &RouteConfig) -> Measured {
    let router = Arc::new(Router::<T>::new(60_000));
    for i in 0..config.links {
        let l = link("sink");
        l.seen.learn(i as u8 + 1, 1, 0);
        router.add(l);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let churn = run.group.churn.then(|| {
        let (router, stop) = (router.clone(), stop.clone());
        std::thread::spawn(move || churn(&*router, &stop))
    });
    let start = Arc::new(Barrier::new(run.group.threads as usize));
    let threads: Vec<_> = (0..run.group.threads)
        .map(|t| {
            let (router, start, frames) = (router.clone(), start.clone(), config.frames);
            std::thread::spawn(move || forward(&*router, t, &start, frames))
        })
        .collect();
    let per_thread: Vec<(f64, f64)> = threads.into_iter().map(|t| t.join().expect("a forwarding thread")).collect();
    stop.store(true, Ordering::Relaxed);
    let churn_cycles = churn.map_or(0, |c| c.join().expect("the churn thread"));
    let n = per_thread.len() as f64;
    Measured {
        decision_ns: per_thread.iter().map(|p| p.0).sum::<f64>() / n,
        forward_ns: per_thread.iter().map(|p| p.1).sum::<f64>() / n,
        churn_cycles,
    }
}

/// Adds and removes a link until told to stop; how many times.
fn churn<T: LinkTable>(router: &Router<T>, stop: &AtomicBool) -> u64 {
    let mut cycles = 0;
    while !stop.load(Ordering::Relaxed) {
        let l = link("churn");
        l.seen.learn(3, 1, 0);
        router.add(l.clone());
        router.remove_where(&|x| x.id == l.id);
        cycles += 1;
    }
    cycles
}

/// Routes `frames` frames per metric from a source link of its own: (decision, forward) ns
/// per frame.
fn forward<T: LinkTable>(router: &Router<T>, thread: u32, start: &Barrier, frames: u64) -> (f64, f64) {
    let source = link("source");
    router.add(source.clone());
    let system = 200 + thread as u8;
    let heartbeat = encode(true, 0, system, 1, &MavMessage::HEARTBEAT(HEARTBEAT_DATA::default()));
    let data = COMMAND_LONG_DATA { target_system: 3, target_component: 1, ..Default::default() };
    let command = encode(true, 0, system, 1, &MavMessage::COMMAND_LONG(data));
    let dialect = router.dialect();
    let pair = [frame::whole(&heartbeat, dialect).expect("a frame"), frame::whole(&command, dialect).expect("a frame")];
    let warmup = (frames / 10).max(1);
    for i in 0..warmup {
        router.receive(&source, &pair[(i % 2) as usize]);
    }
    start.wait();
    let t = Instant::now();
    for i in 0..frames {
        black_box(router.count_destinations(source.id, &pair[(i % 2) as usize]));
    }
    let decision = t.elapsed().as_nanos() as f64 / frames as f64;
    let t = Instant::now();
    for i in 0..frames {
        router.receive(&source, &pair[(i % 2) as usize]);
    }
    let forward = t.elapsed().as_nanos() as f64 / frames as f64;
    (decision, forward)
}
