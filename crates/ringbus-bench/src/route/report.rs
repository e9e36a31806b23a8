//! The router bench's rows, markdown table, targets and JSON.

use super::measure::Measured;
use super::{Metric, RouteConfig, Table};
use crate::report::{num, verdict};
use crate::stats::median;
use anyhow::{Context, Result};
use serde::Serialize;
use std::fmt::Write as _;
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
    /// Lock-free rows: `ns_per_frame` ÷ the mutex row's.
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

pub(crate) fn rows(config: &RouteConfig, measured: &[Measured]) -> Vec<RouteRow> {
    let mut out = Vec::new();
    for metric in [Metric::Decision, Metric::Forward] {
        for &threads in &config.threads {
            for churn in [false, true] {
                for table in [Table::LockFree, Table::Mutex] {
                    let runs: Vec<&Measured> = measured
                        .iter()
                        .filter(|m| (m.run.table, m.run.group.threads, m.run.group.churn) == (table, threads, churn))
                        .collect();
                    if runs.is_empty() {
                        continue;
                    }
                    let ns: Vec<f64> = runs
                        .iter()
                        .map(|m| if metric == Metric::Decision { m.decision_ns } else { m.forward_ns })
                        .collect();
                    out.push(RouteRow {
                        table,
                        metric,
                        threads,
                        churn,
                        ns_per_frame: median(ns.clone()),
                        ns_per_frame_min: ns.iter().copied().fold(f64::INFINITY, f64::min),
                        ns_per_frame_max: ns.iter().copied().fold(0.0, f64::max),
                        repeat: runs.len() as u32,
                        frames: config.frames,
                        links: config.links,
                        churn_cycles: median(runs.iter().map(|m| m.churn_cycles).collect()),
                        vs_mutex: None,
                    });
                }
            }
        }
    }
    let snapshot = out.clone();
    for r in out.iter_mut().filter(|r| r.table == Table::LockFree) {
        let mutex = snapshot
            .iter()
            .find(|m| m.table == Table::Mutex && (m.metric, m.threads, m.churn) == (r.metric, r.threads, r.churn));
        r.vs_mutex = mutex.filter(|m| m.ns_per_frame > 0.0).map(|m| r.ns_per_frame / m.ns_per_frame);
    }
    out
}

pub fn markdown(rows: &[RouteRow]) -> String {
    let mut out = String::from(
        "| metric | threads | churn | table | ns/frame p50 | min–max | lockfree ÷ mutex | churn cycles/run |\n\
         |---|--:|---|---|--:|--:|--:|--:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {}–{} | {} | {} |",
            if r.metric == Metric::Decision { "decision" } else { "forward" },
            r.threads,
            if r.churn { "yes" } else { "no" },
            r.table.name(),
            num(r.ns_per_frame),
            num(r.ns_per_frame_min),
            num(r.ns_per_frame_max),
            r.vs_mutex.map_or_else(|| "—".into(), |v| format!("{v:.2}×")),
            r.churn_cycles,
        );
    }
    out
}

pub fn udp_markdown(rows: &[UdpRow]) -> String {
    let mut out = String::from(
        "| client datagrams per call | frames sent | received | lost | frames/s | window | frames per datagram received |\n|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.0} | {} | {:.2} |",
            r.client_batch, r.frames, r.received, r.lost, r.frames_per_s, r.window, r.frames_per_datagram
        );
    }
    out
}

/// The two targets, as measured.
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
    let text = serde_json::to_string_pretty(&all)?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}
