//! The bench's feeder: one thread publishing every input topic of a run on its
//! [`Schedule`] — sleep until the next due time, publish everything due, again — until
//! told to stop. Each message carries its sequence number and topic index; the rest of the
//! payload is left as the previous message wrote it (the subscriber reads only those).

use super::schedule::Schedule;
use anyhow::{anyhow, Context, Result};
use ringbus::diagnostics::monotonic_ns;
use ringbus::Publisher;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The longest single sleep, so that a stop request is seen soon.
const MAX_SLEEP: Duration = Duration::from_millis(50);

/// What the feeder did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FeederStats {
    /// Messages published over all topics.
    pub published: u64,
    /// The furthest behind its due time a message was published.
    pub late_max_ns: u64,
}

/// The running feeder thread; stopped (and joined) by [`Feeder::stop`] or on drop.
#[derive(Debug)]
pub(crate) struct Feeder {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<FeederStats>>>,
}

impl Feeder {
    /// Starts publishing `publishers[i]` at `rates_mhz[i]`, `payload_bytes` per message.
    pub(crate) fn start(publishers: Vec<Publisher>, rates_mhz: Vec<u64>, payload_bytes: usize) -> Result<Feeder> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("feeder".into())
            .spawn(move || feed(publishers, rates_mhz, payload_bytes, &flag))
            .context("cannot start the feeder thread")?;
        Ok(Feeder { stop, thread: Some(thread) })
    }

    /// Stops publishing; fails if a publish failed.
    pub(crate) fn stop(mut self) -> Result<FeederStats> {
        self.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.take().expect("joined only here or on drop");
        thread.join().map_err(|_| anyhow!("the feeder thread panicked"))?
    }
}

impl Drop for Feeder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn feed(
    mut publishers: Vec<Publisher>,
    rates_mhz: Vec<u64>,
    payload_bytes: usize,
    stop: &AtomicBool,
) -> Result<FeederStats> {
    let mut schedule = Schedule::new(monotonic_ns(), rates_mhz);
    let mut payload = vec![0u8; payload_bytes];
    let mut sequence = vec![0u64; publishers.len()];
    let mut due = Vec::with_capacity(publishers.len());
    let mut stats = FeederStats::default();
    while !stop.load(Ordering::Relaxed) {
        let next_ns = schedule.next_due_ns();
        let now_ns = monotonic_ns();
        if now_ns < next_ns {
            std::thread::sleep(Duration::from_nanos(next_ns - now_ns).min(MAX_SLEEP));
            continue;
        }
        stats.late_max_ns = stats.late_max_ns.max(now_ns - next_ns);
        schedule.take_due(now_ns, &mut due);
        for &i in &due {
            payload[..8].copy_from_slice(&sequence[i].to_le_bytes());
            payload[8..16].copy_from_slice(&(i as u64).to_le_bytes());
            let publisher = &mut publishers[i];
            publisher.publish_copy(&payload).with_context(|| format!("publishing on {}", publisher.topic_name()))?;
            sequence[i] += 1;
        }
    }
    stats.published = schedule.sent();
    Ok(stats)
}
