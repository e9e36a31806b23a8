//! What the benches made of separate runs (`tokens`, `polling`) share: the plan that
//! alternates the order of the compared variants between repetitions, and the loop that
//! measures each run in a fresh directory of the bench's run directory (`fanout` uses that
//! directory helper too).

use crate::interrupt;
use crate::rundir::RunDir;
use anyhow::{Context, Result};
use std::fmt::Display;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

/// What a bench tells the user while its runs go.
pub trait Progress<R> {
    /// Run `index` of `total` starts.
    fn run(&mut self, index: usize, total: usize, run: &R);
    /// A warning, with the reason.
    fn note(&mut self, text: &str);
}

/// Every (repetition, group, variant), repetition-major; within a repetition the groups
/// in the order given, and the variants' order reversed on odd repetitions so that no
/// variant always goes first.
pub(crate) fn alternating<G: Copy, V: Copy>(repeat: u32, groups: &[G], variants: &[V]) -> Vec<(u32, G, V)> {
    let mut out = Vec::new();
    for repetition in 0..repeat {
        for &group in groups {
            let mut order = variants.to_vec();
            if repetition % 2 == 1 {
                order.reverse();
            }
            out.extend(order.into_iter().map(|variant| (repetition, group, variant)));
        }
    }
    out
}

/// Measures every run, each in a fresh directory `r<k>` of a new run directory under
/// `parent` (removed afterwards, also on error and Ctrl-C).
pub(crate) fn measure_all<R: Display, M>(
    parent: &Path,
    runs: &[R],
    progress: &mut dyn Progress<R>,
    mut measure: impl FnMut(&R, &Path) -> Result<M>,
) -> Result<Vec<M>> {
    let run_dir = RunDir::create(parent, &mut |text| progress.note(text))?;
    let mut measured = Vec::with_capacity(runs.len());
    for (k, r) in runs.iter().enumerate() {
        interrupt::check()?;
        progress.run(k, runs.len(), r);
        let dir = run_dir.path().join(format!("r{k}"));
        let m = in_fresh_dir(&dir, |dir| measure(r, dir)).map_err(|e| e.context(format!("run {r}")))?;
        measured.push(m);
    }
    run_dir.close()?;
    Ok(measured)
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
    #[test]
    fn variants_alternate_between_repetitions() {
        let plan = super::alternating(2, &[8, 16], &['p', 's']);
        assert_eq!(
            plan,
            [
                (0, 8, 'p'),
                (0, 8, 's'),
                (0, 16, 'p'),
                (0, 16, 's'),
                (1, 8, 's'),
                (1, 8, 'p'),
                (1, 16, 's'),
                (1, 16, 'p')
            ]
        );
    }
}
