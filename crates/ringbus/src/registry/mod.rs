//! Nodes, liveness and cleanup of what dead processes left behind.

pub(crate) mod clean;
pub mod inspect;
pub(crate) mod node;
pub(crate) mod peer;

pub use clean::{clean, clean_with, CleanOptions, CleanReport};
pub use node::Node;
pub(crate) use peer::peer_pidfd;
