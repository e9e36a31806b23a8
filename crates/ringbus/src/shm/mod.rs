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

/// The size of `$ty` and the offset of each of its fields, named: what the layout-version
/// test fingerprints.
#[cfg(test)]
macro_rules! layout_facts {
    ($ty:ty: $($field:ident),* $(,)?) => {
        vec![
            (concat!(stringify!($ty), " size"), std::mem::size_of::<$ty>() as u64),
            $((concat!(stringify!($ty), ".", stringify!($field)), std::mem::offset_of!($ty, $field) as u64)),*
        ]
    };
}
#[cfg(test)]
use layout_facts;

#[cfg(test)]
mod layout_version;
