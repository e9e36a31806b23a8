//! io_uring: one ring that sleeps on futex vectors (`FUTEX_WAITV`, Linux 6.7) and polls
//! fds (`POLL_ADD`) at once, and whose own fd is readable while completions wait.
//!
//! [`Ring`] is the safe face of the `io-uring` crate's unsafe `push`: it owns every futex
//! vector it submitted until the kernel is done with it, so no request can read freed
//! memory. Poll and cancel requests reference no memory of ours (the kernel checks fds).
//! The ring uses default flags (no `DEFER_TASKRUN`): completions are posted without our
//! help, so a foreign event loop can poll the ring's fd. (They are posted by task work of
//! the thread that submitted: if that thread is the one polling, its poll returns `EINTR`
//! once first, which event loops retry.)

use super::futex::{WaitvEntry, WAITV_MAX};
use io_uring::{opcode, squeue, types, IoUring, Probe};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

// The kernel reads our entries as its `struct futex_waitv`, which the crate's type wraps.
const _: () = assert!(std::mem::size_of::<types::FutexWaitV>() == std::mem::size_of::<WaitvEntry>());
const _: () = assert!(std::mem::align_of::<types::FutexWaitV>() == std::mem::align_of::<WaitvEntry>());

/// Submission queue entries (the completion queue gets twice as many; the kernel keeps any
/// overflow, `IORING_FEAT_NODROP`).
const RING_ENTRIES: u32 = 256;

/// How long a dropped ring waits for the kernel to give back its futex vectors.
const DROP_WAIT: Duration = Duration::from_secs(1);

/// What a completion belongs to: the ring tags every request's user_data with its kind in
/// the top two bits, so it alone decides when a futex vector may be freed.
const KIND_SHIFT: u32 = 62;
const KIND_NOP: u64 = 0;
const KIND_WAITV: u64 = 1 << KIND_SHIFT;
const KIND_POLL: u64 = 2 << KIND_SHIFT;
const KIND_CANCEL: u64 = 3 << KIND_SHIFT;
/// The largest tag a request can carry.
pub const TAG_MAX: u64 = (1 << KIND_SHIFT) - 1;

/// A completion, by the kind of request it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaped {
    /// The futex vector `tag` ended: the index of the word woken, or `-EAGAIN` (a word
    /// differed), `-ECANCELED`, `-EFAULT`, ...
    Waitv { tag: u64, result: i32 },
    /// The poll `tag` ended: its revents, or `-EBADF`, `-ECANCELED`, ...
    Poll { tag: u64, result: i32 },
    /// A cancel or poll removal ended (its result says whether it found its target).
    Cancel { result: i32 },
    /// A no-op ended (see [`Ring::post_nop`]).
    Nop,
}

/// A futex vector the kernel may still read, and the tag of its request.
struct Vector {
    tag: u64,
    entries: Box<[WaitvEntry]>,
}

/// An io_uring instance with default flags. See the [module documentation](self).
pub struct Ring {
    ring: IoUring,
    vectors: Vec<Vector>,
}

impl std::fmt::Debug for Ring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring").field("fd", &self.ring.as_raw_fd()).field("vectors", &self.vectors.len()).finish()
    }
}

fn unsupported(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, format!("io_uring here lacks {what}; use epoll"))
}

fn check_tag(tag: u64) -> io::Result<u64> {
    if tag > TAG_MAX {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "io_uring request tag above TAG_MAX"));
    }
    Ok(tag)
}

/// Errors of `io_uring_enter` that mean "nothing happened yet": the timeout passed
/// (`ETIME`), a signal (`EINTR`), or completions must be reaped first (`EBUSY`).
fn quiet(result: io::Result<usize>) -> io::Result<()> {
    match result {
        Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME | libc::EINTR | libc::EBUSY)) => Ok(()),
        r => r.map(drop),
    }
}

impl Ring {
    /// Sets up a ring, or fails if the kernel refuses io_uring (`ENOSYS`, `EPERM` from
    /// `io_uring_disabled` or seccomp) or lacks what ringbus uses (`Unsupported`).
    pub fn new() -> io::Result<Ring> {
        // COOP_TASKRUN: completions are posted when the waiter next enters the kernel (it
        // sleeps in io_uring_enter, so at once) instead of through an interrupt to it —
        // measured with `ringbus bench wake`: io_uring p50 ÷ futex 1.11–1.23× with it,
        // 1.18–1.66× without (BENCHMARKS.md). Not DEFER_TASKRUN: that ring's fd never
        // becomes readable, and `as_raw_fd` hands it out.
        let ring = IoUring::builder().setup_submit_all().setup_coop_taskrun().build(RING_ENTRIES)?;
        if !ring.params().is_feature_ext_arg() {
            return Err(unsupported("IORING_FEAT_EXT_ARG (timed waits, Linux 5.11)"));
        }
        if !ring.params().is_feature_nodrop() {
            return Err(unsupported("IORING_FEAT_NODROP (Linux 5.5)"));
        }
        let mut probe = Probe::new();
        ring.submitter().register_probe(&mut probe)?;
        for (code, name) in [
            (opcode::FutexWaitV::CODE, "FUTEX_WAITV (Linux 6.7)"),
            (opcode::PollAdd::CODE, "POLL_ADD"),
            (opcode::PollRemove::CODE, "POLL_REMOVE"),
            (opcode::AsyncCancel::CODE, "ASYNC_CANCEL"),
        ] {
            if !probe.is_supported(code) {
                return Err(unsupported(name));
            }
        }
        Ok(Ring { ring, vectors: Vec::new() })
    }

