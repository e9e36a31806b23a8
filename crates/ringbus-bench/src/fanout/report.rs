//! The fan-out results as markdown: one row per scenario, then remarks on rows whose
//! precondition did not always hold or whose publisher waited for a reliable subscriber.

use super::{cost, reliable, Row};
use crate::config::format_size;
use crate::report::{num, times, Table};

/// The results as a markdown table, one row per (transport, subs, topics, payload). With
/// several topics per tick, two more columns: e2e from the tick's start, and its ratio;
/// with the futex baseline, one more: ringbus's e2e over its; with ringbus-reliable rows,
/// their reliable subscribers, waits and ratios to ringbus; then what each side spent
/// (CPU per message, wake-ups) and its ratios.
pub fn markdown(rows: &[Row]) -> String {
    let ticks = rows.iter().any(|r| r.topics > 1);
    let futex = rows.iter().any(|r| r.e2e_p50_vs_futex.is_some());
    let mut table = Table::<Row>::new()
        .text("transport", |r| r.transport.to_string())
        .number("subs", |r| r.subs.to_string())
        .number("topics", |r| r.topics.to_string())
        .number("payload", |r| format_size(r.payload_bytes))
        .number("msgs", |r| r.messages.to_string())
        .number("publish p50 µs", |r| num(r.publish_p50_us))
        .number("publish p99 µs", |r| num(r.publish_p99_us))
        .number("e2e p50 µs", |r| num(r.e2e_p50_us))
        .number("e2e p99 µs", |r| num(r.e2e_p99_us))
        .number("last e2e p50 µs", |r| num(r.last_e2e_p50_us))
        .number("last e2e p99 µs", |r| num(r.last_e2e_p99_us))
        .number("syscalls/publish", |r| r.syscalls_per_publish.map_or_else(|| "n/a".into(), |v| format!("{v:.2}")))
        .number("syscalls max", |r| r.syscalls_max.map_or_else(|| "n/a".into(), |v| v.to_string()))
        .number("lost", |r| r.lost.to_string())
        .number("publish p50 / eventfd", |r| times(r.publish_p50_vs_eventfd, ""))
        .number("e2e p50 / eventfd", |r| times(r.e2e_p50_vs_eventfd, ""))
        .number("publish p50 / idle floor", |r| times(r.publish_p50_vs_idle_floor, ""));
    if ticks {
        table = table
            .number("tick e2e p50 µs", |r| num(r.tick_e2e_p50_us))
            .number("tick e2e p50 / eventfd", |r| times(r.tick_e2e_p50_vs_eventfd, ""));
    }
    if futex {
        table = table.number("e2e p50 / futex", |r| times(r.e2e_p50_vs_futex, ""));
    }
    cost::columns(reliable::columns(table, rows), rows).markdown(rows)
}

/// Remarks a reader of the table needs: rows whose precondition (every subscriber asleep
/// when a message is published) did not always hold, and rows whose publisher waited for
/// a reliable subscriber.
pub fn notes(rows: &[Row]) -> Vec<String> {
    let mut notes = Vec::new();
    for r in rows {
        let label = format!("{} subs={} payload={}", r.transport, r.subs, format_size(r.payload_bytes));
        let publishes = r.messages * r.topics as u64;
        if let Some(n) = r.publishes_not_all_asleep.filter(|&n| n > 0) {
            notes.push(format!(
                "{label}: {n} of {publishes} publishes found some subscribers still awake \
                 (busy with the previous message); they were not woken, only polled on their way back"
            ));
        }
        notes.extend(reliable::note(r, publishes).map(|note| format!("{label}: {note}")));
    }
    notes
}
