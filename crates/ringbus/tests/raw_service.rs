//! Services with request and response types given at run time (what C, C++ and Python
//! programs use): a raw client calls a typed Rust server that names its types as they do
//! and the other way round, bodies arrive intact whatever their alignment (the envelope's
//! layout is `#[repr(C)]` `Envelope<T>`'s), and mismatched types are refused.

mod common;

use common::TestRoot;
use ringbus::service::{CallError, Client, Envelope, RawClient, RawServer, Server};
use ringbus::{CommandType, OpenError, Pod, QueueError};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

/// A request aligned to 16: the body starts 16 bytes in, as in C.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(16))]
struct Pose {
    x: f64,
    y: f64,
    tag: u32,
}
// SAFETY: repr(C): two f64s and a u32, then padding that carries no meaning; every bit
// pattern of the fields is valid.
unsafe impl Pod for Pose {}

fn pose_type() -> CommandType {
    CommandType::new("test.pose", std::mem::size_of::<Pose>(), std::mem::align_of::<Pose>()).unwrap()
}

fn u32_type() -> CommandType {
    CommandType::new("test.u32", 4, 4).unwrap()
}

fn pose_bytes(p: &Pose) -> Vec<u8> {
    let mut out = p.x.to_ne_bytes().to_vec();
    out.extend_from_slice(&p.y.to_ne_bytes());
    out.extend_from_slice(&p.tag.to_ne_bytes());
    out.resize(std::mem::size_of::<Pose>(), 0);
    out
}

#[test]
fn a_raw_client_calls_a_typed_server_and_a_typed_client_a_raw_server() {
    assert_eq!(std::mem::size_of::<Envelope<Pose>>(), 48, "16 bytes of ids, the body at 16, 32 bytes");
    let root = TestRoot::new();
    let node = root.node("test");
    std::thread::scope(|s| {
        let mut server = Server::<Pose, u32>::with_type_names(&node, "typed", 8, "test.pose", "test.u32").unwrap();
        let mut client = RawClient::new(&node, "typed", 8, &pose_type(), &u32_type()).unwrap();
        s.spawn(move || {
            let mut answered = 0;
            while answered < 100 {
                answered += server.serve_once(Some(LIMIT), |p| (p.x + p.y) as u32 + p.tag).unwrap();
            }
        });
        for i in 0..100u32 {
            let mut answer = [0u8; 4];
            let pose = Pose { x: i as f64, y: 0.5, tag: 1000 };
            client.call(&pose_bytes(&pose), &mut answer, LIMIT).unwrap();
            assert_eq!(u32::from_ne_bytes(answer), i + 1000);
        }
    });
    std::thread::scope(|s| {
        let mut server = RawServer::new(&node, "raw", 8, &pose_type(), &u32_type()).unwrap();
        let mut client = Client::<Pose, u32>::with_type_names(&node, "raw", 8, "test.pose", "test.u32").unwrap();
        s.spawn(move || {
            let handler = |request: &[u8], response: &mut [u8]| {
                assert_eq!(request.len(), 32);
                let tag = u32::from_ne_bytes(request[16..20].try_into().unwrap());
                response.copy_from_slice(&(tag * 2).to_ne_bytes());
            };
            let mut answered = 0;
            while answered < 100 {
                answered += server.serve_once(Some(LIMIT), handler).unwrap();
            }
        });
        for tag in 0..100 {
            assert_eq!(client.call(Pose { x: 0.0, y: 0.0, tag }, LIMIT), Ok(tag * 2));
        }
    });
}

#[test]
fn mismatched_types_and_body_sizes_are_refused() {
    let root = TestRoot::new();
    let node = root.node("test");
    let _server = RawServer::new(&node, "s", 8, &pose_type(), &u32_type()).unwrap();
    // Rust's own name of the type is not the name the server gave it.
    match Client::<Pose, u32>::new(&node, "s", 8) {
        Err(OpenError::TypeMismatch { existing, .. }) => assert_eq!(existing, "envelope<test.pose>"),
        other => panic!("expected a type mismatch, got {other:?}"),
    }
    let mut client = RawClient::new(&node, "s", 8, &pose_type(), &u32_type()).unwrap();
    let wrong = client.call(&[0; 8], &mut [0; 4], LIMIT);
    assert_eq!(wrong, Err(CallError::Queue(QueueError::CommandSize { command: 32, given: 8 })));
    let wrong = client.call(&[0; 32], &mut [0; 8], LIMIT);
    assert_eq!(wrong, Err(CallError::Queue(QueueError::CommandSize { command: 4, given: 8 })));
}
