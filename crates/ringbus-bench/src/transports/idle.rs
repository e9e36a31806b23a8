//! The idle floor: a "publish" that writes one cache line of a private buffer and nothing
//! else, paced like the others. After the same idle between ticks, it is the least any
//! publish can cost on this machine (on a VM after 10 ms asleep, touching memory at all
//! costs about a microsecond), so a transport's publish can be read against it.

use super::Fanout;
use anyhow::Result;

/// One page, of which the first line is written per tick.
const BUFFER_WORDS: usize = 512;

#[derive(Debug)]
pub(crate) struct IdleFloor {
    buffer: Box<[u64; BUFFER_WORDS]>,
}

impl IdleFloor {
    pub(crate) fn new() -> IdleFloor {
        IdleFloor { buffer: Box::new([0; BUFFER_WORDS]) }
    }
}

impl Fanout for IdleFloor {
    fn publish(&mut self, _topic: u32, seq: u64, t0_ns: u64, _warm: bool) -> Result<()> {
        // black_box: the compiler may not drop or move the write of this cache line.
        let line = std::hint::black_box(&mut self.buffer[..8]);
        line[0] = t0_ns;
        line[1] = seq;
        Ok(())
    }
}
