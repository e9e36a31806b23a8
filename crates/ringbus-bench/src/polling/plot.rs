//! The polling bench's SVG figure: two panels (the subscriber's CPU time per second, and
//! its wake-ups per second), each a group of bars per scenario, callback vs polling, on a
//! log scale (the styles differ by orders of magnitude; each bar is labelled).

use super::{PollingRow, Scenario, Style};
use crate::plot::{bars, box_legend, canvas, fail, finish, log_range, Area, Bar, Group};
use crate::report::num;
use anyhow::{anyhow, Result};
use plotters::prelude::*;
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

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[PollingRow], path: &Path) -> Result<()> {
    if rows.is_empty() {
        return Err(anyhow!("no results to plot"));
    }
    let root = canvas(path, (1200, LEGEND_PX + 480))?;
    let (top, grid) = root.split_vertically(LEGEND_PX);
    let legend = Style::ALL.into_iter().enumerate().map(|(k, s)| ((90 + 120 * k as i32, 16), s.name(), color(s)));
    box_legend(&top, legend)?;
    let mut scenarios: Vec<Scenario> = rows.iter().map(|r| r.scenario).collect();
    scenarios.dedup();
    let (duration, repeat) = (rows[0].duration_s, rows[0].repeat);
    for (area, (title, unit, metric)) in grid.split_evenly((1, PANELS.len())).iter().zip(PANELS) {
        let title = format!("{title} ({duration:.0} s windows, median of {repeat})");
        panel(&root, area, rows, &scenarios, &title, unit, metric)?;
    }
    finish(&root, path)
}

fn panel(
    root: &Area<'_>,
    area: &Area<'_>,
    rows: &[PollingRow],
    scenarios: &[Scenario],
    title: &str,
    unit: &str,
    metric: Metric,
) -> Result<()> {
    let (floor, top) = log_range(rows.iter().map(metric));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..scenarios.len() as f64, (floor..top).log_scale())
        .map_err(fail)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(format!("{unit} (log scale)"))
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    let groups = scenarios.iter().enumerate().map(|(i, &scenario)| {
        let mid = i as f64 + 0.5;
        let value = |style| rows.iter().find(|r| (r.scenario, r.style) == (scenario, style)).map(metric);
        let slots = [(mid - BAR, Style::Callback), (mid, Style::Polling)].into_iter();
        let bars = slots
            .filter_map(|(x0, style)| Some((x0, style, value(style)?)))
            .filter(|(_, _, v)| v.is_finite() && *v > 0.0);
        let bars = bars.map(|(x0, style, v)| Bar {
            x: (x0, x0 + BAR),
            top: v,
            color: color(style),
            label: Some((x0 + BAR / 2.0, num(v))),
        });
        Group { name: scenario.name().into(), mid, bars: bars.collect() }
    });
    bars(root, &mut chart, floor, groups.collect(), (12, 16))
}
