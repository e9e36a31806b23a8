//! The queue bench's SVG figure: ns per pushed command, one group of bars per batch size,
//! one bar per variant, on a log scale (batching moves the cost by an order of magnitude;
//! each bar is labelled with its value).

use super::{QueueRow, Variant};
use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Two rows of legend: eight variants do not fit in one.
const LEGEND_PX: u32 = 64;
const WIDTH_PX: u32 = 1100;
/// Of a batch's slot, the share its bars fill.
const GROUP: f64 = 0.8;

fn color(v: Variant) -> RGBColor {
    match v {
        Variant::Cached => RGBColor(214, 39, 40),
        Variant::Uncached => RGBColor(255, 152, 150),
        Variant::CachedInprocess => RGBColor(255, 127, 14),
        Variant::Polling => RGBColor(148, 103, 189),
        Variant::PollingUncached => RGBColor(197, 176, 213),
        Variant::PollingInprocess => RGBColor(140, 86, 75),
        Variant::Rtrb => RGBColor(31, 119, 180),
        Variant::ArrayQueue => RGBColor(44, 160, 44),
    }
}

/// The legend, in a strip across the top, wrapped onto a second row when it is full.
fn legend(area: &DrawingArea<SVGBackend<'_>, Shift>, variants: &[Variant]) -> Result<()> {
    let (mut x, mut y) = (70, 16);
    for &v in variants {
        let width = 60 + 9 * v.name().len() as i32;
        if x + width > WIDTH_PX as i32 {
            (x, y) = (70, y + 24);
        }
        area.draw(&Rectangle::new([(x, y), (x + 24, y + 12)], color(v).filled())).map_err(|e| anyhow!("{e}"))?;
        area.draw(&Text::new(v.name(), (x + 30, y - 1), ("sans-serif", 16))).map_err(|e| anyhow!("{e}"))?;
        x += width;
    }
    Ok(())
}

/// A log axis from the power of ten at or below the smallest bar to a little above the
/// largest, at least a decade.
pub(crate) fn y_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let positive: Vec<f64> = values.filter(|v| v.is_finite() && *v > 0.0).collect();
    if positive.is_empty() {
        return (0.1, 1.0);
    }
    let lo = positive.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = positive.iter().copied().fold(0.0, f64::max);
    let floor = 10f64.powf(lo.log10().floor());
    (floor, (hi * 2.0).max(floor * 10.0))
}

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[QueueRow], path: &Path) -> Result<()> {
    let first = rows.first().ok_or_else(|| anyhow!("no results to plot"))?;
    let mut batches: Vec<u32> = rows.iter().map(|r| r.batch).collect();
    batches.dedup();
    let variants: Vec<Variant> = Variant::ALL.into_iter().filter(|v| rows.iter().any(|r| r.variant == *v)).collect();
    let root = SVGBackend::new(path, (WIDTH_PX, 560 + LEGEND_PX)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let (top, area) = root.split_vertically(LEGEND_PX);
    legend(&top, &variants)?;
    let (floor, ceiling) = y_range(rows.iter().map(|r| r.ns_per_push));
    let caption = format!(
        "ns per pushed {}-byte command (median of {}; capacity {}; producer CPU {}, consumer CPU {})",
        super::COMMAND_BYTES,
        first.repeat,
        first.capacity,
        first.producer_cpu,
        first.consumer_cpu
    );
    let mut chart = ChartBuilder::on(&area)
        .caption(caption, ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..batches.len() as f64, (floor..ceiling).log_scale())
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ns per push (log scale)")
        .y_label_formatter(&|y| format!("{y}"))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    let below = ("sans-serif", 16).into_font().into_text_style(&area).pos(Pos::new(HPos::Center, VPos::Top));
    let above = ("sans-serif", 11).into_font().into_text_style(&area).pos(Pos::new(HPos::Center, VPos::Bottom));
    let width = GROUP / variants.len() as f64;
    for (i, &batch) in batches.iter().enumerate() {
        let left = i as f64 + (1.0 - GROUP) / 2.0;
        for (k, &variant) in variants.iter().enumerate() {
            let Some(v) = rows.iter().find(|r| (r.variant, r.batch) == (variant, batch)).map(|r| r.ns_per_push) else {
                continue;
            };
            if !(v.is_finite() && v > 0.0) {
                continue;
            }
            let x0 = left + k as f64 * width;
            let bar = Rectangle::new([(x0, floor), (x0 + width * 0.9, v)], color(variant).filled());
            chart.draw_series([bar]).map_err(|e| anyhow!("{e}"))?;
            let label = Text::new(crate::report::num(v), (x0 + width * 0.45, v), above.clone());
            chart.draw_series([label]).map_err(|e| anyhow!("{e}"))?;
        }
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, floor));
        // `backend_coord` is in backend pixels, which is `root`'s frame (it has no offset).
        let name = format!("batch {batch}");
        root.draw(&Text::new(name, (px, py + 8), below.clone())).map_err(|e| anyhow!("{e}"))?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_axis_starts_at_a_power_of_ten_below_every_bar() {
        assert_eq!(y_range([3.2, 48.0, 7.5].into_iter()), (1.0, 96.0));
        assert_eq!(y_range([0.8, 2.0].into_iter()), (0.1, 4.0));
        assert_eq!(y_range([0.0, f64::NAN].into_iter()), (0.1, 1.0));
    }
}
