//! Plain-data payloads: typed views of sample and loan bytes.

use crate::error::ViewError;

/// Types that can be sent as raw bytes and viewed in place by another process.
///
/// # Safety
/// Implement only for `#[repr(C)]` (or primitive) types that are `Copy`, contain no
/// pointers, references or padding that matters, and are valid for every bit pattern of
/// their size (a buggy peer may write anything into a payload).
///
/// Implemented for the integer and float types and for arrays of `Pod` types. For a struct
/// of your own, make it `#[repr(C)]`, check the rules above, and implement the trait by
/// hand: `bool`, `char`, enums and references are not valid for every bit pattern, so a
/// struct holding one cannot be `Pod`.
///
/// ```
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Imu {
///     timestamp_ns: u64,
///     accel: [f32; 3],
///     gyro: [f32; 3],
/// }
/// // SAFETY: repr(C); a u64 then six f32s leave no padding (8 + 24 bytes, alignment 8), and
/// // every bit pattern of integers and floats is valid.
/// unsafe impl ringbus::Pod for Imu {}
/// ```
pub unsafe trait Pod: Copy + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $(
        // SAFETY: primitive integers and floats are valid for every bit pattern.
        unsafe impl Pod for $t {}
    )* };
}
pod!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, f32, f64);
// SAFETY: an array of Pod is Pod (no padding between elements of a Copy type's array).
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

/// A `T` read from `bytes` (exactly its size), however they are aligned.
pub(crate) fn read_bytes<T: Pod>(bytes: &[u8]) -> T {
    assert_eq!(bytes.len(), std::mem::size_of::<T>(), "ringbus bug: a value read from bytes of another size");
    // SAFETY: `bytes` holds exactly a `T`'s size (asserted); an unaligned read needs no
    // alignment, and every bit pattern is a valid `Pod`.
    unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<T>()) }
}

/// `value` copied into `out` (exactly its size), however `out` is aligned.
pub(crate) fn write_bytes<T: Pod>(out: &mut [u8], value: &T) {
    assert_eq!(out.len(), std::mem::size_of::<T>(), "ringbus bug: a value written into bytes of another size");
    // SAFETY: `out` holds exactly a `T`'s size (asserted) and is ours to write; an
    // unaligned write needs no alignment.
    unsafe { std::ptr::write_unaligned(out.as_mut_ptr().cast::<T>(), *value) }
}

fn check<T: Pod>(bytes: &[u8]) -> Result<(), ViewError> {
    let type_name = std::any::type_name::<T>();
    if bytes.len() != std::mem::size_of::<T>() {
        return Err(ViewError::Size { type_name, expected: std::mem::size_of::<T>(), actual: bytes.len() });
    }
    if !(bytes.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(ViewError::Alignment { type_name, align: std::mem::align_of::<T>() });
    }
    Ok(())
}

/// Views `bytes` as a `T` (size and alignment checked).
pub(crate) fn view<T: Pod>(bytes: &[u8]) -> Result<&T, ViewError> {
    check::<T>(bytes)?;
    // SAFETY: size and alignment checked; `T: Pod` is valid for any bit pattern.
    Ok(unsafe { &*bytes.as_ptr().cast::<T>() })
}

/// Views `bytes` as a mutable `T` (size and alignment checked).
pub(crate) fn view_mut<T: Pod>(bytes: &mut [u8]) -> Result<&mut T, ViewError> {
    check::<T>(bytes)?;
    // SAFETY: as in `view`; the exclusive borrow of `bytes` makes the `&mut T` unique.
    Ok(unsafe { &mut *bytes.as_mut_ptr().cast::<T>() })
}

fn check_slice<T: Pod>(bytes: &[u8]) -> Result<usize, ViewError> {
    let type_name = std::any::type_name::<T>();
    let size = std::mem::size_of::<T>();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(ViewError::SliceSize { type_name, element: size, actual: bytes.len() });
    }
    if !(bytes.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(ViewError::Alignment { type_name, align: std::mem::align_of::<T>() });
    }
    Ok(bytes.len() / size)
}

/// Views `bytes` as a slice of `T` (length a whole number of `T`, alignment checked).
pub(crate) fn view_slice<T: Pod>(bytes: &[u8]) -> Result<&[T], ViewError> {
    let n = check_slice::<T>(bytes)?;
    // SAFETY: `n` whole, aligned `T`s lie in `bytes`; `T: Pod` is valid for any bit pattern.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), n) })
}

/// Views `bytes` as a mutable slice of `T` (checked as [`view_slice`]).
pub(crate) fn view_slice_mut<T: Pod>(bytes: &mut [u8]) -> Result<&mut [T], ViewError> {
    let n = check_slice::<T>(bytes)?;
    // SAFETY: as in `view_slice`; the exclusive borrow of `bytes` makes the slice unique.
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), n) })
}

#[cfg(test)]
pub(crate) fn as_bytes_mut(v: &mut [u64; 2]) -> &mut [u8] {
    // SAFETY: u64s are plain bytes; the borrow is exclusive and the length exact.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), 16) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_check_size_and_alignment() {
        let mut buf = [0u64; 2];
        let bytes: &mut [u8] = crate::shm::pod::as_bytes_mut(&mut buf);
        *view_mut::<u64>(&mut bytes[..8]).unwrap() = 7;
        assert_eq!(*view::<u64>(&bytes[..8]).unwrap(), 7);
        assert!(matches!(view::<u64>(&bytes[..4]), Err(ViewError::Size { expected: 8, actual: 4, .. })));
        assert!(matches!(view::<u64>(&bytes[1..9]), Err(ViewError::Alignment { align: 8, .. })));
    }

    #[test]
    fn slice_views_check_whole_elements_and_alignment() {
        let mut buf = [0u64; 2];
        let bytes: &mut [u8] = crate::shm::pod::as_bytes_mut(&mut buf);
        view_slice_mut::<u32>(bytes).unwrap().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(view_slice::<u32>(&bytes[4..]).unwrap(), &[2, 3, 4]);
        assert_eq!(view_slice::<u64>(&bytes[..0]).unwrap(), &[] as &[u64]);
        assert!(matches!(view_slice::<u64>(&bytes[..12]), Err(ViewError::SliceSize { element: 8, actual: 12, .. })));
        assert!(matches!(view_slice::<u32>(&bytes[2..10]), Err(ViewError::Alignment { align: 4, .. })));
    }
}
