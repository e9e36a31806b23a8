//! `udp-in`: a server socket; every peer that sends to it becomes a link of its own (up to
//! [`MAX_UDP_PEERS`]), sent to through the same socket. `udp-out`: a socket that sends to
//! one peer and routes what that peer sends back — from its address and port only, received
//! on the interface that reaches it; anything else sent to the socket's port is refused and
//! counted, unless the endpoint says `accept_any_sender` (a peer that answers from another
//! port).
//!
//! Both read with `recvmmsg` — up to [`BATCH`] datagrams per system call, blocking only for
//! the first — and route each batch with the thread's outbox open, so the frames forwarded
//! to UDP links leave in one `sendmmsg` per socket ([`crate::outbox`]).

use super::{spawn, Context, POLL};
use crate::config::EndpointConfig;
use crate::frame::{Framer, MAX_FRAME};
use crate::link::{Link, Sink};
use crate::outbox::{self, BATCH};
use nix::sys::socket::{recvmmsg, MsgFlags, MultiHeaders, SockaddrLike, SockaddrStorage};
use std::collections::HashMap;
use std::io::{ErrorKind, IoSliceMut};
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::thread::JoinHandle;

type Started = (Option<SocketAddr>, Vec<JoinHandle<()>>);

/// Peers one `udp-in` endpoint serves; datagrams from further addresses are dropped and
/// counted (`refused_datagrams` in `ringbus route ctl list`): a flood of forged source
/// addresses must not grow the link list without bound.
pub const MAX_UDP_PEERS: usize = 64;
/// Bytes of one received datagram kept; a longer one is cut (and its frames lost as
/// garbage). MAVLink frames are at most 280 bytes; senders pack several up to the MTU.
pub const MAX_DATAGRAM: usize = 4096;
const _: () = assert!(MAX_DATAGRAM >= MAX_FRAME);

fn resolve(address: &str) -> std::io::Result<SocketAddr> {
    address.to_socket_addrs()?.next().ok_or_else(|| std::io::Error::new(ErrorKind::NotFound, "no address"))
}

/// Receives datagrams in batches (also what `ringbus bench route`'s batching client reads
/// with).
#[derive(Debug)]
pub struct BatchReader {
    headers: MultiHeaders<SockaddrStorage>,
    buffers: Vec<Vec<u8>>,
}

impl BatchReader {
    pub fn new() -> BatchReader {
        BatchReader {
            headers: MultiHeaders::preallocate(BATCH, None),
            buffers: (0..BATCH).map(|_| vec![0u8; MAX_DATAGRAM]).collect(),
        }
    }

    /// Waits (at most the socket's read timeout) for datagrams and hands each, with its
    /// sender, to `each` — inside one outbox batch. Returns how many there were.
    pub fn read(&mut self, socket: &UdpSocket, mut each: impl FnMut(SocketAddr, &[u8])) -> usize {
        let mut slices: Vec<[IoSliceMut<'_>; 1]> = self.buffers.iter_mut().map(|b| [IoSliceMut::new(b)]).collect();
        let Ok(received) = recvmmsg(socket.as_raw_fd(), &mut self.headers, &mut slices, MsgFlags::MSG_WAITFORONE, None)
        else {
            return 0;
        };
        outbox::batch(|| {
            let mut count = 0;
            for message in received {
                count += 1;
                let Some(from) = message.address.as_ref().and_then(socket_addr) else { continue };
                for bytes in message.iovs() {
                    each(from, bytes);
                }
            }
            count
        })
    }
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

/// Sets the socket's receive buffer (`SO_RCVBUF`) when the endpoint gives one.
fn set_rcvbuf(socket: &UdpSocket, rcvbuf: Option<u32>) -> std::io::Result<()> {
    match rcvbuf {
        Some(bytes) => nix::sys::socket::setsockopt(socket, nix::sys::socket::sockopt::RcvBuf, &(bytes as usize))
            .map_err(std::io::Error::from),
        None => Ok(()),
    }
}

pub fn start_in(context: &Context, config: &EndpointConfig) -> std::io::Result<Started> {
    let socket = Arc::new(UdpSocket::bind(resolve(&config.address)?)?);
    set_rcvbuf(&socket, config.rcvbuf)?;
    socket.set_read_timeout(Some(POLL))?;
    let local = socket.local_addr()?;
    let context = context.clone();
    let thread = spawn(format!("udp-in {}", context.name), move || serve(&context, &socket))?;
    Ok((Some(local), vec![thread]))
}

fn serve(context: &Context, socket: &Arc<UdpSocket>) {
    let mut peers: HashMap<SocketAddr, (Arc<Link>, Framer)> = HashMap::new();
    let mut reader = BatchReader::new();
    while !context.stopped() {
        reader.read(socket, |from, bytes| {
            if peers.len() >= MAX_UDP_PEERS && !peers.contains_key(&from) {
                context.router.refuse_datagram();
                return;
            }
            let (link, framer) = peers.entry(from).or_insert_with(|| {
                let sink = Sink::Udp { socket: socket.clone(), peer: from };
                (context.add_link(from.to_string(), sink), Framer::new())
            });
            context.pump(link, framer, bytes);
        });
    }
}

pub fn start_out(context: &Context, config: &EndpointConfig) -> std::io::Result<Started> {
    let peer = resolve(&config.address)?;
    let any_sender = config.accept_any_sender;
    let socket = Arc::new(UdpSocket::bind(local_address_for(peer, any_sender)?)?);
    set_rcvbuf(&socket, config.rcvbuf)?;
    socket.set_read_timeout(Some(POLL))?;
    let local = socket.local_addr()?;
    let link = context.add_link(peer.to_string(), Sink::Udp { socket: socket.clone(), peer });
    let context = context.clone();
    let thread = spawn(format!("udp-out {}", context.name), move || {
        let mut framer = Framer::new();
        let mut reader = BatchReader::new();
        while !context.stopped() {
            reader.read(&socket, |from, bytes| {
                if from != peer && !any_sender {
                    context.router.refuse_datagram(); // a stranger: not routed as the peer's
                    return;
                }
                context.pump(&link, &mut framer, bytes)
            });
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
