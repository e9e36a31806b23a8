//! The sanitizer's canary: a naive lock-free table's bug, on purpose (dropping the lock and
//! trusting that "pointer reads are naturally atomic"). A forwarding thread reads a link
//! through a raw pointer taken from a table without a lock or a reference, while the
//! control thread removes the link and frees it — a use-after-free that AddressSanitizer
//! must report. `scripts/test-route.sh` runs it under the sanitizer with
//! `RINGBUS_ASAN_CANARY=1` and fails if it passes; without that variable it does nothing
//! (undefined behaviour is not run in ordinary test runs).

use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

/// A link as a naive table holds it: a counter behind a plain pointer.
struct NaiveLink {
    frames_out: AtomicU64,
}

#[test]
fn a_naive_table_frees_a_link_while_a_reader_still_uses_it() {
    if std::env::var_os("RINGBUS_ASAN_CANARY").is_none() {
        return;
    }
    let table = Arc::new(AtomicPtr::new(Box::into_raw(Box::new(NaiveLink { frames_out: AtomicU64::new(0) }))));
    let (loaded, freed) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let reader = {
        let (table, loaded, freed) = (table.clone(), loaded.clone(), freed.clone());
        std::thread::spawn(move || {
            let link = table.load(Ordering::Acquire); // "pointer reads are naturally atomic"
            loaded.wait();
            freed.wait();
            // SAFETY: none — this is the bug the canary exists to show: `link` was freed by
            // the other thread after this thread loaded it.
            unsafe { (*link).frames_out.fetch_add(1, Ordering::Relaxed) }
        })
    };
    loaded.wait();
    let removed = table.swap(std::ptr::null_mut(), Ordering::AcqRel);
    // SAFETY: `removed` came from Box::into_raw and is freed once, here — but a reader still
    // holds it, which is the point.
    drop(unsafe { Box::from_raw(removed) });
    freed.wait();
    let _ = reader.join();
}
