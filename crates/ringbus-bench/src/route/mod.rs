//! The router benchmark: what one routing decision and one forwarded frame cost through
//! `ringbus-route`'s lock-free link table against a mutex-protected one — the same list
//! behind one mutex held for the whole decision, as PX4's MAVLink forwarding did — with 1
//! and 2 forwarding threads, with and without a thread adding and removing links all the
//! while; and frames per second end to end through a real router between two UDP endpoints
//! on loopback.
//!
//! Per run: a router with `links` links (sinks that count and discard), each having heard
//! one system; each forwarding thread has its own source link and routes, in turn, a
//! HEARTBEAT (to everyone) and a COMMAND_LONG targeted at one system. `decision`: the
//! list's load and the decision for every link (`Router::count_destinations`); `forward`:
//! `Router::receive` — input filter, learning, decision, output filters, counters, the
//! sinks. Rows are the median over `repeat` runs, the two tables alternating; lock-free ÷
//! mutex ratios are paired within a pass.

mod measure;
pub mod plot;
pub mod report;
mod udp;

use crate::driver::{self, Bench, Passes, Progress};
use crate::named::named;
use anyhow::Result;
use measure::Measured;
use std::fmt;
use std::path::Path;

pub use report::{RouteRow, UdpRow};

named! {
    /// Which link table.
    pub enum Table("table") {
        LockFree = "lockfree",
        Mutex = "mutex",
    }
}

named! {
    /// What a row measures.
    pub enum Metric("metric") {
        Decision = "decision",
        Forward = "forward",
    }
}

/// The forwarding threads and whether links churn: a group of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub threads: u32,
    pub churn: bool,
}

#[derive(Debug, Clone)]
pub struct RouteConfig {
    /// Frames each forwarding thread routes per metric and run.
    pub frames: u64,
    pub repeat: u32,
    /// Links in the table besides the sources.
    pub links: usize,
    pub threads: Vec<u32>,
    /// Frames sent through UDP loopback (0: skip).
    pub udp_frames: u64,
}

/// The UDP clients' datagrams per system call, one UDP run each: a MAVLink program's one,
/// and batches that take the clients' own calls out of the measurement of the router.
pub const UDP_CLIENT_BATCHES: [usize; 2] = [1, 32];

/// A point of the sweep: one table under one group's load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub table: Table,
    pub group: Group,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let churn = if self.group.churn { ", churn" } else { "" };
        write!(f, "{} {} thread(s){churn}", self.table.name(), self.group.threads)
    }
}

/// Every pass: the groups (threads × churn) in order, the two tables' order alternating
/// between passes; two rows per point (decision, forward), the medians of its runs, with
/// the lockfree ÷ mutex ratios paired within a pass.
impl Bench for RouteConfig {
    type Point = Point;
    type Measured = Measured;
    type Row = RouteRow;

    fn passes(&self) -> u32 {
        self.repeat
    }

    fn plan(&self, pass: u32) -> Vec<Point> {
        let groups: Vec<Group> =
            self.threads.iter().flat_map(|&threads| [false, true].map(|churn| Group { threads, churn })).collect();
        driver::alternating(pass, &groups, &[Table::LockFree, Table::Mutex], |group, table| Point { table, group })
    }

    fn measure(&mut self, point: &Point, _: &Path, _: &mut dyn Progress) -> Result<Measured> {
        Ok(measure::measure(point, self))
    }

    fn rows(&self, measured: &Passes<Point, Measured>) -> Vec<RouteRow> {
        [Metric::Decision, Metric::Forward]
            .into_iter()
            .flat_map(|metric| measured.rows(|point, runs| report::row(self, metric, point, runs)))
            .collect()
    }

    fn ratios(&self, measured: &Passes<Point, Measured>, rows: &mut [RouteRow]) {
        report::fill_ratios(measured, rows);
    }
}

/// Every run of the plan, then the UDP runs; rows per (metric, group, table).
pub fn run(config: &RouteConfig, progress: &mut dyn Progress) -> Result<(Vec<RouteRow>, Vec<UdpRow>)> {
    let rows = driver::run(&mut config.clone(), progress)?.rows;
    let mut udp = Vec::new();
    for client_batch in UDP_CLIENT_BATCHES.into_iter().filter(|_| config.udp_frames > 0) {
        crate::interrupt::check()?;
        udp.push(udp::measure(config.udp_frames, client_batch)?);
    }
    Ok((rows, udp))
}
