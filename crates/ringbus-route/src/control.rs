//! The control socket: a Unix stream socket per router, one JSON request per line and one
//! JSON reply per line — `{"op":"list"}`, `{"op":"add","endpoint":"NAME=TYPE:ADDRESS"}`,
//! `{"op":"remove","name":"NAME"}`. `ringbus route ctl` is its client, and `ringbus top`
//! asks every socket in [`default_dir`] for its list.

use crate::config::EndpointConfig;
use crate::runtime::{Runtime, Status};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `$RINGBUS_ROUTE_DIR` overrides [`default_dir`].
pub const DIR_ENV: &str = "RINGBUS_ROUTE_DIR";
/// How long a client waits for a reply (a removal waits for the endpoint's threads).
const REPLY_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Request {
    List,
    Add { endpoint: String },
    Remove { name: String },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// `add`: the new endpoint's bound address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
    /// `remove`: how many links the endpoint had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_links: Option<usize>,
}

fn uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(0)
}

/// Where control sockets go: `$RINGBUS_ROUTE_DIR`, else `$XDG_RUNTIME_DIR/ringbus-route`,
/// else `/tmp/ringbus-route-UID`.
pub fn default_dir() -> PathBuf {
    let env = |k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env(DIR_ENV)
        .or_else(|| env("XDG_RUNTIME_DIR").map(|d| d.join("ringbus-route")))
        .unwrap_or_else(|| PathBuf::from(format!("/tmp/ringbus-route-{}", uid())))
}

/// The control socket of router `name`.
pub fn default_path(name: &str) -> PathBuf {
    default_dir().join(format!("{name}.sock"))
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
            Err(e) => fail(e),
        },
    }
}

fn answer(runtime: &Runtime, stream: UnixStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(REPLY_TIMEOUT))?;
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line)?;
    let reply = match serde_json::from_str::<Request>(&line) {
        Ok(request) => handle(runtime, request),
        Err(e) => Reply { ok: false, error: Some(format!("bad request {:?}: {e}", line.trim())), ..Reply::default() },
    };
    let mut text = serde_json::to_string(&reply).map_err(std::io::Error::other)?;
    text.push('\n');
    (&stream).write_all(text.as_bytes())
}

/// Binds `path` (replacing a socket no router answers on) and answers requests until
/// `stop` is set; removes the socket file then.
pub fn serve(
    path: &Path,
    runtime: Arc<Runtime>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if path.exists() {
        if UnixStream::connect(path).is_ok() {
            let why = format!("{}: another router answers there; give this one another --name", path.display());
            return Err(std::io::Error::new(ErrorKind::AddrInUse, why));
        }
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    listener.set_nonblocking(true)?;
    let path = path.to_path_buf();
    crate::endpoint::spawn("route control".into(), move || {
        while !stop.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok((stream, _)) => {
                    let _ = stream.set_nonblocking(false);
                    let _ = answer(&runtime, stream);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        let _ = std::fs::remove_file(&path);
    })
}

/// Sends `request` to the router at `path` and returns its reply.
pub fn request(path: &Path, request: &Request) -> Result<Reply, String> {
    let stream = UnixStream::connect(path).map_err(|e| {
        format!("{}: no router answers ({e}); is `ringbus route` running with this --name?", path.display())
    })?;
    stream.set_read_timeout(Some(REPLY_TIMEOUT)).map_err(|e| e.to_string())?;
    let mut text = serde_json::to_string(request).expect("requests serialize");
    text.push('\n');
    (&stream).write_all(text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line).map_err(|e| format!("{}: no reply: {e}", path.display()))?;
    serde_json::from_str(&line).map_err(|e| format!("{}: unreadable reply: {e}", path.display()))
}

/// The status of every router with a socket in `dir` that answers (for `ringbus top`).
pub fn all_statuses(dir: &Path) -> Vec<Status> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut sockets: Vec<PathBuf> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sock")).collect();
    sockets.sort();
    sockets.iter().filter_map(|p| request(p, &Request::List).ok()).filter_map(|r| r.status).collect()
}
