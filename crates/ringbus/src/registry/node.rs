//! [`Node`]: a participant, registered under the root with an identity the OS releases at
//! death (an OFD lock on its node file), never a PID that could be reused.

use crate::error::{io_err, OpenError};
use crate::pubsub::TopicBuilder;
use crate::shm::node::{NodeRecord, MAX_NODE_NAME_BYTES, NODE_BYTES};
use crate::shm::{segment, Region, Root};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A participant on the bus. Cheap to clone; publishers and subscribers keep it alive.
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
    /// `/dev/shm/ringbus-<uid>`). Files left by dead nodes are removed on the way.
    pub fn new(name: &str) -> Result<Node, OpenError> {
        Self::with_root(name, Root::default_path())
    }

    /// Registers a node under an explicit root directory.
    pub fn with_root(name: &str, root: impl Into<PathBuf>) -> Result<Node, OpenError> {
        if name.is_empty() || name.len() > MAX_NODE_NAME_BYTES || name.chars().any(char::is_control) {
            return Err(OpenError::InvalidName {
                name: name.into(),
                reason: "a node name is 1 to 64 bytes without control characters",
            });
        }
        let root = Root::open(root)?;
        super::clean::sweep_nodes_and_temps(&root);
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

    /// Opens a topic: configure it, then call `.publisher()` or `.subscriber()`.
    pub fn topic(&self, name: &str) -> TopicBuilder {
        TopicBuilder::new(self.clone(), name)
    }

    /// Opens the [`Latch`](crate::Latch) `name` under this node's root, creating it if needed.
    pub fn latch(&self, name: &str) -> Result<crate::Latch, OpenError> {
        crate::Latch::open(self.root(), name)
    }

    /// Opens the [`Semaphore`](crate::Semaphore) `name` under this node's root, creating
    /// it with `initial` tokens if it does not exist.
    pub fn semaphore(&self, name: &str, initial: u32) -> Result<crate::Semaphore, OpenError> {
        crate::Semaphore::open(self.root(), name, initial)
    }

    /// Opens the command queue `name` (commands of type `T`): configure it, then call
    /// `.producer()` or `.consumer()`.
    pub fn queue<T: crate::Pod>(&self, name: &str) -> crate::queue::QueueBuilder<T> {
        crate::queue::QueueBuilder::new(self.clone(), name)
    }

    /// The node's random 64-bit id.
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
        super::clean::sweep_nodes_and_temps(&self.root);
    }
}
