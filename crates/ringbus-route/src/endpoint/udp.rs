//! `udp-in`: a server socket; every peer that sends to it becomes a link of its own (up to
//! [`MAX_UDP_PEERS`]), sent to through the same socket. A peer not heard from for the
//! endpoint's `peer_expiry_ms` stops being a link; when the table is full, a new peer takes
//! the place of the one silent longest if that one has been silent for at least
//! [`MIN_SILENCE_TO_EVICT`] (so a restarted ground station, back from a new port, is served
//! while peers that keep talking are never pushed out), else its datagrams are refused.
//! `udp-out`: a socket that sends to one peer and routes what that peer sends back — from
//! its address and port only, received on the interface that reaches it; anything else
//! sent to the socket's port is refused and counted, unless the endpoint says
//! `accept_any_sender` (a peer that answers from another port).
//!
//! Both read with `recvmmsg` — up to [`BATCH`] datagrams per system call, blocking only for
//! the first — and route each batch with the thread's outbox open, so the frames forwarded
//! to UDP links leave in one `sendmmsg` per socket ([`crate::outbox`]). Each datagram is
//! framed on its own ([`Framer::for_datagrams`]). The kernel's count of datagrams it
//! dropped because the socket's buffer was full arrives with each datagram
//! (`SO_RXQ_OVFL`) and is the endpoint's `kernel_drops`.

use super::{bind_error, resolve, set_rcvbuf, spawn, Context, POLL};
use crate::config::EndpointConfig;
use crate::frame::{Framer, MAX_FRAME};
use crate::link::{Link, Sink};
use crate::outbox::{self, BATCH};
use nix::sys::socket::{recvmmsg, ControlMessageOwned, MsgFlags, MultiHeaders, SockaddrLike, SockaddrStorage};
use std::collections::HashMap;
use std::io::IoSliceMut;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

type Started = (Option<SocketAddr>, Vec<JoinHandle<()>>);

/// Peers one `udp-in` endpoint serves at once; datagrams from further addresses are
/// dropped and counted (`refused_datagrams` in `ringbus route ctl list`) unless a silent
/// peer can make room: a flood of forged source addresses must not grow the link list
/// without bound.
pub const MAX_UDP_PEERS: usize = 64;
/// How long a `udp-in` peer must have been silent before a new peer may take its place in
/// a full table. MAVLink systems send a heartbeat every second: one silent this long has
/// stopped, or is not a MAVLink system.
pub const MIN_SILENCE_TO_EVICT: Duration = Duration::from_secs(2);
/// How often a `udp-in` endpoint looks for peers silent past their expiry.
const SWEEP_EVERY_MS: u64 = 100;
/// Bytes of one received datagram kept; a longer one is cut (and its frames lost as
/// garbage). MAVLink frames are at most 280 bytes; senders pack several up to the MTU.
pub const MAX_DATAGRAM: usize = 4096;
const _: () = assert!(MAX_DATAGRAM >= MAX_FRAME);

/// Receives datagrams in batches (also what `ringbus bench route`'s batching client reads
/// with).
#[derive(Debug)]
pub struct BatchReader {
    headers: MultiHeaders<SockaddrStorage>,
    buffers: Vec<Vec<u8>>,
    /// The highest drop count the kernel reported (see [`count_kernel_drops`]).
    kernel_drops: u32,
}

/// Asks the kernel to report, with every datagram, how many it dropped at `socket` so far
/// because the receive buffer was full (`SO_RXQ_OVFL`); [`BatchReader::kernel_drops`]
/// reads it.
pub fn count_kernel_drops(socket: &UdpSocket) -> std::io::Result<()> {
    nix::sys::socket::setsockopt(socket, nix::sys::socket::sockopt::RxqOvfl, &1).map_err(std::io::Error::from)
}

impl BatchReader {
    pub fn new() -> BatchReader {
        BatchReader {
            headers: headers(),
            buffers: (0..BATCH).map(|_| vec![0u8; MAX_DATAGRAM]).collect(),
            kernel_drops: 0,
        }
    }

