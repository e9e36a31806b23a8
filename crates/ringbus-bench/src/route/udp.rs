//! End to end through UDP on loopback: a real router (`ringbus_route::runtime`) with two
//! `udp-in` endpoints; a sender socket sends HEARTBEATs to one, a receiver thread reads
//! them from the other. The sender keeps at most [`WINDOW`] frames in flight (the receiver
//! keeps up by construction); every frame not received within a second of the end is lost.
//!
//! Clients move 1 datagram per system call (`sendto`/`recv`: what a MAVLink program does)
//! or batches: the sender `client_batch` per `sendmmsg`, the receiver up to 32 per
//! `recvmmsg`, read as the router reads (`BatchReader`), so that what is measured is the
//! router.

use super::report::UdpRow;
use anyhow::{Context, Result};
use mavlink::dialects::common::{MavMessage, HEARTBEAT_DATA};
use ringbus_route::config::EndpointConfig;
use ringbus_route::dialect::Dialect;
use ringbus_route::endpoint::{BatchReader, MAX_DATAGRAM};
use ringbus_route::frame::{encode, Framer};
use ringbus_route::outbox::send_datagrams;
use ringbus_route::runtime::Runtime;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Frames sent but not yet received, at most.
pub const WINDOW: u64 = 128;
/// How long the sender waits for the window to open before it sends anyway.
const STALL: Duration = Duration::from_millis(20);
/// One sleep of the sender while the window is full.
const WAIT: Duration = Duration::from_micros(20);

fn endpoint(runtime: &Runtime, name: &str) -> Result<SocketAddr> {
    let config = EndpointConfig::parse_spec(&format!("{name}=udp-in:127.0.0.1:0")).map_err(anyhow::Error::msg)?;
    runtime.add(config).map_err(anyhow::Error::msg)?.context("a udp-in endpoint has an address")
}

/// Sends `count` copies of `frame` to `to`: one `sendmmsg` (or `sendto` for one).
fn send_burst(socket: &UdpSocket, frame: &[u8], to: SocketAddr, count: usize) -> Result<usize> {
    if count == 1 {
        socket.send_to(frame, to)?;
        return Ok(1);
    }
    Ok(send_datagrams(socket, &vec![frame; count], &vec![to; count])?)
}

pub fn measure(frames: u64, client_batch: usize) -> Result<UdpRow> {
    let runtime = Runtime::new("bench", 60_000)?;
    let (a, b) = (endpoint(&runtime, "a")?, endpoint(&runtime, "b")?);
    let heartbeat = |system| encode(true, 0, system, 1, &MavMessage::HEARTBEAT(HEARTBEAT_DATA::default()));
    let sender = UdpSocket::bind("127.0.0.1:0")?;
    let receiver = UdpSocket::bind("127.0.0.1:0")?;
    receiver.set_read_timeout(Some(Duration::from_secs(1)))?;
    receiver.send_to(&heartbeat(2), b)?; // the receiver becomes a link of endpoint b
    while runtime.router.links().is_empty() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let received = Arc::new(AtomicU64::new(0));
    let counting = received.clone();
    let datagrams_received = Arc::new(AtomicU64::new(0));
    let counting_datagrams = datagrams_received.clone();
    let reader = std::thread::spawn(move || {
        // One datagram per `recv`, or batches of up to 32 read as the router reads them;
        // the router packs the frames of a batch into shared datagrams, so frames are
        // counted as a MAVLink program counts them: parsed out of each datagram.
        let (mut batches, mut buffer) = (BatchReader::new(), [0u8; MAX_DATAGRAM]);
        let (mut framer, dialect) = (Framer::new(), Dialect::common());
        let mut frames_in = |bytes: &[u8]| {
            framer.push(bytes);
            std::iter::from_fn(|| framer.next_frame(dialect).map(|_| ())).count() as u64
        };
        loop {
            let mut frames = 0;
            let datagrams = match client_batch {
                1 => receiver.recv(&mut buffer).map_or(0, |n| {
                    frames = frames_in(&buffer[..n]);
                    1
                }),
                _ => batches.read(&receiver, |_, bytes| frames += frames_in(bytes)),
            };
            if datagrams == 0 {
                break;
            }
            counting_datagrams.fetch_add(datagrams as u64, Ordering::Relaxed);
            counting.fetch_add(frames, Ordering::Release);
        }
    });
    let frame = heartbeat(1);
    let start = Instant::now();
    let mut sent = 0;
    while sent < frames {
        let stalled = Instant::now();
        let room = loop {
            let room = WINDOW.saturating_sub(sent - received.load(Ordering::Acquire).min(sent));
            if room > 0 || stalled.elapsed() >= STALL {
                break room.max(1);
            }
            // Sleep, not spin or yield: a waiting sender that keeps a CPU busy takes it from
            // the router and the receiver on a small machine (measured: yielding instead
            // cost about a quarter of the throughput on 2 vCPUs).
            std::thread::sleep(WAIT);
        };
        let burst = room.min(client_batch as u64).min(frames - sent) as usize;
        sent += send_burst(&sender, &frame, a, burst)? as u64;
    }
    let mut last = received.load(Ordering::Acquire);
    let mut end = Instant::now();
    while last < frames {
        std::thread::sleep(Duration::from_millis(5));
        let now = received.load(Ordering::Acquire);
        if now == last && end.elapsed() > Duration::from_secs(1) {
            break;
        }
        if now != last {
            (last, end) = (now, Instant::now());
        }
    }
    let elapsed = end.duration_since(start).as_secs_f64();
    runtime.shutdown();
    let _ = reader.join();
    Ok(UdpRow {
        frames,
        received: last,
        lost: frames - last.min(frames),
        frames_per_s: last as f64 / elapsed,
        window: WINDOW,
        client_batch,
        frames_per_datagram: last as f64 / datagrams_received.load(Ordering::Relaxed).max(1) as f64,
    })
}
