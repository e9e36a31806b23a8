//! [`Node`]: a participant, registered under the root with an identity the OS releases at
//! death (an OFD lock on its node file), never a PID that could be reused. A node sweeps
//! the files of dead nodes (and segments whose creator died building them) when it comes
//! and when it goes. What a node opens — topics, queues, latches, semaphores — is added to
//! it by the modules that own those (`Node::topic` in `pubsub`, ...).

use crate::error::{io_err, OpenError};
use crate::shm::node::{NodeRecord, MAX_NODE_NAME_BYTES, NODE_BYTES};
use crate::shm::root::FileName;
use crate::shm::{segment, Region, Root};
use crate::sys;
use std::fs::File;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A participant on the bus. Cheap to clone; publishers and subscribers keep it alive.
///
/// A node is a file under the root that its process holds locked for as long as the node
/// lives; the kernel drops the lock when the process dies, however it dies. Nodes that
/// come and go remove the files of dead nodes and of segments whose creator died while
/// building them. Topics ([`Node::topic`]), command queues ([`Node::queue`]), latches
/// ([`Node::latch`]) and semaphores ([`Node::semaphore`]) are opened from a node.
///
/// ```
/// use ringbus::Node;
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// // A root of our own; Node::new uses $RINGBUS_ROOT, or /dev/shm/ringbus-<uid>.
/// let node = Node::with_root("camera-driver", dir.path())?;
/// assert_eq!(node.name(), "camera-driver");
/// assert_eq!(node.root_path(), dir.path());
///
/// let publisher = node.topic("camera/frames").publisher()?;
/// drop(publisher); // the last participant out removes the topic
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Node {
    inner: Arc<NodeInner>,
}

#[derive(Debug)]
struct NodeInner {
    root: Root,
    id: u64,
    name: String,
    path: PathBuf,
    /// Holds the OFD lock on byte 0 of the node file for as long as the node lives.
    _file: File,
    _region: Region,
}

impl Node {
    /// Registers a node under the default root (`$RINGBUS_ROOT`, or
    /// `/dev/shm/ringbus-<uid>`, created with mode 0700 if missing). Files left by dead
    /// nodes are removed on the way.
    ///
    /// `name` is for people (`ringbus list nodes` shows it): 1 to 64 bytes without control
    /// characters, and need not be unique. Fails with [`OpenError::InvalidName`], or with
    /// [`OpenError::RootUnusable`] when the root is not a private directory of this user.
    ///
    /// ```no_run
    /// let node = ringbus::Node::new("planner")?;
    /// # Ok::<(), ringbus::OpenError>(())
    /// ```
    pub fn new(name: &str) -> Result<Node, OpenError> {
        Self::with_root(name, Root::default_path())
    }

    /// Registers a node under an explicit root directory (created with mode 0700 if
    /// missing), as [`Node::new`] does under the default one. Processes talk to each other
    /// only through the same root.
    pub fn with_root(name: &str, root: impl Into<PathBuf>) -> Result<Node, OpenError> {
        if name.is_empty() || name.len() > MAX_NODE_NAME_BYTES || name.chars().any(char::is_control) {
            return Err(OpenError::InvalidName {
                name: name.into(),
                reason: "a node name is 1 to 64 bytes without control characters",
            });
        }
        let root = Root::open(root)?;
        sweep_dead_nodes_and_temps(&root, false);
        loop {
            let id = crate::sys::random::u64().map_err(io_err("register a node in", root.path()))?;
            let path = root.node_path(id);
            let init = |r: &Region| NodeRecord::init(r, id, name);
            if let Some(created) = segment::create(&root, &path, NODE_BYTES, init)? {
                let inner =
                    NodeInner { root, id, name: name.into(), path, _file: created.file, _region: created.region };
                return Ok(Node { inner: Arc::new(inner) });
            }
        }
    }

    /// The node's random 64-bit id, drawn when it registered: unique among the nodes of a
    /// root. Tools show it, and [`WaitSet::attach_peer_death`](crate::WaitSet::attach_peer_death)
    /// takes it.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The root directory this node lives in.
    pub fn root(&self) -> &Root {
        &self.inner.root
    }

    /// The root directory's path.
    pub fn root_path(&self) -> &Path {
        self.inner.root.path()
    }
}

impl Drop for NodeInner {
    fn drop(&mut self) {
        segment::remove(&self.path);
        sweep_dead_nodes_and_temps(&self.root, false);
    }
}

/// A temporary file whose creator holds no lock on it: the creator died while building
/// it (a live creator locks it right after creating it, and starts over if a sweep removes
/// it in between; see `shm::segment::create`).
fn is_abandoned_temp(path: &Path) -> bool {
    sys::fs::open_existing(path, true).is_ok_and(|f| matches!(sys::lock::try_lock(f.as_fd(), 0), Ok(true)))
}

fn is_dead_node(path: &Path) -> bool {
    sys::fs::open_existing(path, true).is_ok_and(|f| matches!(sys::lock::is_locked(f.as_fd(), 0), Ok(false)))
}

/// Removes (unless `dry_run`) dead nodes' files and abandoned temporary files; returns
/// what it removed (or would), each with the reason.
pub(crate) fn sweep_dead_nodes_and_temps(root: &Root, dry_run: bool) -> Vec<(PathBuf, String)> {
    let mut removed = Vec::new();
    for name in root.entries() {
        let path = root.path().join(&name);
        let reason = match FileName::of(&name) {
            FileName::Node if is_dead_node(&path) => "node whose process is gone",
            FileName::Temp if is_abandoned_temp(&path) => "segment whose creator died while building it",
            _ => continue,
        };
        if !dry_run {
            segment::remove(&path);
        }
        removed.push((path, reason.to_string()));
    }
    removed
}
