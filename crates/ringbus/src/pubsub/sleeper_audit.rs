//! Finding subscribers that died asleep, from the publisher's side.
//!
//! A subscriber killed while counted in the topic's sleepers leaves the count too high,
//! so every publish makes a wake call that wakes nobody — forever, unless someone takes
//! the count back. Whoever takes the dead slot over does (see `TopicHandle::reclaim_subscriber`),
//! but a slot may stay empty for good. So a publisher whose wake call found nobody while
//! sleepers were counted audits the subscriber slots that say they sleep: a slot whose
//! lock nobody holds is dead, and its registrations are taken back.
//!
//! A wake that finds nobody also happens to the living (a subscriber counted a moment
//! before its `FUTEX_WAIT`), so audits that find nobody dead back off: the next audit
//! waits for twice as many such wakes, up to [`MAX_BACKOFF`]. An audit costs one lock
//! query per subscriber slot that says it sleeps.

/// The most wakes-that-found-nobody between two audits that find nobody dead.
const MAX_BACKOFF: u32 = 1024;

/// When the next audit is due.
#[derive(Debug, Default)]
pub(crate) struct SleeperAudit {
    /// Wakes that found nobody to let pass before the next audit.
    skip: u32,
    /// What `skip` is set to after an audit that found nobody dead.
    backoff: u32,
}

impl SleeperAudit {
    /// A wake call found nobody while sleepers were counted: whether to audit now.
    pub(crate) fn woke_nobody(&mut self) -> bool {
        match self.skip.checked_sub(1) {
            Some(left) => {
                self.skip = left;
                false
            }
            None => true,
        }
    }

    /// The audit is done; `found_dead`: it took back a dead subscriber's registrations.
    pub(crate) fn audited(&mut self, found_dead: bool) {
        self.backoff = if found_dead { 0 } else { (self.backoff * 2).clamp(1, MAX_BACKOFF) };
        self.skip = self.backoff;
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn audits_at_once_then_back_off_while_nobody_is_found_dead() {
        let mut audit = SleeperAudit::default();
        let mut due = Vec::new();
        for i in 0..40 {
            if audit.woke_nobody() {
                due.push(i);
                audit.audited(false);
            }
        }
        assert_eq!(due, [0, 2, 5, 10, 19, 36]);
        audit.audited(true);
        assert!(audit.woke_nobody(), "after a dead one was found, the next audit is at once");
    }

    #[test]
    fn the_backoff_is_bounded() {
        let mut audit = SleeperAudit::default();
        for _ in 0..40 {
            audit.audited(false);
        }
        assert_eq!(audit.skip, MAX_BACKOFF);
    }
}
