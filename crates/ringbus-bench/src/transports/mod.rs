//! The transports under test, each in two halves: the publisher side ([`Fanout`], in the
//! bench process) and the subscriber side ([`Receiver`], in a subscriber process). The
//! bench hands each subscriber an [`Endpoint`] saying where to listen.

mod eventfd;
mod futex;
mod idle;
mod mq;
pub(crate) mod ringbus;
mod slot_ring;
mod uds;

use crate::config::{FanoutConfig, Scenario, Transport};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

/// Where one subscriber listens; sent to it as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum Endpoint {
    Ringbus { root: PathBuf, topic: String, polling: bool, reliable: bool },
    Eventfd { fd: RawFd, ring: PathBuf },
    Futex { ring: PathBuf, words: PathBuf },
    Mq { queue: String, ring: PathBuf },
    Uds { fd: RawFd },
}

/// The publisher side of a scenario.
pub(crate) trait Fanout {
    /// Publishes message `seq` on `topic` with `t0_ns` in its header. `warm`: a warm-up
    /// message, which may also write the whole payload. This is the timed call.
    fn publish(&mut self, topic: u32, seq: u64, t0_ns: u64, warm: bool) -> Result<()>;

    /// Whether the subscribers are where the scenario wants them (ringbus: all asleep).
    fn settled(&self) -> bool {
        true
    }

    /// Every subscriber is ready: names used only to rendezvous can go.
    fn all_ready(&mut self) {}

    /// Subscribers of `topic` asleep right now, where the transport can tell (ringbus).
    fn asleep(&self, _topic: u32) -> Option<u32> {
        None
    }

    /// Loans that waited for a reliable subscriber so far, where there is one (ringbus).
    fn blocked(&self) -> Option<Blocked> {
        None
    }
}

/// What reliable subscribers cost a publisher in waiting: loans that had to wait for
/// room, and how long they waited in all (`PublisherStats::blocked`, `blocked_ns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blocked {
    /// Subscribers that were reliable.
    pub reliable_subs: u32,
    pub loans: u64,
    pub ns: u64,
}

impl Blocked {
    /// The waits between `before` and `self`.
    pub(crate) fn since(self, before: Blocked) -> Blocked {
        Blocked { loans: self.loans - before.loans, ns: self.ns - before.ns, ..self }
    }
}

/// One message as a subscriber got it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Received {
    pub seq: u64,
    pub t0_ns: u64,
    /// `monotonic_ns()` once the payload was in hand.
    pub at_ns: u64,
}

/// The subscriber side: blocks (or polls) for the next message.
pub(crate) trait Receiver {
    fn next(&mut self) -> Result<Received>;
}

/// What one subscriber process gets: its endpoint and, for fd-based transports, the fd
/// it must inherit (its close-on-exec flag is cleared in the child only).
#[derive(Debug)]
pub(crate) struct Handoff {
    pub endpoint: Endpoint,
    pub inherit: Option<RawFd>,
    /// The subscriber's end of a socket pair: the bench closes its copy once the child
    /// has it, so a dead subscriber shows as a refused send rather than a silent one.
    pub child_end: Option<OwnedFd>,
}

pub(crate) use crate::driver::Skip;

/// Sets up the publisher side of `s` in `dir` and the endpoints of its subscribers (none
/// for the idle floor, which has no subscriber to start); `config.direct_wakes` goes to
/// ringbus publishers and to the futex baseline, `config.reliable` to ringbus-reliable.
/// `tag` makes system-wide names (message queues) unique to this run and scenario.
pub(crate) fn setup(
    s: &Scenario,
    dir: &Path,
    tag: &str,
    config: &FanoutConfig,
) -> Result<(Box<dyn Fanout>, Vec<Handoff>)> {
    let direct_wakes = config.direct_wakes;
    Ok(match s.transport {
        Transport::Ringbus | Transport::RingbusPolling | Transport::RingbusReliable => {
            let reliable_subs = config.reliable_subs(s);
            let (f, h) = ringbus::RingbusFanout::create(s, &dir.join("ringbus"), direct_wakes, reliable_subs)?;
            (Box::new(f), h)
        }
        Transport::Eventfd => {
            let (f, h) = eventfd::EventfdFanout::create(s, &dir.join("ring"))?;
            (Box::new(f), h)
        }
        Transport::Futex => {
            let (f, h) = futex::FutexFanout::create(s, dir, direct_wakes)?;
            (Box::new(f), h)
        }
        Transport::Mq => {
            let (f, h) = mq::MqFanout::create(s, &dir.join("ring"), tag)?;
            (Box::new(f), h)
        }
        Transport::Uds => {
            let (f, h) = uds::UdsFanout::create(s)?;
            (Box::new(f), h)
        }
        Transport::IdleFloor => (Box::new(idle::IdleFloor::new()), Vec::new()),
    })
}

/// Opens the subscriber side of `endpoint` for subscriber `index` on `topic`.
pub(crate) fn receiver(s: &Scenario, index: u32, endpoint: &Endpoint) -> Result<Box<dyn Receiver>> {
    let topic = s.topic_of(index);
    Ok(match endpoint {
        Endpoint::Ringbus { root, topic, polling, reliable } => {
            Box::new(ringbus::RingbusReceiver::open(root, topic, *polling, *reliable, index)?)
        }
        Endpoint::Eventfd { fd, ring } => Box::new(eventfd::EventfdReceiver::open(*fd, ring, s, topic)?),
        Endpoint::Futex { ring, words } => Box::new(futex::FutexReceiver::open(ring, words, s, topic)?),
        Endpoint::Mq { queue, ring } => Box::new(mq::MqReceiver::open(queue, ring, s, topic)?),
        Endpoint::Uds { fd } => Box::new(uds::UdsReceiver::open(*fd, s.payload_bytes)?),
    })
}

/// Takes ownership of an fd number inherited from the bench, after checking it is open.
pub(crate) fn adopt_fd(fd: RawFd, what: &str) -> Result<OwnedFd> {
    // SAFETY: F_GETFD only queries the descriptor table; an unknown fd yields EBADF.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    check(flags.into(), || format!("the {what} fd {fd} handed down by the bench is not open"))?;
    // SAFETY: the fd is open (checked above) and was handed to this process alone by the
    // bench; nothing else in this process owns it.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // Close-on-exec again: nothing this process might start should inherit it.
    // SAFETY: F_SETFD with a flag word on an fd we own.
    unsafe { libc::fcntl(owned.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    Ok(owned)
}

/// `Err(last_os_error)` with context when a libc call returned -1.
pub(crate) fn check(ret: libc::c_long, what: impl FnOnce() -> String) -> Result<libc::c_long> {
    if ret < 0 {
        Err(std::io::Error::last_os_error()).with_context(what)
    } else {
        Ok(ret)
    }
}
