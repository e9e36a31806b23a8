//! Framing: v1, v2, signed v2, garbage and resynchronisation, bad checksums, payloads cut
//! by v2 zero-trimming, message ids the dialect does not know, frames split anywhere.

use mavlink::dialects::common::{MavMessage, COMMAND_LONG_DATA, HEARTBEAT_DATA};
use ringbus_route::dialect::Dialect;
use ringbus_route::frame::{self, encode, Framer};

fn heartbeat() -> MavMessage {
    MavMessage::HEARTBEAT(HEARTBEAT_DATA::default())
}

fn command(target_system: u8, target_component: u8) -> MavMessage {
    MavMessage::COMMAND_LONG(COMMAND_LONG_DATA { target_system, target_component, param1: 1.0, ..Default::default() })
}

/// `v2` signed: the incompat flag set, the checksum redone, 13 signature bytes appended.
fn signed(mut v2: Vec<u8>) -> Vec<u8> {
    let dialect = Dialect::common();
    v2[2] |= frame::IFLAG_SIGNED;
    let covered = v2.len() - 2;
    let id = u32::from_le_bytes([v2[7], v2[8], v2[9], 0]);
    let crc = ringbus_route::crc::frame_crc(&v2[1..covered], dialect.get(id).unwrap().crc_extra);
    v2.truncate(covered);
    v2.extend_from_slice(&crc.to_le_bytes());
    v2.extend_from_slice(&[0xA1, 0, 1, 2, 3, 4, 5, 0xFE, 0xFD, 9, 10, 11, 12]);
    v2
}

fn frames(bytes: &[u8]) -> (Vec<Vec<u8>>, u64) {
    let mut framer = Framer::new();
    framer.push(bytes);
    let mut out = Vec::new();
    while let Some(f) = framer.next_frame(Dialect::common()) {
        out.push(f.bytes().to_vec());
    }
    (out, framer.take_garbage())
}

#[test]
fn v1_and_v2_frames_are_read_with_their_header_fields() {
    let dialect = Dialect::common();
    let v1 = encode(false, 7, 1, 1, &heartbeat());
    let f = frame::whole(&v1, dialect).expect("a v1 heartbeat");
    assert_eq!((f.is_v2(), f.sequence(), f.source_system(), f.source_component(), f.message_id()), (false, 7, 1, 1, 0));
    assert_eq!(f.payload().len(), 9);
    let v2 = encode(true, 8, 255, 190, &command(1, 1));
    let f = frame::whole(&v2, dialect).expect("a v2 command");
    assert_eq!((f.is_v2(), f.is_signed(), f.source_system(), f.message_id()), (true, false, 255, 76));
    assert_eq!(f.target(dialect), (1, 1));
    assert_eq!(frame::whole(&encode(false, 0, 2, 3, &command(4, 5)), dialect).unwrap().target(dialect), (4, 5));
}

#[test]
fn signed_frames_come_out_whole_with_their_signature() {
    let s = signed(encode(true, 1, 255, 190, &command(1, 1)));
    let (out, garbage) = frames(&s);
    assert_eq!((out, garbage), (vec![s.clone()], 0));
    assert!(frame::whole(&s, Dialect::common()).unwrap().is_signed());
}

#[test]
fn garbage_is_skipped_and_counted_and_the_stream_resynchronises() {
    let a = encode(true, 1, 1, 1, &heartbeat());
    let b = encode(false, 2, 1, 1, &heartbeat());
    let mut corrupt = encode(true, 3, 1, 1, &command(1, 1));
    let n = corrupt.len();
    corrupt[n - 1] ^= 0xFF; // a wrong checksum: its start byte is garbage
    let noise = [0x00, 0xFD, 0x01, 0x80, 0x55, 0xFE, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFD];
    let stream = [&noise[..], &a, &corrupt, &[0x11, 0x22], &b, &noise[..2]].concat();
    let (out, garbage) = frames(&stream);
    assert_eq!(out, vec![a, b]);
    // The corrupt frame, the noise and the two bytes; the trailing `0x00 0xFD` waits for more.
    assert_eq!(garbage, (noise.len() + corrupt.len() + 2 + 1) as u64);
}

