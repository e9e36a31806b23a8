//! ROS 2 messages written in place as CDR, the bytes a ringbus topic bridged to ROS 2
//! holds: `std_msgs/msg/String`, `sensor_msgs/msg/Image`, `sensor_msgs/msg/PointCloud2`.
//! Each message type says how many bytes it takes ([`Image::encoded_len`]), so a
//! publisher lends exactly that much, and writes its fields into the loan; the large array
//! (pixels, points) is handed back as a slice of the loan to fill, so a 1080p image is
//! built directly in shared memory with no copy.
//!
//! Layout: the 4-byte encapsulation header `00 01 00 00` (little-endian CDR), then the
//! fields in order, each aligned to its size counted from the end of the header; a string
//! is a `u32` length that counts its terminating NUL, the bytes, the NUL; a sequence is a
//! `u32` count, then its elements.
//!
//! ```
//! use ringbus_ros2::cdr::{Image, Stamp};
//! let image = Image { stamp: Stamp::default(), frame_id: "camera", height: 2, width: 3, encoding: "rgb8", is_bigendian: false, step: 9 };
//! let mut message = vec![0u8; image.encoded_len()];
//! let pixels = image.write(&mut message)?;
//! pixels.fill(255);
//! assert_eq!(&message[..4], &[0, 1, 0, 0]);
//! # Ok::<(), ringbus_ros2::cdr::TooSmall>(())
//! ```

use crate::raw::{CDR_LE_HEADER, HEADER_BYTES};
use std::ops::Range;

/// A buffer shorter than the message to write in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the message takes {needed} bytes; the buffer has {given}: lend encoded_len() bytes")]
pub struct TooSmall {
    /// Bytes the message takes.
    pub needed: usize,
    /// Bytes given.
    pub given: usize,
}

/// `builtin_interfaces/msg/Time`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Seconds.
    pub sec: i32,
    /// Nanoseconds, below 1e9.
    pub nanosec: u32,
}

/// One pass over a message's fields, in order: [`Sizer`] counts the bytes, [`Writer`]
/// writes them. A message type walks its fields once ([`Message::walk`]), so its length and
/// its bytes never disagree.
trait Walk {
    /// A primitive, as its little-endian bytes, aligned to its size (at most 4).
    fn primitive(&mut self, bytes: &[u8]);
    /// A string: a `u32` length that counts its terminating NUL, the bytes, the NUL.
    fn string(&mut self, s: &str);
    /// A byte sequence of `len`: its `u32` count, then `len` bytes left to the caller (their
    /// range in the message).
    fn sequence(&mut self, len: usize) -> Range<usize>;

    fn u32(&mut self, v: u32) {
        self.primitive(&v.to_le_bytes());
    }
    fn u8(&mut self, v: u8) {
        self.primitive(&[v]);
    }
    /// `std_msgs/msg/Header`: the stamp, then the frame.
    fn header(&mut self, stamp: Stamp, frame_id: &str) {
        self.primitive(&stamp.sec.to_le_bytes());
        self.u32(stamp.nanosec);
        self.string(frame_id);
    }
}

/// The length of a message: where the walk ends.
struct Sizer(usize);

impl Walk for Sizer {
    fn primitive(&mut self, bytes: &[u8]) {
        self.0 = self.0.next_multiple_of(bytes.len().clamp(1, 4)) + bytes.len();
    }
    fn string(&mut self, s: &str) {
        self.u32(0);
        self.0 += s.len() + 1;
    }
    fn sequence(&mut self, len: usize) -> Range<usize> {
        self.u32(0);
        self.0 += len;
        self.0 - len..self.0
    }
}

/// Writes fields one after the other into a message buffer, aligned from the end of the
/// encapsulation header.
struct Writer<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl<'b> Writer<'b> {
    fn new(buf: &'b mut [u8], needed: usize) -> Result<Writer<'b>, TooSmall> {
        if buf.len() < needed {
            return Err(TooSmall { needed, given: buf.len() });
        }
        buf[..HEADER_BYTES].copy_from_slice(&CDR_LE_HEADER);
        Ok(Writer { buf, pos: HEADER_BYTES })
    }
}

impl Walk for Writer<'_> {
    fn primitive(&mut self, bytes: &[u8]) {
        let body = self.pos - HEADER_BYTES;
        let start = HEADER_BYTES + body.next_multiple_of(bytes.len().clamp(1, 4));
        self.buf[self.pos..start].fill(0);
        self.buf[start..start + bytes.len()].copy_from_slice(bytes);
        self.pos = start + bytes.len();
    }
    fn string(&mut self, s: &str) {
        self.u32(s.len() as u32 + 1);
        self.buf[self.pos..self.pos + s.len()].copy_from_slice(s.as_bytes());
        self.buf[self.pos + s.len()] = 0;
        self.pos += s.len() + 1;
    }
    fn sequence(&mut self, len: usize) -> Range<usize> {
        self.u32(len as u32);
        self.pos += len;
        self.pos - len..self.pos
    }
}

