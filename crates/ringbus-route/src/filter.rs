//! Allow and block lists by message id, source system and source component, applied to
//! the frames a link receives (input) and to those the router would send it (output).

use crate::frame::Frame;
use serde::{Deserialize, Serialize};

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

    /// Whether `frame` passes.
    pub fn passes(&self, frame: &Frame<'_>) -> bool {
        admits(&self.allow_msg, &self.block_msg, frame.message_id())
            && admits(&self.allow_src_system, &self.block_src_system, frame.source_system())
            && admits(&self.allow_src_component, &self.block_src_component, frame.source_component())
    }
}
