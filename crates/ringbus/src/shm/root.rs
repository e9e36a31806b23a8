//! The per-user root directory that holds every ringbus segment, and the file names in it.
//!
//! ```text
//! <root>/topic.<name>                                  topic control segment
//! <root>/pub.<name>.<topic id>.<slot>.<incarnation>    one publisher's log and chunks
//! <root>/node.<node id>                                a live node (OFD-locked)
//! <root>/latch.<name>, <root>/sem.<name>                a named Latch or Semaphore
//! <root>/queue.<name>                                  a command queue
//! <root>/.tmp.<random>                                 a segment being built
//! ```
//! `<name>` is the topic name with `/` written as `.` (names never contain `.`).

use crate::error::{OpenError, PrivateDirError};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Environment variable that overrides the root directory.
pub const ROOT_ENV: &str = "RINGBUS_ROOT";

/// Longest topic, latch or semaphore name accepted.
pub const MAX_TOPIC_NAME_BYTES: usize = 100;

/// Checks a topic (or latch, semaphore) name and returns it canonical and in its file-name
/// form (`/` written as `.`).
///
/// A name is 1 to 100 bytes of `[A-Za-z0-9_-]` segments separated by `/`; one leading `/`
/// is ignored (`/lidar/points` and `lidar/points` are the same topic).
pub(crate) fn file_name(name: &str) -> Result<(String, String), OpenError> {
    let bad = |reason| Err(OpenError::InvalidName { name: name.to_string(), reason });
    let canonical = name.strip_prefix('/').unwrap_or(name);
    if canonical.is_empty() || canonical.len() > MAX_TOPIC_NAME_BYTES {
        return bad("it must be 1 to 100 bytes long");
    }
    if canonical.split('/').any(str::is_empty) {
        return bad("it has an empty segment (`//` or a trailing `/`)");
    }
    if !canonical.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'/') {
        return bad("only letters, digits, `_`, `-` and `/` are allowed");
    }
    debug_assert!(canonical.len() <= super::topic::MAX_NAME_BYTES);
    Ok((canonical.to_string(), canonical.replace('/', ".")))
}

/// The prefixes of the named objects' files (`<prefix>.<name>`).
pub(crate) const LATCH_PREFIX: &str = "latch";
pub(crate) const SEMAPHORE_PREFIX: &str = "sem";
pub(crate) const QUEUE_PREFIX: &str = "queue";

