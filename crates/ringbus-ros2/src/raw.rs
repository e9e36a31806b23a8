//! Messages as bytes through RustDDS: no decoding, no encoding. DDS carries a message as a
//! 4-byte encapsulation header (representation id, options) and the serialized body; RustDDS
//! writes and parses the header itself, so the bridge hands it the body of a ringbus
//! message (whose first 4 bytes are that header) and, on the way in, puts the header back.

use rustdds::bytes::Bytes;
use rustdds::no_key::{Decode, DefaultDecoder, DeserializerAdapter, SerializerAdapter};
use rustdds::RepresentationIdentifier;
use std::convert::Infallible;

/// The encapsulation header of little-endian plain CDR, as ROS 2 writes it (the options,
/// the last two bytes, hint at padding; readers ignore them).
pub const CDR_LE_HEADER: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// The encapsulation header's length, in bytes.
pub const HEADER_BYTES: usize = 4;

/// The body of one message: what follows the encapsulation header.
#[derive(Debug, Clone)]
pub struct CdrBody(pub Bytes);

impl CdrBody {
    /// The body of `message` if it is little-endian CDR (`00 01` first), else `None`.
    pub fn of(message: &[u8]) -> Option<CdrBody> {
        let header = message.get(..HEADER_BYTES)?;
        (header[..2] == CDR_LE_HEADER[..2]).then(|| CdrBody(Bytes::copy_from_slice(&message[HEADER_BYTES..])))
    }
}

/// A received body with the representation it came in.
#[derive(Debug, Clone)]
pub struct Received {
    /// The header the message had on the wire (options zero: RustDDS does not keep them).
    pub header: [u8; 4],
    /// The body.
    pub body: Vec<u8>,
}

/// The adapter that hands bodies to RustDDS and takes them back, as bytes.
pub struct RawAdapter;

impl SerializerAdapter<CdrBody> for RawAdapter {
    type Error = Infallible;

    fn output_encoding() -> RepresentationIdentifier {
        RepresentationIdentifier::CDR_LE
    }

    fn to_bytes(value: &CdrBody) -> Result<Bytes, Infallible> {
        Ok(value.0.clone())
    }
}

impl DeserializerAdapter<Received> for RawAdapter {
    type Error = Infallible;
    type Decoded = Received;

    fn supported_encodings() -> &'static [RepresentationIdentifier] {
        &[RepresentationIdentifier::CDR_LE, RepresentationIdentifier::CDR_BE]
    }

    fn transform_decoded(decoded: Received) -> Received {
        decoded
    }
}

/// Copies the body out as it is.
#[derive(Clone)]
pub struct RawDecoder;

impl<'de> Decode<'de, Received> for RawDecoder {
    type Error = Infallible;

    fn decode_bytes(self, input: &'de [u8], encoding: RepresentationIdentifier) -> Result<Received, Infallible> {
        let header = match encoding {
            RepresentationIdentifier::CDR_BE => [0x00, 0x00, 0x00, 0x00],
            _ => CDR_LE_HEADER,
        };
        Ok(Received { header, body: input.to_vec() })
    }
}

impl DefaultDecoder<Received> for RawAdapter {
    type Decoder = RawDecoder;
    const DECODER: RawDecoder = RawDecoder;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_little_endian_cdr_goes_out() {
        assert_eq!(&CdrBody::of(&[0, 1, 0, 0, 7, 8]).unwrap().0[..], &[7, 8]);
        assert!(CdrBody::of(&[0, 0, 0, 0, 7]).is_none()); // big-endian
        assert!(CdrBody::of(&[0, 1, 0]).is_none()); // too short
    }
}
