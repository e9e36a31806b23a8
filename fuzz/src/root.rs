//! [`PrivateRoot`]: a ringbus root directory of this process alone, under `/dev/shm`, made
//! anew for each run of a target and removed (with everything in it) when the run ends —
//! or when it panics, before libFuzzer aborts the process.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// One run's root: `/dev/shm/ringbus-fuzz-<pid>`, removed on drop.
#[derive(Debug)]
pub struct PrivateRoot {
    path: PathBuf,
}

/// The roots a process uses, at most one of each at a time: a run's, and the one the
/// templates are built in (`crate::templates`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    Run,
    Templates,
}

/// Where this process's root for `what` lives.
pub fn root_path(what: Use) -> PathBuf {
    let tag = match what {
        Use::Run => "",
        Use::Templates => "-templates",
    };
    PathBuf::from(format!("/dev/shm/ringbus-fuzz-{}{tag}", std::process::id()))
}

impl PrivateRoot {
    /// Makes an empty root for a run (what an earlier run of this process left is
    /// removed first).
    pub fn new() -> PrivateRoot {
        Self::for_use(Use::Run)
    }

    /// Makes an empty root for `what`.
    pub fn for_use(what: Use) -> PrivateRoot {
        remove_on_panic();
        let path = root_path(what);
        let _ = std::fs::remove_dir_all(&path);
        std::fs::DirBuilder::new().mode(0o700).create(&path).expect("a fresh directory under /dev/shm");
        PrivateRoot { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The root as ringbus sees it.
    pub fn root(&self) -> ringbus::Root {
        ringbus::Root::open(&self.path).expect("our own root is usable")
    }

    /// A node in this root (`None` if the root is too damaged to register one).
    pub fn node(&self, name: &str) -> Option<ringbus::Node> {
        ringbus::Node::with_root(name, &self.path).ok()
    }

    /// File names in the root, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .map(|d| d.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// The first file whose name starts with `prefix`.
    pub fn file(&self, prefix: &str) -> Option<PathBuf> {
        self.files().into_iter().find(|f| f.starts_with(prefix)).map(|f| self.path.join(f))
    }
}

impl Default for PrivateRoot {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for PrivateRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A panic aborts the process (that is how libFuzzer learns of it) without running
/// destructors: the root goes in the panic hook instead, before the hook that aborts.
fn remove_on_panic() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let next = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = std::fs::remove_dir_all(root_path(Use::Run));
            let _ = std::fs::remove_dir_all(root_path(Use::Templates));
            next(info);
        }));
    });
}
