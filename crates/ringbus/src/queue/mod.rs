//! Command queues between processes: a bounded ring of fixed-size `#[repr(C)]` commands,
//! one consumer and one (SPSC) or many (MPSC) producers, with cached peer positions. The
//! commands' type is a Rust type, or one given at run time and moved as bytes (`bytes`:
//! for other languages).

#[cfg(not(loom))]
pub(crate) mod bytes;
#[cfg(not(loom))]
mod handle;
#[cfg(not(loom))]
mod open;

#[cfg(not(loom))]
pub use crate::shm::queue::MAX_QUEUE_PRODUCERS;
#[cfg(not(loom))]
pub use bytes::{CommandType, RawCommand};
#[cfg(not(loom))]
pub use handle::{Consumer, Producer, PushError, QueueError};
#[cfg(not(loom))]
pub use open::{QueueBuilder, DEFAULT_QUEUE_CAPACITY};
