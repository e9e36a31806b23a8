//! The routing rule, applied to each frame on the thread that received it.
//!
//! A frame received on a link is counted, passed through the link's input filter, and
//! its source (system, component) learned on that link. Its target is read from the
//! payload at the offsets the dialect table gives. Then, for every other link: a frame
//! with a target system goes only to links where that system (and, unless the target
//! component is 0, that component) was heard within the expiry; a frame with no target or
//! target system 0 goes to every link; never back out of the link it came in; each link's
//! output filter has the last word. The original bytes are sent, never re-encoded.

use crate::clock::Clock;
use crate::dialect::Dialect;
use crate::frame::Frame;
use crate::link::{Link, LinkId};
use crate::table::{LinkTable, Links};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How long a learned route lasts unless heard again, by default.
pub const DEFAULT_EXPIRY_MS: u64 = 10_000;

/// What one routing decision needs besides the links.
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    pub from: LinkId,
    /// `(target_system, target_component)`, 0 where absent.
    pub target: (u8, u8),
    /// Routes heard at or before this time have expired.
    pub since_ms: u64,
}

impl Decision {
    /// Whether `link` should get the frame, before its output filter.
    pub fn wants(&self, link: &Link) -> bool {
        link.id != self.from && (self.target.0 == 0 || link.seen.has(self.target.0, self.target.1, self.since_ms))
    }
}

/// Applies `decision` to `links`: `send` is called for each link that gets the frame.
/// Returns how many did.
pub fn route(decision: &Decision, frame: &Frame<'_>, links: &[Arc<Link>], mut send: impl FnMut(&Arc<Link>)) -> usize {
    let mut sent = 0;
    for link in links {
        if !decision.wants(link) {
            continue;
        }
        if !link.filter_out.passes(frame) {
            link.counters.filtered_out();
            continue;
        }
        send(link);
        sent += 1;
    }
    sent
}

/// Routes frames between the links of a table.
#[derive(Debug)]
pub struct Router<T: LinkTable = Links> {
    table: T,
    pub clock: Clock,
    expiry_ms: u64,
    dialect: &'static Dialect,
    unroutable: AtomicU64,
    refused_datagrams: AtomicU64,
}

impl<T: LinkTable + Default> Router<T> {
    pub fn new(expiry_ms: u64) -> Router<T> {
        Router {
            table: T::default(),
            clock: Clock::new(),
            expiry_ms,
            dialect: Dialect::common(),
            unroutable: AtomicU64::new(0),
            refused_datagrams: AtomicU64::new(0),
        }
    }
}

impl<T: LinkTable> Router<T> {
    pub fn dialect(&self) -> &'static Dialect {
        self.dialect
    }

    /// How long a learned route lasts unless heard again.
    pub fn expiry_ms(&self) -> u64 {
        self.expiry_ms
    }

    /// Handles one frame received on `from`: filter, learn, route, send.
    pub fn receive(&self, from: &Link, frame: &Frame<'_>) {
        from.counters.received(frame.bytes().len());
        if !from.filter_in.passes(frame) {
            from.counters.filtered_in();
            return;
        }
        let now = self.clock.now_ms();
        from.seen.learn(frame.source_system(), frame.source_component(), now);
        let decision = self.decision(from.id, frame);
        let sent = self.table.with_links(|links| route(&decision, frame, links, |to| to.deliver(frame.bytes())));
        if sent == 0 && decision.target.0 != 0 {
            self.unroutable.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The decision for `frame` from link `from`, at the clock's time.
    pub fn decision(&self, from: LinkId, frame: &Frame<'_>) -> Decision {
        let since_ms = self.clock.now_ms().saturating_sub(self.expiry_ms);
        Decision { from, target: frame.target(self.dialect), since_ms }
    }

    /// Routes without sending: how many links would get `frame` (benchmarks).
    pub fn count_destinations(&self, from: LinkId, frame: &Frame<'_>) -> usize {
        let decision = self.decision(from, frame);
        self.table.with_links(|links| links.iter().filter(|l| decision.wants(l)).count())
    }

    /// Targeted frames whose target was heard on no other link.
    pub fn unroutable(&self) -> u64 {
        self.unroutable.load(Ordering::Relaxed)
    }

    /// Counts a datagram refused: its sender would have been one peer too many, or it was a
    /// stranger to a `udp-out` endpoint (each endpoint also counts its own).
    pub fn refuse_datagram(&self) {
        self.refused_datagrams.fetch_add(1, Ordering::Relaxed);
    }

    /// Datagrams refused by every endpoint since the router started.
    pub fn refused_datagrams(&self) -> u64 {
        self.refused_datagrams.load(Ordering::Relaxed)
    }

    pub fn add(&self, link: Arc<Link>) {
        self.table.add(link);
    }

    /// Closes and takes out every link `remove` selects. Threads still routing through an
    /// older list keep those links alive (and send them nothing: they are closed) until
    /// they are done; see [`wait_unused`].
    pub fn remove_where(&self, remove: &dyn Fn(&Link) -> bool) -> Vec<Arc<Link>> {
        let gone = self.table.remove_where(remove);
        for link in &gone {
            link.close();
        }
        gone
    }

    /// The current links (a copy of the list).
    pub fn links(&self) -> Vec<Arc<Link>> {
        self.table.with_links(|links| links.to_vec())
    }
}

/// Waits until `link` is held by nobody but the caller: every list that contained it has
/// been let go by every forwarding thread. `false` if that took longer than `timeout`.
pub fn wait_unused(link: &Arc<Link>, timeout: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while Arc::strong_count(link) > 1 {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    true
}
