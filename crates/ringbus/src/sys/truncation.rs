//! Surviving a segment file that shrinks under its mappings.
//!
//! Touching a page of a `MAP_SHARED` mapping that lies past the end of its file raises
//! SIGBUS, which kills the process. Any process of the same user can `truncate` a segment
//! (a buggy tool, a hostile peer, `truncate -s 0` by hand), and every process that maps it
//! would die. Sealing would forbid shrinking, but only memfds can be sealed, and ringbus
//! segments are named files every participant opens by path. So ringbus catches the
//! signal instead:
//!
//! - every mapping is registered here (start, length, protection) while it lives;
//! - a SIGBUS handler, installed once with the first mapping, looks the faulting address
//!   up; if it lies in a registered mapping, it maps anonymous zero-filled memory over the
//!   rest of that mapping (`MAP_FIXED`: the faulting page to the end), marks the mapping
//!   *truncated* and returns — the access is retried and reads zeros;
//! - the layers above look at the mark after they read ([`Guard::truncated`], one relaxed
//!   load) and turn it into a typed error for that topic or publisher link. Zeros are just
//!   another value a peer could have written, and every value read from shared memory is
//!   validated anyway, so nothing reads out of bounds in between.
//!
//! A SIGBUS at any other address (or not caused by an access past the end of a file) goes
//! to the handler that was installed before ours, or, if there was none, kills the process
//! as it would have without ringbus. An application that installs its own SIGBUS handler
//! after creating its first ringbus object replaces ours; it should chain to the previous
//! handler as ours does.
//!
//! The registry is async-signal-safe: blocks of slots linked by atomic pointers, never
//! freed, each slot guarded by a sequence number the handler checks around its reads.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::sync::Once;

/// Linux's `si_code` for an access past the end of a mapped object.
const BUS_ADRERR: libc::c_int = 2;
const SLOTS_PER_BLOCK: usize = 128;

/// One registered mapping.
#[derive(Debug)]
pub struct Guard {
    in_use: AtomicBool,
    /// Odd while the range below is being written.
    sequence: AtomicU32,
    start: AtomicUsize,
    len: AtomicUsize,
    prot: AtomicI32,
    truncated: AtomicBool,
}

impl Guard {
    const fn empty() -> Guard {
        Guard {
            in_use: AtomicBool::new(false),
            sequence: AtomicU32::new(0),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            prot: AtomicI32::new(0),
            truncated: AtomicBool::new(false),
        }
    }

    /// Whether an access to this mapping found its file shorter than the mapping (the
    /// rest of it now reads zeros).
    #[inline]
    pub fn truncated(&self) -> bool {
        self.truncated.load(Ordering::Relaxed)
    }

    fn set_range(&self, start: usize, len: usize, prot: libc::c_int) {
        self.sequence.fetch_add(1, Ordering::AcqRel); // odd: being written
        self.start.store(start, Ordering::Relaxed);
        self.len.store(len, Ordering::Relaxed);
        self.prot.store(prot, Ordering::Relaxed);
        self.truncated.store(false, Ordering::Relaxed);
        self.sequence.fetch_add(1, Ordering::Release); // even: stable
    }

    /// The range, if stable and containing `addr` (signal handler side).
    fn contains(&self, addr: usize) -> Option<(usize, usize, libc::c_int)> {
        let before = self.sequence.load(Ordering::Acquire);
        if before % 2 == 1 || !self.in_use.load(Ordering::Relaxed) {
            return None;
        }
        let (start, len, prot) =
            (self.start.load(Ordering::Relaxed), self.len.load(Ordering::Relaxed), self.prot.load(Ordering::Relaxed));
        std::sync::atomic::fence(Ordering::Acquire);
        if self.sequence.load(Ordering::Relaxed) != before || len == 0 {
            return None;
        }
        (addr >= start && addr - start < len).then_some((start, len, prot))
    }
}

struct Block {
    slots: [Guard; SLOTS_PER_BLOCK],
    next: AtomicPtr<Block>,
}

static FIRST: Block =
    Block { slots: [const { Guard::empty() }; SLOTS_PER_BLOCK], next: AtomicPtr::new(std::ptr::null_mut()) };
static INSTALL: Once = Once::new();
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(4096);
/// The SIGBUS action before ours (written once, before ours is installed).
static PREVIOUS: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());

fn blocks() -> impl Iterator<Item = &'static Block> {
    let mut next: Option<&'static Block> = Some(&FIRST);
    std::iter::from_fn(move || {
        let block = next?;
        // SAFETY: blocks are leaked boxes, never freed; a non-null pointer names one.
        next = unsafe { block.next.load(Ordering::Acquire).as_ref() };
        Some(block)
    })
}

