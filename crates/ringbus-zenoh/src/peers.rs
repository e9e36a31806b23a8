//! Connection feedback on stderr: one line when a Zenoh peer connects or disconnects, and
//! one when the `--connect` endpoints have reached nobody after a few seconds. Zenoh's
//! stable API tells which peers a session has (by Zenoh id), not through which link, so a
//! peer is named by its id only, and "nothing answered" is said only while the bridge
//! has no peer at all.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use zenoh::session::ZenohId;
use zenoh::Wait;

/// How long the `--connect` endpoints may take before the bridge says nothing answered.
pub(crate) const CONNECT_GRACE: Duration = Duration::from_secs(3);

/// The peers last seen, and whether the silence of `--connect` was already reported.
pub(crate) struct PeerLog {
    known: BTreeSet<ZenohId>,
    connect: Vec<String>,
    started: Instant,
    silence_reported: bool,
}

impl PeerLog {
    /// A log for a session that connects to `connect` (maybe none).
    pub(crate) fn new(connect: &[String]) -> PeerLog {
        PeerLog { known: BTreeSet::new(), connect: connect.to_vec(), started: Instant::now(), silence_reported: false }
    }

    /// Compares the session's peers with those seen last time and logs the difference.
    pub(crate) fn poll(&mut self, session: &zenoh::Session) {
        let now: BTreeSet<ZenohId> = session.info().peers_zid().wait().collect();
        for zid in now.difference(&self.known) {
            eprintln!("ringbus-bridge: peer {zid} connected");
        }
        for zid in self.known.difference(&now) {
            eprintln!("ringbus-bridge: peer {zid} disconnected");
        }
        self.known = now;
        let silent = self.known.is_empty() && !self.connect.is_empty();
        if silent && !self.silence_reported && self.started.elapsed() >= CONNECT_GRACE {
            eprintln!(
                "ringbus-bridge: nothing answered on {} yet after {} s; still trying",
                self.connect.join(", "),
                CONNECT_GRACE.as_secs()
            );
            self.silence_reported = true;
        }
    }
}
