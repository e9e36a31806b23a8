//! Latches in the style of a database's backend processes (PostgreSQL's `SetLatch`):
//! every worker process sleeps on its own latch *and* a UDP socket in one wait; any other
//! process wakes it by setting the latch — no signal, no pipe, no pid to get wrong.
//!
//! ```sh
//! cargo run -p ringbus --example latch
//! ```
//!
//! Starts 3 workers (this program re-executed with `worker <n>`), sets each one's latch
//! twice, sends each a datagram, then a "quit" datagram. Uses `$RINGBUS_ROOT` if set, else
//! a directory of its own under /dev/shm, removed at the end.

mod support;

use ringbus::waitset::Interest;
use ringbus::{EventKind, Node, WaitSet};
use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::os::fd::AsFd;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::ExampleRoot;

const WORKERS: usize = 3;

fn worker(n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let node = Node::new(&format!("worker-{n}"))?;
    let latch = node.latch(&format!("example/latch/{n}"))?;
    let socket = UdpSocket::bind("127.0.0.1:0")?;
    let set = WaitSet::new()?;
    let on_latch = set.attach_latch(&latch)?;
    let on_socket = set.attach_fd(socket.as_fd(), Interest::Readable)?;
    println!("port {}", socket.local_addr()?.port());
    let (mut latch_wakeups, mut datagrams) = (0, 0);
    loop {
        for event in set.wait(None)? {
            if event.key == on_latch.key() {
                // Reset first, then look for work: a set in between is never lost.
                latch.reset();
                latch_wakeups += 1;
            } else if event.key == on_socket.key() && matches!(event.kind, EventKind::Fd { readable: true, .. }) {
                let mut buf = [0u8; 64];
                let len = socket.recv(&mut buf)?;
                if &buf[..len] == b"quit" {
                    println!(
                        "worker {n}: woken by its latch {latch_wakeups}x, {datagrams} datagram(s), backend {:?}",
                        set.backend()
                    );
                    latch.unlink();
                    return Ok(());
                }
                datagrams += 1;
            }
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("worker") {
        return worker(args[2].parse()?);
    }
    let root = ExampleRoot::new();
    let node = Node::with_root("latch-example", &root.path)?;
    let mut workers = Vec::new();
    for n in 0..WORKERS {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["worker", &n.to_string()])
            .env("RINGBUS_ROOT", &root.path)
            .stdout(Stdio::piped())
            .spawn()?;
        let mut out = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        out.read_line(&mut line)?;
        let port: u16 = line.trim().strip_prefix("port ").ok_or("worker did not start")?.parse()?;
        workers.push((child, out, port, node.latch(&format!("example/latch/{n}"))?));
    }
    let socket = UdpSocket::bind("127.0.0.1:0")?;
    for (_, _, port, latch) in &workers {
        for _ in 0..2 {
            latch.set(); // one FUTEX_WAKE if the worker sleeps, none if it is busy
            std::thread::sleep(Duration::from_millis(20));
        }
        socket.send_to(b"hello", ("127.0.0.1", *port))?;
        std::thread::sleep(Duration::from_millis(20));
        socket.send_to(b"quit", ("127.0.0.1", *port))?;
    }
    for (mut child, mut out, _, _) in workers {
        let mut report = String::new();
        out.read_line(&mut report)?;
        print!("{report}");
        if !child.wait()?.success() {
            return Err("a worker failed".into());
        }
    }
    Ok(())
}
