//! The wake bench's results: ratios against the futex row of the same pass, a markdown
//! table, the target (io_uring against futex).

use super::{Backends, WakeBackend, WakeRow};
use crate::driver::Passes;
use crate::report::{num, times, Table};

/// Target: io_uring with an fd attached at most this many times plain futex's p50.
pub const TARGET_IO_URING_P50_RATIO: f64 = 1.3;

/// Fills every row's `p50_vs_futex`: its p50 ÷ the futex backend's in the same pass (the
/// one run where the backends took turns), if there is one.
pub(super) fn fill_ratios(measured: &Passes<Backends, Vec<WakeRow>>, rows: &mut [WakeRow]) {
    let backends = measured.split(|rows| rows.iter().map(|r| (r.backend, r)).collect());
    for r in rows.iter_mut() {
        r.p50_vs_futex = backends.paired(&r.backend, &WakeBackend::Futex, |m| m.wake_p50_us);
    }
}

/// One row per backend.
pub fn markdown(rows: &[WakeRow]) -> String {
    Table::<WakeRow>::new()
        .text("backend", |r| r.backend.to_string())
        .number("words", |r| r.words.to_string())
        .number("fds", |r| r.fds.to_string())
        .number("wakes", |r| r.wakes.to_string())
        .number("wake p50 µs", |r| num(r.wake_p50_us))
        .number("wake p99 µs", |r| num(r.wake_p99_us))
        .number("p50 ÷ futex", |r| times(r.p50_vs_futex, ""))
        .number("waiter CPU µs/wake", |r| num(r.waiter_cpu_us_per_wake))
        .markdown(rows)
}

/// The target, as measured: `None` without both an io_uring and a futex row.
pub fn target(rows: &[WakeRow]) -> Option<String> {
    let ratio = rows.iter().find(|r| r.backend == WakeBackend::IoUring)?.p50_vs_futex?;
    let verdict = crate::report::verdict(ratio <= TARGET_IO_URING_P50_RATIO);
    Some(format!(
        "target: io_uring (1 word + 1 fd) p50 ≤ {TARGET_IO_URING_P50_RATIO}× futex p50 — measured {ratio:.2}×: {verdict}"
    ))
}

/// Remarks a reader needs: rows where some wakes found the waiter not (yet) asleep.
pub fn notes(rows: &[WakeRow]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.wakes_not_asleep > 0)
        .map(|r| {
            format!(
                "{}: {} of {} wakes were sent before the waiter was seen asleep in the kernel \
                 (the machine was busy); those latencies may be shorter than a real wake's",
                r.backend, r.wakes_not_asleep, r.wakes
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(backend: WakeBackend, p50: f64) -> WakeRow {
        WakeRow {
            backend,
            words: backend.words() as u32,
            fds: backend.fds() as u32,
            wakes: 10,
            rate_hz: 1000.0,
            wake_p50_us: p50,
            wake_p99_us: p50 * 2.0,
            p50_vs_futex: None,
            waiter_cpu_us_per_wake: 3.0,
            wakes_not_asleep: 0,
            waker_cpu: None,
            waiter_cpu: None,
        }
    }

    /// `rows` as measured in one pass, their ratios filled.
    fn with_ratios(mut rows: Vec<WakeRow>) -> Vec<WakeRow> {
        fill_ratios(&Passes::new(vec![(0, Backends, rows.clone())]), &mut rows);
        rows
    }

    #[test]
    fn ratios_are_against_the_futex_row_and_the_target_reads_them() {
        let rows = vec![row(WakeBackend::IoUring, 12.0), row(WakeBackend::Futex, 10.0)];
        assert_eq!(target(&rows), None);
        let rows = with_ratios(rows);
        assert_eq!((rows[0].p50_vs_futex, rows[1].p50_vs_futex), (Some(1.2), Some(1.0)));
        assert!(target(&rows).unwrap().ends_with("1.20×: met"));
        assert!(markdown(&rows).contains("| io_uring | 1 | 1 | 10 | 12.0 | 24.0 | 1.20× | 3.00 |"));
        let alone = with_ratios(vec![row(WakeBackend::Epoll, 5.0)]);
        assert_eq!(alone[0].p50_vs_futex, None);
    }
}
