//! The router bench's rows (per metric and point the median of its runs, the lock-free
//! rows' ratios against the mutex runs of the same group, paired within a pass), markdown
//! table, targets and JSON.

use super::measure::Measured;
use super::{Group, Metric, Point, RouteConfig, Table};
use crate::driver::Passes;
use crate::report::{self, num, times, verdict};
use crate::stats::{median, median_of};
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// Target: lock-free decision with 2 threads at most this fraction of the mutex's.
pub const TARGET_VS_MUTEX: f64 = 0.5;
/// Target: frames per second through UDP loopback, with no loss.
pub const TARGET_UDP_FRAMES_PER_S: f64 = 100_000.0;

/// One (metric, threads, churn, table): the median over the runs.
#[derive(Debug, Clone, Serialize)]
pub struct RouteRow {
    pub table: Table,
    pub metric: Metric,
    pub threads: u32,
    pub churn: bool,
    pub ns_per_frame: f64,
    pub ns_per_frame_min: f64,
    pub ns_per_frame_max: f64,
    pub repeat: u32,
    pub frames: u64,
    pub links: usize,
    /// Links added and removed per run by the churn thread (median).
    pub churn_cycles: u64,
    /// Lock-free rows: ns per frame ÷ the mutex table's in the same pass, the median over
    /// the passes.
    pub vs_mutex: Option<f64>,
}

/// The end-to-end UDP run.
#[derive(Debug, Clone, Serialize)]
pub struct UdpRow {
    pub frames: u64,
    pub received: u64,
    pub lost: u64,
    pub frames_per_s: f64,
    pub window: u64,
    /// Datagrams the test clients move per system call (1: `sendto`/`recvfrom`).
    pub client_batch: usize,
    /// Frames per datagram the receiver got (the router packs the frames of one receive
    /// batch bound for the same peer; the sender sends one frame per datagram).
    pub frames_per_datagram: f64,
}

/// The row of `metric` at `point`, from its runs.
pub(crate) fn row(config: &RouteConfig, metric: Metric, point: &Point, runs: &[&Measured]) -> RouteRow {
    let ns: Vec<f64> = runs.iter().map(|m| ns_per_frame(metric, m)).collect();
    RouteRow {
        table: point.table,
        metric,
        threads: point.group.threads,
        churn: point.group.churn,
        ns_per_frame: median(ns.clone()),
        ns_per_frame_min: ns.iter().copied().fold(f64::INFINITY, f64::min),
        ns_per_frame_max: ns.iter().copied().fold(0.0, f64::max),
        repeat: runs.len() as u32,
        frames: config.frames,
        links: config.links,
        churn_cycles: median_of(runs, |m| m.churn_cycles),
        vs_mutex: None,
    }
}

/// A run's ns per frame of `metric`.
fn ns_per_frame(metric: Metric, m: &Measured) -> f64 {
    match metric {
        Metric::Decision => m.decision_ns,
        Metric::Forward => m.forward_ns,
    }
}

/// Lock-free rows: ns per frame ÷ the mutex table's of the same metric, threads and churn,
/// paired within a pass.
pub(crate) fn fill_ratios(measured: &Passes<Point, Measured>, rows: &mut [RouteRow]) {
    for r in rows.iter_mut().filter(|r| r.table == Table::LockFree) {
        let (metric, group) = (r.metric, Group { threads: r.threads, churn: r.churn });
        let mutex = Point { table: Table::Mutex, group };
        r.vs_mutex = measured.paired(&Point { table: r.table, group }, &mutex, |m| ns_per_frame(metric, m));
    }
}

pub fn markdown(rows: &[RouteRow]) -> String {
    report::Table::<RouteRow>::new()
        .text("metric", |r| r.metric.to_string())
        .number("threads", |r| r.threads.to_string())
        .text("churn", |r| if r.churn { "yes" } else { "no" }.into())
        .text("table", |r| r.table.to_string())
        .number("ns/frame p50", |r| num(r.ns_per_frame))
        .number("min–max", |r| format!("{}–{}", num(r.ns_per_frame_min), num(r.ns_per_frame_max)))
        .number("lockfree ÷ mutex", |r| times(r.vs_mutex, "—"))
        .number("churn cycles/run", |r| r.churn_cycles.to_string())
        .markdown(rows)
}

pub fn udp_markdown(rows: &[UdpRow]) -> String {
    report::Table::<UdpRow>::new()
        .number("client datagrams per call", |r| r.client_batch.to_string())
        .number("frames sent", |r| r.frames.to_string())
        .number("received", |r| r.received.to_string())
        .number("lost", |r| r.lost.to_string())
        .number("frames/s", |r| format!("{:.0}", r.frames_per_s))
        .number("window", |r| r.window.to_string())
        .number("frames per datagram received", |r| format!("{:.2}", r.frames_per_datagram))
        .markdown(rows)
}