#[test]
fn frames_split_at_every_byte_still_come_out_whole() {
    let a = encode(true, 1, 1, 1, &command(9, 9));
    let b = signed(encode(true, 2, 1, 1, &heartbeat()));
    let stream = [&a[..], &b].concat();
    let mut framer = Framer::new();
    let mut out = Vec::new();
    for byte in &stream {
        framer.push(std::slice::from_ref(byte));
        while let Some(f) = framer.next_frame(Dialect::common()) {
            out.push(f.bytes().to_vec());
        }
    }
    assert_eq!((out, framer.take_garbage()), (vec![a, b], 0));
}

#[test]
fn a_target_cut_off_by_zero_trimming_reads_as_zero() {
    let dialect = Dialect::common();
    let to_system = encode(true, 1, 255, 190, &command(5, 0));
    let f = frame::whole(&to_system, dialect).unwrap();
    assert_eq!(f.payload().len(), 31, "target_component (offset 31) trimmed");
    assert_eq!(f.target(dialect), (5, 0));
    let broadcast = encode(true, 1, 255, 190, &MavMessage::COMMAND_LONG(COMMAND_LONG_DATA::default()));
    let f = frame::whole(&broadcast, dialect).unwrap();
    assert!(f.payload().len() <= 30, "both targets trimmed");
    assert_eq!(f.target(dialect), (0, 0));
}

#[test]
fn unknown_message_ids_pass_unchecked_and_target_nobody_in_particular() {
    let dialect = Dialect::common();
    assert!(dialect.get(0x00AB_CDEF).is_none());
    let mut unknown = vec![frame::STX_V2, 3, 0, 0, 1, 42, 1, 0xEF, 0xCD, 0xAB, 7, 7, 7, 0x12, 0x34];
    let (out, garbage) = frames(&unknown);
    assert_eq!((out.len(), garbage), (1, 0));
    let f = frame::whole(&unknown, dialect).unwrap();
    assert_eq!((f.message_id(), f.target(dialect)), (0x00AB_CDEF, (0, 0)));
    unknown[2] = 0x80; // an incompatibility flag nobody knows: not a frame
    assert_eq!(frames(&unknown).0.len(), 0);
}

/// A datagram that looks like the start of a long frame (an unknown id, length 60) is
/// garbage at its end: the next datagrams' frames come out whole, and a valid frame after
/// such a header in the same datagram is found too. A stream framer would wait for the
/// 60 bytes instead (and does: a stream's frame may arrive in pieces).
#[test]
fn each_datagram_is_framed_on_its_own() {
    let fake = [frame::STX_V2, 60, 0, 0, 0, 1, 1, 0x33, 0x33, 0x33];
    let valid = encode(true, 1, 1, 1, &heartbeat());
    let mut framer = Framer::for_datagrams();
    let mut next_datagram = |bytes: &[u8]| {
        framer.push(bytes);
        let mut out = Vec::new();
        while let Some(f) = framer.next_frame(Dialect::common()) {
            out.push(f.bytes().to_vec());
        }
        (out, framer.take_garbage())
    };
    assert_eq!(next_datagram(&fake), (vec![], fake.len() as u64));
    assert_eq!(next_datagram(&valid), (vec![valid.clone()], 0));
    assert_eq!(next_datagram(&[valid.clone(), valid.clone()].concat()), (vec![valid.clone(), valid.clone()], 0));
    assert_eq!(next_datagram(&[&fake[..], &valid].concat()), (vec![valid.clone()], fake.len() as u64));
    // A frame cut by its datagram's end is lost, not completed by the next datagram.
    let (head, tail) = valid.split_at(5);
    assert_eq!(next_datagram(head), (vec![], 5));
    assert_eq!(next_datagram(tail).0, vec![] as Vec<Vec<u8>>);

    let mut stream = Framer::new();
    stream.push(&fake);
    stream.push(&valid);
    assert!(stream.next_frame(Dialect::common()).is_none(), "a stream waits for the rest of the claimed frame");
}
