//! What the router's socket tests share: a router, its endpoints, clients on loopback,
//! MAVLink frames, and waiting for a condition.
#![allow(dead_code)] // each test file uses some of these

use mavlink::dialects::common::{MavMessage, HEARTBEAT_DATA};
use ringbus_route::config::EndpointConfig;
use ringbus_route::dialect::Dialect;
use ringbus_route::endpoint::MAX_DATAGRAM;
use ringbus_route::frame::{encode, Framer};
use ringbus_route::runtime::{EndpointStatus, Runtime};
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const LIMIT: Duration = Duration::from_secs(30);

pub fn heartbeat(system: u8) -> Vec<u8> {
    encode(true, 0, system, 1, &MavMessage::HEARTBEAT(HEARTBEAT_DATA::default()))
}

pub fn udp_in(runtime: &Runtime, name: &str) -> SocketAddr {
    let config = EndpointConfig::parse_spec(&format!("{name}=udp-in:127.0.0.1:0")).unwrap();
    runtime.add(config).unwrap().expect("a udp-in endpoint has an address")
}

pub fn client() -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_read_timeout(Some(LIMIT)).unwrap();
    socket
}

pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < LIMIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

pub fn router() -> Arc<Runtime> {
    Runtime::new("test", 60_000).unwrap()
}

/// The source system of every frame `receiver` gets until `count` frames have come.
pub fn sources(receiver: &UdpSocket, count: usize) -> Vec<u8> {
    let (mut framer, mut buf, mut systems) = (Framer::new(), [0u8; MAX_DATAGRAM], Vec::new());
    while systems.len() < count {
        let n = receiver.recv(&mut buf).unwrap();
        framer.push(&buf[..n]);
        while let Some(frame) = framer.next_frame(Dialect::common()) {
            systems.push(frame.source_system());
        }
    }
    systems
}

/// The endpoint `name` of `runtime`, now.
pub fn endpoint(runtime: &Runtime, name: &str) -> EndpointStatus {
    runtime.status().endpoints.into_iter().find(|e| e.name == name).expect("the endpoint exists")
}

/// Adds the endpoint `spec` with `configure` applied; its bound address.
pub fn add(runtime: &Runtime, spec: &str, configure: impl FnOnce(&mut EndpointConfig)) -> Option<SocketAddr> {
    let mut config = EndpointConfig::parse_spec(spec).unwrap();
    configure(&mut config);
    runtime.add(config).unwrap()
}
