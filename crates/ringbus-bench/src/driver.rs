//! The one shape of every `ringbus bench` command. A bench says what it measures (a
//! [`Bench`]: the points of each pass, one run of a point, rows from every run); [`run`]
//! does the rest the same way for all of them:
//!
//! ```text
//! run dir  a fresh directory on tmpfs, swept of what killed runs left, removed at the end
//! passes   for pass in 0..passes: for point in plan(pass): measure(point) in a fresh dir
//!          (each plan alternates the order of the compared variants between passes)
//! skips    a run that fails with Skip is reported and its point left out of later passes
//! rows     rows(every measurement of every pass), then ratios(...), paired within a pass
//! ```
//!
//! A ratio is paired within a pass ([`Passes::paired`]): the median over the passes of the
//! ratio of two runs of the same pass, which ran moments apart, so a slow stretch of a
//! shared machine slows both sides of it — where the ratio of two medians could pair a fast
//! pass with a slow one.

use crate::interrupt;
use crate::rundir::RunDir;
use crate::stats::median;
use anyhow::{Context, Result};
use std::fmt;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

/// One benchmark: what a pass runs, how one run is measured, and what the runs make.
pub trait Bench {
    /// A point of the sweep: what one run measures, the same in every pass.
    type Point: Copy + PartialEq + fmt::Display;
    /// What one run measured.
    type Measured;
    /// One line of the results: a row of the table, an element of the JSON array.
    type Row;

    /// What a run is called in error messages (which name the run that failed); empty:
    /// errors go out as they are (a bench of one run).
    const RUN: &'static str = "run";

    /// Passes over the plan (`--repeat`).
    fn passes(&self) -> u32;

    /// The points of pass `pass`, in the order they run.
    fn plan(&self, pass: u32) -> Vec<Self::Point>;

    /// Where runs keep their files: a run directory is made there and each run gets a fresh
    /// directory in it. `None`: the runs need no files.
    fn files(&self) -> Option<&Path> {
        None
    }

    /// Ticks each run reports through [`Progress::tick`]; 0: progress counts runs.
    fn ticks(&self) -> u64 {
        0
    }

    /// Called once the run directory exists, before the first run.
    fn start(&mut self, _progress: &mut dyn Progress) -> Result<()> {
        Ok(())
    }

    /// Measures `point` once, in `dir` (fresh, removed afterwards; empty without
    /// [`Bench::files`]). Failing with [`Skip`] leaves the point out from then on.
    fn measure(&mut self, point: &Self::Point, dir: &Path, progress: &mut dyn Progress) -> Result<Self::Measured>;

    /// The rows, from every run of every pass.
    fn rows(&self, measured: &Passes<Self::Point, Self::Measured>) -> Vec<Self::Row>;

    /// Fills the rows' ratios (by default there are none).
    fn ratios(&self, _measured: &Passes<Self::Point, Self::Measured>, _rows: &mut [Self::Row]) {}
}

/// What a bench tells the user while it runs (a progress bar, in the CLI).
pub trait Progress {
    /// The work ahead, in steps: runs, or the ticks of every run.
    fn length(&mut self, steps: u64);
    /// `done` steps are behind; `what` is under way.
    fn at(&mut self, done: u64, what: &str);
    /// One more step is behind.
    fn tick(&mut self) {}
    /// A warning, or a point skipped and why.
    fn note(&mut self, text: &str);
}

/// A point that cannot run on this machine, with the reason (reported, row left out).
#[derive(Debug)]
pub struct Skip(pub String);

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Skip {}

/// What a bench produced: its rows, and the points it had to skip, with why.
#[derive(Debug)]
pub struct Outcome<P, R> {
    pub rows: Vec<R>,
    pub skipped: Vec<(P, String)>,
}

/// Every measurement of every pass, in the order they were made.
#[derive(Debug)]
pub struct Passes<P, M> {
    runs: Vec<(u32, P, M)>,
}

impl<P: Copy + PartialEq, M> Passes<P, M> {
    /// The measurements `(pass, point, measured)`, in the order they were made.
    pub fn new(runs: Vec<(u32, P, M)>) -> Passes<P, M> {
        Passes { runs }
    }

    /// Every point measured, in the order first measured (the first pass's plan).
    pub fn points(&self) -> Vec<P> {
        let mut points = Vec::new();
        for (_, p, _) in &self.runs {
            if !points.contains(p) {
                points.push(*p);
            }
        }
        points
    }

    /// The runs of `point`, pass by pass.
    pub fn of(&self, point: &P) -> Vec<&M> {
        self.runs.iter().filter(|(_, p, _)| p == point).map(|(_, _, m)| m).collect()
    }

    /// One row per point measured, in the order first measured, from all its runs.
    pub fn rows<R>(&self, mut row: impl FnMut(&P, &[&M]) -> R) -> Vec<R> {
        self.points().iter().map(|p| row(p, &self.of(p))).collect()
    }

