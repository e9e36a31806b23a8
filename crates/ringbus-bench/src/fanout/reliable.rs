//! The `ringbus-reliable` rows' own figures: how many subscribers were reliable, how often
//! the publisher had to wait for them, and reliability's cost next to the lossy `ringbus`
//! row of the same point (ratios paired within a pass, filled by `row::fill_ratios`).
//! Other rows have none, neither in the table nor in the JSON.

use super::Row;
use crate::report::{times, Table};
use crate::transports::Blocked;
use serde::Serialize;

/// What a ringbus-reliable row adds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Reliable {
    /// Subscriber processes that were reliable (the first ones; the rest lossy).
    pub reliable_subs: u32,
    /// Measured publishes whose loan waited for a reliable subscriber to take the message
    /// it would overwrite: 0 while they keep up. Their publish latency includes the wait.
    pub blocked: u64,
    /// How long those loans waited, in all.
    pub blocked_ns: u64,
    /// Publish p50 divided by the ringbus row's of the same point, within a pass.
    pub publish_p50_vs_ringbus: Option<f64>,
    /// E2e p50 divided by the ringbus row's of the same point, within a pass.
    pub e2e_p50_vs_ringbus: Option<f64>,
}

impl Reliable {
    /// The figures of one run, ratios still to come.
    pub(crate) fn measured(b: Blocked) -> Reliable {
        Reliable {
            reliable_subs: b.reliable_subs,
            blocked: b.loans,
            blocked_ns: b.ns,
            publish_p50_vs_ringbus: None,
            e2e_p50_vs_ringbus: None,
        }
    }
}

/// One point's passes together: the waits added up.
pub(crate) fn combine(passes: &[&Row]) -> Option<Reliable> {
    passes.iter().filter_map(|r| r.reliable).reduce(|a, b| Reliable {
        blocked: a.blocked + b.blocked,
        blocked_ns: a.blocked_ns + b.blocked_ns,
        ..a
    })
}

/// `table` with the reliable rows' columns appended, if `rows` has any.
pub(crate) fn columns<'a>(table: Table<'a, Row>, rows: &[Row]) -> Table<'a, Row> {
    if rows.iter().all(|r| r.reliable.is_none()) {
        return table;
    }
    let of = |cell: fn(&Reliable) -> String| move |r: &Row| r.reliable.as_ref().map_or_else(String::new, cell);
    table
        .number("reliable subs", of(|r| r.reliable_subs.to_string()))
        .number("blocked", of(|r| r.blocked.to_string()))
        .number("publish p50 / ringbus", of(|r| times(r.publish_p50_vs_ringbus, "")))
        .number("e2e p50 / ringbus", of(|r| times(r.e2e_p50_vs_ringbus, "")))
}

/// A remark on a row whose publisher had to wait for a reliable subscriber, out of its
/// `publishes`.
pub(crate) fn note(row: &Row, publishes: u64) -> Option<String> {
    let r = row.reliable.filter(|r| r.blocked > 0)?;
    Some(format!(
        "{} of {publishes} publishes waited for a reliable subscriber to take a message ({:.3} ms in all); \
         their publish latency includes the wait",
        r.blocked,
        r.blocked_ns as f64 / 1e6
    ))
}
