//! The router bench's SVG figure: ns per frame on a log scale, one group of two bars
//! (lock-free, mutex) per (metric, threads, churn).

use super::{RouteRow, Table};
use crate::queue::plot::y_range;
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
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
    let root = SVGBackend::new(path, (1100, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let (floor, ceiling) = y_range(rows.iter().map(|r| r.ns_per_frame));
    let mut chart = ChartBuilder::on(&root)
        .caption("ns per frame: lock-free link table (blue) vs mutex (red)", ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..groups.len() as f64, (floor..ceiling).log_scale())
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ns per frame (log scale)")
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    let below = ("sans-serif", 13).into_font().into_text_style(&root).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, group) in groups.iter().enumerate() {
        for (k, table) in [Table::LockFree, Table::Mutex].into_iter().enumerate() {
            let Some(r) = rows.iter().find(|r| r.table == table && label(r) == *group) else { continue };
            let x0 = i as f64 + 0.1 + k as f64 * 0.4;
            let bar = Rectangle::new([(x0, floor), (x0 + 0.36, r.ns_per_frame.max(floor))], color(table).filled());
            chart.draw_series([bar]).map_err(|e| anyhow!("{e}"))?;
        }
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, floor));
        root.draw(&Text::new(group.clone(), (px, py + 8), below.clone())).map_err(|e| anyhow!("{e}"))?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
}
