//! The chunk pool: per-chunk `{generation, holders}` words in shared memory, the
//! publisher's process-local allocator and chunk extents (memory on demand), and a
//! subscriber's process-local pin counts.
#![allow(unsafe_code)]

#[cfg(not(loom))]
pub(crate) mod allocator;
#[cfg(not(loom))]
pub(crate) mod extents;
pub(crate) mod local_pins;
pub(crate) mod pin;

#[cfg(not(loom))]
pub(crate) use pin::ChunkWords;
