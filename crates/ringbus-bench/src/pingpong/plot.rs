//! The ping-pong's SVG figure: one group of bars per row (the floor, then each wake mode
//! and size), one-way p50 and mean, on a log scale (a wake-up costs a hundred times a
//! cache line); each bar labelled with its value.

use super::{PingpongRow, Variant};
use crate::plot::{bars, box_legend, canvas, fail, finish, log_range, Bar, Group};
use crate::report::num;
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

const P50: RGBColor = RGBColor(31, 119, 180);
const MEAN: RGBColor = RGBColor(255, 127, 14);
/// Bar width, as a fraction of a row's slot.
const BAR: f64 = 0.35;
const LEGEND_PX: u32 = 40;

fn name(r: &PingpongRow) -> String {
    match r.variant {
        Variant::Floor => "floor".into(),
        Variant::Ringbus => format!("{} {}", r.wake, crate::report::bytes(r.payload_bytes)),
        Variant::RingbusTakeWith => format!("take_with {}", crate::report::bytes(r.payload_bytes)),
    }
}

/// Draws `rows` into an SVG file at `path`.
pub fn draw(rows: &[PingpongRow], path: &Path) -> Result<()> {
    let first = rows.first().ok_or_else(|| anyhow!("no results to plot"))?;
    let root = canvas(path, (160 + 130 * rows.len() as u32, 560))?;
    let (top, area) = root.split_vertically(LEGEND_PX);
    box_legend(&top, [((90, 16), "one way p50", P50), ((240, 16), "one way mean", MEAN)])?;
    let (floor, ceiling) = log_range(rows.iter().flat_map(|r| [r.one_way_p50_ns, r.one_way_mean_ns]));
    let caption = format!(
        "ping-pong one-way latency, ns (median of {} runs; CPUs {} and {}, echo end a {})",
        first.runs, first.initiator_cpu, first.echo_cpu, first.echo
    );
    let mut chart = ChartBuilder::on(&area)
        .caption(caption, ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..rows.len() as f64, (floor..ceiling).log_scale())
        .map_err(fail)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ns (log scale)")
        .y_label_formatter(&|y| format!("{y}"))
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    let groups = rows.iter().enumerate().map(|(i, r)| {
        let mid = i as f64 + 0.5;
        let values = [(mid - BAR, r.one_way_p50_ns, P50), (mid, r.one_way_mean_ns, MEAN)].into_iter();
        let bars = values.filter(|(_, v, _)| v.is_finite() && *v > 0.0).map(|(x0, v, color)| Bar {
            x: (x0, x0 + BAR),
            top: v,
            color,
            label: Some((x0 + BAR / 2.0, num(v))),
        });
        Group { name: name(r), mid, bars: bars.collect() }
    });
    bars(&root, &mut chart, floor, groups.collect(), (11, 14))?;
    finish(&root, path)
}