    /// The ring's fd: readable while completions wait to be reaped.
    pub fn fd(&self) -> RawFd {
        self.ring.as_raw_fd()
    }

    /// Queues a `FUTEX_WAITV` over `entries` (1..=128) as vector `tag` (at most
    /// [`TAG_MAX`], and not that of a vector still pending). The ring keeps `entries`
    /// until the vector's completion is reaped.
    pub fn push_waitv(&mut self, tag: u64, entries: Vec<WaitvEntry>) -> io::Result<()> {
        if entries.is_empty() || entries.len() > WAITV_MAX {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        if self.vectors.iter().any(|v| v.tag == tag) {
            return Err(io::Error::from_raw_os_error(libc::EEXIST));
        }
        let entries = entries.into_boxed_slice();
        let sqe = opcode::FutexWaitV::new(entries.as_ptr().cast::<types::FutexWaitV>(), entries.len() as u32)
            .build()
            .user_data(KIND_WAITV | check_tag(tag)?);
        // SAFETY: the SQE points at `entries`, a heap array of kernel-layout `futex_waitv`
        // (asserted in sys::futex and above) that `self.vectors` owns from now until the
        // completion of this very request is reaped (`reap`; no other request carries
        // KIND_WAITV | tag), or that is leaked (`Drop`): it outlives the request.
        unsafe { self.push(&sqe) }?;
        self.vectors.push(Vector { tag, entries });
        Ok(())
    }

    /// Queues an `ASYNC_CANCEL` of futex vector `tag`: it then completes with
    /// `-ECANCELED`, unless it completed first.
    pub fn cancel_waitv(&mut self, tag: u64) -> io::Result<()> {
        let sqe = opcode::AsyncCancel::new(KIND_WAITV | check_tag(tag)?).build().user_data(KIND_CANCEL);
        // SAFETY: ASYNC_CANCEL references no memory; it only names a request by user_data.
        unsafe { self.push(&sqe) }
    }

    /// Queues a one-shot `POLL_ADD` of `fd` for `events` (`POLLIN`, `POLLOUT`) as poll
    /// `tag` (at most [`TAG_MAX`]).
    pub fn push_poll(&mut self, tag: u64, fd: RawFd, events: u32) -> io::Result<()> {
        let sqe = opcode::PollAdd::new(types::Fd(fd), events).build().user_data(KIND_POLL | check_tag(tag)?);
        // SAFETY: POLL_ADD references no memory of ours; the kernel looks `fd` up itself
        // (a bad fd completes with -EBADF) and holds its own reference to the file.
        unsafe { self.push(&sqe) }
    }

    /// Queues a `POLL_REMOVE` of poll `tag`: it then completes with `-ECANCELED`, unless
    /// it completed first.
    pub fn remove_poll(&mut self, tag: u64) -> io::Result<()> {
        let sqe = opcode::PollRemove::new(KIND_POLL | check_tag(tag)?).build().user_data(KIND_CANCEL);
        // SAFETY: POLL_REMOVE references no memory; it only names a request by user_data.
        unsafe { self.push(&sqe) }
    }

    /// Posts a completion that means nothing, so that the ring's fd is readable until the
    /// next reap — unless completions already wait (then it is readable anyway): no system
    /// call in that case, one `io_uring_enter` otherwise.
    pub fn post_nop(&mut self) -> io::Result<()> {
        if !self.ring.completion().is_empty() {
            return Ok(());
        }
        let sqe = opcode::Nop::new().build().user_data(KIND_NOP);
        // SAFETY: a NOP references no memory.
        unsafe { self.push(&sqe) }?;
        self.submit_and_wait(Some(Duration::ZERO))
    }

    /// # Safety
    /// Whatever memory `sqe` references must stay valid until its completion is reaped.
    unsafe fn push(&mut self, sqe: &squeue::Entry) -> io::Result<()> {
        // SAFETY: forwarded to our caller.
        if unsafe { self.ring.submission().push(sqe) }.is_ok() {
            return Ok(());
        }
        // The submission queue is full: hand it to the kernel and try again.
        quiet(self.ring.submit())?;
        // SAFETY: forwarded to our caller.
        unsafe { self.ring.submission().push(sqe) }.map_err(|_| io::Error::from_raw_os_error(libc::EBUSY))
    }

    /// Submits what is queued and waits until a completion is ready or `timeout` passes
    /// (`None`: forever; zero: do not wait). A timeout or a signal is a quiet return.
    pub fn submit_and_wait(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        let submitter = self.ring.submitter();
        match timeout {
            None => quiet(submitter.submit_and_wait(1)),
            Some(t) if t.is_zero() => quiet(submitter.submit()),
            Some(t) => {
                let ts = types::Timespec::from(t);
                quiet(submitter.submit_with_args(1, &types::SubmitArgs::new().timespec(&ts)))
            }
        }
    }

    /// Calls `on_completion` for every completion ready, and frees the futex vectors whose
    /// requests ended.
    pub fn reap(&mut self, mut on_completion: impl FnMut(Reaped)) {
        let Ring { ring, vectors } = self;
        for cqe in ring.completion() {
            let (kind, tag, result) = (cqe.user_data() & !TAG_MAX, cqe.user_data() & TAG_MAX, cqe.result());
            on_completion(match kind {
                KIND_WAITV => {
                    vectors.retain(|v| v.tag != tag);
                    Reaped::Waitv { tag, result }
                }
                KIND_POLL => Reaped::Poll { tag, result },
                KIND_NOP => Reaped::Nop,
                _ => Reaped::Cancel { result },
            });
        }
    }
}

impl Drop for Ring {
    /// Cancels the pending futex vectors and waits (at most [`DROP_WAIT`]) for the kernel
    /// to give them back; any it still holds are leaked rather than freed under it. The
    /// ring's fd then closes, which cancels the polls.
    fn drop(&mut self) {
        let pending: Vec<u64> = self.vectors.iter().map(|v| v.tag).collect();
        for tag in pending {
            let _ = self.cancel_waitv(tag);
        }
        let give_up = Instant::now() + DROP_WAIT;
        while !self.vectors.is_empty() {
            let left = give_up.saturating_duration_since(Instant::now());
            if left.is_zero() || self.submit_and_wait(Some(left)).is_err() {
                break;
            }
            self.reap(|_| {});
        }
        std::mem::take(&mut self.vectors).into_iter().for_each(|v| std::mem::forget(v.entries));
    }
}

#[cfg(all(test, not(miri)))] // real io_uring, epoll and futex calls: not under Miri
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    fn reap_all(ring: &mut Ring, want: usize) -> Vec<Reaped> {
        let give_up = Instant::now() + Duration::from_secs(5);
        let mut seen = Vec::new();
        while seen.len() < want {
            assert!(Instant::now() < give_up, "only {seen:?} within 5 s");
            ring.submit_and_wait(Some(Duration::from_millis(100))).expect("enter");
            ring.reap(|r| seen.push(r));
        }
        seen
    }

