//! The router's control directory and what clients accept from it: a directory others
//! can write into (or a symbolic link) is refused by `ringbus route`, `route ctl` and
//! `top`; a socket that never answers costs `top` about a second, not a timeout per
//! socket; and a hostile reply's control characters never reach the terminal.

mod common;

use common::{ringbus_env, Run};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(60);

/// A router's `list` reply whose every name carries terminal escape sequences (C0 ESC and
/// BEL, C1 CSI).
const HOSTILE_REPLY: &str = r#"{"ok":true,"status":{"name":"\u001b[31mEVIL","pid":1,"unroutable":0,
"endpoints":[{"name":"\u001b]0;title\u0007ep","type":"udp-in","address":"\u009b2Jaddr","local":null}],
"links":[{"id":1,"endpoint":"\u001b[2Jep","peer":"\u001bcpeer","frames_in":1,"bytes_in":2,"frames_out":3,
"bytes_out":4,"filtered_in":0,"filtered_out":0,"dropped_out":0,"garbage_bytes":0}]}}"#;

/// A fake router at `path`: it answers every request with `reply`, or, with `None`,
/// accepts connections and never answers. Lives as long as the test process.
fn fake_router(path: PathBuf, reply: Option<&'static str>) {
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            match reply {
                Some(reply) => {
                    let mut line = String::new();
                    let _ = BufReader::new(&stream).read_line(&mut line);
                    let _ = writeln!(stream, "{}", reply.replace('\n', ""));
                }
                None => held.push(stream),
            }
        }
    });
}

fn route_dir_env(dir: &Path) -> [(&'static str, &str); 1] {
    [("RINGBUS_ROUTE_DIR", dir.to_str().unwrap())]
}

fn run(args: &[&str], dir: &Path, root: &Path, scratch: &tempfile::TempDir) -> Run {
    ringbus_env(args, Some(root), &route_dir_env(dir), scratch, LIMIT)
}

fn assert_no_escape(run: &Run, what: &str) {
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        let bad = text.chars().find(|&c| c == '\x1b' || c == '\u{9b}' || c == '\x07');
        assert_eq!(bad, None, "{what}: a control character reached {stream}: {text:?}");
    }
}

#[test]
fn a_control_directory_others_can_write_into_is_refused() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let dir = scratch.path().join("open");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    fake_router(dir.join("default.sock"), Some(HOSTILE_REPLY));

    let router = run(&["route", "--endpoint", "gcs=udp-in:127.0.0.1:0"], &dir, root.path(), &scratch);
    assert!(!router.status.success(), "the router ran in an open directory: {}", router.stderr);
    assert!(
        router.stderr.contains("lets others write") && router.stderr.contains("RINGBUS_ROUTE_DIR"),
        "{}",
        router.stderr
    );

    let ctl = run(&["route", "ctl", "list"], &dir, root.path(), &scratch);
    assert!(!ctl.status.success(), "ctl talked through an open directory: {}", ctl.stdout);
    assert!(ctl.stderr.contains("unsafe") && !ctl.stdout.contains("EVIL"), "{}{}", ctl.stdout, ctl.stderr);

    let top = run(&["top", "--once", "--interval", "0.1"], &dir, root.path(), &scratch);
    assert!(top.status.success(), "{}", top.stderr);
    assert!(!top.stdout.contains("EVIL"), "top showed a router of an open directory: {}", top.stdout);
    assert!(top.stderr.contains("not shown"), "{}", top.stderr);
}

#[test]
fn a_symbolic_link_as_the_control_directory_is_refused() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let real = tempfile::tempdir().unwrap();
    fake_router(real.path().join("default.sock"), Some(HOSTILE_REPLY));
    let link = scratch.path().join("link");
    std::os::unix::fs::symlink(real.path(), &link).unwrap();

    let router = run(&["route", "--endpoint", "gcs=udp-in:127.0.0.1:0"], &link, root.path(), &scratch);
    assert!(!router.status.success(), "the router ran through a symbolic link: {}", router.stderr);
    assert!(router.stderr.contains("symbolic link"), "{}", router.stderr);

    let ctl = run(&["route", "ctl", "list"], &link, root.path(), &scratch);
    assert!(!ctl.status.success() && ctl.stderr.contains("symbolic link"), "{}{}", ctl.stdout, ctl.stderr);
    assert!(!ctl.stdout.contains("EVIL"), "{}", ctl.stdout);
}

#[test]
fn stalled_and_hostile_routers_cost_top_a_second_and_print_no_control_characters() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let dir = tempfile::tempdir().unwrap(); // mode 0700, ours
    for name in ["a-stalled", "b-stalled", "c-stalled"] {
        fake_router(dir.path().join(format!("{name}.sock")), None);
    }
    fake_router(dir.path().join("evil.sock"), Some(HOSTILE_REPLY));

    let start = Instant::now();
    let top = run(&["top", "--once", "--interval", "0.1"], dir.path(), root.path(), &scratch);
    let took = start.elapsed();
    assert!(top.status.success(), "{}", top.stderr);
    assert!(took < Duration::from_secs(10), "three routers that never answer held top for {took:?}");
    assert!(top.stdout.contains("EVIL"), "the answering router is shown: {}", top.stdout);
    assert_no_escape(&top, "top --once");

    let list = run(&["route", "ctl", "--name", "evil", "list"], dir.path(), root.path(), &scratch);
    assert!(list.status.success(), "{}", list.stderr);
    assert!(list.stdout.contains("EVIL") && list.stdout.contains("addr"), "{}", list.stdout);
    assert_no_escape(&list, "route ctl list");

    let start = Instant::now();
    let stalled = run(&["route", "ctl", "--name", "a-stalled", "list"], dir.path(), root.path(), &scratch);
    assert_eq!(stalled.status.code(), Some(3), "{}", stalled.stderr);
    assert!(start.elapsed() < Duration::from_secs(30), "ctl list waited {:?}", start.elapsed());
}
