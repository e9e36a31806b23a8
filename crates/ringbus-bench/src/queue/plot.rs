//! The queue bench's SVG figure: ns per pushed command, one group of bars per batch size,
//! one bar per variant, on a log scale (batching moves the cost by an order of magnitude;
//! each bar is labelled with its value).

use super::{QueueRow, Variant};
use crate::plot::{bars, box_legend, canvas, fail, finish, log_range, Bar, Group};
use crate::report::num;
use anyhow::{anyhow, Result};
use plotters::prelude::*;
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

/// The legend's places, in a strip across the top, wrapped onto a second row when it is full.
fn legend(variants: &[Variant]) -> Vec<((i32, i32), &'static str, RGBColor)> {
    let (mut x, mut y) = (70, 16);
    let mut items = Vec::new();
    for &v in variants {
        let width = 60 + 9 * v.name().len() as i32;
        if x + width > WIDTH_PX as i32 {
            (x, y) = (70, y + 24);
        }
        items.push(((x, y), v.name(), color(v)));
        x += width;
    }
    items
}

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[QueueRow], path: &Path) -> Result<()> {
    let first = rows.first().ok_or_else(|| anyhow!("no results to plot"))?;
    let mut batches: Vec<u32> = rows.iter().map(|r| r.batch).collect();
    batches.dedup();
    let variants: Vec<Variant> = Variant::ALL.into_iter().filter(|v| rows.iter().any(|r| r.variant == *v)).collect();
    let root = canvas(path, (WIDTH_PX, 560 + LEGEND_PX))?;
    let (top, area) = root.split_vertically(LEGEND_PX);
    box_legend(&top, legend(&variants))?;
    let (floor, ceiling) = log_range(rows.iter().map(|r| r.ns_per_push));
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
        .map_err(fail)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ns per push (log scale)")
        .y_label_formatter(&|y| format!("{y}"))
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    let width = GROUP / variants.len() as f64;
    let groups = batches.iter().enumerate().map(|(i, &batch)| {
        let left = i as f64 + (1.0 - GROUP) / 2.0;
        let value = |variant| rows.iter().find(|r| (r.variant, r.batch) == (variant, batch)).map(|r| r.ns_per_push);
        let slots = variants.iter().enumerate().filter_map(|(k, &variant)| Some((k, variant, value(variant)?)));
        let bars = slots.filter(|(_, _, v)| v.is_finite() && *v > 0.0).map(|(k, variant, v)| {
            let x0 = left + k as f64 * width;
            let label = Some((x0 + width * 0.45, num(v)));
            Bar { x: (x0, x0 + width * 0.9), top: v, color: color(variant), label }
        });
        Group { name: format!("batch {batch}"), mid: i as f64 + 0.5, bars: bars.collect() }
    });
    bars(&root, &mut chart, floor, groups.collect(), (11, 16))?;
    finish(&root, path)
}
