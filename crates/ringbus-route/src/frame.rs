//! MAVLink v1 and v2 frames: a borrowed view of a frame's original bytes ([`Frame`]), the
//! check of one candidate frame at the start of a buffer ([`parse`]), and the reader that
//! cuts received bytes into frames and resynchronises after garbage ([`Framer`]): a byte
//! stream (TCP), where a frame may arrive in pieces, or datagrams (UDP), each of which
//! carries whole frames — there a frame never continues into the next datagram, so one
//! datagram's garbage cannot hold back or swallow the next one's frames.
//!
//! A frame whose message id the dialect knows must carry the right checksum (computed with
//! the id's CRC_EXTRA); otherwise its start byte is taken for garbage and the search goes
//! on one byte later. A frame whose id the dialect does not know cannot be checked and is
//! accepted as it is (the router forwards it everywhere its rules allow).

use crate::crc;
use crate::dialect::Dialect;

pub const STX_V1: u8 = 0xFE;
pub const STX_V2: u8 = 0xFD;
const V1_HEADER: usize = 6;
const V2_HEADER: usize = 10;
const CHECKSUM: usize = 2;
const SIGNATURE: usize = 13;
/// `incompat_flags` bit: the frame carries a 13-byte signature.
pub const IFLAG_SIGNED: u8 = 0x01;
/// The longest frame: a signed v2 frame with a 255-byte payload.
pub const MAX_FRAME: usize = V2_HEADER + 255 + CHECKSUM + SIGNATURE;

/// A whole, checked MAVLink frame: the bytes as they arrived, never re-encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    bytes: &'a [u8],
}

impl<'a> Frame<'a> {
    /// The frame's original bytes (signature included).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn is_v2(&self) -> bool {
        self.bytes[0] == STX_V2
    }

    fn header_len(&self) -> usize {
        if self.is_v2() {
            V2_HEADER
        } else {
            V1_HEADER
        }
    }

    /// The payload as sent (a v2 payload may be cut short of its trailing zero bytes).
    pub fn payload(&self) -> &'a [u8] {
        let h = self.header_len();
        &self.bytes[h..h + self.bytes[1] as usize]
    }

    pub fn is_signed(&self) -> bool {
        self.is_v2() && self.bytes[2] & IFLAG_SIGNED != 0
    }

    pub fn sequence(&self) -> u8 {
        self.bytes[if self.is_v2() { 4 } else { 2 }]
    }

    pub fn source_system(&self) -> u8 {
        self.bytes[if self.is_v2() { 5 } else { 3 }]
    }

    pub fn source_component(&self) -> u8 {
        self.bytes[if self.is_v2() { 6 } else { 4 }]
    }

    pub fn message_id(&self) -> u32 {
        if self.is_v2() {
            u32::from_le_bytes([self.bytes[7], self.bytes[8], self.bytes[9], 0])
        } else {
            self.bytes[5] as u32
        }
    }

    /// `(target_system, target_component)`: 0 where the message has no such field, where
    /// v2 zero-trimming cut the byte off, or where the dialect does not know the message.
    pub fn target(&self, dialect: &Dialect) -> (u8, u8) {
        let Some(info) = dialect.get(self.message_id()) else {
            return (0, 0);
        };
        let payload = self.payload();
        let byte = |offset: Option<u8>| offset.and_then(|o| payload.get(o as usize).copied()).unwrap_or(0);
        (byte(info.target_system), byte(info.target_component))
    }
}

/// What the bytes at the start of a buffer are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    /// A whole frame of this many bytes.
    Frame(usize),
    /// The start of a frame, not yet complete.
    Incomplete,
    /// Not a frame (no start byte, unknown incompatibility flags, or a wrong checksum).
    Garbage,
}

/// Checks the candidate frame at the start of `buf` (which must begin with a start byte).
pub fn parse(buf: &[u8], dialect: &Dialect) -> Parsed {
    let (header, v2) = match buf.first() {
        Some(&STX_V1) => (V1_HEADER, false),
        Some(&STX_V2) => (V2_HEADER, true),
        Some(_) => return Parsed::Garbage,
        None => return Parsed::Incomplete,
    };
    if buf.len() < 3 {
        return Parsed::Incomplete;
    }
    if v2 && buf[2] & !IFLAG_SIGNED != 0 {
        return Parsed::Garbage;
    }
    let signature = if v2 && buf[2] & IFLAG_SIGNED != 0 { SIGNATURE } else { 0 };
    let checked = header + buf[1] as usize;
    let total = checked + CHECKSUM + signature;
    if buf.len() < total {
        return Parsed::Incomplete;
    }
    let frame = Frame { bytes: &buf[..total] };
    match dialect.get(frame.message_id()) {
        Some(info) => {
            let sent = u16::from_le_bytes([buf[checked], buf[checked + 1]]);
            if crc::frame_crc(&buf[1..checked], info.crc_extra) == sent {
                Parsed::Frame(total)
            } else {
                Parsed::Garbage
            }
        }
        None => Parsed::Frame(total),
    }
}

