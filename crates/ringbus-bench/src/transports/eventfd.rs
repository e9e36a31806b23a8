//! Baseline: the payload in a shared slot ring, then one `write()` of 1 to each
//! subscriber's eventfd — N system calls per publish, like Agnocast after its eventfd
//! change minus the kernel module doing the loop. A subscriber blocks in `read()`.

use super::slot_ring::SlotRing;
use super::{adopt_fd, check, Endpoint, Fanout, Handoff, Received, Receiver};
use crate::config::Scenario;
use anyhow::{ensure, Result};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

#[derive(Debug)]
pub(crate) struct EventfdFanout {
    ring: SlotRing,
    /// Per topic, the eventfds of its subscribers.
    fds: Vec<Vec<OwnedFd>>,
}

impl EventfdFanout {
    pub(crate) fn create(s: &Scenario, ring_path: &Path) -> Result<(EventfdFanout, Vec<Handoff>)> {
        let ring = SlotRing::create(ring_path, s.topics, s.payload_bytes)?;
        let mut fds: Vec<Vec<OwnedFd>> = (0..s.topics).map(|_| Vec::new()).collect();
        let mut handoffs = Vec::new();
        for i in 0..s.subs {
            // Close-on-exec here; the child that owns it clears the flag in its own copy.
            // SAFETY: eventfd takes no pointers.
            let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
            check(fd.into(), || "eventfd() failed; raise the open-file limit (ulimit -n)".into())?;
            // SAFETY: the kernel just returned this fd and nothing else owns it.
            let fd = unsafe { OwnedFd::from_raw_fd(fd) };
            let raw = fd.as_raw_fd();
            fds[s.topic_of(i) as usize].push(fd);
            let endpoint = Endpoint::Eventfd { fd: raw, ring: ring_path.to_path_buf() };
            handoffs.push(Handoff { endpoint, inherit: Some(raw), child_end: None });
        }
        Ok((EventfdFanout { ring, fds }, handoffs))
    }
}

impl Fanout for EventfdFanout {
    fn publish(&mut self, topic: u32, seq: u64, t0_ns: u64, _warm: bool) -> Result<()> {
        self.ring.write(topic, seq, t0_ns);
        let one = 1u64;
        for fd in &self.fds[topic as usize] {
            // SAFETY: writes 8 bytes from a live u64 to an eventfd we own.
            let n = unsafe { libc::write(fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
            check(n as libc::c_long, || format!("write() to the eventfd of a topic-{topic} subscriber"))?;
        }
        Ok(())
    }
}

#[derive(Debug)]
pub(crate) struct EventfdReceiver {
    fd: OwnedFd,
    ring: SlotRing,
    topic: u32,
    /// Notifications read but not yet processed (an eventfd read returns their sum).
    pending: u64,
    next_seq: u64,
}

impl EventfdReceiver {
    pub(crate) fn open(fd: i32, ring: &Path, s: &Scenario, topic: u32) -> Result<EventfdReceiver> {
        let fd = adopt_fd(fd, "eventfd")?;
        let ring = SlotRing::open(ring, s.topics, s.payload_bytes)?;
        Ok(EventfdReceiver { fd, ring, topic, pending: 0, next_seq: 0 })
    }
}

impl Receiver for EventfdReceiver {
    fn next(&mut self) -> Result<Received> {
        loop {
            if self.pending == 0 {
                let mut count = 0u64;
                // SAFETY: reads 8 bytes into a live u64 from an eventfd we own.
                let n = unsafe { libc::read(self.fd.as_raw_fd(), (&mut count as *mut u64).cast(), 8) };
                check(n as libc::c_long, || "read() from the eventfd".into())?;
                ensure!(n == 8 && count > 0, "eventfd read returned {n} bytes, count {count}");
                self.pending = count;
            }
            self.pending -= 1;
            let seq = self.next_seq;
            self.next_seq += 1;
            // `None`: the slot was overwritten (we fell 64 messages behind); it stays
            // unrecorded and shows as lost.
            if let Some(t0_ns) = self.ring.read(self.topic, seq) {
                let at_ns = ringbus::diagnostics::monotonic_ns();
                return Ok(Received { seq, t0_ns, at_ns });
            }
        }
    }
}
