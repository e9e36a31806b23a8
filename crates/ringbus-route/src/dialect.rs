//! What the router needs to know of each message: its CRC_EXTRA and where its
//! `target_system` / `target_component` bytes sit in the payload. Built once, at first use,
//! from the `mavlink` crate's generated `common` dialect — never from hand-typed offsets:
//! for each message id the dialect knows, a default message is serialized twice with two
//! different target values, and the one payload byte that differs is the field's offset.

use mavlink::dialects::common::MavMessage;
use mavlink::{MavlinkVersion, Message};
use std::sync::OnceLock;

/// Routing facts of one message id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageInfo {
    pub id: u32,
    pub crc_extra: u8,
    /// Payload offset of `target_system`, if the message has one.
    pub target_system: Option<u8>,
    /// Payload offset of `target_component`, if the message has one.
    pub target_component: Option<u8>,
}

/// The table of every message id of the dialect, sorted by id.
#[derive(Debug)]
pub struct Dialect {
    messages: Vec<MessageInfo>,
}

impl Dialect {
    /// The `common` dialect's table, built on first use.
    pub fn common() -> &'static Dialect {
        static TABLE: OnceLock<Dialect> = OnceLock::new();
        TABLE.get_or_init(Dialect::build)
    }

    fn build() -> Dialect {
        let messages = MavMessage::all_ids().iter().map(|&id| info(id)).collect();
        Dialect { messages }
    }

    /// The facts of `id`, or `None` for an id this dialect does not define.
    pub fn get(&self, id: u32) -> Option<&MessageInfo> {
        self.messages.binary_search_by_key(&id, |m| m.id).ok().map(|i| &self.messages[i])
    }

    /// Every message id known, with its facts.
    pub fn messages(&self) -> &[MessageInfo] {
        &self.messages
    }
}

fn info(id: u32) -> MessageInfo {
    MessageInfo {
        id,
        crc_extra: MavMessage::extra_crc(id),
        target_system: offset_of(id, |m| m.target_system_id_mut()),
        target_component: offset_of(id, |m| m.target_component_id_mut()),
    }
}

/// The payload offset of the byte `field` designates: the one byte that changes when the
/// field goes from 1 to 2 in an otherwise default message.
fn offset_of(id: u32, field: impl Fn(&mut MavMessage) -> Option<&mut u8>) -> Option<u8> {
    let payload_with = |value: u8| -> Option<Vec<u8>> {
        let mut message = MavMessage::default_message_from_id(id)?;
        *field(&mut message)? = value;
        let mut bytes = vec![0u8; 255];
        let len = message.ser(MavlinkVersion::V2, &mut bytes);
        bytes.truncate(len.max(1));
        bytes.resize(255, 0);
        Some(bytes)
    };
    let (one, two) = (payload_with(1)?, payload_with(2)?);
    let differ: Vec<usize> = (0..255).filter(|&i| one[i] != two[i]).collect();
    assert!(differ.len() == 1, "message {id}: a target field changed {} payload bytes, not one", differ.len());
    Some(differ[0] as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_crc_extra_come_from_the_dialect() {
        let d = Dialect::common();
        let heartbeat = d.get(0).unwrap();
        assert_eq!((heartbeat.crc_extra, heartbeat.target_system, heartbeat.target_component), (50, None, None));
        // COMMAND_LONG: seven floats and a u16 command, then target_system, target_component.
        let command_long = d.get(76).unwrap();
        assert_eq!(
            (command_long.crc_extra, command_long.target_system, command_long.target_component),
            (152, Some(30), Some(31))
        );
        // COMMAND_ACK: target fields are v2 extensions after the fixed part (3 bytes + progress, result_param2).
        let ack = d.get(77).unwrap();
        assert_eq!(ack.crc_extra, 143);
        assert_eq!((ack.target_system, ack.target_component), (Some(8), Some(9)));
        // PARAM_REQUEST_READ: i16 param_index, then target_system, target_component.
        assert_eq!(d.get(20).map(|m| (m.target_system, m.target_component)), Some((Some(2), Some(3))));
        assert!(d.get(0xFF_FFFF).is_none());
        assert!(d.messages().len() > 150);
    }
}