/// A message type with one large array (pixels, points) left to the caller to fill.
trait Message {
    /// Walks every field in order; the array's range.
    fn walk(&self, w: &mut impl Walk) -> Range<usize>;

    /// The message's length, header and array included.
    fn walked_len(&self) -> usize {
        let mut s = Sizer(HEADER_BYTES);
        self.walk(&mut s);
        s.0
    }

    /// Writes every field into `buf`; returns the array's bytes to fill.
    fn write_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b mut [u8], TooSmall> {
        let mut w = Writer::new(buf, self.walked_len())?;
        let data = self.walk(&mut w);
        Ok(&mut w.buf[data])
    }
}

/// `std_msgs/msg/String`: the length of `text` as a message.
pub fn string_len(text: &str) -> usize {
    let mut s = Sizer(HEADER_BYTES);
    s.string(text);
    s.0
}

/// Writes `text` as a `std_msgs/msg/String` at the start of `buf`.
pub fn write_string(buf: &mut [u8], text: &str) -> Result<(), TooSmall> {
    Writer::new(buf, string_len(text))?.string(text);
    Ok(())
}

/// Reads a `std_msgs/msg/String` message (`None`: not one).
pub fn read_string(message: &[u8]) -> Option<&str> {
    let len = u32::from_le_bytes(message.get(4..8)?.try_into().ok()?) as usize;
    let text = message.get(8..8 + len.checked_sub(1)?)?;
    std::str::from_utf8(text).ok()
}

/// `sensor_msgs/msg/Image`, all but its pixels (`height * step` bytes).
#[derive(Debug, Clone, Copy)]
pub struct Image<'a> {
    /// When it was taken.
    pub stamp: Stamp,
    /// The camera's frame.
    pub frame_id: &'a str,
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
    /// Pixel encoding, e.g. `rgb8`, `mono8`, `bgra8`.
    pub encoding: &'a str,
    /// Whether multi-byte pixels are big-endian.
    pub is_bigendian: bool,
    /// Bytes per row.
    pub step: u32,
}

impl Image<'_> {
    /// Bytes of pixels: `height * step`.
    pub fn data_len(&self) -> usize {
        self.height as usize * self.step as usize
    }

    /// The message's length, header and pixels included.
    pub fn encoded_len(&self) -> usize {
        self.walked_len()
    }

    /// Writes every field into `buf`; returns the pixels' bytes to fill.
    pub fn write<'b>(&self, buf: &'b mut [u8]) -> Result<&'b mut [u8], TooSmall> {
        self.write_into(buf)
    }
}

impl Message for Image<'_> {
    fn walk(&self, w: &mut impl Walk) -> Range<usize> {
        w.header(self.stamp, self.frame_id);
        w.u32(self.height);
        w.u32(self.width);
        w.string(self.encoding);
        w.u8(self.is_bigendian as u8);
        w.u32(self.step);
        w.sequence(self.data_len())
    }
}

/// `sensor_msgs/msg/PointField`: one field of a point.
#[derive(Debug, Clone, Copy)]
pub struct PointField<'a> {
    /// Its name, e.g. `x`.
    pub name: &'a str,
    /// Its offset in the point, in bytes.
    pub offset: u32,
    /// Its type: 1 INT8, 2 UINT8, 3 INT16, 4 UINT16, 5 INT32, 6 UINT32, 7 FLOAT32, 8 FLOAT64.
    pub datatype: u8,
    /// Elements.
    pub count: u32,
}

/// `sensor_msgs/msg/PointCloud2`, all but its points (`height * row_step` bytes).
#[derive(Debug, Clone)]
pub struct PointCloud2<'a> {
    /// When it was taken.
    pub stamp: Stamp,
    /// The sensor's frame.
    pub frame_id: &'a str,
    /// Rows (1 for an unordered cloud).
    pub height: u32,
    /// Points per row.
    pub width: u32,
    /// What each point holds.
    pub fields: &'a [PointField<'a>],
    /// Whether the data is big-endian.
    pub is_bigendian: bool,
    /// Bytes per point.
    pub point_step: u32,
    /// Bytes per row.
    pub row_step: u32,
    /// True if no point is invalid.
    pub is_dense: bool,
}

impl PointCloud2<'_> {
    /// Bytes of points: `height * row_step`.
    pub fn data_len(&self) -> usize {
        self.height as usize * self.row_step as usize
    }

    /// The message's length, header and points included.
    pub fn encoded_len(&self) -> usize {
        self.walked_len()
    }

    /// Writes every field into `buf`; returns the points' bytes to fill.
    pub fn write<'b>(&self, buf: &'b mut [u8]) -> Result<&'b mut [u8], TooSmall> {
        self.write_into(buf)
    }
}

impl Message for PointCloud2<'_> {
    fn walk(&self, w: &mut impl Walk) -> Range<usize> {
        w.header(self.stamp, self.frame_id);
        w.u32(self.height);
        w.u32(self.width);
        w.u32(self.fields.len() as u32);
        for f in self.fields {
            w.string(f.name);
            w.u32(f.offset);
            w.u8(f.datatype);
            w.u32(f.count);
        }
        w.u8(self.is_bigendian as u8);
        w.u32(self.point_step);
        w.u32(self.row_step);
        let data = w.sequence(self.data_len());
        w.u8(self.is_dense as u8);
        data
    }
}

