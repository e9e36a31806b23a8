//! The ping-pong's rows — per point the median over the passes of each run's round-trip
//! p50, p99 and mean, one way as half of them, and one-way p50 ÷ the floor's paired within
//! a pass — as a markdown table, the target as measured, and JSON.

use super::run::Measurement;
use super::{PingpongConfig, Point, Variant, WakeMode};
use crate::driver::Passes;
use crate::report::{num, times, verdict, Table};
use crate::stats::median_of;
use serde::Serialize;

/// Target: busy-poll one-way p50 at most this many times the floor's, at 8 B and 4 KiB.
pub const TARGET_VS_FLOOR: f64 = 2.5;
/// The sizes the target is set at.
pub const TARGET_SIZES: [u64; 2] = [8, 4096];

/// One point's result; times are the median over the passes of each run's figure.
#[derive(Debug, Clone, Serialize)]
pub struct PingpongRow {
    pub variant: Variant,
    /// How the waiting end waits (the floor always spins: `never`).
    pub wake: WakeMode,
    /// Bytes per message, not written (0 for the floor).
    pub payload_bytes: u64,
    /// Measured round trips per run (after a tenth as many, at least 100, unmeasured).
    pub rounds: u64,
    /// Runs (passes) the medians are over.
    pub runs: u32,
    /// "thread" or "process": where the echo end ran.
    pub echo: &'static str,
    pub initiator_cpu: u32,
    pub echo_cpu: u32,
    pub round_trip_p50_ns: f64,
    pub round_trip_p99_ns: f64,
    pub round_trip_mean_ns: f64,
    /// Round trip ÷ 2.
    pub one_way_p50_ns: f64,
    pub one_way_p99_ns: f64,
    pub one_way_mean_ns: f64,
    /// One-way p50 ÷ the floor's, the median over passes of the ratio within each.
    pub p50_vs_floor: Option<f64>,
    /// The same for the mean.
    pub mean_vs_floor: Option<f64>,
}

/// The row of `point`, from its runs.
pub(crate) fn row(config: &PingpongConfig, point: &Point, runs: &[&Measurement]) -> PingpongRow {
    let (p50, p99, mean) =
        (median_of(runs, |m| m.p50_ns), median_of(runs, |m| m.p99_ns), median_of(runs, |m| m.mean_ns));
    PingpongRow {
        variant: point.variant,
        wake: point.wake,
        payload_bytes: point.payload_bytes,
        rounds: config.rounds_of(point),
        runs: runs.len() as u32,
        echo: if config.processes { "process" } else { "thread" },
        initiator_cpu: config.cpus.0,
        echo_cpu: config.cpus.1,
        round_trip_p50_ns: p50,
        round_trip_p99_ns: p99,
        round_trip_mean_ns: mean,
        one_way_p50_ns: p50 / 2.0,
        one_way_p99_ns: p99 / 2.0,
        one_way_mean_ns: mean / 2.0,
        p50_vs_floor: None,
        mean_vs_floor: None,
    }
}

/// Every row's ratios to the floor of the same pass.
pub(crate) fn fill_ratios(measured: &Passes<Point, Measurement>, rows: &mut [PingpongRow]) {
    for r in rows.iter_mut() {
        let point = Point { variant: r.variant, wake: r.wake, payload_bytes: r.payload_bytes };
        r.p50_vs_floor = measured.paired(&point, &Point::FLOOR, |m| m.p50_ns);
        r.mean_vs_floor = measured.paired(&point, &Point::FLOOR, |m| m.mean_ns);
    }
}

fn size(r: &PingpongRow) -> String {
    match r.variant {
        Variant::Floor => "—".into(),
        _ => crate::report::bytes(r.payload_bytes),
    }
}

