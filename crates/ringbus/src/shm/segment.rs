//! Creating and opening segment files under the root.
//!
//! Creation builds the whole segment under a temporary name (`O_EXCL|O_NOFOLLOW`, 0600,
//! space reserved with `fallocate`, header state written last) and renames it into place
//! with `RENAME_NOREPLACE`. Nothing half-built is ever visible under a real name, and a
//! failure (ENOSPC, a crash) leaves at most a temporary file that `clean` removes.

use super::header::{HeaderError, SegmentHeader, SegmentKind};
use super::{Region, Root};
use crate::error::{io_err, OpenError};
use crate::sys;
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// Mode bits a segment may carry: owner read/write, optionally group read/write.
const ALLOWED_MODE: u32 = 0o660;

/// Removes a temporary file unless disarmed.
struct TempFile<'a>(Option<&'a Path>);

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn creation_error(root: &Root, path: &Path, needed_bytes: u64, e: io::Error) -> OpenError {
    match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => match sys::fs::space(root.path()) {
            Ok(space) if space.inodes_exhausted => OpenError::NoInodes { path: path.to_path_buf() },
            space => OpenError::NoSpace {
                path: path.to_path_buf(),
                needed_bytes,
                free_bytes: space.map_or(0, |s| s.free_bytes),
            },
        },
        Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => {
            OpenError::RootUnusable { path: root.path().to_path_buf(), reason: format!("it is not writable ({e})") }
        }
        _ => OpenError::Io { action: "create", path: path.to_path_buf(), source: e },
    }
}

/// A created segment: its file (byte 0 OFD-locked through it) and its read-write mapping.
pub(crate) struct Created {
    pub file: File,
    pub region: Region,
}

/// How many times creation starts over when a sweep removed our temporary file in the
/// instant between creating it and locking it (it looked abandoned).
const CREATE_ATTEMPTS: u32 = 10;

/// Builds a segment of `len` bytes and renames it to `path`. `init` writes everything but
/// the state word, which is published after it returns. `Ok(None)`: `path` already exists
/// (someone else created it first); open it instead.
pub(crate) fn create(root: &Root, path: &Path, len: u64, init: impl Fn(&Region)) -> Result<Option<Created>, OpenError> {
    create_sparse(root, path, len, len, init)
}

/// [`create`] with only the first `reserved` bytes backed by memory; the rest of the `len`
/// bytes is a hole that its owner reserves later, range by range.
pub(crate) fn create_sparse(
    root: &Root,
    path: &Path,
    len: u64,
    reserved: u64,
    init: impl Fn(&Region),
) -> Result<Option<Created>, OpenError> {
    for _ in 0..CREATE_ATTEMPTS {
        match create_once(root, path, (len, reserved), &init)? {
            Attempt::Created(c) => return Ok(Some(c)),
            Attempt::Exists => return Ok(None),
            Attempt::TempVanished => continue,
        }
    }
    Err(OpenError::Io {
        action: "create",
        path: path.to_path_buf(),
        source: io::Error::other("temporary file kept vanishing"),
    })
}

enum Attempt {
    Created(Created),
    Exists,
    TempVanished,
}

