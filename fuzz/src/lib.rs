//! What the fuzz targets share: a private ringbus root per run, patches that overwrite a
//! live segment file in place, the scenarios that build valid segments with the library
//! and then read them back through its public API after the patches, and a look at the
//! whole root the way `ringbus list` and `ringbus clean` take it.
//!
//! Every target drives ringbus only through its public API: a segment is "opened" the
//! way a subscriber, publisher, queue end, latch, semaphore or inspection opens it. A
//! panic (an overflow included: targets are built with debug assertions), an out-of-bounds
//! access or a hang is a bug in ringbus; an error returned is the expected answer to a
//! corrupted segment.
//!
//! Files are only ever patched in place or written new, never shortened, so a file
//! shorter than its mapping (a `SIGBUS`, a separate matter) is not what these targets find.

pub mod look;
pub mod objects;
pub mod patch;
pub mod pubsub;
pub mod queue;
pub mod raw;
pub mod root;
pub mod templates;
pub mod whole_files;

/// At most this many patches, actions or files are taken from one input (longer lists
/// only slow a run down).
pub const MAX_STEPS: usize = 24;
