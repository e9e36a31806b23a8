//! What an endpoint tells about itself beyond its links' counters: whether it is connected
//! (a `tcp-out` that cannot reach its peer has no link to show, so the endpoint shows why),
//! and what it lost or turned away before any link saw it — datagrams from refused
//! senders, datagrams the kernel dropped because the socket's buffer was full, peers that
//! went silent or made room for a new one. `ringbus route ctl list` and `ringbus top` show
//! it; changes of state are logged on the router's standard error as they happen.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Where an endpoint's connection stands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
pub enum EndpointState {
    /// Bound and reading: a server, a UDP socket, a topic.
    #[default]
    Open,
    /// `tcp-out`: the first connection attempt is under way.
    Connecting,
    /// `tcp-out`: connected to `peer`.
    Connected { peer: String },
    /// `tcp-out`: `attempts` attempts in a row failed, the last with `error`; the next
    /// comes `retry_in_ms` after it.
    Retrying { attempts: u64, error: String, retry_in_ms: u64 },
}

impl fmt::Display for EndpointState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndpointState::Open => f.write_str("open"),
            EndpointState::Connecting => f.write_str("connecting"),
            EndpointState::Connected { peer } => write!(f, "connected to {peer}"),
            EndpointState::Retrying { attempts, error, retry_in_ms } => {
                let s = if *attempts == 1 { "" } else { "s" };
                write!(f, "not connected ({attempts} failed attempt{s}, next in {retry_in_ms} ms): {error}")
            }
        }
    }
}

/// An endpoint's counters of what never reached a link, at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthCounters {
    /// Datagrams refused: from a stranger (`udp-out`), or from one peer too many (`udp-in`).
    #[serde(default)]
    pub refused_datagrams: u64,
    /// Datagrams the kernel dropped at this endpoint's socket because its receive buffer
    /// was full (`SO_RXQ_OVFL`; as of the last datagram read). A larger `rcvbuf` helps.
    #[serde(default)]
    pub kernel_drops: u64,
    /// `udp-in` peers dropped after `peer_expiry_ms` of silence.
    #[serde(default)]
    pub expired_peers: u64,
    /// `udp-in` peers dropped, while the peer table was full, to make room for a new one.
    #[serde(default)]
    pub evicted_peers: u64,
}

/// An endpoint's state and counters, shared by its threads and read by the control socket.
#[derive(Debug, Default)]
pub struct Health {
    state: Mutex<EndpointState>,
    refused_datagrams: AtomicU64,
    kernel_drops: AtomicU64,
    expired_peers: AtomicU64,
    evicted_peers: AtomicU64,
}

fn add(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Health {
    pub fn state(&self) -> EndpointState {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Sets the state; the previous one.
    pub fn set_state(&self, state: EndpointState) -> EndpointState {
        std::mem::replace(&mut *self.state.lock().unwrap_or_else(|e| e.into_inner()), state)
    }

    pub fn refuse_datagram(&self) {
        add(&self.refused_datagrams);
    }

    pub fn peer_expired(&self) {
        add(&self.expired_peers);
    }

    pub fn peer_evicted(&self) {
        add(&self.evicted_peers);
    }

    /// Records the socket's drop count as the kernel reported it (it only grows; a smaller
    /// value, from a datagram queued earlier, changes nothing).
    pub fn kernel_dropped(&self, total: u64) {
        self.kernel_drops.fetch_max(total, Ordering::Relaxed);
    }

    pub fn counters(&self) -> HealthCounters {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        HealthCounters {
            refused_datagrams: get(&self.refused_datagrams),
            kernel_drops: get(&self.kernel_drops),
            expired_peers: get(&self.expired_peers),
            evicted_peers: get(&self.evicted_peers),
        }
    }
}
