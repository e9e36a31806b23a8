//! Allow and block lists by message id, source system and source component, applied to
//! the frames a link receives (input) and to those the router would send it (output).

use crate::frame::Frame;
use serde::{Deserialize, Serialize};

/// The largest message id a MAVLink 2 frame carries (24 bits).
pub const MAX_MESSAGE_ID: u32 = (1 << 24) - 1;

/// One direction's filter. An empty allow list allows everything; a block list wins over
/// an allow list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Filter {
    pub allow_msg: Vec<u32>,
    pub block_msg: Vec<u32>,
    pub allow_src_system: Vec<u8>,
    pub block_src_system: Vec<u8>,
    pub allow_src_component: Vec<u8>,
    pub block_src_component: Vec<u8>,
}

fn admits<T: PartialEq>(allow: &[T], block: &[T], value: T) -> bool {
    (allow.is_empty() || allow.contains(&value)) && !block.contains(&value)
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// Refuses message ids MAVLink cannot carry (24 bits): a filter on one would never
    /// match, which is a typo rather than a wish. Systems and components are bytes already.
    pub fn check(&self) -> Result<(), String> {
        for (list, ids) in [("allow_msg", &self.allow_msg), ("block_msg", &self.block_msg)] {
            if let Some(id) = ids.iter().find(|&&id| id > MAX_MESSAGE_ID) {
                return Err(format!("{list} has {id}; message ids go from 0 to {MAX_MESSAGE_ID}"));
            }
        }
        Ok(())
    }

    /// Whether `frame` passes.
    pub fn passes(&self, frame: &Frame<'_>) -> bool {
        admits(&self.allow_msg, &self.block_msg, frame.message_id())
            && admits(&self.allow_src_system, &self.block_src_system, frame.source_system())
            && admits(&self.allow_src_component, &self.block_src_component, frame.source_component())
    }
}
