//! The router bench's SVG figure: ns per frame on a log scale, one group of two bars
//! (lock-free, mutex) per (metric, threads, churn).

use super::{RouteRow, Table};
use crate::plot::{bars, canvas, fail, finish, log_range, Bar, Group};
use anyhow::Result;
use plotters::prelude::*;
use std::path::Path;

fn color(t: Table) -> RGBColor {
    match t {
        Table::LockFree => RGBColor(31, 119, 180),
        Table::Mutex => RGBColor(214, 39, 40),
    }
}

fn label(r: &RouteRow) -> String {
    format!("{} {}t{}", r.metric, r.threads, if r.churn { " churn" } else { "" })
}

pub fn draw(rows: &[RouteRow], path: &Path) -> Result<()> {
    let mut groups: Vec<String> = Vec::new();
    for r in rows {
        if !groups.contains(&label(r)) {
            groups.push(label(r));
        }
    }
    let root = canvas(path, (1100, 600))?;
    let (floor, ceiling) = log_range(rows.iter().map(|r| r.ns_per_frame));
    let mut chart = ChartBuilder::on(&root)
        .caption("ns per frame: lock-free link table (blue) vs mutex (red)", ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..groups.len() as f64, (floor..ceiling).log_scale())
        .map_err(fail)?;
    chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("ns per frame (log scale)").draw().map_err(fail)?;
    let groups = groups.into_iter().enumerate().map(|(i, name)| {
        let tables = [Table::LockFree, Table::Mutex].into_iter().enumerate();
        let found =
            tables.filter_map(|(k, table)| Some((k, rows.iter().find(|r| r.table == table && label(r) == name)?)));
        let bars = found.map(|(k, r)| {
            let x0 = i as f64 + 0.1 + k as f64 * 0.4;
            Bar { x: (x0, x0 + 0.36), top: r.ns_per_frame.max(floor), color: color(r.table), label: None }
        });
        let bars = bars.collect();
        Group { name, mid: i as f64 + 0.5, bars }
    });
    bars(&root, &mut chart, floor, groups.collect(), (13, 13))?;
    finish(&root, path)
}
