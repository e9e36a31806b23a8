//! Endpoints at run time: each endpoint's threads read its sockets or topic, cut what
//! they read into frames and hand each to the router on the spot (the reading thread is
//! the forwarding thread); each creates and removes the links it serves.
//!
//! Every blocking call has a bound ([`POLL`]), after which the thread looks at its
//! endpoint's stop flag: stopping an endpoint never waits longer than that for a thread.

mod health;
mod shm;
mod tcp;
mod udp;

pub use health::{EndpointState, Health, HealthCounters};
pub use udp::{count_kernel_drops, BatchReader, MAX_DATAGRAM, MAX_UDP_PEERS, MIN_SILENCE_TO_EVICT};

use crate::config::{EndpointConfig, EndpointKind};
use crate::frame::Framer;
use crate::link::{Filters, Link, Sink};
use crate::router::{self, Router};
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The longest any endpoint thread blocks before looking at its stop flag.
pub const POLL: Duration = Duration::from_millis(50);
/// Frames waiting for a TCP connection or a topic before new ones are dropped.
pub const QUEUE_FRAMES: usize = 4096;
/// How long stopping an endpoint waits for forwarding threads to let go of its links.
const UNUSED_TIMEOUT: Duration = Duration::from_secs(5);

/// What an endpoint's threads share.
#[derive(Debug, Clone)]
pub struct Context {
    pub router: Arc<Router>,
    pub name: String,
    pub filters: Filters,
    /// The endpoint's state and counters of what reached no link.
    pub health: Arc<Health>,
    stop: Arc<AtomicBool>,
}

impl Context {
    /// Logs an event of this endpoint on the router's standard error.
    pub fn log(&self, event: impl std::fmt::Display) {
        eprintln!("ringbus route: {}: {event}", self.name);
    }

    /// Sets the endpoint's state, logging it when it changed.
    pub fn set_state(&self, state: EndpointState) {
        let text = state.to_string();
        if self.health.set_state(state).to_string() != text {
            self.log(text);
        }
    }

