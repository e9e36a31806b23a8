//! The router's side of the control socket: binds it in a private directory and answers
//! one request per connection, one connection at a time.

use super::client::connect;
use super::{dir_of, unsafe_dir, ControlError, Reply, Request};
use crate::config::EndpointConfig;
use crate::runtime::Runtime;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long the router waits for a client to send its request, and to take the reply.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request the router reads.
const MAX_REQUEST_BYTES: u64 = 64 << 10;

/// Creates the socket's directory (mode 0700) if missing and checks it, replaces a socket
/// no router answers on, and binds `path`.
pub fn bind(path: &Path) -> Result<UnixListener, ControlError> {
    let dir = dir_of(path);
    ringbus::create_private_dir(dir).map_err(|e| unsafe_dir(dir, e))?;
    let io = |action| move |source| ControlError::Io { action, path: path.to_path_buf(), source };
    if std::fs::symlink_metadata(path).is_ok() {
        if connect(path).is_ok() {
            return Err(ControlError::InUse { path: path.to_path_buf() });
        }
        std::fs::remove_file(path).map_err(io("remove the stale socket"))?;
    }
    UnixListener::bind(path).map_err(io("bind"))
}

fn handle(runtime: &Runtime, request: Request) -> Reply {
    let fail = |e: String| Reply { ok: false, error: Some(e), ..Reply::default() };
    match request {
        Request::List => Reply { ok: true, status: Some(runtime.status()), ..Reply::default() },
        Request::Add { endpoint } => match EndpointConfig::parse_spec(&endpoint).and_then(|c| runtime.add(c)) {
            Ok(local) => Reply { ok: true, local: local.map(|a| a.to_string()), ..Reply::default() },
            Err(e) => fail(e),
        },
        Request::Remove { name } => match runtime.remove(&name) {
            Ok(n) => Reply { ok: true, removed_links: Some(n), ..Reply::default() },
            Err(e) => Reply { not_found: true, ..fail(e.to_string()) },
        },
    }
}

fn answer(runtime: &Runtime, stream: UnixStream) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(CLIENT_TIMEOUT))?;
    stream.set_write_timeout(Some(CLIENT_TIMEOUT))?;
    let mut line = String::new();
    BufReader::new((&stream).take(MAX_REQUEST_BYTES)).read_line(&mut line)?;
    let reply = match serde_json::from_str::<Request>(&line) {
        Ok(request) => handle(runtime, request),
        Err(e) => Reply { ok: false, error: Some(format!("bad request {:?}: {e}", line.trim())), ..Reply::default() },
    };
    let mut text = serde_json::to_string(&reply).map_err(std::io::Error::other)?;
    text.push('\n');
    (&stream).write_all(text.as_bytes())
}

/// Answers requests on `listener` (bound at `path` by [`bind`]) until `stop` is set;
/// removes the socket file then.
pub fn serve(
    listener: UnixListener,
    path: PathBuf,
    runtime: Arc<Runtime>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    listener.set_nonblocking(true)?;
    crate::endpoint::spawn("route control".into(), move || {
        while !stop.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok((stream, _)) => {
                    let _ = answer(&runtime, stream);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        let _ = std::fs::remove_file(&path);
    })
}
