//! What the publisher and subscriber processes of a run agree on: the topic's settings,
//! the message sizes (a seeded generator, the same sequence on every machine), the byte
//! each message is filled with, and how memory is counted.

use anyhow::{bail, Context, Result};
use ringbus::{Node, TopicBuilder};
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Payload checks look at one byte per page: a page given back under a reader would read
/// as zeros there.
const PAGE: usize = 4096;

/// The topic of a run, opened alike by every process (the first creates it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TopicSpec {
    pub name: String,
    pub max_payload_bytes: u64,
    /// `None`: the topic's defaults.
    pub depth: Option<u32>,
    pub max_held: Option<u32>,
    pub preallocate: bool,
}

impl TopicSpec {
    pub(crate) fn builder(&self, node: &Node) -> TopicBuilder {
        let mut builder =
            node.topic(&self.name).max_payload_bytes(self.max_payload_bytes).preallocate(self.preallocate);
        if let Some(depth) = self.depth {
            builder = builder.depth(depth);
        }
        if let Some(held) = self.max_held {
            builder = builder.max_held(held);
        }
        builder
    }
}

/// Message sizes uniform in `min..=max`, drawn from `seed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Sizes {
    pub min: u64,
    pub max: u64,
    pub seed: u64,
}

impl Sizes {
    /// The sizes of messages 0, 1, 2, ...
    pub(crate) fn iter(self) -> impl Iterator<Item = u64> {
        let mut state = self.seed;
        let span = (self.max - self.min) as u128 + 1;
        std::iter::repeat_with(move || self.min + ((split_mix(&mut state) as u128 * span) >> 64) as u64)
    }
}

/// SplitMix64: one step of the state, one well-mixed 64-bit output.
fn split_mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The byte message `position` is filled with: never 0, which is what a page given back
/// reads as.
pub(crate) fn mark(position: u64) -> u8 {
    (position % 255) as u8 + 1
}

/// Checks that `payload` (from byte `from` on) is message `position`'s: its last byte and
/// one byte in every page.
pub(crate) fn check_payload(payload: &[u8], from: usize, position: u64) -> Result<()> {
    let want = mark(position);
    let last = payload.len().checked_sub(1).into_iter().filter(|&i| i >= from);
    if let Some(at) = (from..payload.len()).step_by(PAGE).chain(last).find(|&i| payload[i] != want) {
        bail!("message {position}: byte {at} of {} is {}, not {want}", payload.len(), payload[at]);
    }
    Ok(())
}

/// Bytes of memory the files of `dir` hold, as the kernel counts them (`st_blocks` × 512,
/// what `du` shows); a file removed while being counted counts nothing.
pub(crate) fn allocated_bytes(dir: &Path) -> Result<u64> {
    let mut sum = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        match entry.and_then(|e| e.metadata()) {
            Ok(meta) => sum += meta.blocks() * 512,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot stat a file of {}", dir.display())),
        }
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_the_same_for_a_seed_within_bounds_and_cover_the_range() {
        let sizes = Sizes { min: 100, max: 199, seed: 7 };
        let a: Vec<u64> = sizes.iter().take(2000).collect();
        assert_eq!(a, sizes.iter().take(2000).collect::<Vec<_>>(), "a seed gives one sequence");
        assert_ne!(a, Sizes { seed: 8, ..sizes }.iter().take(2000).collect::<Vec<_>>());
        assert!(a.iter().all(|s| (100..=199).contains(s)));
        assert!(a.contains(&100) && a.contains(&199), "both ends are drawn");
        assert!(Sizes { min: 5, max: 5, seed: 1 }.iter().take(10).all(|s| s == 5));
    }

    #[test]
    fn a_payload_is_checked_page_by_page_and_at_its_end() {
        let mut payload = vec![mark(300); 3 * PAGE + 10];
        check_payload(&payload, 0, 300).unwrap();
        assert!(check_payload(&payload, 0, 301).is_err());
        payload[PAGE] = 0;
        assert!(check_payload(&payload, 0, 300).unwrap_err().to_string().contains("byte 4096"));
        payload[PAGE] = mark(300);
        *payload.last_mut().unwrap() = 0;
        assert!(check_payload(&payload, 0, 300).is_err());
        payload[..8].copy_from_slice(&[0; 8]);
        *payload.last_mut().unwrap() = mark(300);
        check_payload(&payload, 8, 300).unwrap();
        check_payload(&[0; 5], 8, 0).unwrap();
        assert_ne!(mark(254), 0);
        assert_ne!(mark(255), 0);
    }

    #[test]
    fn allocated_bytes_count_what_was_written_not_a_file_s_length() {
        let dir = tempfile::tempdir().unwrap();
        let sparse = std::fs::File::create(dir.path().join("sparse")).unwrap();
        sparse.set_len(64 << 20).unwrap();
        std::fs::write(dir.path().join("written"), vec![1u8; 1 << 20]).unwrap();
        let bytes = allocated_bytes(dir.path()).unwrap();
        assert!((1 << 20..8 << 20).contains(&bytes), "{bytes}");
    }
}