/// `rmw_dds_common/msg/ParticipantEntitiesInfo` with one node: what a participant publishes
/// on `ros_discovery_info` so that ROS 2's graph (`ros2 node list`, `ros2 node info`) sees
/// its node and the node's readers and writers. A gid is a DDS GUID, 16 bytes (ROS 2 Iron
/// and later).
pub(crate) struct ParticipantEntitiesInfo<'a> {
    /// The participant's GUID.
    pub participant: [u8; 16],
    /// The node's namespace (`/`) and name.
    pub namespace: &'a str,
    pub name: &'a str,
    /// The GUIDs of the node's readers and writers.
    pub readers: &'a [[u8; 16]],
    pub writers: &'a [[u8; 16]],
}

impl ParticipantEntitiesInfo<'_> {
    /// The whole message, encapsulation header included.
    pub fn encode(&self) -> Vec<u8> {
        let mut message = vec![0u8; self.walked_len()];
        // The length is the walk's own: the buffer cannot be too small.
        let _ = self.write_into(&mut message);
        message
    }
}

impl Message for ParticipantEntitiesInfo<'_> {
    fn walk(&self, w: &mut impl Walk) -> Range<usize> {
        w.primitive(&self.participant);
        w.u32(1); // one node
        w.string(self.namespace);
        w.string(self.name);
        for gids in [self.readers, self.writers] {
            w.u32(gids.len() as u32);
            for gid in gids {
                w.primitive(gid);
            }
        }
        0..0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_participant_s_entities_are_gids_and_names_aligned() {
        let info = ParticipantEntitiesInfo {
            participant: [1; 16],
            namespace: "/",
            name: "n",
            readers: &[],
            writers: &[[2; 16]],
        };
        let mut expected = vec![0, 1, 0, 0];
        expected.extend([1; 16]);
        expected.extend([1, 0, 0, 0]); // one node
        expected.extend([2, 0, 0, 0, b'/', 0, 0, 0]); // "/" and its NUL, padded to 4
        expected.extend([2, 0, 0, 0, b'n', 0, 0, 0]);
        expected.extend([0, 0, 0, 0]); // no reader
        expected.extend([1, 0, 0, 0]);
        expected.extend([2; 16]);
        assert_eq!(info.encode(), expected);
    }

    #[test]
    fn a_string_is_its_length_its_bytes_and_a_nul() {
        let mut buf = vec![0xAA; string_len("hi")];
        write_string(&mut buf, "hi").unwrap();
        assert_eq!(buf, [0, 1, 0, 0, 3, 0, 0, 0, b'h', b'i', 0]);
        assert_eq!(read_string(&buf), Some("hi"));
        assert_eq!(write_string(&mut [0; 4], "hi"), Err(TooSmall { needed: 11, given: 4 }));
    }

    #[test]
    fn an_image_is_laid_out_as_ros_2_serializes_it() {
        let image = Image {
            stamp: Stamp { sec: 1, nanosec: 2 },
            frame_id: "cam",
            height: 2,
            width: 1,
            encoding: "mono8",
            is_bigendian: false,
            step: 1,
        };
        let mut buf = vec![0xAA; image.encoded_len()];
        image.write(&mut buf).unwrap().copy_from_slice(&[7, 8]);
        #[rustfmt::skip]
        let expected = [
            0, 1, 0, 0,  1, 0, 0, 0,  2, 0, 0, 0,  4, 0, 0, 0,  b'c', b'a', b'm', 0,
            2, 0, 0, 0,  1, 0, 0, 0,  6, 0, 0, 0,  b'm', b'o', b'n', b'o', b'8', 0,
            0, 0, /* is_bigendian, padding */ 1, 0, 0, 0, /* step */ 2, 0, 0, 0,  7, 8,
        ];
        assert_eq!(buf, expected);
    }

    #[test]
    fn a_point_cloud_ends_with_is_dense_after_its_points() {
        let fields = [PointField { name: "x", offset: 0, datatype: 7, count: 1 }];
        let cloud = PointCloud2 {
            stamp: Stamp::default(),
            frame_id: "",
            height: 1,
            width: 1,
            fields: &fields,
            is_bigendian: false,
            point_step: 4,
            row_step: 4,
            is_dense: true,
        };
        let mut buf = vec![0xAA; cloud.encoded_len()];
        cloud.write(&mut buf).unwrap().copy_from_slice(&1.5f32.to_le_bytes());
        assert_eq!(buf.len(), 4 + 8 + 5 + 3 + 12 + (6 + 2 + 4 + 1 + 3 + 4) + 1 + 3 + 8 + 4 + 4 + 1);
        assert_eq!(&buf[buf.len() - 5..], &[0, 0, 0xC0, 0x3F, 1]);
    }
}
