//! The checks of where segments live: the filesystem holding the root (tmpfs, size, free
//! space) and the root directory itself (owner, mode), which is never created here.

use super::Finding;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// `statfs` `f_type` of tmpfs (`TMPFS_MAGIC` in linux/magic.h).
const TMPFS_MAGIC: u64 = 0x0102_1994;
/// Below this a tmpfs is probably a container's default /dev/shm (64 MiB).
const SMALL_TOTAL_BYTES: u64 = 256 << 20;
/// Below this even a small topic may not fit.
const MIN_FREE_BYTES: u64 = 16 << 20;
/// Where to point `RINGBUS_ROOT` instead.
const ELSEWHERE: &str = "point RINGBUS_ROOT at a directory you own on a tmpfs, e.g. /dev/shm/ringbus-$UID";

/// `1.5 GiB`, `64 MiB`.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

/// The topmost ancestor of `path` (itself included) on the same filesystem.
fn mount_point(path: &Path) -> &Path {
    let dev = |p: &Path| std::fs::metadata(p).map(|m| m.dev()).ok();
    let here = dev(path);
    path.ancestors().take_while(|p| dev(p) == here).last().unwrap_or(path)
}

pub fn shm(root: &Path) -> Finding {
    const CHECK: &str = "shm";
    let Some(at) = root.ancestors().find(|p| p.exists()) else {
        return Finding::fail(CHECK, format!("no part of {} exists", root.display()), ELSEWHERE);
    };
    let (fs, vfs) = match (rustix::fs::statfs(at), rustix::fs::statvfs(at)) {
        (Ok(fs), Ok(vfs)) => (fs, vfs),
        (Err(e), _) | (_, Err(e)) => return Finding::fail(CHECK, format!("statfs {}: {e}", at.display()), ELSEWHERE),
    };
    let mount = mount_point(at);
    let tmpfs = fs.f_type as u64 == TMPFS_MAGIC;
    let kind = if tmpfs { "tmpfs".to_string() } else { format!("not tmpfs (f_type {:#x})", fs.f_type) };
    let unit = if vfs.f_frsize > 0 { vfs.f_frsize } else { vfs.f_bsize };
    let (total, free) = (vfs.f_blocks.saturating_mul(unit), vfs.f_bavail.saturating_mul(unit));
    if tmpfs && vfs.f_blocks == 0 {
        return Finding::ok(CHECK, format!("{} on {}: tmpfs without a size limit", root.display(), mount.display()));
    }
    let detail = format!("{} on {}: {kind}, {} with {} free", root.display(), mount.display(), size(total), size(free));
    let enlarge = format!(
        "enlarge it: docker run --shm-size=1g (a container's /dev/shm is 64 MiB by default), or on a host \
         `mount -o remount,size=1G {}`",
        mount.display()
    );
    if free < MIN_FREE_BYTES {
        let advice = if tmpfs { format!("{enlarge}; or free space on it") } else { ELSEWHERE.into() };
        return Finding::fail(CHECK, format!("{detail}: less than {} free", size(MIN_FREE_BYTES)), advice);
    }
    if !tmpfs {
        return Finding::warn(CHECK, format!("{detail}: messages would be written back to disk"), ELSEWHERE);
    }
    if total < SMALL_TOTAL_BYTES {
        let detail = format!("{detail}: under {}, a few large topics fill it", size(SMALL_TOTAL_BYTES));
        return Finding::warn(CHECK, detail, enlarge);
    }
    Finding::ok(CHECK, detail)
}

pub fn root(root: &Path) -> Finding {
    const CHECK: &str = "root";
    let shown = root.display();
    let meta = match std::fs::symlink_metadata(root) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return missing(root),
        Err(e) => return Finding::fail(CHECK, format!("{shown}: cannot look at it: {e}"), ELSEWHERE),
    };
    // It exists, so `Root::open` only checks it (creating fails with EEXIST).
    match ringbus::Root::open(root) {
        Ok(_) => Finding::ok(CHECK, format!("{shown}: a directory we own, mode {:o}", meta.mode() & 0o777)),
        Err(ringbus::OpenError::RootUnusable { reason, .. }) => {
            Finding::fail(CHECK, format!("{shown}: {reason}"), advice(root, &meta))
        }
        Err(e) => Finding::fail(CHECK, format!("{shown}: {e}"), advice(root, &meta)),
    }
}

/// What to do about an existing root that `Root::open` refused.
fn advice(root: &Path, meta: &std::fs::Metadata) -> String {
    let euid = rustix::process::geteuid().as_raw();
    if !meta.is_dir() {
        format!("move {} out of the way, or {ELSEWHERE}", root.display())
    } else if meta.uid() != euid {
        format!("{ELSEWHERE} (a directory owned by uid {} is not ours)", meta.uid())
    } else if meta.mode() & 0o022 != 0 {
        format!("chmod 700 {}", root.display())
    } else {
        ELSEWHERE.to_string()
    }
}

/// A root that does not exist yet: fine if `Root::open` will be able to create it.
fn missing(root: &Path) -> Finding {
    const CHECK: &str = "root";
    let shown = root.display();
    let parent: PathBuf = root.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).into();
    let writable = rustix::fs::access(&parent, rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK);
    match std::fs::metadata(&parent) {
        Ok(m) if m.is_dir() => match writable {
            Ok(()) => {
                Finding::ok(CHECK, format!("{shown} does not exist yet: ringbus creates it (mode 700) on first use"))
            }
            Err(e) => Finding::fail(
                CHECK,
                format!(
                    "{shown} does not exist and cannot be created: {} is not writable by us ({e})",
                    parent.display()
                ),
                format!("create it for this user (mkdir -m 700 {shown}, then chown it), or {ELSEWHERE}"),
            ),
        },
        Ok(_) => Finding::fail(
            CHECK,
            format!("{shown} cannot be created: {} is not a directory", parent.display()),
            ELSEWHERE,
        ),
        Err(e) => Finding::fail(
            CHECK,
            format!("{shown} cannot be created: its parent {}: {e}", parent.display()),
            format!("mkdir -p -m 700 {shown}, or {ELSEWHERE}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_mib_then_gib() {
        assert_eq!(size(64 << 20), "64 MiB");
        assert_eq!(size(3 << 29), "1.5 GiB");
    }
}
