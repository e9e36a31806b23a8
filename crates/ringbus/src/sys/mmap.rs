//! Shared mappings of segment files, each registered with [`super::truncation`] so that
//! a file shrunk under it reads zeros and says so instead of killing the process.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::ptr::NonNull;

/// A `MAP_SHARED` mapping, unmapped on drop.
#[derive(Debug)]
pub struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
    guard: &'static super::truncation::Guard,
}

// SAFETY: the mapping is plain memory; all access to it goes through atomics or through
// byte slices whose aliasing the owning types control.
unsafe impl Send for Mapping {}
// SAFETY: as above; `&Mapping` only hands out its base pointer and length.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `fd` from `offset` (page-aligned), shared, read-only or read-write.
    pub fn map(fd: BorrowedFd<'_>, offset: u64, len: usize, writable: bool) -> io::Result<Mapping> {
        let prot = if writable { libc::PROT_READ | libc::PROT_WRITE } else { libc::PROT_READ };
        // SAFETY: a fresh mapping chosen by the kernel (addr = null) aliases nothing of ours;
        // `fd` is open for the duration of the call.
        let ptr = unsafe {
            libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd.as_raw_fd(), offset as libc::off_t)
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr: NonNull<u8> = NonNull::new(ptr.cast()).ok_or_else(|| io::Error::from(io::ErrorKind::Other))?;
        let guard = super::truncation::register(ptr.as_ptr() as usize, len, prot);
        Ok(Mapping { ptr, len, guard })
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether an access found the file shorter than the mapping (see
    /// [`super::truncation`]); what lies past its end now reads zeros.
    #[inline]
    pub fn truncated(&self) -> bool {
        self.guard.truncated()
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // Unregistered first: a registered range is always mapped.
        super::truncation::unregister(self.guard);
        // SAFETY: `ptr`/`len` describe a mapping we created and nobody else unmaps; every
        // borrow of it is tied to `&self`, so none outlives this drop.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}
