//! [`Patch`]: bytes a fuzz input writes over a segment file at an offset it chooses,
//! in place: a patch never makes a file longer or shorter (it is cut at the file's end),
//! exactly as a scribbling peer would change the shared memory behind a live mapping.
//!
//! Most of a segment is zeros (free slots, unused chunks); the words that mean something
//! right now (positions, counts, configuration, log entries) are mostly not. So a patch can
//! name its place as "the n-th non-zero 8-byte word of the file as it was", which finds
//! those words without this crate knowing any layout.

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// One write over a segment file.
#[derive(Debug, Clone, Arbitrary)]
pub struct Patch {
    pub place: Place,
    pub data: PatchData,
}

/// Where a patch goes (rounded down to the value's alignment).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Place {
    /// A byte offset, modulo the file's length.
    Offset(u32),
    /// The n-th (modulo their number) 8-byte word that was not zero before the patches.
    NonZeroWord(u16),
}

/// What a patch writes.
#[derive(Debug, Clone, Arbitrary)]
pub enum PatchData {
    Bytes(Vec<u8>),
    U32(u32),
    U64(u64),
    /// A value at the edge of some range, where arithmetic on it overflows or wraps.
    Edge(Edge, Width),
    /// The value there, plus this (wrapping): a position a little ahead or behind.
    Delta(i16, Width),
}

/// Values at the edges.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Edge {
    Zero,
    One,
    Max,
    /// The largest value less this.
    BelowMax(u8),
    HighBit,
    FileLength,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Width {
    U32,
    U64,
}

impl Width {
    fn bytes(self) -> u64 {
        match self {
            Width::U32 => 4,
            Width::U64 => 8,
        }
    }

    fn max(self) -> u64 {
        match self {
            Width::U32 => u32::MAX as u64,
            Width::U64 => u64::MAX,
        }
    }

    fn encode(self, v: u64) -> Vec<u8> {
        match self {
            Width::U32 => (v as u32).to_ne_bytes().to_vec(),
            Width::U64 => v.to_ne_bytes().to_vec(),
        }
    }

    fn decode(self, bytes: &[u8]) -> u64 {
        let mut buf = [0u8; 8];
        buf[..bytes.len()].copy_from_slice(bytes);
        let v = u64::from_ne_bytes(buf);
        v & self.max()
    }
}

impl Edge {
    fn value(self, width: Width, len: u64) -> u64 {
        let max = width.max();
        match self {
            Edge::Zero => 0,
            Edge::One => 1,
            Edge::Max => max,
            Edge::BelowMax(k) => max - k as u64,
            Edge::HighBit => max / 2 + 1,
            Edge::FileLength => len,
        }
    }
}

impl Patch {
    /// The offset and the bytes to write into `file` (the contents before the patches,
    /// with `words` the offsets of its non-zero words).
    fn resolve(&self, file: &[u8], words: &[u64]) -> (u64, Vec<u8>) {
        let len = file.len() as u64;
        let width = match &self.data {
            PatchData::Bytes(_) => None,
            PatchData::U32(_) => Some(Width::U32),
            PatchData::U64(_) => Some(Width::U64),
            PatchData::Edge(_, w) | PatchData::Delta(_, w) => Some(*w),
        };
        let align = width.map_or(1, Width::bytes);
        let at = match self.place {
            Place::Offset(o) => o as u64 % len,
            Place::NonZeroWord(n) if !words.is_empty() => words[n as usize % words.len()],
            Place::NonZeroWord(n) => n as u64 % len,
        };
        let offset = at / align * align;
        let bytes = match &self.data {
            PatchData::Bytes(b) => b.clone(),
            PatchData::U32(v) => v.to_ne_bytes().to_vec(),
            PatchData::U64(v) => v.to_ne_bytes().to_vec(),
            PatchData::Edge(edge, w) => w.encode(edge.value(*w, len)),
            PatchData::Delta(d, w) => {
                let end = (offset + w.bytes()).min(len) as usize;
                let old = w.decode(&file[offset as usize..end]);
                w.encode(old.wrapping_add(*d as i64 as u64))
            }
        };
        (offset, bytes)
    }
}

/// Applies at most [`crate::MAX_STEPS`] patches to the file at `path`, in place; a missing
/// or empty file is left alone.
pub fn apply(path: &Path, patches: &[Patch]) {
    let Ok(file) = std::fs::OpenOptions::new().read(true).write(true).open(path) else {
        return;
    };
    let Ok(before) = std::fs::read(path) else {
        return;
    };
    if before.is_empty() {
        return;
    }
    let words: Vec<u64> = (0..before.len() / 8)
        .filter(|&w| before[w * 8..w * 8 + 8].iter().any(|&b| b != 0))
        .map(|w| w as u64 * 8)
        .collect();
    let len = before.len() as u64;
    for patch in patches.iter().take(crate::MAX_STEPS) {
        let (offset, bytes) = patch.resolve(&before, &words);
        let end = (offset + bytes.len() as u64).min(len);
        let _ = file.write_at(&bytes[..(end - offset) as usize], offset);
    }
}
