//! `tcp-in`: a listening socket; every accepted connection is a link with a reader and a
//! writer thread. `tcp-out`: one connection to an address, made again with exponential
//! backoff (100 ms to 5 s) whenever it fails or ends.

use super::{drain, spawn, Context, POLL, QUEUE_FRAMES};
use crate::frame::Framer;
use crate::link::{Link, Sink};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::thread::JoinHandle;
use std::time::Duration;

type Started = (Option<SocketAddr>, Vec<JoinHandle<()>>);

const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

pub fn start_in(context: &Context, address: &str) -> std::io::Result<Started> {
    let listener = TcpListener::bind(address)?;
    listener.set_nonblocking(true)?;
    let local = listener.local_addr()?;
    let context = context.clone();
    let thread = spawn(format!("tcp-in {}", context.name), move || accept(&context, &listener))?;
    Ok((Some(local), vec![thread]))
}

fn accept(context: &Context, listener: &TcpListener) {
    let mut clients: Vec<JoinHandle<()>> = Vec::new();
    while !context.stopped() {
        match listener.accept() {
            Ok((stream, peer)) => {
                let client = context.clone();
                match spawn(format!("tcp-in {peer}"), move || serve(&client, stream, peer)) {
                    Ok(client) => clients.push(client),
                    Err(e) => eprintln!("ringbus route: {}: cannot serve {peer}: {e}", context.name),
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::sleep(POLL / 5),
            Err(_) => std::thread::sleep(POLL),
        }
        clients.retain(|c| !c.is_finished());
    }
    for client in clients {
        let _ = client.join();
    }
}

/// Serves one connection until it ends or the endpoint stops.
fn serve(context: &Context, stream: TcpStream, peer: SocketAddr) {
    let Ok(writer) = stream.try_clone() else { return };
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(POLL));
    let _ = stream.set_nodelay(true);
    let (queue, frames) = std::sync::mpsc::sync_channel(QUEUE_FRAMES);
    let link = context.add_link(peer.to_string(), Sink::Queue(queue));
    let writer_context = context.clone();
    let writing = spawn(format!("tcp write {peer}"), move || {
        let mut writer = writer;
        drain(&writer_context, frames, |bytes| writer.write_all(bytes).is_ok());
        let _ = writer.shutdown(Shutdown::Both);
    });
    read(context, &link, stream);
    context.drop_link(&link);
    drop(link);
    if let Ok(writing) = writing {
        let _ = writing.join();
    }
}

/// Routes what `stream` sends until it closes, fails, or the endpoint stops.
fn read(context: &Context, link: &Link, mut stream: TcpStream) {
    let mut framer = Framer::new();
    let mut buf = vec![0u8; 16 * 1024];
    while !context.stopped() {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => context.pump(link, &mut framer, &buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            Err(_) => break,
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
}

pub fn start_out(context: &Context, address: &str) -> std::io::Result<Started> {
    let address = address.to_string();
    address.to_socket_addrs()?;
    let context = context.clone();
    let thread = spawn(format!("tcp-out {}", context.name), move || {
        let mut backoff = BACKOFF_MIN;
        while !context.stopped() {
            match connect(&address) {
                Ok((stream, peer)) => {
                    backoff = BACKOFF_MIN;
                    serve(&context, stream, peer);
                }
                Err(_) => {
                    if !context.sleep(backoff) {
                        break;
                    }
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    })?;
    Ok((None, vec![thread]))
}

fn connect(address: &str) -> std::io::Result<(TcpStream, SocketAddr)> {
    let mut last = std::io::Error::new(ErrorKind::NotFound, "no address");
    for peer in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&peer, CONNECT_TIMEOUT) {
            Ok(stream) => return Ok((stream, peer)),
            Err(e) => last = e,
        }
    }
    Err(last)
}
