//! The polling bench's SVG figure: two panels (the subscriber's CPU time per second, and
//! its wake-ups per second), each a group of bars per scenario, callback vs polling, on a
//! log scale (the styles differ by orders of magnitude; each bar is labelled).

use super::{PollingRow, Scenario, Style};
use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

type Metric = fn(&PollingRow) -> f64;

const PANELS: [(&str, &str, Metric); 2] = [
    ("subscriber CPU time per second", "CPU ms/s", |r| r.cpu_ms_per_s),
    ("subscriber wake-ups per second", "wake-ups/s", |r| r.wakeups_per_s),
];

/// Bar width, as a fraction of a scenario's slot.
const BAR: f64 = 0.35;
const LEGEND_PX: u32 = 40;

fn color(s: Style) -> RGBColor {
    match s {
        Style::Callback => RGBColor(31, 119, 180),
        Style::Polling => RGBColor(44, 160, 44),
    }
}

/// The legend, in a strip across the top.
fn legend(area: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<()> {
    for (k, style) in Style::ALL.into_iter().enumerate() {
        let (x, y) = (90 + 120 * k as i32, 16);
        area.draw(&Rectangle::new([(x, y), (x + 24, y + 12)], color(style).filled())).map_err(|e| anyhow!("{e}"))?;
        area.draw(&Text::new(style.name(), (x + 30, y - 1), ("sans-serif", 16))).map_err(|e| anyhow!("{e}"))?;
    }
    Ok(())
}

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[PollingRow], path: &Path) -> Result<()> {
    if rows.is_empty() {
        return Err(anyhow!("no results to plot"));
    }
    let root = SVGBackend::new(path, (1200, LEGEND_PX + 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let (top, grid) = root.split_vertically(LEGEND_PX);
    legend(&top)?;
    let mut scenarios: Vec<Scenario> = rows.iter().map(|r| r.scenario).collect();
    scenarios.dedup();
    let (duration, repeat) = (rows[0].duration_s, rows[0].repeat);
    for (area, (title, unit, metric)) in grid.split_evenly((1, PANELS.len())).iter().zip(PANELS) {
        let title = format!("{title} ({duration:.0} s windows, median of {repeat})");
        panel(&root, area, rows, &scenarios, &title, unit, metric)?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
}

/// A log axis from the power of ten at or below the smallest positive value to a little
/// above the largest: the styles differ by orders of magnitude.
fn y_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let positive: Vec<f64> = values.filter(|v| v.is_finite() && *v > 0.0).collect();
    if positive.is_empty() {
        return (0.1, 1.0);
    }
    let lo = positive.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = positive.iter().copied().fold(0.0, f64::max);
    let floor = 10f64.powf(lo.log10().floor());
    (floor, (hi * 2.0).max(floor * 10.0))
}

fn panel(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    rows: &[PollingRow],
    scenarios: &[Scenario],
    title: &str,
    unit: &str,
    metric: Metric,
) -> Result<()> {
    let (floor, top) = y_range(rows.iter().map(metric));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..scenarios.len() as f64, (floor..top).log_scale())
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(format!("{unit} (log scale)"))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    let below = ("sans-serif", 16).into_font().into_text_style(area).pos(Pos::new(HPos::Center, VPos::Top));
    let above = ("sans-serif", 12).into_font().into_text_style(area).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (i, &scenario) in scenarios.iter().enumerate() {
        let mid = i as f64 + 0.5;
        for (x0, style) in [(mid - BAR, Style::Callback), (mid, Style::Polling)] {
            let Some(v) = rows.iter().find(|r| (r.scenario, r.style) == (scenario, style)).map(metric) else {
                continue;
            };
            if !(v.is_finite() && v > 0.0) {
                continue;
            }
            let bar = Rectangle::new([(x0, floor), (x0 + BAR, v)], color(style).filled());
            chart.draw_series([bar]).map_err(|e| anyhow!("{e}"))?;
            let label = Text::new(crate::report::num(v), (x0 + BAR / 2.0, v), above.clone());
            chart.draw_series([label]).map_err(|e| anyhow!("{e}"))?;
        }
        let (px, py) = chart.backend_coord(&(mid, floor));
        // `backend_coord` is in backend pixels, which is `root`'s frame (it has no offset).
        root.draw(&Text::new(scenario.name(), (px, py + 8), below.clone())).map_err(|e| anyhow!("{e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_axis_starts_at_a_power_of_ten_below_every_bar() {
        assert_eq!(y_range([1.26, 6.48, 337.0, 2.2].into_iter()), (1.0, 674.0));
        assert_eq!(y_range([10.0, 5451.0].into_iter()), (10.0, 10902.0));
        assert_eq!(y_range([0.0, 0.5, f64::NAN].into_iter()), (0.1, 1.0), "at least a decade");
        assert_eq!(y_range([0.0].into_iter()), (0.1, 1.0));
    }
}