fn create_once(
    root: &Root,
    path: &Path,
    (len, reserved): (u64, u64),
    init: &impl Fn(&Region),
) -> Result<Attempt, OpenError> {
    let tmp = root.temp_path()?;
    let file = sys::fs::create_exclusive(&tmp, 0o600).map_err(|e| creation_error(root, path, len, e))?;
    let guard = TempFile(Some(&tmp));
    // The creator holds byte 0 from birth: for a topic that is its control lock, so nobody
    // can tear the new topic down before the creator has joined it; for any segment it
    // tells sweeps that the temporary file is not abandoned.
    if !sys::lock::try_lock(file.as_fd(), 0).map_err(io_err("lock", &tmp))? {
        return Ok(Attempt::TempVanished);
    }
    sys::fs::allocate(file.as_fd(), reserved).map_err(|e| creation_error(root, path, reserved, e))?;
    if len > reserved {
        sys::fs::set_len(file.as_fd(), len).map_err(|e| creation_error(root, path, len, e))?;
    }
    let mapping =
        sys::mmap::Mapping::map(file.as_fd(), 0, len as usize, true).map_err(|e| creation_error(root, path, len, e))?;
    let region = Region::mapped(mapping, true);
    init(&region);
    SegmentHeader::publish(&region);
    match sys::fs::rename_noreplace(&tmp, path) {
        Ok(()) => {
            std::mem::forget(guard);
            Ok(Attempt::Created(Created { file, region }))
        }
        Err(e) if e.raw_os_error() == Some(libc::EEXIST) => Ok(Attempt::Exists),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(Attempt::TempVanished),
        Err(e) => Err(creation_error(root, path, len, e)),
    }
}

/// An opened segment.
pub(crate) struct Opened {
    pub file: File,
    pub region: Region,
    pub header: SegmentHeader,
}

pub(crate) fn header_error(path: &Path, e: HeaderError) -> OpenError {
    let path = path.to_path_buf();
    match e {
        HeaderError::Foreign(reason) => OpenError::Foreign { path, reason },
        HeaderError::Version(found) => {
            OpenError::VersionMismatch { path, found, expected: super::header::LAYOUT_VERSION }
        }
        HeaderError::Corrupted(corruption) => OpenError::Corrupted { path, corruption },
    }
}

/// Opens and checks the segment at `path`; `Ok(None)` if there is no such file.
pub(crate) fn open(path: &Path, kind: SegmentKind, writable: bool) -> Result<Option<Opened>, OpenError> {
    // Read-write even for a read-only mapping: the chunk words are mapped writable later.
    let file = match sys::fs::open_existing(path, true) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(OpenError::Foreign { path: path.to_path_buf(), reason: "a symbolic link".into() })
        }
        Err(e) => return Err(OpenError::Io { action: "open", path: path.to_path_buf(), source: e }),
    };
    let st = sys::fs::stat(file.as_fd()).map_err(io_err("stat", path))?;
    let foreign = |reason: String| OpenError::Foreign { path: path.to_path_buf(), reason };
    if !st.is_regular {
        return Err(foreign("not a regular file".into()));
    }
    if st.uid != sys::fs::euid() {
        return Err(foreign(format!("owned by uid {}, not by us", st.uid)));
    }
    if st.mode & !ALLOWED_MODE != 0 {
        return Err(foreign(format!("mode {:o}; ringbus segments are 0600 or 0660", st.mode)));
    }
    if st.size < std::mem::size_of::<SegmentHeader>() as u64 || st.size > usize::MAX as u64 {
        return Err(foreign(format!("truncated to {} bytes", st.size)));
    }
    let mapping = sys::mmap::Mapping::map(file.as_fd(), 0, st.size as usize, writable).map_err(io_err("map", path))?;
    let region = Region::mapped(mapping, writable);
    let header = SegmentHeader::read(&region, kind).map_err(|e| header_error(path, e))?;
    Ok(Some(Opened { file, region, header }))
}

/// Maps `[offset, offset + len)` of an open segment file.
pub(crate) fn map_range(file: &File, path: &Path, offset: u64, len: u64, writable: bool) -> Result<Region, OpenError> {
    let mapping = sys::mmap::Mapping::map(file.as_fd(), offset, len as usize, writable).map_err(io_err("map", path))?;
    Ok(Region::mapped(mapping, writable))
}

/// Whether the open file has been unlinked (a topic torn down by its last user).
pub(crate) fn is_unlinked(file: &File, path: &Path) -> Result<bool, OpenError> {
    Ok(sys::fs::stat(file.as_fd()).map_err(io_err("stat", path))?.links == 0)
}

/// Removes a file, ignoring "already gone".
pub(crate) fn remove(path: &PathBuf) {
    let _ = std::fs::remove_file(path);
}
