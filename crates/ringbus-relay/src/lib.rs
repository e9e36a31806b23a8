//! What the bridges that carry ringbus topics to another system share, so that each bridge
//! holds only what is particular to that system: `ringbus-bridge` (Eclipse Zenoh, crate
//! `ringbus-zenoh`) and `ringbus-ros2` (ROS 2 over DDS, crate `ringbus-ros2`).
//!
//! A bridge carries *mappings*: each pairs a ringbus topic with a name on the other side
//! (a Zenoh key expression, a ROS 2 topic name) and says which way messages go. This crate
//! owns:
//! - [`Direction`] and [`mapping::merge`]: mappings of one topic and one remote name merged
//!   into one, with a note of what was merged ([`Pair`] is what a bridge's mapping shows
//!   of itself for that);
//! - [`RingbusSide`]: how a bridge opens its ringbus node and the publisher (incoming) and
//!   subscriber (outgoing) of each mapping, and which of its own publishers each outgoing
//!   side must not send back ([`own_publishers`]);
//! - [`outgoing::forward`]: the loop that takes every message of a topic and hands a copy
//!   of it to the other side, giving the sample back first;
//! - [`command`]: the life of a bridge command (the mappings given as `--out`, `--in` and
//!   `--both`, the wait for Ctrl-C or SIGTERM, the exit codes).
//!
//! It is internal to this workspace (not published): its API follows the bridges' needs.

pub mod command;
mod direction;
pub mod mapping;
pub mod outgoing;
mod side;

pub use direction::Direction;
pub use mapping::Pair;
pub use side::{own_publishers, Ends, RingbusSide, DEFAULT_INCOMING_WAIT};
