//! The SVG figure: per payload size, two panels — publish p50 and end-to-end p50 against
//! the number of subscribers, log-log — with one line per transport.

use super::Row;
use crate::config::{format_size, Transport};
use crate::plot::{canvas, fail, finish, line_legend, lines, Area};
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

type Metric = fn(&Row) -> f64;

const LEGEND_PX: u32 = 40;

/// A transport's colour, the same in every panel.
fn color(t: Transport) -> RGBColor {
    match t {
        Transport::Ringbus => RGBColor(214, 39, 40),
        Transport::RingbusReliable => RGBColor(140, 86, 75),
        Transport::RingbusPolling => RGBColor(255, 127, 14),
        Transport::Eventfd => RGBColor(31, 119, 180),
        Transport::Futex => RGBColor(23, 190, 207),
        Transport::Mq => RGBColor(44, 160, 44),
        Transport::Uds => RGBColor(148, 103, 189),
        Transport::IdleFloor => RGBColor(127, 127, 127),
    }
}

const PANELS: [(&str, Metric); 2] = [("publish p50", |r| r.publish_p50_us), ("end-to-end p50", |r| r.e2e_p50_us)];

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[Row], path: &Path) -> Result<()> {
    let mut sizes: Vec<u64> = rows.iter().map(|r| r.payload_bytes).collect();
    sizes.dedup();
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.is_empty() {
        return Err(anyhow!("no results to plot"));
    }
    let height = LEGEND_PX + 420 * sizes.len() as u32;
    let root = canvas(path, (1200, height))?;
    let (top, grid) = root.split_vertically(LEGEND_PX);
    let shown = Transport::ALL.into_iter().filter(|t| rows.iter().any(|r| r.transport == *t));
    line_legend(&top, shown.map(|t| (t.name(), color(t))))?;
    let areas = grid.split_evenly((sizes.len(), PANELS.len()));
    for (i, &size) in sizes.iter().enumerate() {
        let of_size: Vec<&Row> = rows.iter().filter(|r| r.payload_bytes == size).collect();
        for (j, (title, metric)) in PANELS.iter().enumerate() {
            panel(&areas[i * PANELS.len() + j], &of_size, &format!("{title}, {}", format_size(size)), *metric)?;
        }
    }
    finish(&root, path)
}

fn panel(area: &Area<'_>, rows: &[&Row], title: &str, metric: Metric) -> Result<()> {
    let mut transports: Vec<Transport> = rows.iter().map(|r| r.transport).collect();
    transports.sort_unstable();
    transports.dedup();
    let points = |t: Transport| -> Vec<(f64, f64)> {
        let mut v: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.transport == t)
            .map(|r| (r.subs as f64, metric(r)))
            .filter(|&(_, y)| y.is_finite() && y > 0.0)
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    };
    let all: Vec<(f64, f64)> = transports.iter().flat_map(|&t| points(t)).collect();
    if all.is_empty() {
        return Ok(());
    }
    let (x0, x1) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let (y0, y1) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 / 1.3..x1 * 1.3).log_scale(), (y0 / 1.5..y1 * 1.5).log_scale())
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_desc("subscribers")
        .y_desc("µs")
        .light_line_style(WHITE)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y}"))
        .draw()
        .map_err(fail)?;
    lines(&mut chart, transports.iter().map(|&t| (color(t), points(t))).collect())
}
