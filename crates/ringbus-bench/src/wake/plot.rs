//! The wake bench's SVG figure: one group of bars per backend, wake latency p50 and p99.

use super::WakeRow;
use crate::plot::{bars, box_legend, canvas, fail, finish, Bar, Group};
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

const P50: RGBColor = RGBColor(31, 119, 180);
const P99: RGBColor = RGBColor(214, 39, 40);
/// Bar width, as a fraction of a backend's slot.
const BAR: f64 = 0.35;
const LEGEND_PX: u32 = 40;

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[WakeRow], path: &Path) -> Result<()> {
    if rows.is_empty() {
        return Err(anyhow!("no results to plot"));
    }
    let top = rows.iter().map(|r| r.wake_p99_us.max(r.wake_p50_us)).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let root = canvas(path, (900, 560))?;
    let (top_strip, area) = root.split_vertically(LEGEND_PX);
    let legend = [("p50", P50), ("p99", P99)].into_iter().enumerate();
    box_legend(&top_strip, legend.map(|(k, (name, c))| ((90 + 90 * k as i32, 16), name, c)))?;
    let (wakes, rate) = (rows[0].wakes, rows[0].rate_hz);
    let placement = match (rows[0].waker_cpu, rows[0].waiter_cpu) {
        (Some(w), Some(s)) => format!(", waker on CPU {w}, waiters on CPU {s}"),
        _ => String::new(),
    };
    let mut chart = ChartBuilder::on(&area)
        .caption(
            format!("WaitSet wake latency ({wakes} wakes each, {rate} wakes/s in all{placement})"),
            ("sans-serif", 20),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..rows.len() as f64, 0.0..(top * 1.15).max(1e-3))
        .map_err(fail)?;
    chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("µs").light_line_style(WHITE).draw().map_err(fail)?;
    let groups = rows.iter().enumerate().map(|(i, r)| {
        let mid = i as f64 + 0.5;
        let values = [(mid - BAR, r.wake_p50_us, P50), (mid, r.wake_p99_us, P99)].into_iter();
        let bars = values.filter(|(_, v, _)| v.is_finite()).map(|(x0, v, color)| {
            let label = Some((x0 + BAR / 2.0, format!("{v:.1}")));
            Bar { x: (x0, x0 + BAR), top: v, color, label }
        });
        Group { name: r.backend.name().into(), mid, bars: bars.collect() }
    });
    bars(&root, &mut chart, 0.0, groups.collect(), (12, 16))?;
    finish(&root, path)
}
