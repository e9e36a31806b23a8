//! A bench run's private directory on tmpfs (`<parent>/ringbus-bench-<random>`): every
//! file of the run lives in it and goes with it, on success, on error and on Ctrl-C. A
//! run killed with SIGKILL cannot clean up; the next run sweeps what it left.

use anyhow::{Context, Result};
use std::fs::File;
use std::path::Path;
use std::time::Duration;

/// Where runs keep their files unless told otherwise.
pub(crate) const SHM: &str = "/dev/shm";
const RUN_PREFIX: &str = "ringbus-bench-";

/// A run holds an exclusive `flock` on this file in its directory for as long as it lives;
/// the kernel drops it when the process dies, however it dies.
const LOCK_FILE: &str = "lock";

/// The directory of one live run; removed by [`RunDir::close`] or, on error paths, on drop.
#[derive(Debug)]
pub(crate) struct RunDir {
    dir: tempfile::TempDir,
    _lock: File,
}

impl RunDir {
    /// Sweeps the directories of killed runs from `parent` (telling `note`), then creates
    /// and locks a fresh one there.
    pub(crate) fn create(parent: &Path, note: &mut dyn FnMut(&str)) -> Result<RunDir> {
        sweep_stale_runs(parent, note);
        let dir = tempfile::Builder::new().prefix(RUN_PREFIX).tempdir_in(parent).with_context(|| {
            format!(
                "cannot create a directory in {}; the bench needs a tmpfs there (docker: --shm-size)",
                parent.display()
            )
        })?;
        let lock = try_lock(dir.path())
            .with_context(|| format!("cannot lock the bench's directory {}", dir.path().display()))?;
        Ok(RunDir { dir, _lock: lock })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Removes the directory and everything in it.
    pub(crate) fn close(self) -> Result<()> {
        let path = self.dir.path().to_path_buf();
        self.dir.close().with_context(|| format!("cannot remove the bench's directory {}", path.display()))
    }
}

/// Opens `dir/lock` and tries to lock it exclusively; `Some(file)` holds the lock.
fn try_lock(dir: &Path) -> Option<File> {
    let file =
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(dir.join(LOCK_FILE));
    let file = file.ok()?;
    // SAFETY: flock on an fd we own; LOCK_NB makes it return at once.
    let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    locked.then_some(file)
}

/// Removes the directories of earlier runs that no live process holds (runs killed with
/// SIGKILL, the one exit that leaves no chance to clean up; their workers died with
/// them). Lock files younger than a few seconds are left alone: their run may be between
/// creating and locking it.
fn sweep_stale_runs(parent: &Path, note: &mut dyn FnMut(&str)) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let age = std::fs::metadata(path.join(LOCK_FILE)).and_then(|m| m.modified()).map(|t| t.elapsed());
        let old = matches!(age, Ok(Ok(age)) if age > Duration::from_secs(5));
        if !entry.file_name().to_string_lossy().starts_with(RUN_PREFIX) || !old {
            continue;
        }
        if let Some(_lock) = try_lock(&path) {
            if std::fs::remove_dir_all(&path).is_ok() {
                note(&format!("removed {}, left by a bench run that was killed", path.display()));
            }
        }
    }
}
