//! The token bench's SVG figure: system CPU, wall time and context switches per job
//! against the number of workers (log scale), one line per mechanism.

use super::{Mechanism, TokensRow};
use crate::plot::{canvas, fail, finish, line_legend, lines, Area};
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

type Metric = fn(&TokensRow) -> f64;

const PANELS: [(&str, &str, Metric); 3] = [
    ("system CPU", "s", |r| r.sys_cpu_s),
    ("wall time", "s", |r| r.wall_s),
    ("context switches per job", "switches", |r| r.ctx_switches_per_job),
];

const LEGEND_PX: u32 = 40;

fn color(m: Mechanism) -> RGBColor {
    match m {
        Mechanism::Pipe => RGBColor(31, 119, 180),
        Mechanism::Semaphore => RGBColor(214, 39, 40),
    }
}

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[TokensRow], path: &Path) -> Result<()> {
    if rows.is_empty() {
        return Err(anyhow!("no results to plot"));
    }
    let root = canvas(path, (1500, LEGEND_PX + 440))?;
    let (top, grid) = root.split_vertically(LEGEND_PX);
    let shown = Mechanism::ALL.into_iter().filter(|m| rows.iter().any(|r| r.mechanism == *m));
    line_legend(&top, shown.map(|m| (m.name(), color(m))))?;
    let (tokens, jobs, job_us) = (rows[0].tokens, rows[0].jobs, rows[0].job_us);
    for (area, (title, unit, metric)) in grid.split_evenly((1, PANELS.len())).iter().zip(PANELS) {
        let title = format!("{title} ({tokens} tokens, {jobs} jobs of {job_us} µs)");
        panel(area, rows, &title, unit, metric)?;
    }
    finish(&root, path)
}

fn points(rows: &[TokensRow], m: Mechanism, metric: Metric) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.mechanism == m)
        .map(|r| (f64::from(r.workers), metric(r)))
        .filter(|&(_, y)| y.is_finite())
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

fn panel(area: &Area<'_>, rows: &[TokensRow], title: &str, unit: &str, metric: Metric) -> Result<()> {
    let all: Vec<(f64, f64)> = Mechanism::ALL.iter().flat_map(|&m| points(rows, m, metric)).collect();
    if all.is_empty() {
        return Ok(());
    }
    let (x0, x1) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let y1 = all.iter().fold(0.0f64, |hi, p| hi.max(p.1));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 / 1.3..x1 * 1.3).log_scale(), 0.0..(y1 * 1.15).max(1e-9))
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_desc("worker processes")
        .y_desc(unit)
        .light_line_style(WHITE)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()
        .map_err(fail)?;
    lines(&mut chart, Mechanism::ALL.iter().map(|&m| (color(m), points(rows, m, metric))).collect())
}