/// What a file in the root is, from its name (see the module documentation), with the
/// part after its prefix. The one place that reads the names the paths below write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileName<'a> {
    Topic(&'a str),
    /// `<topic>.<topic id>.<slot>.<incarnation>`
    Publisher(&'a str),
    Node,
    Latch(&'a str),
    Semaphore(&'a str),
    Queue(&'a str),
    /// A segment being built.
    Temp,
    Unknown,
}

impl FileName<'_> {
    pub(crate) fn of(name: &str) -> FileName<'_> {
        let after = |prefix: &str| name.strip_prefix(prefix).and_then(|rest| rest.strip_prefix('.'));
        if let Some(rest) = after("topic") {
            FileName::Topic(rest)
        } else if let Some(rest) = after("pub") {
            FileName::Publisher(rest)
        } else if after("node").is_some() {
            FileName::Node
        } else if let Some(rest) = after(LATCH_PREFIX) {
            FileName::Latch(rest)
        } else if let Some(rest) = after(SEMAPHORE_PREFIX) {
            FileName::Semaphore(rest)
        } else if let Some(rest) = after(QUEUE_PREFIX) {
            FileName::Queue(rest)
        } else if name.starts_with(".tmp.") {
            FileName::Temp
        } else {
            FileName::Unknown
        }
    }
}

/// Creates `path` with mode 0700 if it does not exist, then checks it as
/// [`check_private_dir`] does.
pub fn create_private_dir(path: &Path) -> Result<(), PrivateDirError> {
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(PrivateDirError::Create(e)),
    }
    check_private_dir(path)
}

/// Checks that `path` is a directory only this user can put files in: a real directory
/// (not a symbolic link to one), owned by the effective uid, not writable by group or
/// others. Files found in such a directory were put there by this user (or root).
pub fn check_private_dir(path: &Path) -> Result<(), PrivateDirError> {
    let meta = std::fs::symlink_metadata(path).map_err(PrivateDirError::Stat)?;
    if !meta.file_type().is_dir() {
        return Err(PrivateDirError::NotADirectory);
    }
    let us = crate::sys::fs::euid();
    if meta.uid() != us {
        return Err(PrivateDirError::Owner { owner: meta.uid(), us });
    }
    if meta.mode() & 0o022 != 0 {
        return Err(PrivateDirError::Writable { mode: meta.mode() & 0o7777 });
    }
    Ok(())
}

/// The directory all segments live in; default `/dev/shm/ringbus-<uid>`.
#[derive(Debug, Clone)]
pub struct Root {
    path: PathBuf,
}

impl Root {
    /// `$RINGBUS_ROOT`, or `/dev/shm/ringbus-<uid>`.
    pub fn default_path() -> PathBuf {
        match std::env::var_os(ROOT_ENV) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => PathBuf::from(format!("/dev/shm/ringbus-{}", crate::sys::fs::euid())),
        }
    }

    /// Opens (creating it with mode 0700 if needed) and checks the root directory: a real
    /// directory, owned by us, not writable by group or others.
    pub fn open(path: impl Into<PathBuf>) -> Result<Root, OpenError> {
        let path = path.into();
        match create_private_dir(&path) {
            Ok(()) => Ok(Root { path }),
            Err(e) => Err(OpenError::RootUnusable { path, reason: e.to_string() }),
        }
    }

    /// The root directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn topic_path(&self, file_name: &str) -> PathBuf {
        self.path.join(format!("topic.{file_name}"))
    }

    pub(crate) fn publisher_prefix(file_name: &str, topic_id: u64) -> String {
        format!("pub.{file_name}.{topic_id:016x}.")
    }

    pub(crate) fn publisher_path(&self, file_name: &str, topic_id: u64, slot: u32, incarnation: u32) -> PathBuf {
        self.path.join(format!("{}{slot}.{incarnation}", Self::publisher_prefix(file_name, topic_id)))
    }

    pub(crate) fn object_path(&self, prefix: &str, file_name: &str) -> PathBuf {
        self.path.join(format!("{prefix}.{file_name}"))
    }

    pub(crate) fn node_path(&self, node_id: u64) -> PathBuf {
        self.path.join(format!("node.{node_id:016x}"))
    }

    pub(crate) fn temp_path(&self) -> Result<PathBuf, OpenError> {
        let r = crate::sys::random::u64().map_err(crate::error::io_err("draw a random name in", &self.path))?;
        Ok(self.path.join(format!(".tmp.{r:016x}")))
    }

    /// File names in the root (unreadable entries are skipped).
    pub(crate) fn entries(&self) -> Vec<String> {
        std::fs::read_dir(&self.path)
            .map(|d| d.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::FileName;

    #[test]
    fn file_names_are_told_apart_by_their_prefix_and_dot() {
        assert_eq!(FileName::of("topic.a.b"), FileName::Topic("a.b"));
        assert_eq!(FileName::of("pub.a.00ff.1.2"), FileName::Publisher("a.00ff.1.2"));
        assert_eq!(FileName::of("node.0123"), FileName::Node);
        assert_eq!(FileName::of("latch.x"), FileName::Latch("x"));
        assert_eq!(FileName::of("sem.jobs.tokens"), FileName::Semaphore("jobs.tokens"));
        assert_eq!(FileName::of("queue.q"), FileName::Queue("q"));
        assert_eq!(FileName::of(".tmp.00ab"), FileName::Temp);
        for other in ["topics.x", "semaphore", "notes.txt", "queue"] {
            assert_eq!(FileName::of(other), FileName::Unknown, "{other}");
        }
    }
}
