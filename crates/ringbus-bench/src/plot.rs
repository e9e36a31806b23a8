//! What the benches' SVG figures share: the canvas, the legends, a log axis that fits a
//! set of bars, bars with their labels, and lines with their points. Each figure keeps its
//! own layout (sizes, axes, captions) in its bench's `plot` module.

use anyhow::{anyhow, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// A drawing area of an SVG figure.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// A chart whose x axis is linear (slots of bars, or a quantity).
pub(crate) type Chart<'a, 'b, X, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>;

/// plotters' error as ours.
pub(crate) fn fail(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("{e}")
}

/// A white canvas of `size` pixels, drawn into `path` by [`finish`].
pub(crate) fn canvas(path: &Path, size: (u32, u32)) -> Result<Area<'_>> {
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(fail)?;
    Ok(root)
}

/// Writes the figure.
pub(crate) fn finish(root: &Area<'_>, path: &Path) -> Result<()> {
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
}

/// A legend of lines, each series' colour and name side by side, in a strip across the top.
pub(crate) fn line_legend<'n>(area: &Area<'_>, series: impl IntoIterator<Item = (&'n str, RGBColor)>) -> Result<()> {
    let mut x = 60;
    for (name, c) in series {
        area.draw(&PathElement::new(vec![(x, 20), (x + 30, 20)], c.stroke_width(3))).map_err(fail)?;
        area.draw(&Text::new(name, (x + 36, 13), ("sans-serif", 16))).map_err(fail)?;
        x += 60 + 9 * name.len() as i32;
    }
    Ok(())
}

/// A legend of coloured boxes, each with its name, at the positions given.
pub(crate) fn box_legend<'n>(
    area: &Area<'_>,
    items: impl IntoIterator<Item = ((i32, i32), &'n str, RGBColor)>,
) -> Result<()> {
    for ((x, y), name, c) in items {
        area.draw(&Rectangle::new([(x, y), (x + 24, y + 12)], c.filled())).map_err(fail)?;
        area.draw(&Text::new(name, (x + 30, y - 1), ("sans-serif", 16))).map_err(fail)?;
    }
    Ok(())
}

/// A log axis from the power of ten at or below the smallest positive value to twice the
/// largest, at least a decade.
pub(crate) fn log_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let positive: Vec<f64> = values.filter(|v| v.is_finite() && *v > 0.0).collect();
    if positive.is_empty() {
        return (0.1, 1.0);
    }
    let lo = positive.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = positive.iter().copied().fold(0.0, f64::max);
    let floor = 10f64.powf(lo.log10().floor());
    (floor, (hi * 2.0).max(floor * 10.0))
}

/// One bar: from the axis's base up to `top`, between `x.0` and `x.1`; with a label above
/// it, centred on the x given.
pub(crate) struct Bar {
    pub x: (f64, f64),
    pub top: f64,
    pub color: RGBColor,
    pub label: Option<(f64, String)>,
}

/// A group of bars around `mid` (slots of width 1), named under the axis.
pub(crate) struct Group {
    pub name: String,
    pub mid: f64,
    pub bars: Vec<Bar>,
}

/// Text of `px` pixels, centred on its point; `edge` says whether it hangs from the point
/// (`Top`) or stands on it (`Bottom`).
fn centred(px: u32, edge: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", px).into_font()).pos(Pos::new(HPos::Center, edge))
}

/// Draws every group's bars from `base`, each followed by its label (`label_px` pixels,
/// above it), then the group's name under the axis (`name_px` pixels, on `root`, whose
/// pixels are the chart's).
pub(crate) fn bars<Y: Ranged<ValueType = f64>>(
    root: &Area<'_>,
    chart: &mut Chart<'_, '_, RangedCoordf64, Y>,
    base: f64,
    groups: Vec<Group>,
    (label_px, name_px): (u32, u32),
) -> Result<()> {
    let (above, below) = (centred(label_px, VPos::Bottom), centred(name_px, VPos::Top));
    for group in groups {
        for bar in group.bars {
            let rect = Rectangle::new([(bar.x.0, base), (bar.x.1, bar.top)], bar.color.filled());
            chart.draw_series([rect]).map_err(fail)?;
            if let Some((x, text)) = bar.label {
                chart.draw_series([Text::new(text, (x, bar.top), above.clone())]).map_err(fail)?;
            }
        }
        let (px, py) = chart.backend_coord(&(group.mid, base));
        root.draw(&Text::new(group.name, (px, py + 8), below.clone())).map_err(fail)?;
    }
    Ok(())
}

/// Draws each series as a line of width 2 with its points marked.
pub(crate) fn lines<X, Y>(chart: &mut Chart<'_, '_, X, Y>, series: Vec<(RGBColor, Vec<(f64, f64)>)>) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (c, points) in series {
        chart.draw_series(LineSeries::new(points.clone(), c.stroke_width(2))).map_err(fail)?;
        chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled()))).map_err(fail)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_axis_starts_at_a_power_of_ten_below_every_bar() {
        assert_eq!(log_range([3.2, 48.0, 7.5].into_iter()), (1.0, 96.0));
        assert_eq!(log_range([0.8, 2.0].into_iter()), (0.1, 4.0));
        assert_eq!(log_range([1.26, 6.48, 337.0, 2.2].into_iter()), (1.0, 674.0));
        assert_eq!(log_range([10.0, 5451.0].into_iter()), (10.0, 10902.0));
        assert_eq!(log_range([0.0, 0.5, f64::NAN].into_iter()), (0.1, 1.0), "at least a decade");
        assert_eq!(log_range([0.0, f64::NAN].into_iter()), (0.1, 1.0));
    }
}
