//! The MAVLink checksum: CRC-16/MCRF4XX (X.25 polynomial, initial value 0xFFFF), over the
//! header after the start byte, the payload, and the message's CRC_EXTRA byte.

/// Adds `bytes` to the running checksum `crc`.
pub fn accumulate(mut crc: u16, bytes: &[u8]) -> u16 {
    for &b in bytes {
        let mut tmp = b ^ (crc & 0xff) as u8;
        tmp ^= tmp << 4;
        crc = (crc >> 8) ^ ((tmp as u16) << 8) ^ ((tmp as u16) << 3) ^ ((tmp as u16) >> 4);
    }
    crc
}

/// The checksum of a frame whose checked bytes are `covered`, with `crc_extra` appended.
pub fn frame_crc(covered: &[u8], crc_extra: u8) -> u16 {
    accumulate(accumulate(0xFFFF, covered), &[crc_extra])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_check_value() {
        // CRC-16/MCRF4XX of "123456789" is 0x6F91.
        assert_eq!(accumulate(0xFFFF, b"123456789"), 0x6F91);
    }
}
