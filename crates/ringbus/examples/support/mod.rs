//! What the examples share: where a self-contained run keeps its shared memory.
//!
//! A program of your own does not need this: `Node::new` uses `$RINGBUS_ROOT`, or
//! `/dev/shm/ringbus-<uid>`. The examples take a directory of their own when run alone so
//! that they leave nothing behind, and the one the test suite gives them otherwise.

use std::path::PathBuf;

/// `$RINGBUS_ROOT` if set, else a directory of its own under /dev/shm, removed with
/// anything left in it when dropped.
pub struct ExampleRoot {
    pub path: PathBuf,
    ours: bool,
}

impl ExampleRoot {
    pub fn new() -> ExampleRoot {
        match std::env::var_os("RINGBUS_ROOT") {
            Some(path) if !path.is_empty() => ExampleRoot { path: path.into(), ours: false },
            _ => ExampleRoot { path: format!("/dev/shm/ringbus-example-{}", std::process::id()).into(), ours: true },
        }
    }
}

impl Drop for ExampleRoot {
    fn drop(&mut self) {
        if self.ours {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
