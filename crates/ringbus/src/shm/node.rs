//! The node record: one small segment per live node, OFD-locked on byte 0 by its owner.
//!
//! ```text
//!  0 SegmentHeader   64 node id   72 pid   76 name length   80 name (64 B)
//! ```

use super::header::{SegmentHeader, SegmentKind};
use super::{Region, Shared};
use std::mem::{offset_of, size_of};

pub(crate) const MAX_NODE_NAME_BYTES: usize = 64;

#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct NodeRecord {
    pub common: SegmentHeader,
    pub node_id: u64,
    pub pid: u32,
    pub name_len: u32,
    pub name: [u8; MAX_NODE_NAME_BYTES],
}
const _: () = assert!(offset_of!(NodeRecord, node_id) == 64);
const _: () = assert!(offset_of!(NodeRecord, name) == 80);
const _: () = assert!(size_of::<NodeRecord>() == 144);
// SAFETY: repr(C), integers and byte arrays only.
unsafe impl Shared for NodeRecord {}

pub(crate) const NODE_BYTES: u64 = size_of::<NodeRecord>() as u64;

impl NodeRecord {
    pub(crate) fn init(region: &Region, node_id: u64, name: &str) {
        let mut record = NodeRecord {
            common: SegmentHeader::new(SegmentKind::Node, size_of::<NodeRecord>() as u32, NODE_BYTES),
            node_id,
            pid: crate::sys::fs::pid(),
            name_len: name.len() as u32,
            name: [0; MAX_NODE_NAME_BYTES],
        };
        record.name[..name.len()].copy_from_slice(name.as_bytes());
        region.write_plain(0, record);
    }
}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    super::layout_facts!(NodeRecord: common, node_id, pid, name_len, name)
}
