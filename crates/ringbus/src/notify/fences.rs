//! The asymmetric fence of a doorbell: the ringer rings on every push or pop, the waiter
//! registers only when it is about to sleep, so the ringer's half of the store→load
//! (Dekker) pattern is made free and the waiter pays for both.
//!
//! The pattern needs a full barrier on each side: ringer `store data; barrier; load
//! sleepers`, waiter `store sleeper bit; barrier; load data`. With `membarrier(2)`'s
//! global expedited command the waiter's barrier also executes a full barrier on every
//! CPU running a thread of a registered process, at one instant during the call. A ringer
//! whose load of sleepers comes after that instant sees the bit (stored before the call);
//! a ringer whose load comes before it has its data store, earlier in program order,
//! ordered before the instant too, so the waiter's look after the call sees the data. The
//! ringer then needs only to keep the compiler from swapping its store and load
//! ([`light`]): on x86-64 that removes an `mfence` — which waits for the store to reach a
//! cache line the waiter's core holds — from every push and pop.
//!
//! A process takes part once it has [`register`]ed (every queue handle does, when it
//! opens). If registering fails (a kernel or seccomp filter without `membarrier`) the
//! process's ringers keep the `SeqCst` fence. If the waiter's barrier fails, it reports
//! so and the waiter bounds its sleep ([`UNCOVERED_SLEEP`]): a late wake-up, never a lost
//! one. Under loom and Miri both halves are `SeqCst` fences (the models check the
//! symmetric protocol; the asymmetric one rests on the kernel's contract above).

use crate::sync::{fence, Ordering};
use std::time::Duration;

/// The longest a waiter sleeps when its barrier failed and a ringer may have missed it.
pub(crate) const UNCOVERED_SLEEP: Duration = Duration::from_millis(1);

#[cfg(not(any(loom, miri)))]
mod imp {
    use super::{fence, Ordering};
    use std::sync::atomic::{compiler_fence, AtomicBool};
    use std::sync::Once;

    /// Whether this process is registered: its ringers use the compiler fence.
    static REGISTERED: AtomicBool = AtomicBool::new(false);
    static REGISTER: Once = Once::new();

    pub(crate) fn register() {
        REGISTER.call_once(|| {
            if crate::sys::membarrier::register_global_expedited().is_ok() {
                // Relaxed: the registration is in the kernel before this store; a thread
                // that loads `false` only uses the full fence it did not need.
                REGISTERED.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
    }

    #[inline]
    pub(crate) fn light() {
        if REGISTERED.load(std::sync::atomic::Ordering::Relaxed) {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    pub(crate) fn heavy() -> bool {
        if crate::sys::membarrier::global_expedited().is_ok() {
            return true;
        }
        fence(Ordering::SeqCst);
        false
    }
}

#[cfg(any(loom, miri))]
mod imp {
    use super::{fence, Ordering};

    pub(crate) fn register() {}

    pub(crate) fn light() {
        fence(Ordering::SeqCst);
    }

    pub(crate) fn heavy() -> bool {
        fence(Ordering::SeqCst);
        true
    }
}

/// Makes this process's ringers use [`light`] from now on, if the kernel allows it.
/// Idempotent; one system call the first time.
pub(crate) fn register() {
    imp::register()
}

/// The ringer's half, between storing what waiters wait for and loading the sleepers.
#[inline]
pub(crate) fn light() {
    imp::light()
}

/// The waiter's half, between announcing itself and looking. Returns whether it covers
/// ringers using [`light`]; on `false` the waiter sleeps at most [`UNCOVERED_SLEEP`].
pub(crate) fn heavy() -> bool {
    imp::heavy()
}
