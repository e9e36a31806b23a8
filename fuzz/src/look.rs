//! A look at a whole root the way the tools take it: `inspect::snapshot` (what `ringbus
//! list` and `info` show), one topic by name, and the sweeps of `ringbus clean`.

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use std::hint::black_box;
use std::path::Path;

/// Which look.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Look {
    Snapshot,
    /// `inspect::topic` of the topic the scenarios use.
    Topic,
    /// `clean_with` as a dry run (removes nothing).
    DryClean,
    /// `clean`: removes what no live process uses.
    Clean,
    /// `clean_with { foreign: true }`: also removes what it cannot understand.
    CleanForeign,
}

/// Takes one look at the root at `path`, reading every value the look returns.
pub fn look(path: &Path, which: Look) {
    let Ok(root) = ringbus::Root::open(path) else {
        return;
    };
    match which {
        Look::Snapshot => {
            let snapshot = ringbus::inspect::snapshot(&root);
            for t in &snapshot.topics {
                black_box(t.settings.preallocated_pool_bytes(t.payload_align));
            }
            for q in &snapshot.queues {
                black_box(q.queued());
            }
            black_box(format!("{snapshot:?}"));
        }
        Look::Topic => {
            black_box(format!("{:?}", ringbus::inspect::topic(&root, crate::pubsub::TOPIC)));
        }
        Look::DryClean => {
            let options = ringbus::CleanOptions { dry_run: true, foreign: true };
            black_box(format!("{:?}", ringbus::clean_with(&root, options)));
        }
        Look::Clean => {
            black_box(format!("{:?}", ringbus::clean(&root)));
        }
        Look::CleanForeign => {
            let options = ringbus::CleanOptions { dry_run: false, foreign: true };
            black_box(format!("{:?}", ringbus::clean_with(&root, options)));
        }
    }
}

/// Every look, the sweeps that remove files last.
pub fn look_all(path: &Path) {
    for which in [Look::Snapshot, Look::Topic, Look::DryClean, Look::Clean, Look::CleanForeign] {
        look(path, which);
    }
}
