//! Every blocking call of the module goes through [`wait_in_slices`]: it releases the GIL
//! (other Python threads run) and sleeps in the core in slices of at most [`SLICE`], with
//! Python's signal handlers run between slices, so Ctrl-C raises `KeyboardInterrupt`
//! within one slice.

use crate::errors::{Error, Result};
use pyo3::prelude::*;
use std::time::{Duration, Instant};

/// The longest sleep between two checks for signals: Ctrl-C interrupts a blocking call
/// within 100 ms. Each slice that ends without a result is a wake-up of the process (tens
/// of microseconds of CPU on a VM), so the slice is as long as that bound allows: a wait
/// set whose timer ticks at 10 Hz or faster is never cut (a node that polls its inputs in
/// a 10 Hz timer wakes 10 times a second, not 20). The core's waits sleep through signals,
/// so slices are how Python's handlers get to run.
pub(crate) const SLICE: Duration = Duration::from_millis(100);

/// A Python timeout in seconds (`None`: forever) as a `Duration`.
pub(crate) fn timeout(seconds: Option<f64>) -> Result<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(s) => limit(s).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "timeout must be a number of seconds >= 0, or None to wait forever (got {s})"
            ))
        }),
    }
}

/// A number of seconds as the longest wait: `Some(None)` for forever (infinity, or more than
/// a `Duration` holds), `None` for NaN or a negative number.
pub(crate) fn limit(seconds: f64) -> Option<Option<Duration>> {
    match seconds {
        s if s.is_nan() || s < 0.0 => None,
        s => Some(Duration::try_from_secs_f64(s).ok()),
    }
}

/// Calls `attempt(slice)` with the GIL released until it returns `Some` or an error, or
/// `timeout` passes (then [`Error::Timeout`]). `attempt` sleeps at most `slice` and
/// returns `None` when that slice passed without a result.
pub(crate) fn wait_in_slices<T: Send>(
    py: Python<'_>,
    timeout: Option<Duration>,
    mut attempt: impl FnMut(Duration) -> Result<Option<T>> + Send,
) -> Result<T> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        let slice = match deadline {
            None => SLICE,
            Some(d) => d.saturating_duration_since(Instant::now()).min(SLICE),
        };
        if let Some(found) = py.detach(|| attempt(slice))? {
            return Ok(found);
        }
        py.check_signals()?;
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Error::Timeout);
        }
    }
}