    /// Counts a datagram refused (a stranger's, or one peer too many's).
    pub fn refuse_datagram(&self) {
        self.health.refuse_datagram();
        self.router.refuse_datagram();
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// A new link of this endpoint, routed from now on.
    pub fn add_link(&self, peer: String, sink: Sink) -> Arc<Link> {
        let link = Arc::new(Link::new(&self.name, peer, &self.filters, sink));
        self.router.add(link.clone());
        link
    }

    /// Takes `link` out of the router (its connection ended).
    pub fn drop_link(&self, link: &Arc<Link>) {
        self.router.remove_where(&|l| l.id == link.id);
    }

    /// Feeds received bytes through `framer` (a stream's, or a datagram's: see
    /// [`Framer::for_datagrams`]) and routes every whole frame.
    pub fn pump(&self, link: &Link, framer: &mut Framer, bytes: &[u8]) {
        framer.push(bytes);
        let dialect = self.router.dialect();
        while let Some(frame) = framer.next_frame(dialect) {
            self.router.receive(link, &frame);
        }
        link.counters.garbage(framer.take_garbage());
    }

    /// Sleeps `d` in [`POLL`] steps; `false` if the endpoint was stopped meanwhile.
    pub fn sleep(&self, d: Duration) -> bool {
        let end = std::time::Instant::now() + d;
        while std::time::Instant::now() < end {
            if self.stopped() {
                return false;
            }
            std::thread::sleep(POLL.min(end.saturating_duration_since(std::time::Instant::now())));
        }
        !self.stopped()
    }
}

/// A running endpoint.
#[derive(Debug)]
pub struct Endpoint {
    pub config: EndpointConfig,
    /// The bound address of a server or a UDP socket (useful with port 0).
    pub local: Option<SocketAddr>,
    context: Context,
    threads: Vec<JoinHandle<()>>,
}

/// Starts `config`'s threads; binding errors come back at once.
pub fn start(router: &Arc<Router>, config: EndpointConfig) -> std::io::Result<Endpoint> {
    let filters = Filters { input: config.filter_in.clone(), output: config.filter_out.clone() };
    let stop = Arc::new(AtomicBool::new(false));
    let health = Arc::new(Health::default());
    let context = Context { router: router.clone(), name: config.name.clone(), filters, health, stop };
    let (local, threads) = match config.kind {
        EndpointKind::UdpIn => udp::start_in(&context, &config)?,
        EndpointKind::UdpOut => udp::start_out(&context, &config)?,
        EndpointKind::TcpIn => tcp::start_in(&context, &config)?,
        EndpointKind::TcpOut => tcp::start_out(&context, &config)?,
        EndpointKind::Shm => shm::start(&context, &config.address)?,
    };
    Ok(Endpoint { config, local, context, threads })
}

/// The address to bind or reach, resolved, with what is wrong with it as the error.
pub(crate) fn resolve(config: &EndpointConfig) -> std::io::Result<SocketAddr> {
    crate::address::resolve(&config.address, config.kind.sends_to_peer())
        .map_err(|e| std::io::Error::new(ErrorKind::InvalidInput, e.to_string()))
}

/// `e`, from binding `address`, saying which address (and, when it is taken, what to do).
pub(crate) fn bind_error(kind: EndpointKind, address: SocketAddr, e: std::io::Error) -> std::io::Error {
    let hint = match e.kind() {
        ErrorKind::AddrInUse => "; another program (or another endpoint, or router) uses it: pick another port",
        ErrorKind::AddrNotAvailable => "; no interface of this machine has that address",
        ErrorKind::PermissionDenied => "; ports below 1024 need privileges",
        _ => "",
    };
    std::io::Error::new(e.kind(), format!("cannot bind {kind} {address}: {e}{hint}"))
}

/// Sets a socket's receive buffer (`SO_RCVBUF`) when the endpoint gives one.
pub(crate) fn set_rcvbuf(socket: &impl std::os::fd::AsFd, rcvbuf: Option<u32>) -> std::io::Result<()> {
    match rcvbuf {
        Some(bytes) => nix::sys::socket::setsockopt(socket, nix::sys::socket::sockopt::RcvBuf, &(bytes as usize))
            .map_err(|e| {
                std::io::Error::new(std::io::Error::from(e).kind(), format!("cannot set rcvbuf = {bytes}: {e}"))
            }),
        None => Ok(()),
    }
}

impl Endpoint {
    /// The endpoint's state and counters.
    pub fn health(&self) -> &Health {
        &self.context.health
    }

    /// Stops the threads and removes every link: when this returns, no thread holds one of
    /// them any more, so nothing more is sent to them. Returns how many links there were.
    pub fn stop(self) -> usize {
        let router = &self.context.router;
        let name = self.config.name.clone();
        self.context.stop.store(true, Ordering::Relaxed);
        let mut gone = router.remove_where(&|l| l.endpoint == name);
        for thread in self.threads {
            let _ = thread.join();
        }
        // A link a thread added after the first removal (it had not seen the flag yet).
        gone.extend(router.remove_where(&|l| l.endpoint == name));
        for link in &gone {
            if !router::wait_unused(link, UNUSED_TIMEOUT) {
                eprintln!("ringbus route: link {} of {name} still in use after {UNUSED_TIMEOUT:?}", link.id);
            }
        }
        gone.len()
    }
}

/// Spawns a named thread.
pub(crate) fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(name).spawn(f)
}

/// Drains a link's queue into `write` until the queue's link is gone, `write` fails or the
/// endpoint stops.
pub(crate) fn drain(context: &Context, queue: Receiver<Vec<u8>>, mut write: impl FnMut(&[u8]) -> bool) {
    loop {
        match queue.recv_timeout(POLL) {
            Ok(bytes) => {
                if !write(&bytes) {
                    return;
                }
            }
            Err(RecvTimeoutError::Timeout) if !context.stopped() => {}
            Err(_) => return,
        }
    }
}