    /// The same runs as runs of finer points, each in the pass of its run: `split` names
    /// what one run measured together (the wake bench's backends, taking turns in one run).
    pub fn split<'a, Q: Copy + PartialEq, N>(&'a self, split: impl Fn(&'a M) -> Vec<(Q, N)>) -> Passes<Q, N> {
        let runs = self.runs.iter().flat_map(|(pass, _, m)| split(m).into_iter().map(move |(q, n)| (*pass, q, n)));
        Passes::new(runs.collect())
    }

    /// `metric` of `point` ÷ `metric` of `baseline` in the same pass, the lower median over
    /// the passes that measured both (finite ratios only); `None` if there is none.
    pub fn paired(&self, point: &P, baseline: &P, metric: impl Fn(&M) -> f64) -> Option<f64> {
        let in_pass = |pass: u32, q: &P| self.runs.iter().find(|(k, p, _)| *k == pass && p == q).map(|(_, _, m)| m);
        let ratios: Vec<f64> = (self.runs.iter())
            .filter(|(_, p, _)| p == point)
            .filter_map(|(pass, _, m)| Some(metric(m) / metric(in_pass(*pass, baseline)?)))
            .filter(|r| r.is_finite())
            .collect();
        (!ratios.is_empty()).then(|| median(ratios))
    }
}

/// Every group with every variant, groups in order; the variants' order reversed on odd
/// passes so that no variant always goes first.
pub fn alternating<G: Copy, V: Copy, P>(pass: u32, groups: &[G], variants: &[V], point: impl Fn(G, V) -> P) -> Vec<P> {
    let order = backwards_on_odd(pass, variants);
    groups.iter().flat_map(|&g| order.iter().map(move |&v| (g, v))).map(|(g, v)| point(g, v)).collect()
}

/// `points` in order, backwards on odd passes: a pass starts with the point the previous
/// one ended with, and each pair of points runs in both orders.
pub fn backwards_on_odd<P: Copy>(pass: u32, points: &[P]) -> Vec<P> {
    let mut order = points.to_vec();
    if pass % 2 == 1 {
        order.reverse();
    }
    order
}

/// Runs every pass of `bench` (see the module's doc) and makes its rows.
pub fn run<B: Bench>(bench: &mut B, progress: &mut dyn Progress) -> Result<Outcome<B::Point, B::Row>> {
    let run_dir = bench.files().map(|parent| RunDir::create(parent, &mut |text| progress.note(text))).transpose()?;
    bench.start(progress)?;
    let plan: Vec<(u32, B::Point)> =
        (0..bench.passes()).flat_map(|pass| bench.plan(pass).into_iter().map(move |p| (pass, p))).collect();
    let (total, ticks) = (plan.len(), bench.ticks());
    progress.length(total as u64 * ticks.max(1));
    let (mut runs, mut skipped) = (Vec::new(), Vec::<(B::Point, String)>::new());
    for (k, &(pass, point)) in plan.iter().enumerate() {
        interrupt::check()?;
        if skipped.iter().any(|(s, _)| *s == point) {
            continue;
        }
        // A bench of runs says which pass; one of ticks, which run of how many.
        let what = match ticks {
            0 => format!("{point} (run {})", pass + 1),
            _ => point.to_string(),
        };
        match ticks {
            0 => progress.at(k as u64, &what),
            _ => progress.at(k as u64 * ticks, &format!("[{}/{total}] {what}", k + 1)),
        }
        let measured = match &run_dir {
            Some(run_dir) => {
                in_fresh_dir(&run_dir.path().join(format!("r{k}")), |dir| bench.measure(&point, dir, progress))
            }
            None => bench.measure(&point, Path::new(""), progress),
        };
        match measured.map_err(|e| e.downcast::<Skip>()) {
            Ok(m) => runs.push((pass, point, m)),
            Err(Ok(skip)) => {
                progress.note(&format!("skipped {point}: {skip}"));
                skipped.push((point, skip.0));
            }
            Err(Err(e)) if B::RUN.is_empty() => return Err(e),
            Err(Err(e)) => return Err(e.context(format!("{} {what}", B::RUN))),
        }
    }
    if let Some(run_dir) = run_dir {
        run_dir.close()?;
    }
    let measured = Passes::new(runs);
    let mut rows = bench.rows(&measured);
    bench.ratios(&measured, &mut rows);
    Ok(Outcome { rows, skipped })
}

