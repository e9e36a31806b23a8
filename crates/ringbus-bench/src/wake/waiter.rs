//! The waiter process: builds a [`WaitSet`] on its backend over the board's words (and a
//! UDP socket that never receives, for io_uring and epoll), then for every wake marks
//! itself asleep on the board, waits, and records `monotonic_ns() - t0` of the wake that
//! reached it. It measures its own CPU time over the measured wakes and leaves it on the
//! board. It dies with the bench (`PR_SET_PDEATHSIG`).

use super::board::Board;
use super::WakeBackend;
use anyhow::{bail, ensure, Context, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::waitset::BackendChoice;
use ringbus::{Event, EventKind, Interest, WaitSet};
use serde::{Deserialize, Serialize};
use std::mem::size_of;
use std::net::{Ipv4Addr, UdpSocket};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// A wake that does not come within this means the bench is gone or stuck.
const WAIT_LIMIT: Duration = Duration::from_secs(30);

/// Everything the waiter needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct WakeWorkerSpec {
    pub backend: WakeBackend,
    pub board: PathBuf,
    pub warmup: u64,
    pub count: u64,
    /// Pin the waiter (and the threads its wait set starts) to this CPU.
    pub cpu: Option<u32>,
}

/// Pins the calling thread, and the threads it starts afterwards, to `cpu`.
pub(crate) fn pin_this_thread(cpu: u32) -> Result<()> {
    // SAFETY: all-zero is a valid, empty cpu_set_t (a plain bit array).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    ensure!((cpu as usize) < 8 * size_of::<libc::cpu_set_t>(), "CPU {cpu} is beyond what a cpu_set_t holds");
    // SAFETY: `cpu` is below the set's bit count (checked above), so the bit is in `set`.
    unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    // SAFETY: `set` is a live cpu_set_t of the size passed; pid 0 is the calling thread.
    let r = unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set) };
    crate::transports::check(r.into(), || format!("cannot pin to CPU {cpu} (sched_setaffinity); see nproc"))?;
    Ok(())
}

/// User + system CPU time of this process (all its threads) so far, in µs.
fn cpu_us() -> Result<u64> {
    let usage = crate::usage::Usage::of_self()?;
    Ok(usage.user_us + usage.sys_us)
}

/// Runs the waiter.
pub(crate) fn run(spec: &WakeWorkerSpec) -> Result<()> {
    let warmup = usize::try_from(spec.warmup)?;
    let total = warmup + usize::try_from(spec.count)?;
    let board = Board::open(&spec.board, total)?;
    if let Some(cpu) = spec.cpu {
        pin_this_thread(cpu)?;
    }
    let socket = match spec.backend.fds() {
        0 => None,
        _ => Some(UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).context("cannot bind a UDP socket on 127.0.0.1")?),
    };
    let set = WaitSet::with_backend(BackendChoice::Force(spec.backend.backend()))
        .with_context(|| format!("cannot build a {:?} wait set", spec.backend.backend()))?;
    let mut attached = Vec::new();
    for word in &board.words()[..spec.backend.words()] {
        attached.push(set.attach_word(word, word.load(Ordering::Acquire))?);
    }
    let keys: Vec<_> = attached.iter().map(|a| a.key()).collect();
    if let Some(socket) = &socket {
        attached.push(set.attach_fd(socket.as_fd(), Interest::Readable)?);
    }
    ensure!(set.backend() == spec.backend.backend(), "the wait set moved to {:?}", set.backend());
    board.mark_ready(std::process::id());
    let mut events = Vec::with_capacity(4);
    let mut before = cpu_us()?;
    for seq in 0..total {
        if seq == warmup {
            before = cpu_us()?;
        }
        board.mark_asleep(seq);
        set.wait_into(Some(WAIT_LIMIT), &mut events)?;
        let t1 = monotonic_ns();
        let key = keys[seq % keys.len()];
        match events.as_slice() {
            [Event { key: k, kind: EventKind::Word(_) }] if *k == key => {}
            [] => bail!("wake {seq} did not come within {WAIT_LIMIT:?}"),
            other => bail!("wake {seq}: expected one Word event from {key:?}, got {other:?}"),
        }
        board.record(seq, t1.saturating_sub(board.t0()))?;
    }
    board.finish(cpu_us()?.saturating_sub(before));
    drop(attached);
    Ok(())
}
