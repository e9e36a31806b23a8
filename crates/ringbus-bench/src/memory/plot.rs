//! The memory bench's SVG figure, two panels on log scales: per scenario, the peak reserved,
//! the peak in flight and what a preallocated pool would reserve (computed); per message
//! size, publish and end-to-end p50, on demand and preallocated.

use super::{LatencyRow, MemoryRow, Variant, MIB};
use crate::config::format_size;
use crate::plot::{bars, box_legend, canvas, fail, finish, log_range, Area, Bar, Group};
use crate::report::{bytes, num};
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

const RESERVED: RGBColor = RGBColor(31, 119, 180);
const IN_FLIGHT: RGBColor = RGBColor(255, 127, 14);
const PREALLOCATED_POOL: RGBColor = RGBColor(160, 160, 160);
const ON_DEMAND: RGBColor = RGBColor(44, 160, 44);
const PREALLOCATED: RGBColor = RGBColor(214, 39, 40);
const LEGEND_PX: u32 = 40;
const PANEL_PX: (u32, u32) = (760, 560);

/// Draws the rows into an SVG file at `path`: a panel for each part that has rows.
pub fn draw(memory: &[MemoryRow], latency: &[LatencyRow], path: &Path) -> Result<()> {
    let panels = usize::from(!memory.is_empty()) + usize::from(!latency.is_empty());
    if panels == 0 {
        return Err(anyhow!("no results to plot"));
    }
    let root = canvas(path, (PANEL_PX.0 * panels as u32, PANEL_PX.1 + LEGEND_PX))?;
    let areas = root.split_evenly((1, panels));
    let mut areas = areas.iter();
    if !memory.is_empty() {
        memory_panel(&root, areas.next().expect("one panel each"), memory)?;
    }
    if !latency.is_empty() {
        latency_panel(&root, areas.next().expect("one panel each"), latency)?;
    }
    finish(&root, path)
}

/// Bars side by side around a slot's middle, each 0.8 / n of the slot, labelled.
fn slot_bars(slot: usize, values: Vec<(f64, RGBColor, String)>) -> Vec<Bar> {
    let width = 0.8 / values.len() as f64;
    let values = values.into_iter().enumerate().filter(|(_, (v, _, _))| v.is_finite() && *v > 0.0);
    values
        .map(|(k, (top, color, label))| {
            let x0 = slot as f64 + 0.1 + k as f64 * width;
            Bar { x: (x0, x0 + width * 0.9), top, color, label: Some((x0 + width * 0.45, label)) }
        })
        .collect()
}

fn memory_panel(root: &Area<'_>, area: &Area<'_>, rows: &[MemoryRow]) -> Result<()> {
    let (strip, area) = area.split_vertically(LEGEND_PX);
    let legend =
        [("reserved peak", RESERVED), ("in flight peak", IN_FLIGHT), ("preallocated (computed)", PREALLOCATED_POOL)];
    box_legend(&strip, legend.into_iter().enumerate().map(|(k, (name, c))| ((70 + 210 * k as i32, 16), name, c)))?;
    let mib = |b: u64| b as f64 / MIB as f64;
    let values = |r: &MemoryRow| [r.reserved_peak_bytes, r.in_flight_peak_bytes, r.preallocated_bytes_computed];
    let (floor, ceiling) = log_range(rows.iter().flat_map(values).map(mib));
    let mut chart = ChartBuilder::on(&area)
        .caption("shared memory per scenario (peaks over the run)", ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..rows.len() as f64, (floor..ceiling).log_scale())
        .map_err(fail)?;
    chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("MiB (log scale)").draw().map_err(fail)?;
    let groups = rows.iter().enumerate().map(|(i, r)| {
        let colors = [RESERVED, IN_FLIGHT, PREALLOCATED_POOL];
        let bars = slot_bars(i, values(r).into_iter().zip(colors).map(|(b, c)| (mib(b), c, bytes(b))).collect());
        Group { name: r.scenario.to_string(), mid: i as f64 + 0.5, bars }
    });
    bars(root, &mut chart, floor, groups.collect(), (11, 16))
}

fn latency_panel(root: &Area<'_>, area: &Area<'_>, rows: &[LatencyRow]) -> Result<()> {
    let (strip, area) = area.split_vertically(LEGEND_PX);
    let legend = [("on demand", ON_DEMAND), ("preallocated", PREALLOCATED)];
    box_legend(&strip, legend.into_iter().enumerate().map(|(k, (name, c))| ((70 + 160 * k as i32, 16), name, c)))?;
    let mut sizes: Vec<u64> = rows.iter().map(|r| r.payload_bytes).collect();
    sizes.dedup();
    let (floor, ceiling) = log_range(rows.iter().flat_map(|r| [r.publish_p50_us, r.e2e_p50_us]));
    let mut chart = ChartBuilder::on(&area)
        .caption("p50 latency: publish (left pair), end to end (right pair)", ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..sizes.len() as f64, (floor..ceiling).log_scale())
        .map_err(fail)?;
    chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("µs (log scale)").draw().map_err(fail)?;
    let groups = sizes.iter().enumerate().map(|(i, &size)| {
        let row = |v: Variant| rows.iter().find(|r| r.payload_bytes == size && r.variant == v);
        let pair = |metric: fn(&LatencyRow) -> f64| {
            [(Variant::OnDemand, ON_DEMAND), (Variant::Preallocated, PREALLOCATED)]
                .map(|(v, c)| row(v).map_or((f64::NAN, c, String::new()), |r| (metric(r), c, num(metric(r)))))
        };
        let values = [pair(|r| r.publish_p50_us), pair(|r| r.e2e_p50_us)].concat();
        Group { name: format!("{} messages", format_size(size)), mid: i as f64 + 0.5, bars: slot_bars(i, values) }
    });
    bars(root, &mut chart, floor, groups.collect(), (11, 16))
}
