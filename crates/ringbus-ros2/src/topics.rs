//! The ringbus side of a mapping: which ROS type a topic carries, and opening it so that
//! the type is checked. A topic carrying ROS 2 messages declares the ROS type name as its
//! payload type ([`payload_type`]); the bridge takes the type from an existing topic, or
//! from `--type` for one it creates, and opens the topic with that type declared, so the
//! core refuses a topic of another type.

use crate::names::RosType;
use crate::BridgeError;
use ringbus::{Node, TopicBuilder};

/// The payload type's size recorded for a ROS topic: messages are variable-size CDR bytes,
/// so the type's "size" is one byte, as for untyped topics; only the name says what they are.
pub const ROS_PAYLOAD_SIZE: usize = 1;

/// The payload alignment recorded for a ROS topic: chunks start on 8 bytes, so the CDR body
/// (from byte 4) puts each 4-byte field on a 4-byte address and each 8-byte field 4 bytes
/// past an 8-byte one, as DDS's own buffers do.
pub const ROS_PAYLOAD_ALIGN: usize = 8;

/// The largest message of a topic the bridge creates, unless `--max-payload-bytes` says:
/// 16 MiB (a 1080p RGB image is 6.2 MB). Memory is taken only for the messages in flight.
pub const DEFAULT_MAX_PAYLOAD_BYTES: u64 = 16 << 20;

/// Declares `ros_type` on `builder`: what every opener of a ROS topic gives.
pub fn payload_type(builder: TopicBuilder, ros_type: &RosType) -> TopicBuilder {
    builder.payload_type_named(&ros_type.to_string(), ROS_PAYLOAD_SIZE, ROS_PAYLOAD_ALIGN)
}

/// Opens `topic` as a ROS topic of `ros_type`: the type declared and, if the topic does not
/// exist yet, [`DEFAULT_MAX_PAYLOAD_BYTES`] (an existing topic keeps its own limit). Give
/// `max_payload_bytes` on the builder to ask for another limit (checked against an
/// existing topic's).
pub fn ros_topic(node: &Node, topic: &str, ros_type: &RosType) -> TopicBuilder {
    let builder = payload_type(node.topic(topic), ros_type);
    match ringbus::inspect::topic(node.root(), topic) {
        Ok(Some(_)) => builder,
        _ => builder.max_payload_bytes(DEFAULT_MAX_PAYLOAD_BYTES),
    }
}

/// The ROS type of `topic`: the one it declares if it exists, else `given` (`--type`).
/// An existing untyped topic, one whose type is no ROS type, or a missing topic with no
/// `--type`, is refused with what to do.
pub fn resolve(node: &Node, topic: &str, given: Option<&RosType>) -> Result<RosType, BridgeError> {
    let info = ringbus::inspect::topic(node.root(), topic)
        .map_err(|source| BridgeError::Topic { topic: topic.to_string(), source })?;
    let Some(info) = info else {
        return given.cloned().ok_or_else(|| BridgeError::NoType { topic: topic.to_string() });
    };
    if info.payload_type == "bytes" && info.payload_size == 1 {
        return Err(BridgeError::Untyped { topic: topic.to_string() });
    }
    let declared = RosType::parse(&info.payload_type)
        .map_err(|reason| BridgeError::NotRos { topic: topic.to_string(), reason })?;
    match given {
        Some(g) if *g != declared => Err(BridgeError::TypeMismatch {
            topic: topic.to_string(),
            declared: declared.to_string(),
            given: g.to_string(),
        }),
        _ => Ok(declared),
    }
}
