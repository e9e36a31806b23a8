//! Nodes, liveness and cleanup of what dead processes left behind.

pub(crate) mod clean;
pub(crate) mod node;
pub(crate) mod peer;

pub use clean::{clean, CleanReport};
pub use node::Node;
pub(crate) use peer::peer_pidfd;
