//! What the bridge tests share: a `ringbus-bridge` process with its output, and bounded
//! waits, so that a broken bridge fails a test instead of hanging it.

#![allow(dead_code)] // each test file uses its own part

use ringbus::{Sample, Subscriber};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const LIMIT: Duration = Duration::from_secs(30);

/// A running bridge, killed if the test fails before it stops it.
pub struct BridgeProcess {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl BridgeProcess {
    /// A bridge on `root` with the mappings among `args` (multicast scouting off).
    pub fn start(root: &Path, args: &[&str]) -> BridgeProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ringbus-bridge"))
            .arg("--root")
            .arg(root)
            .arg("--no-multicast")
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("cannot start ringbus-bridge");
        let lines = forward_lines(child.stdout.take().unwrap());
        let first = lines.recv_timeout(LIMIT).expect("the bridge did not start");
        assert!(first.starts_with("ready: "), "{first}");
        BridgeProcess { child, lines }
    }

    /// The next line it prints (after the first, `ready: ...`).
    pub fn next_line(&self) -> String {
        self.lines.recv_timeout(LIMIT).expect("the bridge printed nothing more")
    }

    /// SIGTERM, then the counters line it prints on the way out (its first mapping's).
    pub fn stop(self) -> String {
        let lines = self.stop_all();
        let first = lines.iter().find_map(|line| line.split_once(": ").filter(|(_, c)| c.starts_with("to_zenoh=")));
        first.expect("the bridge printed no counters after SIGTERM").1.to_string()
    }

    /// SIGTERM, then every line it prints until it exits (successfully).
    pub fn stop_all(mut self) -> Vec<String> {
        // SAFETY: kill(2) on our own child's pid, with a valid signal number.
        let sent = unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        assert_eq!(sent, 0, "cannot signal the bridge");
        let deadline = Instant::now() + LIMIT;
        let mut lines = Vec::new();
        // Its stdout closes when it exits.
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => lines.push(line),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => panic!("the bridge did not exit after SIGTERM: {lines:?}"),
            }
        }
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the bridge exited with {status}");
        lines
    }
}

impl Drop for BridgeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn forward_lines(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

/// A scratch directory for ringbus roots, on the tmpfs.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("ringbus-test-zenoh-").tempdir_in("/dev/shm").unwrap()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// One counter of a bridge's counters line.
pub fn counter(line: &str, name: &str) -> u64 {
    let value = line.split(' ').find_map(|kv| kv.strip_prefix(&format!("{name}=")));
    value.and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no {name} in {line:?}"))
}

pub fn text(sample: &Sample) -> String {
    String::from_utf8_lossy(&sample[..]).into_owned()
}

/// Receives until `n` messages starting with `prefix` are in, or the limit; returns them.
pub fn collect(sub: &mut Subscriber, prefix: &str, n: usize) -> Vec<String> {
    let deadline = Instant::now() + LIMIT;
    let mut got = Vec::new();
    while got.len() < n && Instant::now() < deadline {
        if let Ok(sample) = sub.receive(Some(Duration::from_millis(100))) {
            let text = text(&sample);
            if text.starts_with(prefix) {
                got.push(text);
            }
        }
    }
    got
}

/// Calls `f` every 10 ms until it is true; fails the test after the limit.
pub fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !f() {
        assert!(Instant::now() < deadline, "{what}: not within {LIMIT:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}
