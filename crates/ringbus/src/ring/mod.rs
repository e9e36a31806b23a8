//! Position arithmetic, the broadcast log of one publisher, and the command ring of a
//! queue.
//!
//! A *position* is monotonic (the n-th message a publisher ever published); an *index* is
//! the slot it occupies in a log of `depth` entries (`depth` a power of two).
#![allow(unsafe_code)]

pub(crate) mod log;
pub(crate) mod queue;

/// The log index of `position` in a log of `depth` entries.
#[inline]
#[cfg(not(loom))]
pub(crate) fn index(position: u64, depth: u32) -> usize {
    debug_assert!(depth.is_power_of_two());
    (position & (depth as u64 - 1)) as usize
}

/// How far `published` is ahead of `next`, or `None` if it went backwards (a corrupt or
/// replaced publisher: positions never decrease).
#[cfg(not(loom))]
pub(crate) fn backlog(published: u64, next: u64) -> Option<u64> {
    published.checked_sub(next)
}

#[cfg(all(test, not(loom)))]
mod tests {
    #[test]
    fn index_wraps_at_depth() {
        assert_eq!(super::index(0, 8), 0);
        assert_eq!(super::index(9, 8), 1);
        assert_eq!(super::index(u64::MAX, 8), 7);
    }

    #[test]
    fn backlog_refuses_going_backwards() {
        assert_eq!(super::backlog(10, 7), Some(3));
        assert_eq!(super::backlog(7, 10), None);
    }
}