    #[test]
    fn a_cancelled_vector_completes_and_is_freed() {
        let word = AtomicU32::new(0);
        let mut ring = Ring::new().expect("io_uring with FUTEX_WAITV");
        ring.push_waitv(5, vec![WaitvEntry::new(&word, 0)]).expect("push");
        ring.submit_and_wait(Some(Duration::ZERO)).expect("submit");
        assert_eq!(ring.vectors.len(), 1);
        ring.cancel_waitv(5).expect("cancel");
        let seen = reap_all(&mut ring, 2);
        assert!(seen.contains(&Reaped::Waitv { tag: 5, result: -libc::ECANCELED }), "{seen:?}");
        // The cancel found it (0, or on 6.x kernels the number of futex requests cancelled).
        assert!(seen.iter().any(|r| matches!(r, Reaped::Cancel { result } if *result >= 0)), "{seen:?}");
        assert!(ring.vectors.is_empty(), "the vector is freed once reaped");
    }

    #[test]
    fn bad_tags_and_vectors_are_refused() {
        let word = AtomicU32::new(0);
        let mut ring = Ring::new().expect("io_uring with FUTEX_WAITV");
        assert!(ring.push_poll(TAG_MAX + 1, 0, libc::POLLIN as u32).is_err());
        assert!(ring.push_waitv(1, Vec::new()).is_err());
        assert!(ring.push_waitv(1, vec![WaitvEntry::new(&word, 0); WAITV_MAX + 1]).is_err());
        ring.push_waitv(1, vec![WaitvEntry::new(&word, 0)]).expect("push");
        assert!(ring.push_waitv(1, vec![WaitvEntry::new(&word, 0)]).is_err(), "tag 1 is pending");
    }

    #[test]
    fn a_nop_makes_the_fd_readable_until_reaped() {
        let mut ring = Ring::new().expect("io_uring");
        let readable = |ring: &Ring| {
            let mut pfd = libc::pollfd { fd: ring.fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd on our stack, timeout 0.
            let ready = unsafe { libc::poll(&mut pfd, 1, 0) };
            ready == 1
        };
        assert!(!readable(&ring));
        ring.post_nop().expect("nop");
        ring.post_nop().expect("a second one is not needed: completions wait");
        assert!(readable(&ring));
        assert_eq!(reap_all(&mut ring, 1), vec![Reaped::Nop], "one completion, not two");
        assert!(!readable(&ring));
    }

    #[test]
    fn a_bad_fd_completes_with_ebadf() {
        let mut ring = Ring::new().expect("io_uring");
        ring.push_poll(2, -1, libc::POLLIN as u32).expect("push");
        assert_eq!(reap_all(&mut ring, 1), vec![Reaped::Poll { tag: 2, result: -libc::EBADF }]);
    }
}
