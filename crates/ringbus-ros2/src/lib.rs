//! Carries ringbus topics to and from ROS 2, through DDS, without decoding a message.
//!
//! **The convention.** A ringbus topic that carries ROS 2 messages holds each one exactly
//! as ROS 2 puts it on the DDS wire: the 4-byte encapsulation header (`00 01 00 00` for
//! little-endian CDR), then the CDR body. The topic declares the ROS type name
//! (`sensor_msgs/msg/Image`) as its payload type, with size 1 and alignment 8
//! ([`topics::payload_type`]): messages are variable-size bytes, and every opener that
//! declares a type is checked against the name by the core. Local readers and writers
//! need no conversion ([`cdr`] writes `std_msgs/String`, `sensor_msgs/Image` and
//! `sensor_msgs/PointCloud2` in place in a loan), and the bridge moves bytes.
//!
//! **The bridge.** A [`Bridge`] is one ringbus node and one DDS participant, announced as a
//! ROS 2 node (it publishes `ros_discovery_info`). For each [`Mapping`]:
//! - **out** (ringbus → ROS 2): a reliable ringbus subscriber (lossy with
//!   [`RingbusSide::lossy_out`]) whose samples a thread writes, header stripped, to a DDS
//!   writer on `rt/<name>` with type `<pkg>::msg::dds_::<Type>_`;
//! - **in** (ROS 2 → ringbus): a DDS reader whose samples a thread publishes on the topic
//!   with the header put back (its options half as zero: DDS libraries keep only the
//!   representation).
//!
//! What this bridge shares with the Zenoh one (the ringbus side, merging mappings, the
//! outgoing loop, the command's life) lives in the internal crate `ringbus-relay`.
//!
//! **No echo.** Outgoing threads skip the samples of the bridge's own ringbus publishers,
//! and incoming threads the samples of the bridge's own DDS participant, so a mapping both
//! ways never sends back what it brought in.

pub mod cdr;
mod dds;
mod incoming;
pub mod mapping;
mod monitor;
pub mod names;
mod outgoing;
pub mod qos;
mod raw;
pub mod topics;

pub use mapping::{Counters, Direction, Mapping};
pub use names::RosType;
pub use qos::Qos;
pub use ringbus_relay::RingbusSide;

mod bridge;
pub use bridge::{Bridge, BridgeConfig, BridgeError};
