//! Request/response services across processes: answers matched by id, timeouts, a server
//! killed with a call pending, a client killed without leaking server-side state.

mod common;

use common::*;
use ringbus::service::{CallError, Client, Server};
use ringbus::Node;
use std::io::BufReader;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);
/// The server's handler sleeps 30 s on this request.
const STUCK: u64 = 999_999;

#[test]
fn child_entry() {
    let Some(role) = child_role() else { return };
    let node = Node::new(&role).unwrap();
    match role.as_str() {
        "server" => {
            let mut server = Server::<u64, u64>::new(&node, "math", 64).unwrap();
            println!("ready");
            loop {
                server
                    .serve_once(Some(Duration::from_millis(100)), |x| {
                        if *x == STUCK {
                            std::thread::sleep(Duration::from_secs(30));
                        }
                        x * 2 + 1
                    })
                    .unwrap();
            }
        }
        "client" => {
            let mut client = Client::<u64, u64>::new(&node, "math", 8).unwrap();
            assert_eq!(client.call(1, LIMIT).unwrap(), 3);
            println!("called");
            std::thread::sleep(Duration::from_secs(60));
        }
        other => panic!("unknown role {other}"),
    }
}

fn start_server(root: &TestRoot) -> std::process::Child {
    let mut child = spawn_child("child_entry", "server", root.path(), &[]);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    read_until_line(&mut out, "ready");
    child
}

#[test]
fn calls_are_answered_in_order_by_a_server_process_and_late_answers_are_dropped() {
    with_watchdog(LIMIT * 2, "service calls", || {
        let root = TestRoot::new();
        let mut server = start_server(&root);
        let node = root.node("clients");
        let mut client = Client::<u64, u64>::new(&node, "math", 8).unwrap();
        for x in 0..1000 {
            assert_eq!(client.call(x, LIMIT).unwrap(), x * 2 + 1);
        }
        let path = root.path().to_path_buf();
        let other = std::thread::spawn(move || {
            let node = Node::with_root("other", &path).unwrap();
            let mut client = Client::<u64, u64>::new(&node, "math", 8).unwrap();
            (0..500).all(|x| client.call(x + 10_000, LIMIT).unwrap() == (x + 10_000) * 2 + 1)
        });
        for x in 0..500 {
            assert_eq!(client.call(x, LIMIT).unwrap(), x * 2 + 1);
        }
        assert!(other.join().unwrap(), "the second client got its own answers");
        server.kill().unwrap();
        server.wait().unwrap();
    });
}

#[test]
fn a_timed_out_call_then_a_killed_server_fail_with_typed_errors() {
    with_watchdog(LIMIT * 2, "server death", || {
        let root = TestRoot::new();
        let mut server = start_server(&root);
        let node = root.node("clients");
        let mut client = Client::<u64, u64>::new(&node, "math", 8).unwrap();
        assert_eq!(client.call(STUCK, Duration::from_millis(200)), Err(CallError::Timeout), "the server sleeps on it");
        // The server is stuck in the handler with our call pending: kill it.
        let path = root.path().to_path_buf();
        let killer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            server.kill().unwrap();
            server.wait().unwrap();
            drop(path);
        });
        assert_eq!(client.call(5, LIMIT), Err(CallError::ServerGone), "a pending call fails instead of hanging");
        killer.join().unwrap();
        assert_eq!(client.call(6, LIMIT), Err(CallError::ServerGone), "and so does a later one");
        // A new server takes over the request queue the dead one left.
        let mut server = start_server(&root);
        let mut fresh = Client::<u64, u64>::new(&node, "math", 8).unwrap();
        assert_eq!(fresh.call(20, LIMIT).unwrap(), 41);
        assert_eq!(client.call(21, LIMIT).unwrap(), 43, "the old client reaches the new server too");
        server.kill().unwrap();
        server.wait().unwrap();
        drop((client, fresh));
        for name in root.files().into_iter().filter(|f| f.starts_with("queue.")) {
            std::fs::remove_file(root.path().join(name)).unwrap(); // the killed servers' request queue
        }
    });
}

#[test]
fn a_killed_client_leaves_nothing_on_the_server() {
    with_watchdog(LIMIT * 2, "client death", || {
        let root = TestRoot::new();
        let node = root.node("server");
        let mut server = Server::<u64, u64>::new(&node, "math", 64).unwrap();
        let mut client = spawn_child("child_entry", "client", root.path(), &[]);
        let mut out = BufReader::new(client.stdout.take().unwrap());
        let answered = std::thread::spawn(move || {
            read_until_line(&mut out, "called");
            out
        });
        while !answered.is_finished() {
            server.serve_once(Some(Duration::from_millis(50)), |x| x * 2 + 1).unwrap();
        }
        let response_queues = || root.files().into_iter().filter(|f| f.starts_with("queue.math.responses")).count();
        assert_eq!(response_queues(), 1);
        assert_eq!(server.sweep_clients(), 1, "the live client is kept");
        client.kill().unwrap();
        client.wait().unwrap();
        assert_eq!(server.sweep_clients(), 0, "the dead client is forgotten");
        assert_eq!(response_queues(), 0, "and its response queue removed");
        drop(answered);
    });
}

/// A server that leaves cleanly removes its request queue; the next one creates a new
/// queue under the same name, and a client made before both follows it.
#[test]
fn a_client_follows_the_service_across_a_clean_server_restart() {
    with_watchdog(LIMIT * 2, "server restart", || {
        let root = TestRoot::new();
        let node = root.node("both");
        let serve = |node: Node, answer: u64| {
            let server = Server::<u64, u64>::new(&node, "svc", 8).unwrap();
            std::thread::spawn(move || {
                let mut server = server;
                while server.serve_once(Some(Duration::from_secs(5)), |_| answer).unwrap() == 0 {}
                // Answered one call; dropping the server removes its request queue.
            })
        };
        let first = serve(node.clone(), 1);
        let mut client = Client::<u64, u64>::new(&node, "svc", 8).unwrap();
        assert_eq!(client.call(0, LIMIT).unwrap(), 1);
        first.join().unwrap();
        assert_eq!(client.call(0, Duration::from_millis(100)), Err(CallError::ServerGone), "between servers");
        let second = serve(node.clone(), 2);
        assert_eq!(client.call(0, LIMIT).unwrap(), 2, "the new server's queue, found by name");
        second.join().unwrap();
    });
}
