//! Watching another node's death: a pidfd of its process, taken only while its node file
//! is still locked — so the pid is the node's own, never a reused one.

use crate::error::{io_err, OpenError};
use crate::shm::header::SegmentKind;
use crate::shm::node::NodeRecord;
use crate::shm::{segment, Root};
use crate::sys;
use std::os::fd::{AsFd, OwnedFd};

/// A pidfd that becomes readable when node `node_id` dies; `None` if it is gone already.
pub(crate) fn peer_pidfd(root: &Root, node_id: u64) -> Result<Option<OwnedFd>, OpenError> {
    let path = root.node_path(node_id);
    let Some(opened) = segment::open(&path, SegmentKind::Node, false)? else {
        return Ok(None);
    };
    let record = NodeRecord::read(&opened.region, &opened.header).map_err(|e| segment::header_error(&path, e))?;
    if record.node_id != node_id {
        return Err(OpenError::Corrupted {
            path,
            corruption: crate::Corruption { what: "node id", found: record.node_id, limit: node_id },
        });
    }
    let pidfd = match sys::pidfd::open(record.pid) {
        Ok(fd) => fd,
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => return Ok(None),
        Err(e) => return Err(OpenError::Io { action: "watch the process of", path, source: e }),
    };
    // The lock is the node's life: if it is still held now, the process we hold a pidfd
    // for existed before the node died, so it is the node's (pids are not reused while a
    // process lives).
    if !sys::lock::is_locked(opened.file.as_fd(), 0).map_err(io_err("check the lock of", &path))? {
        return Ok(None);
    }
    Ok(Some(pidfd))
}
