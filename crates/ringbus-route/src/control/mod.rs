//! The control socket: a Unix stream socket per router, one JSON request per line and one
//! JSON reply per line — `{"op":"list"}`, `{"op":"add","endpoint":"NAME=TYPE:ADDRESS"}`,
//! `{"op":"remove","name":"NAME"}`. `ringbus route ctl` is its client, and `ringbus top`
//! asks every socket in [`default_dir`] for its list.
//!
//! Trust: a control socket lives in a directory only this user can put files in — a real
//! directory (not a symbolic link), owned by the effective uid, not writable by group or
//! others ([`ringbus::check_private_dir`], the check the shared-memory root passes). The
//! router creates it with mode 0700 and refuses one that fails the check; clients refuse
//! to talk through one. A client still bounds what it accepts: a reply must arrive within
//! a timeout and fit in [`MAX_REPLY_BYTES`], and the `ringbus` command escapes the control
//! characters of any text it prints from a reply.

mod client;
mod server;

pub use client::{all_statuses, request};
pub use server::{bind, serve};

use crate::runtime::Status;
use ringbus::PrivateDirError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `$RINGBUS_ROUTE_DIR` overrides [`default_dir`].
pub const DIR_ENV: &str = "RINGBUS_ROUTE_DIR";
/// How long a client waits for the reply to `list`.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client waits for the reply to `add` or `remove` (a removal waits for the
/// endpoint's threads to let go of its links).
pub const CHANGE_TIMEOUT: Duration = Duration::from_secs(15);
/// How long [`all_statuses`] waits for each router; it asks them all at once.
pub const SURVEY_TIMEOUT: Duration = Duration::from_secs(1);
/// The longest reply a client reads (a list of some ten thousand links).
pub const MAX_REPLY_BYTES: usize = 4 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Request {
    List,
    Add { endpoint: String },
    Remove { name: String },
}

impl Request {
    /// How long a client waits for the reply.
    pub fn timeout(&self) -> Duration {
        match self {
            Request::List => LIST_TIMEOUT,
            Request::Add { .. } | Request::Remove { .. } => CHANGE_TIMEOUT,
        }
    }
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
    /// The request named an endpoint the router does not have (`error` says which).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_found: bool,
}

/// Why a control socket could not be served or asked.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error("the control socket directory {dir} is unsafe: {reason}. Another user could have put a socket there; remove it (a router recreates it with mode 0700), or set {DIR_ENV} to a directory only you can write")]
    UnsafeDir { dir: PathBuf, reason: PrivateDirError },
    #[error("{path}: another router answers there; give this one another --name")]
    InUse { path: PathBuf },
    #[error("cannot {action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
    #[error("{path}: no router answers ({reason}); is `ringbus route` running with this --name?")]
    NoRouter { path: PathBuf, reason: String },
    #[error("{path}: {reason}")]
    BadReply { path: PathBuf, reason: String },
}

fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Where control sockets go: `$RINGBUS_ROUTE_DIR`, else `$XDG_RUNTIME_DIR/ringbus-route`,
/// else `/tmp/ringbus-route-UID`.
pub fn default_dir() -> PathBuf {
    let env = |k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env(DIR_ENV)
        .or_else(|| env("XDG_RUNTIME_DIR").map(|d| d.join("ringbus-route")))
        .unwrap_or_else(|| PathBuf::from(format!("/tmp/ringbus-route-{}", euid())))
}

/// The control socket of router `name`.
pub fn default_path(name: &str) -> PathBuf {
    default_dir().join(format!("{name}.sock"))
}

/// The directory holding the socket at `path`.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

fn unsafe_dir(dir: &Path, reason: PrivateDirError) -> ControlError {
    ControlError::UnsafeDir { dir: dir.to_path_buf(), reason }
}
