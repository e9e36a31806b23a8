//! Segments: the shared-memory root, the header contract, creating and opening segment
//! files, [`Region`] (the bounds-checked view every layout reads through), and the layout
//! modules — each owns one shared-memory struct: its definition, layout assertions,
//! initialisation, validation and all raw access to it.
#![allow(unsafe_code)]

pub(crate) mod header;
pub(crate) mod latch_semaphore;
pub(crate) mod log_entry;
pub(crate) mod node;
pub mod pod;
pub(crate) mod publisher;
pub(crate) mod queue;
pub(crate) mod region;
pub(crate) mod root;
pub(crate) mod segment;
pub(crate) mod topic;

pub(crate) use region::{Region, Shared};
pub use root::Root;
