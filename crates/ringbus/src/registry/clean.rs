//! Sweeps of the root: what dead processes left behind is found by its lock being free,
//! and removed only while holding that lock (or the topic's control lock), so a sweep
//! never races a live participant.

use crate::error::OpenError;
use crate::pubsub::topic::TopicHandle;
use crate::shm::header::SegmentKind;
use crate::shm::queue::CONTROL_LOCK_BYTE;
use crate::shm::root::FileName;
use crate::shm::{segment, Root};
use crate::sys;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// What [`clean`] did (or, with `dry_run`, would do).
#[derive(Debug, Default, Clone)]
pub struct CleanReport {
    /// Files removed (or to remove), each with the reason.
    pub removed: Vec<(PathBuf, String)>,
    /// Files left alone because they could not be understood (or, with `foreign`, could
    /// not be removed), with the reason.
    pub skipped: Vec<(PathBuf, String)>,
}

/// How [`clean_with`] sweeps.
#[derive(Debug, Default, Clone, Copy)]
pub struct CleanOptions {
    /// Only report what would be removed.
    pub dry_run: bool,
    /// Also remove files that are not valid segments of this version (foreign files,
    /// corrupted segments, segments of another layout version). Only safe when no process
    /// of another ringbus version uses this root.
    pub foreign: bool,
}

impl CleanOptions {
    fn remove(&self, path: &PathBuf) {
        if !self.dry_run {
            segment::remove(path);
        }
    }
}

/// `pub.<topic>.<topic id>.<slot>.<incarnation>` → (`<topic>`, topic id).
fn parse_publisher_file(name: &str) -> Option<(&str, u64)> {
    let FileName::Publisher(rest) = FileName::of(name) else {
        return None;
    };
    let mut parts = rest.rsplitn(4, '.');
    let (_inc, _slot, id, topic) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    Some((topic, u64::from_str_radix(id, 16).ok()?))
}

/// Removes the queue at `path` if no producer or consumer holds it and no command waits in
/// it (one that does is kept for the next consumer, as a POSIX message queue keeps its
/// messages). Decided and done under the queue's control lock, which every opener holds
/// until it has claimed its role. Returns whether it removed (or, dry, would remove) it.
fn remove_queue_if_unused(path: &PathBuf, options: CleanOptions) -> bool {
    // A queue that cannot be opened is a problem the snapshot reports.
    let Ok(Some(opened)) = segment::open(path, SegmentKind::Queue, true) else {
        return false;
    };
    if !matches!(sys::lock::try_lock(opened.file.as_fd(), CONTROL_LOCK_BYTE), Ok(true)) {
        return false; // someone is joining it right now
    }
    let Ok((info, file)) = super::inspect::queue::info(path, opened) else {
        return false;
    };
    let unused = !info.consumer_alive && info.producers_alive == 0 && info.queued() == 0;
    if unused && !segment::is_unlinked(&file, path).unwrap_or(true) {
        options.remove(path);
        return true;
    }
    false
}

/// Reclaims everything in `root` that no live process uses: dead nodes' files, abandoned
/// temporary files, topics none of whose participants is alive (with their publisher
/// files), publisher files whose topic is gone, and empty queues nobody holds. Live topics
/// are left untouched: their dead slots are reclaimed by their live participants.
///
/// Safe to run while processes use the root: what a live participant uses is never
/// removed (liveness is told by the locks the kernel drops when a process dies, not by
/// pids). Files it cannot understand are left alone and listed in
/// [`CleanReport::skipped`] ([`clean_with`] can remove them too). `ringbus clean` runs
/// this.
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// use ringbus::{clean_with, CleanOptions};
/// let root = node.root();
/// let report = clean_with(root, CleanOptions { dry_run: true, ..Default::default() })?;
/// for (path, why) in &report.removed {
///     println!("would remove {}: {why}", path.display());
/// }
/// let report = ringbus::clean(root)?;
/// assert!(report.removed.is_empty()); // everything here is alive
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn clean(root: &Root) -> Result<CleanReport, OpenError> {
    clean_with(root, CleanOptions::default())
}

/// [`clean`] with options: a dry run, and/or removing foreign and corrupted files too.
pub fn clean_with(root: &Root, options: CleanOptions) -> Result<CleanReport, OpenError> {
    let mut report =
        CleanReport { removed: crate::node::sweep_dead_nodes_and_temps(root, options.dry_run), skipped: Vec::new() };
    for name in root.entries() {
        let FileName::Topic(file_name) = FileName::of(&name) else {
            continue;
        };
        let path = root.path().join(&name);
        // A topic that cannot be opened is a problem the snapshot below reports.
        let Ok(Some(topic)) = TopicHandle::open_for_sweep(root, file_name) else {
            continue;
        };
        if topic.try_lock_control() {
            let unused = if options.dry_run { topic.is_unused() } else { topic.tear_down_if_unused() };
            if unused {
                report.removed.push((path, "topic with no live publisher or subscriber".into()));
            }
            topic.release_control();
        }
    }
    for name in root.entries() {
        if let FileName::Queue(_) = FileName::of(&name) {
            let path = root.path().join(&name);
            if remove_queue_if_unused(&path, options) {
                report.removed.push((path, "empty queue with no live producer or consumer".into()));
            }
        }
    }
    for name in root.entries() {
        let Some((topic, id)) = parse_publisher_file(&name) else {
            continue;
        };
        let orphan = match TopicHandle::open_for_sweep(root, topic) {
            Ok(Some(t)) => t.topic_id != id,
            Ok(None) => true,
            Err(_) => false,
        };
        if orphan {
            let path = root.path().join(&name);
            options.remove(&path);
            report.removed.push((path, "publisher segment of a topic that no longer exists".into()));
        }
    }
    for problem in super::inspect::snapshot(root).problems {
        if !options.foreign {
            report.skipped.push((problem.path, problem.reason));
            continue;
        }
        match if options.dry_run { Ok(()) } else { remove_entry(&problem.path) } {
            Ok(()) => report.removed.push((problem.path, problem.reason)),
            Err(e) => report.skipped.push((problem.path, format!("{}; removing it failed: {e}", problem.reason))),
        }
    }
    Ok(report)
}

/// Removes one entry of the root without following a symbolic link: a link is removed
/// itself; a directory with everything in it, where links are removed, never followed
/// (`remove_dir_all` opens each level with `O_NOFOLLOW`); anything else is unlinked.
/// Already gone is done.
fn remove_entry(path: &Path) -> std::io::Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    match removed {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn publisher_file_names_parse() {
        assert_eq!(super::parse_publisher_file("pub.a.b.00000000000000ff.3.7"), Some(("a.b", 255)));
        assert_eq!(super::parse_publisher_file("pub.x"), None);
    }
}
