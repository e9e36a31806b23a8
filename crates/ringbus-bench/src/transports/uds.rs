//! Baseline: a copy of the whole message (header + payload) to each subscriber as one
//! `AF_UNIX` datagram over its own socket pair — the classic copying fan-out. A
//! subscriber blocks in `recv()`, which copies the message again into its buffer.

use super::{adopt_fd, check, Endpoint, Fanout, Handoff, Received, Receiver, Skip};
use crate::config::{format_size, Scenario};
use anyhow::{ensure, Result};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// What an `AF_UNIX` datagram costs beyond its payload in the sender's budget
/// (`unix_dgram_sendmsg` refuses `len > sk_sndbuf - 32`).
const DGRAM_OVERHEAD: u64 = 32;
/// A sender blocked on a full socket gives up after this long.
const SEND_TIMEOUT_S: libc::time_t = 10;

fn set_int(fd: RawFd, option: libc::c_int, value: libc::c_int) -> std::io::Result<()> {
    // SAFETY: passes a live c_int of the size given to a socket option of that type.
    let r = unsafe {
        libc::setsockopt(fd, libc::SOL_SOCKET, option, (&value as *const libc::c_int).cast(), 4 as libc::socklen_t)
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn get_int(fd: RawFd, option: libc::c_int) -> std::io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut len = 4 as libc::socklen_t;
    // SAFETY: `value` and `len` are live and describe a c_int buffer.
    let r =
        unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, option, (&mut value as *mut libc::c_int).cast(), &mut len) };
    if r == 0 {
        Ok(value)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Asks for `bytes` of buffer with the *FORCE variant (root), else the capped one.
fn raise(fd: RawFd, force: libc::c_int, plain: libc::c_int, bytes: libc::c_int) {
    if set_int(fd, force, bytes).is_err() {
        let _ = set_int(fd, plain, bytes);
    }
}

#[derive(Debug)]
pub(crate) struct UdsFanout {
    /// Per topic, the bench's ends of its subscribers' socket pairs.
    sockets: Vec<Vec<OwnedFd>>,
    message: Vec<u8>,
}

impl UdsFanout {
    pub(crate) fn create(s: &Scenario) -> Result<(UdsFanout, Vec<Handoff>)> {
        // Room for a few messages in flight (the kernel doubles what is asked).
        let want = (2 * s.payload_bytes + (64 << 10)).min(i32::MAX as u64 / 2) as libc::c_int;
        let mut sockets: Vec<Vec<OwnedFd>> = (0..s.topics).map(|_| Vec::new()).collect();
        let mut handoffs = Vec::new();
        for i in 0..s.subs {
            let mut pair = [0 as RawFd; 2];
            let kind = libc::SOCK_DGRAM | libc::SOCK_CLOEXEC;
            // SAFETY: `pair` has room for the two fds socketpair writes.
            let r = unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, pair.as_mut_ptr()) };
            check(r.into(), || "socketpair(AF_UNIX, SOCK_DGRAM) failed; raise the open-file limit (ulimit -n)".into())?;
            // SAFETY: the kernel just returned both fds and nothing else owns them.
            let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
            raise(ours.as_raw_fd(), libc::SO_SNDBUFFORCE, libc::SO_SNDBUF, want);
            raise(theirs.as_raw_fd(), libc::SO_RCVBUFFORCE, libc::SO_RCVBUF, want);
            let timeout = libc::timeval { tv_sec: SEND_TIMEOUT_S, tv_usec: 0 };
            // SAFETY: passes a live timeval of the size given.
            unsafe {
                libc::setsockopt(
                    ours.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_SNDTIMEO,
                    (&timeout as *const libc::timeval).cast(),
                    std::mem::size_of::<libc::timeval>() as libc::socklen_t,
                )
            };
            let sndbuf = get_int(ours.as_raw_fd(), libc::SO_SNDBUF)? as u64;
            if s.payload_bytes + DGRAM_OVERHEAD > sndbuf {
                return Err(Skip(format!(
                    "a {} AF_UNIX datagram needs SO_SNDBUF >= {} B but the socket got {sndbuf} B; \
                     run as root (SO_SNDBUFFORCE) or raise net.core.wmem_max",
                    format_size(s.payload_bytes),
                    s.payload_bytes + DGRAM_OVERHEAD
                ))
                .into());
            }
            let raw = theirs.as_raw_fd();
            sockets[s.topic_of(i) as usize].push(ours);
            handoffs.push(Handoff { endpoint: Endpoint::Uds { fd: raw }, inherit: Some(raw), child_end: Some(theirs) });
        }
        let message = vec![0xA5; usize::try_from(s.payload_bytes)?];
        Ok((UdsFanout { sockets, message }, handoffs))
    }
}

impl Fanout for UdsFanout {
    fn publish(&mut self, topic: u32, seq: u64, t0_ns: u64, _warm: bool) -> Result<()> {
        self.message[..8].copy_from_slice(&t0_ns.to_le_bytes());
        self.message[8..16].copy_from_slice(&seq.to_le_bytes());
        for fd in &self.sockets[topic as usize] {
            // SAFETY: sends `message.len()` live bytes on a socket we own.
            let n = unsafe { libc::send(fd.as_raw_fd(), self.message.as_ptr().cast(), self.message.len(), 0) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if matches!(e.raw_os_error(), Some(libc::EMSGSIZE | libc::ENOBUFS)) {
                    let size = format_size(self.message.len() as u64);
                    return Err(Skip(format!("the kernel refused a {size} AF_UNIX datagram: {e}")).into());
                }
                return Err(anyhow::Error::new(e).context(format!(
                    "send() to a topic-{topic} subscriber (EAGAIN: it did not read for {SEND_TIMEOUT_S} s)"
                )));
            }
            ensure!(n as usize == self.message.len(), "short datagram send: {n} of {} bytes", self.message.len());
        }
        Ok(())
    }
}

#[derive(Debug)]
pub(crate) struct UdsReceiver {
    fd: OwnedFd,
    buf: Vec<u8>,
    payload_bytes: usize,
}

impl UdsReceiver {
    pub(crate) fn open(fd: RawFd, payload_bytes: u64) -> Result<UdsReceiver> {
        let fd = adopt_fd(fd, "socket")?;
        let payload_bytes = usize::try_from(payload_bytes)?;
        // One byte more than a message, so a datagram of the wrong size is noticed.
        Ok(UdsReceiver { fd, buf: vec![0; payload_bytes + 1], payload_bytes })
    }
}

impl Receiver for UdsReceiver {
    fn next(&mut self) -> Result<Received> {
        // SAFETY: receives into `buf`, which has `buf.len()` writable bytes.
        let n = unsafe { libc::recv(self.fd.as_raw_fd(), self.buf.as_mut_ptr().cast(), self.buf.len(), 0) };
        check(n as libc::c_long, || "recv() from the bench's socket".into())?;
        ensure!(n as usize == self.payload_bytes, "got a {n}-byte datagram, expected {}", self.payload_bytes);
        let t0_ns = u64::from_le_bytes(self.buf[..8].try_into()?);
        let seq = u64::from_le_bytes(self.buf[8..16].try_into()?);
        let at_ns = ringbus::diagnostics::monotonic_ns();
        Ok(Received { seq, t0_ns, at_ns })
    }
}