/// `bytes` as one frame, exactly (what a ringbus message or a test hands over), or `None`.
pub fn whole<'a>(bytes: &'a [u8], dialect: &Dialect) -> Option<Frame<'a>> {
    match parse(bytes, dialect) {
        Parsed::Frame(n) if n == bytes.len() => Some(Frame { bytes }),
        _ => None,
    }
}

/// Cuts received bytes into frames. Bytes go in with [`Framer::push`], frames come out of
/// [`Framer::next_frame`]; what is not part of a frame is skipped and counted.
#[derive(Debug, Default)]
pub struct Framer {
    buf: Vec<u8>,
    start: usize,
    /// Bytes skipped while looking for a frame, since the last [`Framer::take_garbage`].
    garbage: u64,
    /// Each push is a whole datagram: a frame cut short by its end is garbage, not the start
    /// of a frame the next push completes.
    datagrams: bool,
}

impl Framer {
    /// A framer for a byte stream: a frame may span pushes.
    pub fn new() -> Framer {
        Framer::default()
    }

    /// A framer for datagrams: each push is framed on its own (push one datagram, then take
    /// its frames with [`Framer::next_frame`] until `None`).
    pub fn for_datagrams() -> Framer {
        Framer { datagrams: true, ..Framer::default() }
    }

    /// Appends received bytes (for datagrams: replaces what is left of the last one, which
    /// [`Framer::next_frame`] has counted as garbage already).
    pub fn push(&mut self, bytes: &[u8]) {
        if self.datagrams {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame, skipping garbage; `None` when more bytes are needed.
    pub fn next_frame(&mut self, dialect: &Dialect) -> Option<Frame<'_>> {
        loop {
            let rest = &self.buf[self.start..];
            let Some(stx) = rest.iter().position(|&b| b == STX_V1 || b == STX_V2) else {
                self.garbage += rest.len() as u64;
                self.start = self.buf.len();
                return None;
            };
            self.garbage += stx as u64;
            self.start += stx;
            match parse(&self.buf[self.start..], dialect) {
                Parsed::Frame(n) => {
                    let range = self.start..self.start + n;
                    self.start += n;
                    return Some(Frame { bytes: &self.buf[range] });
                }
                Parsed::Incomplete if !self.datagrams => return None,
                // A datagram ends here: what claims to go on past its end is no frame.
                Parsed::Incomplete | Parsed::Garbage => {
                    self.garbage += 1;
                    self.start += 1;
                }
            }
        }
    }

    /// Bytes skipped as garbage since the last call.
    pub fn take_garbage(&mut self) -> u64 {
        std::mem::take(&mut self.garbage)
    }
}

/// Encodes `message` as a new frame (for tests, benchmarks and tools: the router itself
/// never encodes). A v2 payload is zero-trimmed as the protocol asks.
pub fn encode(
    v2: bool,
    sequence: u8,
    system: u8,
    component: u8,
    message: &mavlink::dialects::common::MavMessage,
) -> Vec<u8> {
    use mavlink::Message;
    let version = if v2 { mavlink::MavlinkVersion::V2 } else { mavlink::MavlinkVersion::V1 };
    let mut payload = [0u8; 255];
    let len = message.ser(version, &mut payload);
    let id = message.message_id();
    let mut out = if v2 {
        let id = id.to_le_bytes();
        vec![STX_V2, len as u8, 0, 0, sequence, system, component, id[0], id[1], id[2]]
    } else {
        vec![STX_V1, len as u8, sequence, system, component, id as u8]
    };
    out.extend_from_slice(&payload[..len]);
    let crc = crc::frame_crc(&out[1..], mavlink::dialects::common::MavMessage::extra_crc(id));
    out.extend_from_slice(&crc.to_le_bytes());
    out
}
