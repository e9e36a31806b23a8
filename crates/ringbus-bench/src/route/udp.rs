//! End to end through UDP on loopback: a real router (`ringbus_route::runtime`) with two
//! `udp-in` endpoints; a sender socket sends HEARTBEATs to one, a receiver thread reads
//! them from the other. The sender keeps at most [`WINDOW`] frames in flight (the receiver
//! keeps up by construction); every frame not received within a second of the end is lost.

use super::report::UdpRow;
use anyhow::{Context, Result};
use mavlink::dialects::common::{MavMessage, HEARTBEAT_DATA};
use ringbus_route::config::EndpointConfig;
use ringbus_route::frame::encode;
use ringbus_route::runtime::Runtime;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Frames sent but not yet received, at most.
pub const WINDOW: u64 = 128;
/// How long the sender waits for the window to open before it sends anyway.
const STALL: Duration = Duration::from_millis(20);

fn endpoint(runtime: &Runtime, name: &str) -> Result<SocketAddr> {
    let config = EndpointConfig::parse_spec(&format!("{name}=udp-in:127.0.0.1:0")).map_err(anyhow::Error::msg)?;
    runtime.add(config).map_err(anyhow::Error::msg)?.context("a udp-in endpoint has an address")
}

pub fn measure(frames: u64) -> Result<UdpRow> {
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
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        while receiver.recv(&mut buf).is_ok() {
            counting.fetch_add(1, Ordering::Release);
        }
    });
    let frame = heartbeat(1);
    let start = Instant::now();
    for sent in 0..frames {
        let stalled = Instant::now();
        while sent - received.load(Ordering::Acquire).min(sent) >= WINDOW && stalled.elapsed() < STALL {
            std::thread::yield_now(); // two cores: let the router and the receiver run
        }
        sender.send_to(&frame, a)?;
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
    })
}
