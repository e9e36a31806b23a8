//! The client's side of the control socket: one request, one reply, both bounded in time
//! and the reply in size, and only through a private directory.

use super::{dir_of, unsafe_dir, ControlError, Reply, Request, MAX_REPLY_BYTES, SURVEY_TIMEOUT};
use crate::runtime::Status;
use nix::sys::socket::{AddressFamily, SockFlag, SockType, UnixAddr};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The most routers [`all_statuses`] asks (in name order).
const MAX_ROUTERS: usize = 64;

/// Connects without waiting: a router too busy to accept (its backlog full) fails here at
/// once instead of blocking the client.
pub(super) fn connect(path: &Path) -> std::io::Result<UnixStream> {
    let flags = SockFlag::SOCK_NONBLOCK | SockFlag::SOCK_CLOEXEC;
    let fd = nix::sys::socket::socket(AddressFamily::Unix, SockType::Stream, flags, None)?;
    nix::sys::socket::connect(fd.as_raw_fd(), &UnixAddr::new(path)?)?;
    let stream = UnixStream::from(fd);
    stream.set_nonblocking(false)?;
    Ok(stream)
}

/// Reads one line (without its newline) before `deadline`, at most [`MAX_REPLY_BYTES`].
fn read_line(stream: &UnixStream, deadline: Instant) -> Result<Vec<u8>, String> {
    let mut line = Vec::new();
    let mut buf = [0u8; 16 << 10];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err("no reply in time (the router is stuck, or this is not a router)".into());
        }
        stream.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        let n = match (&*stream).read(&mut buf) {
            Ok(0) => return Err("the connection closed before a whole reply".into()),
            Ok(n) => n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {
                continue
            }
            Err(e) => return Err(format!("no reply: {e}")),
        };
        if let Some(end) = buf[..n].iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&buf[..end]);
            return Ok(line);
        }
        line.extend_from_slice(&buf[..n]);
        if line.len() > MAX_REPLY_BYTES {
            return Err(format!("a reply longer than {MAX_REPLY_BYTES} bytes"));
        }
    }
}

/// Sends `request` to the socket at `path` and waits at most `timeout` for the reply.
fn exchange(path: &Path, request: &Request, timeout: Duration) -> Result<Reply, ControlError> {
    let deadline = Instant::now() + timeout;
    let no_router = |reason: String| ControlError::NoRouter { path: path.to_path_buf(), reason };
    let bad_reply = |reason: String| ControlError::BadReply { path: path.to_path_buf(), reason };
    let stream = connect(path).map_err(|e| no_router(e.to_string()))?;
    stream.set_write_timeout(Some(timeout)).map_err(|e| no_router(e.to_string()))?;
    let mut text = serde_json::to_string(request).expect("requests serialize");
    text.push('\n');
    (&stream).write_all(text.as_bytes()).map_err(|e| no_router(e.to_string()))?;
    let line = read_line(&stream, deadline).map_err(bad_reply)?;
    serde_json::from_slice(&line).map_err(|e| bad_reply(format!("unreadable reply: {e}")))
}

/// Checks the directory of the socket at `path`; a missing one means no router.
fn check_dir(path: &Path) -> Result<(), ControlError> {
    let dir = dir_of(path);
    match ringbus::check_private_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.is_missing() => Err(ControlError::NoRouter {
            path: path.to_path_buf(),
            reason: format!("{} does not exist", dir.display()),
        }),
        Err(e) => Err(unsafe_dir(dir, e)),
    }
}

/// Sends `request` to the router at `path` and returns its reply, waiting at most
/// [`Request::timeout`]. Refuses a socket whose directory others could write into.
pub fn request(path: &Path, request: &Request) -> Result<Reply, ControlError> {
    check_dir(path)?;
    exchange(path, request, request.timeout())
}

/// The status of every router with a socket in `dir` that answers within
/// [`SURVEY_TIMEOUT`] (for `ringbus top`). All are asked at once, so routers that never
/// answer cost one timeout together. An unsafe `dir` is an error, a missing one no router.
pub fn all_statuses(dir: &Path) -> Result<Vec<Status>, ControlError> {
    match ringbus::check_private_dir(dir) {
        Ok(()) => {}
        Err(e) if e.is_missing() => return Ok(Vec::new()),
        Err(e) => return Err(unsafe_dir(dir, e)),
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(Vec::new()) };
    let mut sockets: Vec<PathBuf> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sock")).collect();
    sockets.sort();
    sockets.truncate(MAX_ROUTERS);
    let ask = |path: &PathBuf| exchange(path, &Request::List, SURVEY_TIMEOUT).ok().and_then(|r| r.status);
    Ok(std::thread::scope(|scope| {
        let asking: Vec<_> =
            sockets.iter().map(|p| (p, std::thread::Builder::new().spawn_scoped(scope, move || ask(p)))).collect();
        // A thread that could not be started asks from here.
        asking.into_iter().filter_map(|(p, t)| if let Ok(t) = t { t.join().ok().flatten() } else { ask(p) }).collect()
    }))
}
