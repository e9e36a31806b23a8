//! Files of the shared-memory root: exclusive creation, checked opening, space reservation.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

fn cstr(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// Creates `path` with `O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC` and the given mode.
pub fn create_exclusive(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Opens an existing file without following a symbolic link.
pub fn open_existing(path: &Path, writable: bool) -> io::Result<File> {
    OpenOptions::new().read(true).write(writable).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(path)
}

/// What `fstat` says about an open file, reduced to what the segment checks need.
#[derive(Debug, Clone, Copy)]
pub struct FileStat {
    pub uid: u32,
    pub mode: u32,
    pub size: u64,
    pub links: u64,
    pub is_regular: bool,
}

/// `fstat` of an open file.
pub fn stat(fd: BorrowedFd<'_>) -> io::Result<FileStat> {
    // SAFETY: all-zero is a valid `stat`; the kernel fills it in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid out-pointer.
    super::check(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
    Ok(FileStat {
        uid: st.st_uid,
        mode: st.st_mode & 0o7777,
        size: st.st_size as u64,
        links: st.st_nlink as u64,
        is_regular: st.st_mode & libc::S_IFMT == libc::S_IFREG,
    })
}

/// Reserves `len` bytes of backing store, so that a full tmpfs fails here with `ENOSPC`
/// instead of with SIGBUS on the first write to a page of the mapping.
pub fn allocate(fd: BorrowedFd<'_>, len: u64) -> io::Result<()> {
    // SAFETY: `fd` is an open, writable file; fallocate only touches its extent.
    let ret = unsafe { libc::fallocate(fd.as_raw_fd(), 0, 0, len as libc::off_t) };
    match super::check(ret) {
        Ok(_) => Ok(()),
        // Filesystems without fallocate: fall back to a sparse length.
        Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => {
            // SAFETY: as above.
            super::check(unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) }).map(|_| ())
        }
        Err(e) => Err(e),
    }
}

/// Sets the file's length to `len` without reserving anything (the rest is a hole).
pub fn set_len(fd: BorrowedFd<'_>, len: u64) -> io::Result<()> {
    // SAFETY: `fd` is an open, writable file.
    super::check(unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) }).map(|_| ())
}

/// Reserves backing store for `[offset, offset + len)` of a file already that long (a
/// full tmpfs fails here with `ENOSPC`, and a failed call leaves nothing reserved on
/// tmpfs). Filesystems without fallocate reserve nothing and succeed.
pub fn reserve_range(fd: BorrowedFd<'_>, offset: u64, len: u64) -> io::Result<()> {
    // KEEP_SIZE: a reservation never lengthens the file. One shortened under its mappings
    // (see `truncation`) stays short, so touching past its end still says so.
    // SAFETY: `fd` is an open, writable file; allocating blocks changes no byte written.
    let ret = unsafe {
        libc::fallocate(fd.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset as libc::off_t, len as libc::off_t)
    };
    match super::check(ret) {
        Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => Ok(()),
        other => other.map(|_| ()),
    }
}

/// Gives back the backing store of `[offset, offset + len)` (the range then reads as
/// zeros). Filesystems without hole punching keep it and succeed.
pub fn release_range(fd: BorrowedFd<'_>, offset: u64, len: u64) -> io::Result<()> {
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    // SAFETY: `fd` is an open, writable file; punching a hole zeroes only the given range,
    // which the caller owns.
    let ret = unsafe { libc::fallocate(fd.as_raw_fd(), mode, offset as libc::off_t, len as libc::off_t) };
    match super::check(ret) {
        Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => Ok(()),
        other => other.map(|_| ()),
    }
}

/// Renames `from` to `to`, failing with `EEXIST` instead of replacing an existing `to`.
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    let (from, to) = (cstr(from)?, cstr(to)?);
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them as usual.
    let ret =
        unsafe { libc::renameat2(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::RENAME_NOREPLACE) };
    super::check(ret).map(|_| ())
}

/// What `statvfs` says about the room left on a filesystem, reduced to what the "full"
/// messages need.
#[derive(Debug, Clone, Copy)]
pub struct Space {
    /// Bytes an unprivileged user may still allocate.
    pub free_bytes: u64,
    /// The filesystem has a fixed number of inodes (files) and none is free: no file can
    /// be created, however many bytes are free (a tmpfs mounted with a small `nr_inodes`).
    pub inodes_exhausted: bool,
}

/// The room left on the filesystem holding `path`.
pub fn space(path: &Path) -> io::Result<Space> {
    let p = cstr(path)?;
    // SAFETY: all-zero is a valid `statvfs`; the kernel fills it in.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `p` is a valid path and `st` a valid out-pointer.
    super::check(unsafe { libc::statvfs(p.as_ptr(), &mut st) })?;
    Ok(Space {
        free_bytes: st.f_bavail as u64 * st.f_frsize as u64,
        // A filesystem without an inode limit reports 0 inodes in all (tmpfs without
        // nr_inodes): never "exhausted".
        inodes_exhausted: st.f_files > 0 && st.f_favail == 0,
    })
}

/// The effective user id of this process.
pub fn euid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// This process's id (informational only: liveness never relies on it).
pub fn pid() -> u32 {
    std::process::id()
}