    /// Datagrams the kernel dropped at the socket since it was made, as of the last one
    /// read (0 unless [`count_kernel_drops`] was called on it).
    pub fn kernel_drops(&self) -> u64 {
        self.kernel_drops.into()
    }

    /// Waits (at most the socket's read timeout) for datagrams and hands each, with its
    /// sender, to `each` — inside one outbox batch. Returns how many there were.
    pub fn read(&mut self, socket: &UdpSocket, mut each: impl FnMut(SocketAddr, &[u8])) -> usize {
        let mut slices: Vec<[IoSliceMut<'_>; 1]> = self.buffers.iter_mut().map(|b| [IoSliceMut::new(b)]).collect();
        let Ok(received) = recvmmsg(socket.as_raw_fd(), &mut self.headers, &mut slices, MsgFlags::MSG_WAITFORONE, None)
        else {
            return 0;
        };
        let kernel_drops = &mut self.kernel_drops;
        let count = outbox::batch(|| {
            let mut count = 0;
            for message in received {
                count += 1;
                for cmsg in message.cmsgs().into_iter().flatten() {
                    if let ControlMessageOwned::RxqOvfl(dropped) = cmsg {
                        *kernel_drops = (*kernel_drops).max(dropped);
                    }
                }
                let Some(from) = message.address.as_ref().and_then(socket_addr) else { continue };
                for bytes in message.iovs() {
                    each(from, bytes);
                }
            }
            count
        });
        if count > 0 {
            // The kernel shrank the control-message room of each header it filled (to 0
            // for a datagram without one) and `recvmmsg` does not restore it: fresh headers,
            // or the drop count would never be seen again.
            self.headers = headers();
        }
        count
    }
}

fn headers() -> MultiHeaders<SockaddrStorage> {
    MultiHeaders::preallocate(BATCH, Some(nix::cmsg_space!(u32)))
}

impl Default for BatchReader {
    fn default() -> Self {
        BatchReader::new()
    }
}

fn socket_addr(address: &SockaddrStorage) -> Option<SocketAddr> {
    match address.family()? {
        nix::sys::socket::AddressFamily::Inet => address.as_sockaddr_in().map(|a| SocketAddr::V4((*a).into())),
        nix::sys::socket::AddressFamily::Inet6 => address.as_sockaddr_in6().map(|a| SocketAddr::V6((*a).into())),
        _ => None,
    }
}

/// Binds the endpoint's socket, sets its buffer and read timeout, and asks for the
/// kernel's drop count.
fn bind(config: &EndpointConfig, address: SocketAddr) -> std::io::Result<Arc<UdpSocket>> {
    let socket = UdpSocket::bind(address).map_err(|e| bind_error(config.kind, address, e))?;
    set_rcvbuf(&socket, config.rcvbuf)?;
    count_kernel_drops(&socket)?;
    socket.set_read_timeout(Some(POLL))?;
    Ok(Arc::new(socket))
}

pub fn start_in(context: &Context, config: &EndpointConfig) -> std::io::Result<Started> {
    let socket = bind(config, resolve(config)?)?;
    let local = socket.local_addr()?;
    let expiry_ms = config.peer_expiry_ms.unwrap_or(context.router.expiry_ms());
    let context = context.clone();
    let thread = spawn(format!("udp-in {}", context.name), move || serve(&context, &socket, expiry_ms))?;
    Ok((Some(local), vec![thread]))
}

/// One `udp-in` peer: its link, and when it was last heard (router clock, ms).
struct Peer {
    link: Arc<Link>,
    heard_ms: u64,
}

fn serve(context: &Context, socket: &Arc<UdpSocket>, expiry_ms: u64) {
    let mut peers: HashMap<SocketAddr, Peer> = HashMap::new();
    let (mut reader, mut framer) = (BatchReader::new(), Framer::for_datagrams());
    let mut swept_ms = 0;
    while !context.stopped() {
        reader.read(socket, |from, bytes| {
            let now = context.router.clock.now_ms();
            if !peers.contains_key(&from) {
                if !make_room(context, &mut peers, now) {
                    return context.refuse_datagram();
                }
                let sink = Sink::Udp { socket: socket.clone(), peer: from };
                let link = context.add_link(from.to_string(), sink);
                context.log(format_args!("new peer {from} ({} of at most {MAX_UDP_PEERS})", peers.len() + 1));
                peers.insert(from, Peer { link, heard_ms: now });
            }
            let peer = peers.get_mut(&from).expect("present, or inserted above");
            peer.heard_ms = now;
            context.pump(&peer.link, &mut framer, bytes);
        });
        context.health.kernel_dropped(reader.kernel_drops());
        let now = context.router.clock.now_ms();
        if now >= swept_ms + SWEEP_EVERY_MS {
            swept_ms = now;
            expire(context, &mut peers, now, expiry_ms);
        }
    }
}

/// Whether a new peer fits: the table has room, or the peer silent longest has been silent
/// for [`MIN_SILENCE_TO_EVICT`] and is dropped for it (counted as evicted).
fn make_room(context: &Context, peers: &mut HashMap<SocketAddr, Peer>, now: u64) -> bool {
    if peers.len() < MAX_UDP_PEERS {
        return true;
    }
    let Some((&address, silent)) = peers.iter().min_by_key(|(_, p)| p.heard_ms) else { return true };
    let silence_ms = now.saturating_sub(silent.heard_ms);
    if silence_ms < MIN_SILENCE_TO_EVICT.as_millis() as u64 {
        return false;
    }
    let gone = peers.remove(&address).expect("the peer was found above");
    context.drop_link(&gone.link);
    context.health.peer_evicted();
    context.log(format_args!(
        "peer {address} dropped for a new one: {MAX_UDP_PEERS} peers already, it was silent longest ({silence_ms} ms)"
    ));
    true
}

/// Drops the peers silent for longer than `expiry_ms` (counted as expired).
fn expire(context: &Context, peers: &mut HashMap<SocketAddr, Peer>, now: u64, expiry_ms: u64) {
    peers.retain(|address, peer| {
        let silence_ms = now.saturating_sub(peer.heard_ms);
        if silence_ms <= expiry_ms {
            return true;
        }
        context.drop_link(&peer.link);
        context.health.peer_expired();
        context.log(format_args!("peer {address} silent for {silence_ms} ms: dropped (peer_expiry_ms = {expiry_ms})"));
        false
    });
}

pub fn start_out(context: &Context, config: &EndpointConfig) -> std::io::Result<Started> {
    let peer = resolve(config)?;
    let any_sender = config.accept_any_sender;
    let socket = bind(config, local_address_for(peer, any_sender)?)?;
    let local = socket.local_addr()?;
    let link = context.add_link(peer.to_string(), Sink::Udp { socket: socket.clone(), peer });
    let context = context.clone();
    let thread = spawn(format!("udp-out {}", context.name), move || {
        let (mut reader, mut framer) = (BatchReader::new(), Framer::for_datagrams());
        while !context.stopped() {
            reader.read(&socket, |from, bytes| {
                if from != peer && !any_sender {
                    return context.refuse_datagram(); // a stranger: not routed as the peer's
                }
                context.pump(&link, &mut framer, bytes)
            });
            context.health.kernel_dropped(reader.kernel_drops());
        }
    })?;
    Ok((Some(local), vec![thread]))
}

/// Where a `udp-out` socket binds: the local address the kernel would send to `peer` from,
/// on an ephemeral port, so that only that interface delivers anything to it; every
/// interface (today's unspecified address) with `accept_any_sender`.
fn local_address_for(peer: SocketAddr, any_sender: bool) -> std::io::Result<SocketAddr> {
    let unspecified: SocketAddr = if peer.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }.parse().expect("a valid address");
    if any_sender {
        return Ok(unspecified);
    }
    // A UDP connect sends nothing: it only asks the kernel for the route.
    let probe = UdpSocket::bind(unspecified)?;
    probe.connect(peer)?;
    let mut local = probe.local_addr()?;
    local.set_port(0);
    Ok(local)
}
