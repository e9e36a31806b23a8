//! A model, not a measurement: what a pool of size classes would reserve for the same
//! stream of messages. One pool of chunks per power of two, from a page up to the largest
//! message (the top class capped at `max_payload_bytes` in whole pages); a class gets one
//! more chunk when it needs one and keeps it, as segments reserved on first use would be.
//! In flight at each loan: the `depth` messages before it and itself. The model is
//! generous to size classes: no segment granularity, no spare chunk, no held samples.

use std::collections::{BTreeMap, VecDeque};

const PAGE: u64 = 4096;

/// Bytes the classes would reserve at the end of the stream `sizes` (their peaks).
pub(crate) fn reserved(sizes: impl Iterator<Item = u64>, depth: u32, max_payload_bytes: u64) -> u64 {
    let top = max_payload_bytes.div_ceil(PAGE) * PAGE;
    let class = |len: u64| len.max(PAGE).next_power_of_two().min(top);
    let mut window = VecDeque::new();
    let (mut now, mut chunks) = (BTreeMap::<u64, u64>::new(), BTreeMap::<u64, u64>::new());
    for len in sizes {
        let c = class(len);
        window.push_back(c);
        let in_flight = now.entry(c).or_default();
        *in_flight += 1;
        let kept = chunks.entry(c).or_default();
        *kept = (*kept).max(*in_flight);
        if window.len() > depth as usize {
            let gone = window.pop_front().expect("the window is not empty");
            *now.get_mut(&gone).expect("counted when it came") -= 1;
        }
    }
    chunks.iter().map(|(stride, n)| stride * n).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_keeps_its_own_peak() {
        const KIB: u64 = 1024;
        // depth 1: two messages in flight at each loan.
        assert_eq!(reserved([5, 5, 5].into_iter(), 1, 64 * KIB), 2 * 4 * KIB);
        // 5 KiB → 8 KiB class; 100 KiB → 128 KiB class, capped at a 100 KiB top class.
        assert_eq!(reserved([5 * KIB, 100 * KIB, 5 * KIB].into_iter(), 1, 100 * KIB), 8 * KIB + 100 * KIB);
        // Peaks at different times add up: 2 small then 2 large, each class keeps two.
        assert_eq!(reserved([1, 1, 60 * KIB, 60 * KIB].into_iter(), 1, 64 * KIB), 2 * 4 * KIB + 2 * 64 * KIB);
    }
}