/// Runs `f` in `dir`, created (mode 0700) before and removed after, also when `f` fails.
pub(crate) fn in_fresh_dir<T>(dir: &Path, f: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    std::fs::DirBuilder::new().mode(0o700).create(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let result = f(dir);
    let removed = std::fs::remove_dir_all(dir).with_context(|| format!("cannot remove {}", dir.display()));
    let value = result?;
    removed?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two variants, `new` and `old` (the baseline), at one size, with fixed figures per
    /// pass; `new` cannot run at size 2.
    struct Fake {
        passes: u32,
        sizes: Vec<u32>,
        /// Per pass, (new, old) ns.
        ns: Vec<(f64, f64)>,
        ran: Vec<String>,
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Point {
        new: bool,
        size: u32,
    }

    impl fmt::Display for Point {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{} {}", if self.new { "new" } else { "old" }, self.size)
        }
    }

    #[derive(Debug, PartialEq)]
    struct Row {
        point: Point,
        ns: f64,
        passes: usize,
        vs_old: Option<f64>,
    }

    impl Bench for Fake {
        type Point = Point;
        type Measured = f64;
        type Row = Row;

        fn passes(&self) -> u32 {
            self.passes
        }

        fn plan(&self, pass: u32) -> Vec<Point> {
            alternating(pass, &self.sizes, &[true, false], |size, new| Point { new, size })
        }

        fn measure(&mut self, point: &Point, dir: &Path, _: &mut dyn Progress) -> Result<f64> {
            assert_eq!(dir, Path::new(""), "no files asked for");
            let pass = self.ran.iter().filter(|r| **r == point.to_string()).count();
            self.ran.push(point.to_string());
            if point.new && point.size == 2 {
                return Err(Skip("not here".into()).into());
            }
            let (new, old) = self.ns[pass];
            Ok(if point.new { new } else { old })
        }

        fn rows(&self, measured: &Passes<Point, f64>) -> Vec<Row> {
            measured.rows(|&point, runs| Row {
                point,
                ns: median(runs.iter().map(|m| **m).collect()),
                passes: runs.len(),
                vs_old: None,
            })
        }

        fn ratios(&self, measured: &Passes<Point, f64>, rows: &mut [Row]) {
            for r in rows.iter_mut().filter(|r| r.point.new) {
                r.vs_old = measured.paired(&r.point, &Point { new: false, ..r.point }, |m| *m);
            }
        }
    }

    struct Quiet(Vec<String>);

    impl Progress for Quiet {
        fn length(&mut self, _: u64) {}
        fn at(&mut self, _: u64, _: &str) {}
        fn note(&mut self, text: &str) {
            self.0.push(text.into());
        }
    }

    #[test]
    fn passes_alternate_and_ratios_pair_runs_of_the_same_pass() {
        // new ÷ old per pass: 30/40, 10/40, 20/20 → 0.75, 0.25, 1.0: paired median 0.75,
        // where the medians' ratio (20/40 = 0.5) would pair runs of different passes.
        let ns = vec![(30.0, 40.0), (10.0, 40.0), (20.0, 20.0)];
        let mut bench = Fake { passes: 3, sizes: vec![1, 2], ns, ran: Vec::new() };
        let mut quiet = Quiet(Vec::new());
        let outcome = run(&mut bench, &mut quiet).unwrap();
        let order = ["new 1", "old 1", "new 2", "old 2", "old 1", "new 1", "old 2", "new 1", "old 1", "old 2"];
        assert_eq!(bench.ran, order, "variants swap every other pass; a skipped point does not run again");
        assert_eq!(quiet.0, ["skipped new 2: not here"]);
        assert_eq!(outcome.skipped, [(Point { new: true, size: 2 }, "not here".to_string())]);
        let new = Row { point: Point { new: true, size: 1 }, ns: 20.0, passes: 3, vs_old: Some(0.75) };
        let old = Row { point: Point { new: false, size: 1 }, ns: 40.0, passes: 3, vs_old: None };
        let old2 = Row { point: Point { new: false, size: 2 }, ns: 40.0, passes: 3, vs_old: None };
        assert_eq!(outcome.rows, [new, old, old2], "rows in the first pass's order, lower medians");
    }

    #[test]
    fn a_ratio_needs_both_sides_in_one_pass_and_a_finite_value() {
        let p = |new| Point { new, size: 1 };
        let runs =
            vec![(0, p(true), 6.0), (1, p(true), 9.0), (1, p(false), 3.0), (2, p(true), 1.0), (2, p(false), 0.0)];
        let passes = Passes::new(runs);
        assert_eq!(
            passes.paired(&p(true), &p(false), |m| *m),
            Some(3.0),
            "pass 0 has no baseline, pass 2 divides by 0"
        );
        assert_eq!(passes.paired(&p(false), &p(true), |m| *m), Some(0.0));
        assert_eq!(passes.paired(&p(true), &Point { new: false, size: 2 }, |m| *m), None);
        let halves = passes.split(|m| vec![(1, *m), (2, *m / 2.0)]);
        assert_eq!(halves.of(&2), [&3.0, &4.5, &1.5, &0.5, &0.0]);
        assert_eq!(halves.paired(&2, &1, |m| *m), Some(0.5), "each half ÷ its whole, pass by pass");
        assert_eq!(backwards_on_odd(1, &[1, 2, 3]), [3, 2, 1]);
        assert_eq!(backwards_on_odd(2, &[1, 2, 3]), [1, 2, 3]);
    }
}
