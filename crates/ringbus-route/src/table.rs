//! The set of live links, read by every forwarding thread on every frame.
//!
//! [`Links`] is the router's: an `ArcSwap` of an immutable list. A forwarding thread takes
//! a guard with `load()` — no lock, no shared counter written in the common case — and
//! walks the list; adding or removing a link builds a new list and swaps it in (`rcu`).
//! A list, and every link in it, stays alive while any thread still holds a guard on it
//! (arc-swap's debts are paid into real reference counts when a list is replaced), so a
//! removed link is freed only after its last reader is done. [`MutexLinks`] is the usual
//! design (PX4's MAVLink forwarding held such a mutex) — the same list behind one global
//! mutex held for the whole routing decision — kept only as the baseline of
//! `ringbus bench route`.

use crate::link::{Link, LinkId};
use arc_swap::ArcSwap;
use std::sync::{Arc, Mutex};

/// A table the router can forward through: it lends the current list for one decision.
pub trait LinkTable: Send + Sync {
    fn with_links<R>(&self, f: impl FnOnce(&[Arc<Link>]) -> R) -> R;
    fn add(&self, link: Arc<Link>);
    /// Takes out every link `remove` selects and returns them.
    fn remove_where(&self, remove: &dyn Fn(&Link) -> bool) -> Vec<Arc<Link>>;
}

/// The lock-free table.
#[derive(Debug, Default)]
pub struct Links {
    list: ArcSwap<Vec<Arc<Link>>>,
}

impl LinkTable for Links {
    fn with_links<R>(&self, f: impl FnOnce(&[Arc<Link>]) -> R) -> R {
        let guard = self.list.load();
        f(&guard)
    }

    fn add(&self, link: Arc<Link>) {
        self.list.rcu(|old| {
            let mut new = Vec::clone(old);
            new.push(link.clone());
            new
        });
    }

    fn remove_where(&self, remove: &dyn Fn(&Link) -> bool) -> Vec<Arc<Link>> {
        let old = self.list.rcu(|old| old.iter().filter(|l| !remove(l)).cloned().collect::<Vec<_>>());
        old.iter().filter(|l| remove(l)).cloned().collect()
    }
}

/// The mutex-protected table: one mutex held for the whole decision (benchmark baseline
/// only).
#[derive(Debug, Default)]
pub struct MutexLinks {
    list: Mutex<Vec<Arc<Link>>>,
}

impl LinkTable for MutexLinks {
    fn with_links<R>(&self, f: impl FnOnce(&[Arc<Link>]) -> R) -> R {
        let list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        f(&list)
    }

    fn add(&self, link: Arc<Link>) {
        self.list.lock().unwrap_or_else(|e| e.into_inner()).push(link);
    }

    fn remove_where(&self, remove: &dyn Fn(&Link) -> bool) -> Vec<Arc<Link>> {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        let (gone, kept) = list.drain(..).partition(|l| remove(l));
        *list = kept;
        gone
    }
}

/// Whether `id` is in `links` (tests and tools).
pub fn contains(links: &[Arc<Link>], id: LinkId) -> bool {
    links.iter().any(|l| l.id == id)
}
