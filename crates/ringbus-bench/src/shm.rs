//! A file mapped shared by the bench and its worker processes, seen as atomic words: the
//! results file, the baselines' slot rings and wake words, the token and wake boards.
//! Every access from any process is atomic, so concurrent readers and writers are never a
//! data race.

use anyhow::{ensure, Context, Result};
use memmap2::MmapMut;
use std::fs::OpenOptions;
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64};

#[derive(Debug)]
pub(crate) struct SharedWords {
    /// Start of the mapping, taken from a mutable borrow so writes through it are allowed.
    base: *mut AtomicU64,
    len: usize,
    _map: MmapMut,
}

// SAFETY: the mapping is only accessed through atomics (`words()`), which are Sync; the
// raw pointer is what makes the auto traits opt out.
unsafe impl Send for SharedWords {}
// SAFETY: as above.
unsafe impl Sync for SharedWords {}

impl SharedWords {
    /// Creates `path` (which must not exist: a run's files are never reused) as `len` zero
    /// words and maps it.
    pub(crate) fn create(path: &Path, len: usize) -> Result<SharedWords> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        file.set_len(len as u64 * 8).with_context(|| {
            format!("cannot size {} to {} bytes; is /dev/shm full? (df -h /dev/shm)", path.display(), len * 8)
        })?;
        Self::map(path, &file, len)
    }

    /// Maps an existing file of exactly `len` words.
    pub(crate) fn open(path: &Path, len: usize) -> Result<SharedWords> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let actual = file.metadata()?.len();
        ensure!(actual == len as u64 * 8, "{} is {actual} bytes, expected {}", path.display(), len * 8);
        Self::map(path, &file, len)
    }

    fn map(path: &Path, file: &std::fs::File, len: usize) -> Result<SharedWords> {
        ensure!(len > 0, "cannot map an empty {}", path.display());
        // SAFETY: the file lives in a directory private to this bench run; every process
        // that maps it accesses it only through `words()` (atomics), so no other writer can
        // invalidate a reference we hand out.
        let mut map = unsafe { MmapMut::map_mut(file) }.with_context(|| format!("cannot mmap {}", path.display()))?;
        ensure!(map.len() == len * 8, "{} changed size while being mapped", path.display());
        Ok(SharedWords { base: map.as_mut_ptr().cast(), len, _map: map })
    }

    /// The mapping as atomic words.
    pub(crate) fn words(&self) -> &[AtomicU64] {
        // SAFETY: `base` is the page-aligned start of a live mapping of `len * 8` bytes
        // (checked in `map`); `AtomicU64` has the size and alignment of `u64`; the slice
        // borrows `self`, which owns the mapping; all accesses to the file are atomic.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    /// The mapping as 32-bit atomic words (two per 64-bit word), for futexes. A location is
    /// accessed at one width only: a file's 32-bit words (the baselines' wake words, the
    /// wake board's header up to byte 48) never also through `words()`.
    pub(crate) fn words32(&self) -> &[AtomicU32] {
        // SAFETY: as in `words`: `base` starts a live, page-aligned mapping of `len * 8`
        // bytes, i.e. `2 * len` properly aligned `AtomicU32`s, borrowed with `self`; all
        // accesses to the file are atomic, each location's of one width (see above).
        unsafe { std::slice::from_raw_parts(self.base.cast::<AtomicU32>(), self.len * 2) }
    }
}
