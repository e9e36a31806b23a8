//! `tcp-in`: a listening socket; every accepted connection is a link with a reader and a
//! writer thread. `tcp-out`: one connection to an address, made again with exponential
//! backoff (100 ms to 5 s) whenever it fails or ends; its state (connected, or why not and
//! when it tries next) is the endpoint's, and every change is logged.

use super::{bind_error, drain, resolve, set_rcvbuf, spawn, Context, EndpointState, POLL, QUEUE_FRAMES};
use crate::config::{EndpointConfig, EndpointKind};
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

pub fn start_in(context: &Context, config: &EndpointConfig) -> std::io::Result<Started> {
    let address = resolve(config)?;
    let listener = TcpListener::bind(address).map_err(|e| bind_error(EndpointKind::TcpIn, address, e))?;
    // Accepted connections inherit the listener's buffer size.
    set_rcvbuf(&listener, config.rcvbuf)?;
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
                context.log(format_args!("connection from {peer}"));
                match spawn(format!("tcp-in {peer}"), move || {
                    let why = serve(&client, stream, peer);
                    client.log(format_args!("connection from {peer} ended ({why})"));
                }) {
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

/// Serves one connection until it ends or the endpoint stops; why it ended.
fn serve(context: &Context, stream: TcpStream, peer: SocketAddr) -> Ended {
    let Ok(writer) = stream.try_clone() else { return Ended::Failed("cannot share the socket".into()) };
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
    let ended = read(context, &link, stream);
    context.drop_link(&link);
    drop(link);
    if let Ok(writing) = writing {
        let _ = writing.join();
    }
    ended
}

/// Why a connection ended.
#[derive(Debug)]
enum Ended {
    Closed,
    Failed(String),
    Stopped,
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Closed => f.write_str("closed by the peer"),
            Ended::Failed(e) => write!(f, "{e}"),
            Ended::Stopped => f.write_str("endpoint stopped"),
        }
    }
}

/// Routes what `stream` sends until it closes, fails, or the endpoint stops.
fn read(context: &Context, link: &Link, mut stream: TcpStream) -> Ended {
    let mut framer = Framer::new();
    let mut buf = vec![0u8; 16 * 1024];
    let ended = loop {
        if context.stopped() {
            break Ended::Stopped;
        }
        match stream.read(&mut buf) {
            Ok(0) => break Ended::Closed,
            Ok(n) => context.pump(link, &mut framer, &buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            Err(e) => break Ended::Failed(e.to_string()),
        }
    };
    let _ = stream.shutdown(Shutdown::Both);
    ended
}

pub fn start_out(context: &Context, config: &EndpointConfig) -> std::io::Result<Started> {
    resolve(config)?; // a name that does not resolve now is refused now
    let address = config.address.clone();
    let rcvbuf = config.rcvbuf;
    let context = context.clone();
    context.set_state(EndpointState::Connecting);
    let thread = spawn(format!("tcp-out {}", context.name), move || {
        let (mut backoff, mut attempts, mut last_error) = (BACKOFF_MIN, 0, None::<String>);
        while !context.stopped() {
            match connect(&address, rcvbuf) {
                Ok((stream, peer)) => {
                    (backoff, attempts, last_error) = (BACKOFF_MIN, 0, None);
                    context.set_state(EndpointState::Connected { peer: peer.to_string() });
                    let ended = serve(&context, stream, peer);
                    if !context.stopped() {
                        context.log(format_args!("connection to {peer} ended ({ended}); reconnecting"));
                        context.set_state(EndpointState::Connecting);
                    }
                }
                Err(e) => {
                    attempts += 1;
                    let (error, retry_in_ms) = (e.to_string(), backoff.as_millis() as u64);
                    // Logged when the reason changes, not on every attempt of a long outage.
                    if last_error.as_ref() != Some(&error) {
                        context.log(format_args!(
                            "cannot connect to {address}: {error}; retrying, backing off from {} ms to {} s",
                            BACKOFF_MIN.as_millis(),
                            BACKOFF_MAX.as_secs()
                        ));
                    }
                    last_error = Some(error.clone());
                    context.health.set_state(EndpointState::Retrying { attempts, error, retry_in_ms });
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

/// Connects to the first address of `address` that answers (the name is resolved again on
/// every attempt: a peer's address may change).
fn connect(address: &str, rcvbuf: Option<u32>) -> std::io::Result<(TcpStream, SocketAddr)> {
    let mut last = std::io::Error::new(ErrorKind::NotFound, "no address");
    for peer in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&peer, CONNECT_TIMEOUT) {
            Ok(stream) => {
                set_rcvbuf(&stream, rcvbuf)?;
                return Ok((stream, peer));
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}
