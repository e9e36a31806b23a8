//! `udp-in`: a server socket; every peer that sends to it becomes a link of its own, sent
//! to through the same socket. `udp-out`: a socket that sends to one address and routes
//! whatever comes back.

use super::{spawn, Context, POLL};
use crate::frame::{Framer, MAX_FRAME};
use crate::link::{Link, Sink};
use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::sync::Arc;
use std::thread::JoinHandle;

type Started = (Option<SocketAddr>, Vec<JoinHandle<()>>);

fn resolve(address: &str) -> std::io::Result<SocketAddr> {
    address.to_socket_addrs()?.next().ok_or_else(|| std::io::Error::new(ErrorKind::NotFound, "no address"))
}

pub fn start_in(context: &Context, address: &str) -> std::io::Result<Started> {
    let socket = Arc::new(UdpSocket::bind(resolve(address)?)?);
    socket.set_read_timeout(Some(POLL))?;
    let local = socket.local_addr()?;
    let context = context.clone();
    let thread = spawn(format!("udp-in {}", context.name), move || serve(&context, &socket))?;
    Ok((Some(local), vec![thread]))
}

fn serve(context: &Context, socket: &Arc<UdpSocket>) {
    let mut peers: HashMap<SocketAddr, (Arc<Link>, Framer)> = HashMap::new();
    let mut buf = vec![0u8; 64 * 1024];
    while !context.stopped() {
        let Ok((n, from)) = socket.recv_from(&mut buf) else { continue };
        let (link, framer) = peers.entry(from).or_insert_with(|| {
            let sink = Sink::Udp { socket: socket.clone(), peer: from };
            (context.add_link(from.to_string(), sink), Framer::new())
        });
        context.pump(link, framer, &buf[..n]);
    }
}

pub fn start_out(context: &Context, address: &str) -> std::io::Result<Started> {
    let peer = resolve(address)?;
    let any: SocketAddr = if peer.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }.parse().expect("a valid address");
    let socket = Arc::new(UdpSocket::bind(any)?);
    socket.set_read_timeout(Some(POLL))?;
    let local = socket.local_addr()?;
    let link = context.add_link(peer.to_string(), Sink::Udp { socket: socket.clone(), peer });
    let context = context.clone();
    let thread = spawn(format!("udp-out {}", context.name), move || {
        let mut framer = Framer::new();
        let mut buf = vec![0u8; 64 * 1024.max(MAX_FRAME)];
        while !context.stopped() {
            if let Ok(n) = socket.recv(&mut buf) {
                context.pump(&link, &mut framer, &buf[..n]);
            }
        }
    })?;
    Ok((Some(local), vec![thread]))
}