/// One row per point.
pub fn markdown(rows: &[PingpongRow]) -> String {
    Table::<PingpongRow>::new()
        .text("variant", |r| r.variant.to_string())
        .text("wake", |r| r.wake.to_string())
        .number("payload", size)
        .number("round trip p50 ns", |r| num(r.round_trip_p50_ns))
        .number("p99 ns", |r| num(r.round_trip_p99_ns))
        .number("mean ns", |r| num(r.round_trip_mean_ns))
        .number("one way p50 ns", |r| num(r.one_way_p50_ns))
        .number("one way mean ns", |r| num(r.one_way_mean_ns))
        .number("p50 ÷ floor", |r| times(r.p50_vs_floor, ""))
        .number("mean ÷ floor", |r| times(r.mean_vs_floor, ""))
        .markdown(rows)
}

/// The target, as measured at each target size that ran busy-poll; `None` if none did.
pub fn target(rows: &[PingpongRow]) -> Option<String> {
    let busy = |size| {
        rows.iter()
            .find(|r| r.variant == Variant::Ringbus && r.wake == WakeMode::Never && r.payload_bytes == size)?
            .p50_vs_floor
    };
    let each: Vec<(u64, f64)> = TARGET_SIZES.iter().filter_map(|&s| Some((s, busy(s)?))).collect();
    if each.is_empty() {
        return None;
    }
    let text: Vec<String> = each.iter().map(|(s, v)| format!("{}: {v:.2}×", crate::report::bytes(*s))).collect();
    let met = each.iter().all(|(_, v)| *v <= TARGET_VS_FLOOR);
    Some(format!(
        "target: busy-poll one-way p50 ≤ {TARGET_VS_FLOOR}× the cache-line floor at 8 B and 4 KiB — measured {}: {}",
        text.join(", "),
        verdict(met)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WorkerLauncher;
    use crate::driver::Bench;
    use std::path::PathBuf;

    fn m(p50: f64, mean: f64) -> Measurement {
        Measurement { rounds: 10, p50_ns: p50, p99_ns: p50 * 3.0, mean_ns: mean }
    }

    #[test]
    fn rows_halve_the_round_trip_and_pair_each_ratio_within_a_pass() {
        let config = PingpongConfig {
            wakes: vec![WakeMode::Never],
            sizes: vec![8],
            rounds: 10,
            on_data_rounds: 5,
            repeat: 3,
            cpus: (0, 1),
            processes: true,
            dir: PathBuf::new(),
            worker: WorkerLauncher { program: PathBuf::new(), args: vec![] },
        };
        let busy = Point { variant: Variant::Ringbus, wake: WakeMode::Never, payload_bytes: 8 };
        let measured = Passes::new(vec![
            (0, Point::FLOOR, m(100.0, 100.0)),
            (0, busy, m(300.0, 400.0)),
            (1, busy, m(200.0, 200.0)),
            (1, Point::FLOOR, m(40.0, 50.0)),
            (2, Point::FLOOR, m(80.0, 80.0)),
            (2, busy, m(160.0, 200.0)),
        ]);
        let mut rows = config.rows(&measured);
        config.ratios(&measured, &mut rows);
        let (floor, ringbus) = (&rows[0], &rows[1]);
        assert_eq!((floor.round_trip_p50_ns, floor.one_way_p50_ns, floor.p50_vs_floor), (80.0, 40.0, Some(1.0)));
        // Per pass 3.0, 5.0, 2.0: the paired median is 3.0 (the medians' ratio would be 2.5).
        assert_eq!(
            (ringbus.round_trip_p50_ns, ringbus.p50_vs_floor, ringbus.mean_vs_floor),
            (200.0, Some(3.0), Some(4.0))
        );
        assert_eq!((ringbus.runs, ringbus.echo, ringbus.one_way_p99_ns), (3, "process", 300.0));
        let table = markdown(&rows);
        assert!(table.contains("| ringbus | never | 8 B | 200 | 600 | 200 | 100 | 100 | 3.00× | 4.00× |"), "{table}");
        let target = target(&rows).unwrap();
        assert!(target.ends_with("measured 8 B: 3.00×: not met"), "{target}");
        assert_eq!(super::target(&rows[..1]), None);
    }
}
