//! Random identifiers (topic ids, node ids, temporary file names).

/// A random 64-bit value from the kernel's CSPRNG.
pub fn u64() -> std::io::Result<u64> {
    let mut buf = [0u8; 8];
    // SAFETY: `buf` is valid for 8 writable bytes.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n != 8 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(u64::from_ne_bytes(buf))
}
