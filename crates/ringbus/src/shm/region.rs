//! [`Region`]: a contiguous piece of shared memory — a file mapping, or heap memory for unit
//! tests and Miri — and the only place that turns offsets into references.
//!
//! Offsets passed here come from process-local layouts computed from validated
//! configuration, never straight from shared memory; an out-of-range offset is therefore a
//! bug in ringbus and panics rather than reading out of bounds.

use crate::sys::mmap::Mapping;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// Types that may live in shared memory and be viewed in place.
///
/// # Safety
/// The type must be `#[repr(C)]` (or a primitive), contain no pointers, references or
/// `usize`, be valid for every bit pattern (a peer may write anything), and have an
/// alignment of at most 64.
pub(crate) unsafe trait Shared {}

// SAFETY: fixed-width atomics and integers are valid for every bit pattern and pointer-free.
unsafe impl Shared for AtomicU32 {}
// SAFETY: as above.
unsafe impl Shared for AtomicU64 {}
// SAFETY: as above.
unsafe impl Shared for u8 {}
// SAFETY: as above.
unsafe impl Shared for u32 {}
// SAFETY: as above.
unsafe impl Shared for u64 {}

#[derive(Debug)]
enum Backing {
    Mapped(Mapping),
    #[cfg(test)]
    Heap(#[allow(dead_code)] HeapBlock),
}

/// Zeroed, 64-byte-aligned heap memory, freed on drop. Kept as a raw allocation (not a
/// `Box`) so that moving it does not invalidate the pointer the `Region` hands out.
#[cfg(test)]
#[derive(Debug)]
struct HeapBlock {
    ptr: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
}

#[cfg(test)]
impl HeapBlock {
    fn zeroed(len: usize) -> HeapBlock {
        let layout = std::alloc::Layout::from_size_align(len.max(1), 64).expect("a sane test size");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = std::ptr::NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        HeapBlock { ptr, layout }
    }
}

#[cfg(test)]
impl Drop for HeapBlock {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this very layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// A bounds-checked view of shared memory.
#[derive(Debug)]
pub(crate) struct Region {
    ptr: *mut u8,
    len: usize,
    writable: bool,
    _backing: Backing,
}

// SAFETY: a Region is plain memory; all shared mutation goes through atomics, and the
// exclusive byte views are handed out only under the ownership rules of the pool.
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Region {
    /// Wraps a mapping (its pointer is page-aligned, hence 64-aligned).
    pub(crate) fn mapped(mapping: Mapping, writable: bool) -> Region {
        Region { ptr: mapping.as_ptr(), len: mapping.len(), writable, _backing: Backing::Mapped(mapping) }
    }

    /// Zeroed, 64-byte-aligned heap memory standing in for a segment (tests, Miri).
    #[cfg(test)]
    pub(crate) fn heap(len: usize) -> Region {
        let block = HeapBlock::zeroed(len);
        Region { ptr: block.ptr.as_ptr(), len, writable: true, _backing: Backing::Heap(block) }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether its file was found shorter than the mapping (truncated by another process
    /// while mapped); the part past the end now reads zeros. Look after reading.
    #[inline]
    pub(crate) fn truncated(&self) -> bool {
        match &self._backing {
            Backing::Mapped(mapping) => mapping.truncated(),
            #[cfg(test)]
            Backing::Heap(_) => false,
        }
    }

    #[inline]
    fn check<T>(&self, offset: usize, count: usize) {
        let bytes = std::mem::size_of::<T>().checked_mul(count).and_then(|b| b.checked_add(offset));
        assert!(
            bytes.is_some_and(|end| end <= self.len),
            "ringbus bug: offset {offset} (+{count}) outside a region of {} bytes",
            self.len
        );
        assert!(
            (self.ptr as usize + offset).is_multiple_of(std::mem::align_of::<T>()),
            "ringbus bug: misaligned offset {offset}"
        );
    }

    /// A shared reference to the `T` at `offset`.
    #[inline]
    pub(crate) fn get<T: Shared>(&self, offset: usize) -> &T {
        self.check::<T>(offset, 1);
        // SAFETY: in bounds and aligned (checked above); `T: Shared` is valid for any bit
        // pattern and its shared mutation happens only through atomics.
        unsafe { &*self.ptr.add(offset).cast::<T>() }
    }

    /// `count` consecutive `T`s from `offset`.
    #[inline]
    pub(crate) fn slice<T: Shared>(&self, offset: usize, count: usize) -> &[T] {
        self.check::<T>(offset, count);
        // SAFETY: as in `get`, for `count` elements.
        unsafe { std::slice::from_raw_parts(self.ptr.add(offset).cast::<T>(), count) }
    }

    /// Copies the plain value at `offset` out of shared memory (read once, then validate the
    /// local copy: a peer writing concurrently cannot change what we checked).
    pub(crate) fn read_plain<T: Shared + Copy>(&self, offset: usize) -> T {
        self.check::<T>(offset, 1);
        // SAFETY: in bounds and aligned; any bit pattern is a valid `T`; a volatile read
        // copies whatever is there without assuming it is stable.
        unsafe { std::ptr::read_volatile(self.ptr.add(offset).cast::<T>()) }
    }

    /// Writes a plain value; only creators do this, before publishing the state word.
    pub(crate) fn write_plain<T: Shared + Copy>(&self, offset: usize, value: T) {
        assert!(self.writable, "ringbus bug: write to a read-only region");
        self.check::<T>(offset, 1);
        // SAFETY: in bounds, aligned, writable; nobody reads the segment before its state
        // word says Ready, which is stored after this.
        unsafe { std::ptr::write_volatile(self.ptr.add(offset).cast::<T>(), value) }
    }

    /// A pointer to `[offset, offset + len)`, checked once (for views that index a range
    /// many times, like a queue's slots).
    pub(crate) fn pointer(&self, offset: usize, len: usize) -> std::ptr::NonNull<u8> {
        self.check::<u8>(offset, len);
        // SAFETY: in bounds (checked above), so within the allocation; non-null as the
        // mapping's base is.
        unsafe { std::ptr::NonNull::new_unchecked(self.ptr.add(offset)) }
    }

    /// The bytes `[offset, offset + len)`.
    pub(crate) fn bytes(&self, offset: usize, len: usize) -> &[u8] {
        self.slice::<u8>(offset, len)
    }

    /// The bytes `[offset, offset + len)`, writable.
    ///
    /// # Safety
    /// The caller must own these bytes exclusively for the lifetime of the slice (the pool
    /// guarantees it for a claimed chunk: no subscriber holds it and none can pin it).
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(crate) unsafe fn bytes_mut(&self, offset: usize, len: usize) -> &mut [u8] {
        assert!(self.writable, "ringbus bug: write to a read-only region");
        self.check::<u8>(offset, len);
        // SAFETY: in bounds; exclusivity is the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(offset), len) }
    }

    /// The address of byte `offset` (to prove zero-copy in tests and for bindings).
    #[inline]
    pub(crate) fn address(&self, offset: usize) -> usize {
        self.ptr as usize + offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_region_is_zeroed_and_aligned() {
        let r = Region::heap(200);
        assert_eq!(r.address(0) % 64, 0);
        assert!(r.bytes(0, 200).iter().all(|&b| b == 0));
        r.get::<AtomicU64>(64).store(7, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(r.read_plain::<u8>(64), 7);
    }

    #[test]
    #[should_panic(expected = "outside a region")]
    fn out_of_bounds_offset_panics_instead_of_reading() {
        let r = Region::heap(64);
        let _ = r.get::<AtomicU64>(64);
    }
}
