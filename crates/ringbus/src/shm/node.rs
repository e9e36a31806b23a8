//! The node record: one small segment per live node, OFD-locked on byte 0 by its owner.
//!
//! ```text
//!  0 SegmentHeader   64 node id   72 pid   76 name length   80 name (64 B)
//! ```

use super::header::{corrupt, HeaderError, SegmentHeader, SegmentKind};
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

    /// Reads a node record, after checking what the header (`header`, read from `region`)
    /// does not: that the segment is a whole record.
    pub(crate) fn read(region: &Region, header: &SegmentHeader) -> Result<NodeRecord, HeaderError> {
        if header.header_bytes as u64 != NODE_BYTES {
            return Err(corrupt("node record size", header.header_bytes as u64, NODE_BYTES));
        }
        if region.len() as u64 != NODE_BYTES {
            return Err(corrupt("node segment length", region.len() as u64, NODE_BYTES));
        }
        Ok(region.read_plain(0))
    }
}

#[cfg(test)]
pub(crate) fn layout_facts() -> Vec<(&'static str, u64)> {
    super::layout_facts!(NodeRecord: common, node_id, pid, name_len, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing: a node file of 120 bytes whose header said so (and was otherwise
    /// valid) made inspection read a 144-byte record past its end (a panic).
    #[test]
    fn a_record_shorter_than_its_layout_is_refused() {
        for len in [64, 120, 200] {
            let r = Region::heap(len);
            SegmentHeader::new(SegmentKind::Node, size_of::<NodeRecord>() as u32, len as u64).write(&r);
            SegmentHeader::publish(&r);
            let header = SegmentHeader::read(&r, SegmentKind::Node).unwrap();
            let e = NodeRecord::read(&r, &header).unwrap_err();
            assert!(matches!(e, HeaderError::Corrupted(c) if c.what == "node segment length"), "{len}");
        }
        let r = Region::heap(NODE_BYTES as usize);
        NodeRecord::init(&r, 7, "n");
        SegmentHeader::publish(&r);
        let header = SegmentHeader::read(&r, SegmentKind::Node).unwrap();
        assert_eq!(NodeRecord::read(&r, &header).unwrap().node_id, 7);
    }
}
