//! What the processes of a fan-out row spent over the measured messages: the publishing
//! thread's CPU per publish, all subscribers' CPU per message published and their
//! wake-ups (voluntary context switches) per delivery — read with `getrusage` by each side
//! at the end of warm-up and after the last message — and their ratios to the eventfd and
//! futex rows of the same pass (filled by `row::fill_ratios`). The idle floor (nobody
//! receives) has no subscriber figures.
//!
//! Who pays for the wake-ups differs: eventfd's publisher makes one per subscriber, a
//! ringbus publisher two and the first woken subscriber the rest. So the subscribers' CPU
//! alone moves with that choice; the total (publisher and subscribers) says what a message
//! costs the machine.

use super::Row;
use crate::report::{num, times, Table};
use crate::stats::median_finite;
use crate::usage::Usage;
use serde::Serialize;

/// What one row's processes spent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cost {
    /// CPU (user + system) of the publishing thread per measured publish, in µs.
    pub publisher_cpu_us_per_message: f64,
    /// CPU of all subscriber processes together per measured message published, in µs.
    pub subscribers_cpu_us_per_message: f64,
    /// Voluntary context switches of the subscribers per (message, subscriber) delivery:
    /// how often a subscriber went to sleep, so how often it was woken.
    pub wakeups_per_delivery: f64,
    /// `subscribers_cpu_us_per_message` divided by the eventfd row's, within a pass.
    pub subscribers_cpu_vs_eventfd: Option<f64>,
    /// Publisher and subscribers together per message divided by the eventfd row's, within
    /// a pass.
    pub total_cpu_vs_eventfd: Option<f64>,
    /// `subscribers_cpu_us_per_message` divided by the futex row's, within a pass.
    pub subscribers_cpu_vs_futex: Option<f64>,
    /// Last-subscriber e2e p50 divided by the futex row's, within a pass.
    pub last_e2e_p50_vs_futex: Option<f64>,
}

impl Cost {
    /// The figures of one run from the publisher's and the subscribers' usage over the
    /// measured window, for `publishes` messages delivered `deliveries` times.
    pub(crate) fn measured(publisher: Usage, subscribers: Usage, publishes: u64, deliveries: u64) -> Cost {
        let per = |v: u64, n: u64| if n == 0 { f64::NAN } else { v as f64 / n as f64 };
        Cost {
            publisher_cpu_us_per_message: per(publisher.user_us + publisher.sys_us, publishes),
            subscribers_cpu_us_per_message: per(subscribers.user_us + subscribers.sys_us, publishes),
            wakeups_per_delivery: per(subscribers.voluntary, deliveries),
            subscribers_cpu_vs_eventfd: None,
            total_cpu_vs_eventfd: None,
            subscribers_cpu_vs_futex: None,
            last_e2e_p50_vs_futex: None,
        }
    }

    /// Publisher and subscribers together per message, in µs.
    pub(crate) fn total_cpu_us_per_message(&self) -> f64 {
        self.publisher_cpu_us_per_message + self.subscribers_cpu_us_per_message
    }
}

/// One point's passes together: the median of each figure.
pub(crate) fn combine(passes: &[&Row]) -> Option<Cost> {
    let costs: Vec<Cost> = passes.iter().filter_map(|r| r.cost).collect();
    let each = |f: fn(&Cost) -> f64| median_finite(costs.iter().map(f));
    (!costs.is_empty()).then(|| Cost {
        publisher_cpu_us_per_message: each(|c| c.publisher_cpu_us_per_message),
        subscribers_cpu_us_per_message: each(|c| c.subscribers_cpu_us_per_message),
        wakeups_per_delivery: each(|c| c.wakeups_per_delivery),
        ..costs[0]
    })
}

/// `table` with the cost columns appended, if `rows` has any.
pub(crate) fn columns<'a>(table: Table<'a, Row>, rows: &[Row]) -> Table<'a, Row> {
    if rows.iter().all(|r| r.cost.is_none()) {
        return table;
    }
    let of = |cell: fn(&Cost) -> String| move |r: &Row| r.cost.as_ref().map_or_else(String::new, cell);
    let futex = rows.iter().any(|r| r.cost.is_some_and(|c| c.subscribers_cpu_vs_futex.is_some()));
    let table = table
        .number("pub CPU µs/msg", of(|c| num(c.publisher_cpu_us_per_message)))
        .number("subs CPU µs/msg", of(|c| num(c.subscribers_cpu_us_per_message)))
        .number("wake-ups/delivery", of(|c| format!("{:.2}", c.wakeups_per_delivery)))
        .number("subs CPU / eventfd", of(|c| times(c.subscribers_cpu_vs_eventfd, "")))
        .number("pub+subs CPU / eventfd", of(|c| times(c.total_cpu_vs_eventfd, "")));
    if !futex {
        return table;
    }
    table
        .number("subs CPU / futex", of(|c| times(c.subscribers_cpu_vs_futex, "")))
        .number("last e2e p50 / futex", of(|c| times(c.last_e2e_p50_vs_futex, "")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_per_message_and_per_delivery() {
        let publisher = Usage { user_us: 300, sys_us: 100, voluntary: 0, involuntary: 0 };
        let subscribers = Usage { user_us: 1_000, sys_us: 3_000, voluntary: 150, involuntary: 7 };
        let c = Cost::measured(publisher, subscribers, 100, 300);
        assert_eq!(c.publisher_cpu_us_per_message, 4.0);
        assert_eq!(c.subscribers_cpu_us_per_message, 40.0);
        assert_eq!(c.wakeups_per_delivery, 0.5);
        assert!(Cost::measured(publisher, subscribers, 0, 0).wakeups_per_delivery.is_nan());
        assert_eq!(c.total_cpu_us_per_message(), 44.0);
    }
}