/// Registers the mapping `[start, start + len)` mapped with `prot`; installs the handler
/// the first time.
pub fn register(start: usize, len: usize, prot: libc::c_int) -> &'static Guard {
    INSTALL.call_once(install);
    loop {
        for block in blocks() {
            for guard in &block.slots {
                if guard.in_use.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    guard.set_range(start, len, prot);
                    return guard;
                }
            }
        }
        add_block();
    }
}

/// Forgets a mapping before it is unmapped.
pub fn unregister(guard: &'static Guard) {
    guard.set_range(0, 0, 0);
    guard.in_use.store(false, Ordering::Release);
}

/// Appends a block of free slots at the end of the list.
fn add_block() {
    let fresh = Box::into_raw(Box::new(Block {
        slots: [const { Guard::empty() }; SLOTS_PER_BLOCK],
        next: AtomicPtr::new(std::ptr::null_mut()),
    }));
    let mut last = &FIRST;
    loop {
        match last.next.compare_exchange(std::ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return,
            // SAFETY: as in `blocks`: a non-null pointer names a leaked block.
            Err(next) => last = unsafe { &*next },
        }
    }
}

fn install() {
    // SAFETY: sysconf is always safe to call.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        PAGE_SIZE.store(page as usize, Ordering::Relaxed);
    }
    // SAFETY: all-zero is a valid sigaction; `sa_mask` is then emptied properly.
    let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
    ours.sa_sigaction = on_sigbus as *const () as usize;
    ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
    // SAFETY: all-zero is a valid sigaction for the kernel to fill in.
    let previous = Box::into_raw(Box::new(unsafe { std::mem::zeroed::<libc::sigaction>() }));
    // SAFETY: `ours.sa_mask` and `previous` are valid for writes; the handler below only
    // makes async-signal-safe calls (mmap, sigaction) and atomic loads and stores.
    let installed = unsafe {
        libc::sigemptyset(&mut ours.sa_mask);
        PREVIOUS.store(previous, Ordering::Release);
        libc::sigaction(libc::SIGBUS, &ours, previous)
    };
    if installed != 0 {
        PREVIOUS.store(std::ptr::null_mut(), Ordering::Release);
    }
}

extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler; `si_addr` is the
    // faulting address for SIGBUS.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    if code == BUS_ADRERR && zero_fill(addr) {
        return; // the access is retried and reads zeros
    }
    chain(signal, info, context);
}

/// Maps zeros over the registered mapping holding `addr`, from its page to the mapping's
/// end; false if no registered mapping holds it or the kernel refused.
fn zero_fill(addr: usize) -> bool {
    let page = PAGE_SIZE.load(Ordering::Relaxed);
    for block in blocks() {
        for guard in &block.slots {
            let Some((start, len, prot)) = guard.contains(addr) else { continue };
            let from = addr & !(page - 1);
            let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED;
            // SAFETY: `[from, start + len)` lies inside a live mapping of ours (it stays
            // registered until just before it is unmapped, and the faulting thread is using
            // it); replacing its pages with zeros changes what they read, never whether the
            // addresses are valid.
            let mapped = unsafe { libc::mmap(from as *mut libc::c_void, start + len - from, prot, flags, -1, 0) };
            if mapped == libc::MAP_FAILED {
                return false;
            }
            guard.truncated.store(true, Ordering::Relaxed);
            return true;
        }
    }
    false
}

/// Hands a SIGBUS that is not ours to whoever had it before.
fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: PREVIOUS is null or a leaked sigaction written before ours was installed.
    let previous = unsafe { PREVIOUS.load(Ordering::Acquire).as_ref() };
    let handler = previous.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // Put the default action back; the faulting access is retried and the process
        // ends as it would have without ringbus.
        // SAFETY: an all-zero sigaction with SIG_DFL is valid; sigaction is async-signal-safe.
        unsafe {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default, std::ptr::null_mut());
        }
        return;
    }
    let siginfo = previous.is_some_and(|p| p.sa_flags & libc::SA_SIGINFO != 0);
    // SAFETY: `handler` is the function the application installed for SIGBUS, called with
    // the arguments its flags say it takes.
    unsafe {
        if siginfo {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(handler);
            f(signal, info, context);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
            f(signal);
        }
    }
}

#[cfg(all(test, not(loom), not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_more_blocks_come_as_needed() {
        let guards: Vec<_> = (0..SLOTS_PER_BLOCK + 5).map(|i| register(0x1000_0000 + i * 0x1000, 0x1000, 0)).collect();
        let at = |addr| blocks().flat_map(|b| b.slots.iter()).filter(|g| g.contains(addr).is_some()).count();
        assert_eq!(at(0x1000_0000 + 3 * 0x1000 + 10), 1);
        for g in guards {
            unregister(g);
        }
        assert_eq!(at(0x1000_0000 + 3 * 0x1000 + 10), 0);
    }
}
