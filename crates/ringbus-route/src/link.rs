//! A link: one live connection of an endpoint (a UDP peer, a TCP connection, a ringbus
//! topic), with what the router learned on it, its filters, its counters, and where frames
//! for it go ([`Sink`]).

use crate::counters::Counters;
use crate::filter::Filter;
use crate::seen::Seen;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::Arc;

/// Identifies a link for the life of the process.
pub type LinkId = u64;

/// Where frames for a link go.
#[derive(Debug)]
pub enum Sink {
    /// A datagram per frame, sent by the forwarding thread itself on a shared socket.
    Udp { socket: Arc<UdpSocket>, peer: SocketAddr },
    /// A bounded queue drained by the link's writer thread (TCP, ringbus topics); a full
    /// queue drops the frame and counts it.
    Queue(SyncSender<Vec<u8>>),
    /// Counts and discards (benchmarks).
    Discard,
}

/// One live connection.
#[derive(Debug)]
pub struct Link {
    pub id: LinkId,
    /// The endpoint this link belongs to.
    pub endpoint: String,
    /// The peer: an address, or a topic.
    pub peer: String,
    pub counters: Counters,
    pub seen: Seen,
    pub filter_in: Filter,
    pub filter_out: Filter,
    sink: Sink,
    closed: AtomicBool,
}

/// Filters of an endpoint, shared by its links.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub input: Filter,
    pub output: Filter,
}

impl Link {
    pub fn new(endpoint: &str, peer: String, filters: &Filters, sink: Sink) -> Link {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Link {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            endpoint: endpoint.to_string(),
            peer,
            counters: Counters::default(),
            seen: Seen::new(),
            filter_in: filters.input.clone(),
            filter_out: filters.output.clone(),
            sink,
            closed: AtomicBool::new(false),
        }
    }

    /// From now on, frames for this link are not sent (its removal has begun).
    pub fn close(&self) {
        // Release/Acquire: a forwarding thread that sees the flag also sees why.
        self.closed.store(true, Ordering::Release);
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Sends one frame's bytes (never blocks), counting what happened. A UDP frame routed
    /// inside a batch leaves with the batch ([`crate::outbox`]).
    pub fn deliver(self: &Arc<Self>, bytes: &[u8]) {
        if self.is_closed() {
            return;
        }
        let sent = match &self.sink {
            Sink::Udp { socket, peer } => {
                if crate::outbox::defer(self, socket, *peer, bytes) {
                    return;
                }
                socket.send_to(bytes, peer).is_ok()
            }
            Sink::Queue(queue) => match queue.try_send(bytes.to_vec()) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            },
            Sink::Discard => true,
        };
        self.count_delivery(bytes.len(), sent);
    }

    /// Counts a frame of `len` bytes as sent, or as dropped.
    pub(crate) fn count_delivery(&self, len: usize, sent: bool) {
        if sent {
            self.counters.sent(len);
        } else {
            self.counters.dropped_out();
        }
    }
}
