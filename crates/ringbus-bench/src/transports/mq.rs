//! Baseline: the payload in a shared slot ring, then one `mq_send()` of the 8-byte
//! sequence number to each subscriber's POSIX message queue — Agnocast's notification
//! path before its eventfd change. A subscriber blocks in `mq_receive()`.
//!
//! Queues have system-wide names; each is unlinked as soon as its subscriber opened it,
//! and again (harmlessly) when dropped, so none outlives the bench, whatever the exit path.

use super::slot_ring::SlotRing;
use super::{check, Endpoint, Fanout, Handoff, Received, Receiver};
use crate::config::Scenario;
use anyhow::{bail, Result};
use std::ffi::CString;
use std::path::Path;
use std::time::Duration;

const MSG_BYTES: usize = 8;
/// A sender that finds a queue full waits this long for room before giving up.
const FULL_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug)]
struct Queue {
    name: CString,
    mqd: libc::mqd_t,
    linked: bool,
}

impl Queue {
    fn create(name: &str) -> Result<Queue> {
        let cname = CString::new(name)?;
        // SAFETY: all-zero is a valid mq_attr; the fields that matter are set below.
        let mut attr: libc::mq_attr = unsafe { std::mem::zeroed() };
        attr.mq_maxmsg = 10;
        attr.mq_msgsize = MSG_BYTES as libc::c_long;
        let flags = libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_NONBLOCK | libc::O_CLOEXEC;
        // SAFETY: `cname` is NUL-terminated and `attr` a live mq_attr; both outlive the call.
        let mqd =
            unsafe { libc::mq_open(cname.as_ptr(), flags, 0o600 as libc::mode_t, &mut attr as *mut libc::mq_attr) };
        check(mqd.into(), || {
            format!(
                "mq_open({name}) failed; POSIX queues are limited by /proc/sys/fs/mqueue/queues_max and `ulimit -q`: \
                 raise them or use fewer --subs"
            )
        })?;
        Ok(Queue { name: cname, mqd, linked: true })
    }

    fn unlink(&mut self) {
        if std::mem::take(&mut self.linked) {
            // SAFETY: `name` is NUL-terminated.
            unsafe { libc::mq_unlink(self.name.as_ptr()) };
        }
    }

    /// Sends without blocking; if the queue is full, waits (bounded) for room.
    fn send(&self, msg: &[u8; MSG_BYTES]) -> Result<()> {
        // SAFETY: `msg` is MSG_BYTES live bytes; `mqd` is an open queue of ours.
        if unsafe { libc::mq_send(self.mqd, msg.as_ptr().cast(), MSG_BYTES, 0) } == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EAGAIN) {
            bail!("mq_send to {:?} failed: {err}", self.name);
        }
        let give_up = std::time::Instant::now() + FULL_TIMEOUT;
        loop {
            std::thread::sleep(Duration::from_micros(50));
            // SAFETY: as above.
            if unsafe { libc::mq_send(self.mqd, msg.as_ptr().cast(), MSG_BYTES, 0) } == 0 {
                return Ok(());
            }
            if std::time::Instant::now() > give_up {
                bail!("queue {:?} stayed full for {FULL_TIMEOUT:?}: its subscriber stopped reading", self.name);
            }
        }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        self.unlink();
        // SAFETY: `mqd` is open and closed only here.
        unsafe { libc::mq_close(self.mqd) };
    }
}

#[derive(Debug)]
pub(crate) struct MqFanout {
    ring: SlotRing,
    /// Per topic, its subscribers' queues.
    queues: Vec<Vec<Queue>>,
}

impl MqFanout {
    pub(crate) fn create(s: &Scenario, ring_path: &Path, tag: &str) -> Result<(MqFanout, Vec<Handoff>)> {
        let ring = SlotRing::create(ring_path, s.topics, s.payload_bytes)?;
        let mut queues: Vec<Vec<Queue>> = (0..s.topics).map(|_| Vec::new()).collect();
        let mut handoffs = Vec::new();
        for i in 0..s.subs {
            let name = format!("/ringbus-bench-{tag}-{i}");
            queues[s.topic_of(i) as usize].push(Queue::create(&name)?);
            let endpoint = Endpoint::Mq { queue: name, ring: ring_path.to_path_buf() };
            handoffs.push(Handoff { endpoint, inherit: None, child_end: None });
        }
        Ok((MqFanout { ring, queues }, handoffs))
    }
}

impl Fanout for MqFanout {
    fn publish(&mut self, topic: u32, seq: u64, t0_ns: u64, _warm: bool) -> Result<()> {
        self.ring.write(topic, seq, t0_ns);
        let msg = seq.to_le_bytes();
        for q in &self.queues[topic as usize] {
            q.send(&msg)?;
        }
        Ok(())
    }

    fn all_ready(&mut self) {
        self.queues.iter_mut().flatten().for_each(Queue::unlink);
    }
}

#[derive(Debug)]
pub(crate) struct MqReceiver {
    mqd: libc::mqd_t,
    ring: SlotRing,
    topic: u32,
}

impl MqReceiver {
    pub(crate) fn open(queue: &str, ring: &Path, s: &Scenario, topic: u32) -> Result<MqReceiver> {
        let cname = CString::new(queue)?;
        // SAFETY: `cname` is NUL-terminated; no attr is passed without O_CREAT.
        let mqd = unsafe { libc::mq_open(cname.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        check(mqd.into(), || format!("mq_open({queue}) for reading"))?;
        let ring = SlotRing::open(ring, s.topics, s.payload_bytes)?;
        Ok(MqReceiver { mqd, ring, topic })
    }
}

impl Receiver for MqReceiver {
    fn next(&mut self) -> Result<Received> {
        loop {
            let mut msg = [0u8; MSG_BYTES];
            // SAFETY: `msg` is MSG_BYTES writable bytes, the queue's message size.
            let n = unsafe { libc::mq_receive(self.mqd, msg.as_mut_ptr().cast(), MSG_BYTES, std::ptr::null_mut()) };
            check(n as libc::c_long, || "mq_receive".into())?;
            let seq = u64::from_le_bytes(msg);
            if let Some(t0_ns) = self.ring.read(self.topic, seq) {
                let at_ns = ringbus::diagnostics::monotonic_ns();
                return Ok(Received { seq, t0_ns, at_ns });
            }
        }
    }
}
