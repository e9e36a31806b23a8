//! Summing up measurements, the same way for every bench: percentiles of latencies
//! (HdrHistogram, 3 significant digits) and lower medians over runs.

use hdrhistogram::Histogram;

/// Latencies from 1 ns to 1 hour at 3 significant digits; longer ones saturate.
pub(crate) fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds and precision")
}

pub(crate) fn us(h: &Histogram<u64>, q: f64) -> f64 {
    if h.is_empty() {
        f64::NAN
    } else {
        h.value_at_quantile(q) as f64 / 1000.0
    }
}

/// The lower median of `v` (an element of it: the lower middle one for an even count,
/// which keeps `median(a) <= median(b)` when `a[i] <= b[i]` for all `i`). A bench's
/// repeated runs, and the ratios of its paired runs, are summed up by it.
pub(crate) fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[(v.len() - 1) / 2]
}

/// The lower median of `f` over `runs`.
pub(crate) fn median_of<M, T: Copy + PartialOrd>(runs: &[&M], f: impl Fn(&M) -> T) -> T {
    median(runs.iter().map(|m| f(m)).collect())
}

/// The lower median of the finite values in `v`; NaN if there are none (a repetition that
/// lost every message has no latency).
pub(crate) fn median_finite(v: impl Iterator<Item = f64>) -> f64 {
    let finite: Vec<f64> = v.filter(|x| x.is_finite()).collect();
    if finite.is_empty() {
        f64::NAN
    } else {
        median(finite)
    }
}