/// The router's two targets, as measured.
pub fn targets(rows: &[RouteRow], udp: &[UdpRow]) -> Vec<String> {
    let mut out = Vec::new();
    for churn in [false, true] {
        let two = rows
            .iter()
            .find(|r| (r.table, r.metric, r.threads, r.churn) == (Table::LockFree, Metric::Decision, 2, churn));
        if let Some(ratio) = two.and_then(|r| r.vs_mutex) {
            let with = if churn { "with" } else { "without" };
            out.push(format!(
                "target: routing decision with 2 threads, {with} churn, ≤ {TARGET_VS_MUTEX}× the mutex table — \
                 measured {ratio:.2}×: {}",
                verdict(ratio <= TARGET_VS_MUTEX)
            ));
        }
    }
    for u in udp {
        out.push(format!(
            "target: ≥ {TARGET_UDP_FRAMES_PER_S:.0} frames/s through UDP loopback with no loss — clients moving {} \
             datagram(s) per call: measured {:.0} frames/s, {} lost: {}",
            u.client_batch,
            u.frames_per_s,
            u.lost,
            verdict(u.frames_per_s >= TARGET_UDP_FRAMES_PER_S && u.lost == 0)
        ));
    }
    out
}

/// The rows, then each UDP run as a row of its own (`metric` "udp-loopback").
pub fn write_json(rows: &[RouteRow], udp: &[UdpRow], path: &Path) -> Result<()> {
    let mut all = serde_json::to_value(rows)?;
    let array = all.as_array_mut().expect("rows serialize to an array");
    for u in udp {
        let mut value = serde_json::to_value(u)?;
        value["table"] = "lockfree".into();
        value["metric"] = "udp-loopback".into();
        value["threads"] = 1.into();
        value["churn"] = false.into();
        value["ns_per_frame"] = (1e9 / u.frames_per_s.max(1e-9)).into();
        array.push(value);
    }
    crate::report::write_json(&all, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::Bench;

    #[test]
    fn rows_are_medians_per_metric_with_ratios_paired_within_a_pass() {
        let config = RouteConfig { frames: 1000, repeat: 3, links: 8, threads: vec![2], udp_frames: 0 };
        let group = Group { threads: 2, churn: true };
        let run = |pass: u32, table: Table, decision_ns: f64, forward_ns: f64, churn_cycles: u64| {
            (pass, Point { table, group }, Measured { decision_ns, forward_ns, churn_cycles })
        };
        let m = Passes::new(vec![
            run(0, Table::LockFree, 30.0, 100.0, 5),
            run(0, Table::Mutex, 40.0, 200.0, 3),
            run(1, Table::Mutex, 40.0, 100.0, 1),
            run(1, Table::LockFree, 10.0, 300.0, 9),
            run(2, Table::LockFree, 20.0, 200.0, 7),
            run(2, Table::Mutex, 20.0, 400.0, 2),
        ]);
        let mut rows = config.rows(&m);
        config.ratios(&m, &mut rows);
        let names: Vec<String> = rows.iter().map(|r| format!("{} {}", r.metric, r.table)).collect();
        assert_eq!(names, ["decision lockfree", "decision mutex", "forward lockfree", "forward mutex"]);
        let lockfree = &rows[0];
        assert_eq!((lockfree.ns_per_frame, lockfree.ns_per_frame_min, lockfree.ns_per_frame_max), (20.0, 10.0, 30.0));
        assert_eq!((lockfree.repeat, lockfree.churn_cycles, lockfree.threads, lockfree.churn), (3, 7, 2, true));
        assert_eq!((rows[1].ns_per_frame, rows[1].churn_cycles, rows[3].ns_per_frame), (40.0, 2, 200.0));
        // Lock-free ÷ mutex within each pass: decision 30/40, 10/40, 20/20 → 0.75, 0.25, 1.0;
        // forward 100/200, 300/100, 200/400 → 0.5, 3.0, 0.5: medians 0.75 and 0.5. The medians'
        // ratios, 20/40 = 0.5 and 200/200 = 1.0, would pair runs of different passes.
        assert_eq!((rows[0].vs_mutex, rows[2].vs_mutex), (Some(0.75), Some(0.5)));
        assert_eq!((rows[1].vs_mutex, rows[3].vs_mutex), (None, None));
        let targets = targets(&rows, &[]);
        assert_eq!(targets.len(), 1, "{targets:?}");
        assert!(targets[0].contains("with churn") && targets[0].ends_with("measured 0.75×: not met"), "{targets:?}");
    }
}
