//! What a name stands for in a root. Topics, command queues, latches and semaphores each
//! have files of their own, so one name may be several kinds at once; a tool that wants a
//! topic can say "that is a queue" instead of waiting for a topic that will never come.

use crate::error::OpenError;
use crate::shm::root::{file_name, LATCH_PREFIX, QUEUE_PREFIX, SEMAPHORE_PREFIX};
use crate::shm::Root;

/// A kind of named object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// A topic (`node.topic(name)`).
    Topic,
    /// A command queue (`node.queue(name)`).
    Queue,
    /// A [`Latch`](crate::Latch).
    Latch,
    /// A [`Semaphore`](crate::Semaphore).
    Semaphore,
}

/// The kinds of object named `name` in `root`, by their files (which are not opened, so
/// not checked either: `snapshot` reports a file that is not what its name says).
pub fn kinds_of(root: &Root, name: &str) -> Result<Vec<Named>, OpenError> {
    let (_, file_name) = file_name(name)?;
    let files = [
        (Named::Topic, root.topic_path(&file_name)),
        (Named::Queue, root.object_path(QUEUE_PREFIX, &file_name)),
        (Named::Latch, root.object_path(LATCH_PREFIX, &file_name)),
        (Named::Semaphore, root.object_path(SEMAPHORE_PREFIX, &file_name)),
    ];
    Ok(files.into_iter().filter(|(_, path)| std::fs::symlink_metadata(path).is_ok()).map(|(kind, _)| kind).collect())
}
