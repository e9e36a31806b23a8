//! The wake bench's SVG figure: one group of bars per backend, wake latency p50 and p99.

use super::WakeRow;
use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

const P50: RGBColor = RGBColor(31, 119, 180);
const P99: RGBColor = RGBColor(214, 39, 40);
/// Bar width, as a fraction of a backend's slot.
const BAR: f64 = 0.35;
const LEGEND_PX: u32 = 40;

/// The legend, in a strip across the top.
fn legend(area: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<()> {
    for (k, (name, c)) in [("p50", P50), ("p99", P99)].into_iter().enumerate() {
        let (x, y) = (90 + 90 * k as i32, 16);
        area.draw(&Rectangle::new([(x, y), (x + 24, y + 12)], c.filled())).map_err(|e| anyhow!("{e}"))?;
        area.draw(&Text::new(name, (x + 30, y - 1), ("sans-serif", 16))).map_err(|e| anyhow!("{e}"))?;
    }
    Ok(())
}

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[WakeRow], path: &Path) -> Result<()> {
    if rows.is_empty() {
        return Err(anyhow!("no results to plot"));
    }
    let top = rows.iter().map(|r| r.wake_p99_us.max(r.wake_p50_us)).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let (top_strip, area) = root.split_vertically(LEGEND_PX);
    legend(&top_strip)?;
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
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("µs")
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    let below = ("sans-serif", 16).into_font().into_text_style(&area).pos(Pos::new(HPos::Center, VPos::Top));
    let above = ("sans-serif", 12).into_font().into_text_style(&area).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (i, r) in rows.iter().enumerate() {
        let mid = i as f64 + 0.5;
        for (x0, v, c) in [(mid - BAR, r.wake_p50_us, P50), (mid, r.wake_p99_us, P99)] {
            if !v.is_finite() {
                continue;
            }
            chart.draw_series([Rectangle::new([(x0, 0.0), (x0 + BAR, v)], c.filled())]).map_err(|e| anyhow!("{e}"))?;
            let label = Text::new(format!("{v:.1}"), (x0 + BAR / 2.0, v), above.clone());
            chart.draw_series([label]).map_err(|e| anyhow!("{e}"))?;
        }
        let (px, py) = chart.backend_coord(&(mid, 0.0));
        // `backend_coord` is in backend pixels, which is `root`'s frame (it has no offset).
        root.draw(&Text::new(r.backend.name(), (px, py + 8), below.clone())).map_err(|e| anyhow!("{e}"))?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
}
