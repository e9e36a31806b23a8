//! Services with request and response types given at run time (what C, C++ and Python
//! programs use): a raw client calls a typed Rust server that names its types as they do
//! and the other way round, bodies arrive intact whatever their alignment (the envelope's
//! layout is `#[repr(C)]` `Envelope<T>`'s), and mismatched types are refused.

mod common;

use common::TestRoot;
use ringbus::service::{CallError, Client, Envelope, RawClient, RawServer, Server};
use ringbus::{CommandType, OpenError, Pod, QueueError};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
        Err(OpenError::TypeMismatch { existing, .. }) => assert_eq!(existing, "envelope<test.pose -> test.u32>"),
        other => panic!("expected a type mismatch, got {other:?}"),
    }
    // Another response type is refused too, though the client never opens the response
    // queue the server would answer on.
    let u64_type = CommandType::new("test.u64", 8, 8).unwrap();
    match RawClient::new(&node, "s", 8, &pose_type(), &u64_type) {
        Err(OpenError::TypeMismatch { requested, .. }) => assert_eq!(requested, "envelope<test.pose -> test.u64>"),
        other => panic!("expected a type mismatch, got {other:?}"),
    }
    let mut client = RawClient::new(&node, "s", 8, &pose_type(), &u32_type()).unwrap();
    let wrong = client.call(&[0; 8], &mut [0; 4], LIMIT);
    assert_eq!(wrong, Err(CallError::Queue(QueueError::CommandSize { command: 32, given: 8 })));
    let wrong = client.call(&[0; 32], &mut [0; 8], LIMIT);
    assert_eq!(wrong, Err(CallError::Queue(QueueError::CommandSize { command: 4, given: 8 })));
}

/// A client opened before its server, with another response type: its call says so
/// instead of timing out.
#[test]
fn a_server_of_other_types_found_at_a_call_is_a_type_mismatch() {
    let root = TestRoot::new();
    let node = root.node("test");
    let u64_type = CommandType::new("test.u64", 8, 8).unwrap();
    let mut client = RawClient::new(&node, "later", 8, &pose_type(), &u64_type).unwrap();
    assert_eq!(client.call(&[0; 32], &mut [0; 8], LIMIT), Err(CallError::ServerGone), "no server yet");
    let _server = RawServer::new(&node, "later", 8, &pose_type(), &u32_type()).unwrap();
    match client.call(&[0; 32], &mut [0; 8], LIMIT) {
        Err(CallError::TypeMismatch { existing, requested }) => {
            assert_eq!(
                (existing.as_str(), requested.as_str()),
                ("envelope<test.pose -> test.u32>", "envelope<test.pose -> test.u64>")
            )
        }
        other => panic!("expected a type mismatch, got {other:?}"),
    }
}

/// Three clients calling without pause never keep one `serve_once` from returning: a
/// round answers at most the request queue's capacity.
#[test]
fn a_steady_stream_of_calls_never_keeps_a_round_from_ending() {
    let root = TestRoot::new();
    let node = root.node("test");
    let mut server = Server::<u64, u64>::new(&node, "busy", 4).unwrap();
    let (stop, done) = (AtomicBool::new(false), AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..3 {
            let (node, stop, done) = (&node, &stop, &done);
            s.spawn(move || {
                let mut client = Client::<u64, u64>::new(node, "busy", 4).unwrap();
                while !stop.load(Ordering::Relaxed) {
                    assert_eq!(client.call(3, LIMIT), Ok(4));
                }
                done.fetch_add(1, Ordering::Relaxed);
            });
        }
        for _ in 0..200 {
            let answered = server.serve_once(Some(LIMIT), |x| x + 1).unwrap();
            assert!((1..=4).contains(&answered), "{answered} answers in one round of a 4-request queue");
        }
        stop.store(true, Ordering::Relaxed);
        // Clients in a call get their answer; serve until they are all done.
        while done.load(Ordering::Relaxed) < 3 {
            server.serve_once(Some(Duration::from_millis(10)), |x| x + 1).unwrap();
        }
    });
}

#[test]
fn a_call_cut_in_send_and_receive_waits_in_slices_and_drops_a_late_answer() {
    let root = TestRoot::new();
    let node = root.node("test");
    let mut server = RawServer::new(&node, "sliced", 8, &u32_type(), &u32_type()).unwrap();
    let mut client = RawClient::new(&node, "sliced", 8, &u32_type(), &u32_type()).unwrap();
    let wait_set = ringbus::WaitSet::new().unwrap();
    let attached = wait_set.attach_server(&server).unwrap();
    let mut answer = [0u8; 4];

    // A first call whose answer does not come in its slice: receive says so, sends nothing.
    let first = client.send(&7u32.to_ne_bytes(), LIMIT).unwrap();
    assert!(!client.receive(first, &mut answer, Duration::ZERO).unwrap());
    // The server is woken through the wait set and answers without sleeping.
    assert!(!wait_set.wait(Some(LIMIT)).unwrap().is_empty());
    let double = |req: &[u8], resp: &mut [u8]| {
        let n = u32::from_ne_bytes(req.try_into().unwrap());
        resp.copy_from_slice(&(2 * n).to_ne_bytes());
    };
    assert_eq!(server.serve_once(Some(Duration::ZERO), double).unwrap(), 1);

    // The caller gave up on the first call: the next one's receive drops its late answer.
    let second = client.send(&21u32.to_ne_bytes(), LIMIT).unwrap();
    assert_ne!(first, second);
    assert_eq!(server.serve_once(Some(LIMIT), double).unwrap(), 1);
    assert!(client.receive(second, &mut answer, LIMIT).unwrap());
    assert_eq!(u32::from_ne_bytes(answer), 42);

    // Once the server is gone, a send says so.
    drop(attached);
    drop(server);
    assert!(matches!(client.send(&1u32.to_ne_bytes(), LIMIT), Err(CallError::ServerGone)));
}
