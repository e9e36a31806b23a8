//! The command pushed through every ring (32 bytes, `#[repr(C)]`), and the consumer's
//! check that it saw every sequence number exactly once, in order, intact.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

/// One command: a sequence number, two words of payload derived from it and a check word
/// over all three, so a torn or stale slot is noticed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Command {
    pub sequence: u64,
    pub argument: [u64; 2],
    pub check: u64,
}
const _: () = assert!(std::mem::size_of::<Command>() == 32);
// SAFETY: repr(C), four u64s and no padding: valid for every bit pattern.
unsafe impl ringbus::Pod for Command {}

const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

impl Command {
    pub(crate) fn new(sequence: u64) -> Command {
        let argument = [sequence ^ MIX, sequence.wrapping_mul(MIX)];
        Command { sequence, argument, check: Self::sum(sequence, argument) }
    }

    fn sum(sequence: u64, argument: [u64; 2]) -> u64 {
        sequence.rotate_left(17) ^ argument[0].wrapping_add(argument[1]) ^ 0x5A5A
    }

    /// Whether the command is one [`Command::new`] made (not torn, not garbage).
    pub(crate) fn is_intact(&self) -> bool {
        self.argument == Command::new(self.sequence).argument && self.check == Self::sum(self.sequence, self.argument)
    }
}

/// The first command that was not the one expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Mismatch {
    pub expected: u64,
    pub found: u64,
    pub intact: bool,
}

/// The consumer's tally: command k received must be `Command::new(k)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Checker {
    pub received: u64,
    pub mismatches: u64,
    pub first_mismatch: Option<Mismatch>,
}

impl Checker {
    /// Checks the commands popped next, in the order popped.
    #[inline]
    pub(crate) fn check(&mut self, commands: &[Command]) {
        for c in commands {
            if c.sequence != self.received || !c.is_intact() {
                self.mismatches += 1;
                if self.first_mismatch.is_none() {
                    let m = Mismatch { expected: self.received, found: c.sequence, intact: c.is_intact() };
                    self.first_mismatch = Some(m);
                }
            }
            self.received += 1;
        }
    }

    /// `Ok` if exactly `total` commands arrived, each the one expected.
    pub(crate) fn verify(&self, total: u64) -> Result<()> {
        if let Some(m) = self.first_mismatch {
            let how = if m.intact { "out of order, lost or repeated" } else { "torn (its check word is wrong)" };
            bail!(
                "the consumer saw {} wrong commands of {}; the first: expected sequence {}, found {} ({how})",
                self.mismatches,
                self.received,
                m.expected,
                m.found
            );
        }
        if self.received != total {
            bail!("the consumer received {} commands, {total} were pushed", self.received);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sequence_once_in_order_passes_and_anything_else_fails() {
        let stream: Vec<Command> = (0..10).map(Command::new).collect();
        assert!(stream.iter().all(Command::is_intact));
        let mut good = Checker::default();
        good.check(&stream[..4]);
        good.check(&stream[4..]);
        good.verify(10).unwrap();
        assert!(good.verify(11).unwrap_err().to_string().contains("received 10 commands, 11"));

        let mut lost = Checker::default();
        lost.check(&[stream[0], stream[2], stream[3]]);
        let err = lost.verify(3).unwrap_err().to_string();
        assert!(err.contains("2 wrong commands of 3") && err.contains("expected sequence 1, found 2"), "{err}");

        let mut repeated = Checker::default();
        repeated.check(&[stream[0], stream[0]]);
        assert_eq!(repeated.first_mismatch, Some(Mismatch { expected: 1, found: 0, intact: true }));

        let mut torn = stream[1];
        torn.argument[1] ^= 1;
        let mut t = Checker::default();
        t.check(&[stream[0], torn]);
        assert!(t.verify(2).unwrap_err().to_string().contains("torn"));
    }
}
