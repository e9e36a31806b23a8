//! Exact system-call counting for one thread, through the `raw_syscalls:sys_enter`
//! tracepoint and `perf_event_open` — the same counter `perf stat -e
//! raw_syscalls:sys_enter` reads, taken from inside the process so a benchmark or test can
//! count the calls of one publish.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `struct perf_event_attr`, first published size (`PERF_ATTR_SIZE_VER0`, 64 bytes).
#[repr(C)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}
const _: () = assert!(std::mem::size_of::<PerfEventAttr>() == 64);
const _: () = assert!(std::mem::offset_of!(PerfEventAttr, flags) == 40);

const PERF_TYPE_TRACEPOINT: u32 = 2;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
const FLAG_DISABLED: u64 = 1;
const PERF_EVENT_IOC_ENABLE: libc::c_ulong = 0x2400;

const TRACEFS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

fn tracepoint_id() -> io::Result<u64> {
    for root in TRACEFS {
        let mut s = String::new();
        if let Ok(mut f) = File::open(format!("{root}/events/raw_syscalls/sys_enter/id")) {
            f.read_to_string(&mut s)?;
            return s.trim().parse().map_err(|_| io::Error::other("unreadable tracepoint id"));
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        "tracefs is not mounted: run `mount -t tracefs nodev /sys/kernel/tracing` as root \
         (or any `perf stat -e raw_syscalls:sys_enter true`, which mounts it)",
    ))
}

/// Counts the system calls the calling thread makes.
#[derive(Debug)]
pub struct SyscallCounter {
    fd: OwnedFd,
    /// What two back-to-back reads differ by (the reading `read()` itself).
    overhead: u64,
}

impl SyscallCounter {
    /// Opens and enables a counter on the calling thread. Needs root or
    /// `kernel.perf_event_paranoid <= -1` and a mounted tracefs; the error says which.
    pub fn for_this_thread() -> io::Result<SyscallCounter> {
        let attr = PerfEventAttr {
            kind: PERF_TYPE_TRACEPOINT,
            size: 64,
            config: tracepoint_id()?,
            sample_period: 0,
            sample_type: 0,
            read_format: 0,
            flags: FLAG_DISABLED,
            wakeup_events: 0,
            bp_type: 0,
            config1: 0,
        };
        // SAFETY: `attr` is a valid perf_event_attr of the size it declares; pid 0 and cpu -1
        // mean "this thread, any CPU"; no group fd.
        let fd = unsafe {
            libc::syscall(libc::SYS_perf_event_open, &attr as *const PerfEventAttr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)
        };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!("perf_event_open(raw_syscalls:sys_enter) failed: {e}; run as root or set kernel.perf_event_paranoid=-1"),
            ));
        }
        // SAFETY: the kernel just returned this fd to us and nobody else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
        // SAFETY: ENABLE takes no argument; `fd` is a perf event fd.
        super::check(unsafe { libc::ioctl(fd.as_raw_fd(), PERF_EVENT_IOC_ENABLE, 0) })?;
        let mut counter = SyscallCounter { fd, overhead: 0 };
        let a = counter.raw()?;
        let b = counter.raw()?;
        counter.overhead = b - a;
        Ok(counter)
    }

    fn raw(&self) -> io::Result<u64> {
        let mut value = 0u64;
        // SAFETY: reading 8 bytes into a valid u64 from a perf event fd.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), (&mut value as *mut u64).cast(), 8) };
        if n != 8 {
            return Err(io::Error::last_os_error());
        }
        Ok(value)
    }

    /// A reading to pass to [`SyscallCounter::since`].
    pub fn start(&self) -> io::Result<u64> {
        self.raw()
    }

    /// System calls made since `start`, not counting the counter's own reads.
    pub fn since(&self, start: u64) -> io::Result<u64> {
        Ok(self.raw()?.saturating_sub(start).saturating_sub(self.overhead))
    }
}
