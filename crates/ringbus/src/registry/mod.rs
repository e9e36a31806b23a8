//! Liveness, discovery and cleanup of what dead processes left behind: watching a peer
//! node's death, inspecting topics and queues, `clean`.

pub(crate) mod clean;
pub mod inspect;
pub(crate) mod peer;

pub use clean::{clean, clean_with, CleanOptions, CleanReport};
pub(crate) use peer::peer_pidfd;
