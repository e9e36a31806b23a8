//! The recorder's writing thread: the thread that takes messages hands a copy of each
//! over (`handoff`), and this one compresses and writes it (`Sink`), so that reading and
//! compressing run on two CPUs, and a slow disk or compressor slows the reading only once
//! [`MAX_IN_FLIGHT_BYTES`] wait to be written.

use super::super::handoff::{self, Closed};
use super::super::mcap::convention::RecordedTopic;
use super::sink::{Message, Sink, FLUSH_INTERVAL};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Payload bytes handed over and not yet written past which the reading thread waits.
pub const MAX_IN_FLIGHT_BYTES: u64 = 256 << 20;
/// Messages handed over and not yet written past which the reading thread waits.
const MAX_IN_FLIGHT_MESSAGES: usize = 64 * 1024;

enum Item {
    /// Topic number `index` is recorded under `name` as `topic` (no bytes).
    Topic(usize, String, RecordedTopic),
    /// A message of topic `index`: the publisher's timestamp, when it was read.
    Message { index: usize, log_ns: u64, record_ns: u64 },
}

/// What both threads see.
#[derive(Default)]
struct Shared {
    /// Files begun so far.
    files: AtomicUsize,
    /// Each topic's losses so far (written into the file they happened in).
    losses: Mutex<BTreeMap<String, u64>>,
}

/// The handle the reading thread keeps.
pub struct Writer {
    items: handoff::Sender<Item>,
    thread: JoinHandle<anyhow::Result<Vec<PathBuf>>>,
    shared: Arc<Shared>,
    /// What turns a `CLOCK_MONOTONIC` time into wall-clock time (ns since the Unix epoch),
    /// read once: log and publish times keep their order and spacing, and tools that show
    /// dates (Foxglove, `mcap info`) show the day of the recording.
    realtime_offset_ns: u64,
}

/// `CLOCK_REALTIME` − `CLOCK_MONOTONIC`, now (0 if the wall clock is before 1970).
pub fn realtime_offset_ns() -> u64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since_epoch.as_nanos()).unwrap_or(u64::MAX).saturating_sub(ringbus::diagnostics::monotonic_ns())
}

fn stopped(_: Closed) -> anyhow::Error {
    anyhow::anyhow!("the writing thread stopped")
}

impl Writer {
    /// Starts writing into `sink` (created by the caller, so that a file that cannot be
    /// created is an error at once).
    pub fn start(sink: Sink) -> Writer {
        let sink_offset = sink.realtime_offset_ns();
        let (items, received) = handoff::channel(MAX_IN_FLIGHT_BYTES, MAX_IN_FLIGHT_MESSAGES);
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name("record-writer".into())
            .spawn(move || write_all(sink, &received, &theirs))
            .expect("start the writing thread");
        Writer { items, thread, shared, realtime_offset_ns: sink_offset }
    }

    pub fn add_topic(&self, index: usize, name: &str, topic: &RecordedTopic) -> anyhow::Result<()> {
        self.items.send(Item::Topic(index, name.to_string(), topic.clone()), &[]).map_err(stopped)
    }

    /// Hands a copy of `sample` of topic `index` over, waiting while too much is in flight.
    pub fn write(&self, index: usize, sample: &ringbus::Sample) -> anyhow::Result<()> {
        let wall = |monotonic_ns: u64| monotonic_ns.saturating_add(self.realtime_offset_ns);
        let record_ns = wall(ringbus::diagnostics::monotonic_ns());
        let item = Item::Message { index, log_ns: wall(sample.timestamp_ns()), record_ns };
        self.items.send(item, sample).map_err(stopped)
    }

    pub fn set_losses(&self, losses: BTreeMap<String, u64>) {
        *self.shared.losses.lock().expect("no panic holds the lock") = losses;
    }

    /// Files begun so far.
    pub fn files(&self) -> usize {
        self.shared.files.load(Ordering::Relaxed)
    }

    /// Writes what is still in flight, finishes the last file and returns every file.
    pub fn finish(self) -> anyhow::Result<Vec<PathBuf>> {
        drop(self.items);
        self.thread.join().map_err(|_| anyhow::anyhow!("the writing thread panicked"))?
    }
}

/// How much lower than the programs it records the recorder runs (`nice`): on a machine
/// with fewer CPUs than busy threads, copying and compressing a recording must not take the
/// CPU from the publishers it records. They wait for nothing of it until it is a topic's
/// `depth` behind (its subscribers are reliable), and what it has read but not written
/// waits in the hand-over, up to [`MAX_IN_FLIGHT_BYTES`].
const RECORDER_NICENESS: i32 = 10;

/// Lowers the calling thread's priority by [`RECORDER_NICENESS`], and so that of the
/// threads it starts afterwards (best effort: a failure leaves it as it was).
pub fn yield_to_publishers() {
    // SAFETY: gettid takes no argument and cannot fail.
    let tid = unsafe { libc::gettid() };
    // SAFETY: getpriority/setpriority with PRIO_PROCESS and a thread id of this process
    // act on that thread alone (Linux); no pointers.
    unsafe {
        let current = libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t);
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, (current + RECORDER_NICENESS).min(19));
    }
}

/// The writing thread: writes every item until the reading thread hangs up, closing the
/// open chunk every [`FLUSH_INTERVAL`] even when nothing comes.
fn write_all(mut sink: Sink, items: &handoff::Receiver<Item>, shared: &Shared) -> anyhow::Result<Vec<PathBuf>> {
    let mut topics: BTreeMap<usize, (String, RecordedTopic)> = BTreeMap::new();
    shared.files.store(sink.paths.len(), Ordering::Relaxed);
    let losses = || shared.losses.lock().expect("no panic holds the lock").clone();
    loop {
        match items.recv_timeout(FLUSH_INTERVAL / 2) {
            Ok((Item::Topic(index, name, topic), _)) => {
                topics.insert(index, (name, topic));
            }
            Ok((Item::Message { index, log_ns, record_ns }, data)) => {
                if sink.full() {
                    sink.split(&losses())?;
                    shared.files.store(sink.paths.len(), Ordering::Relaxed);
                }
                let (name, topic) = topics.get(&index).expect("a topic is handed over before its messages");
                sink.write(name, topic, &Message { index, log_ns, record_ns, data: &data })?;
                items.done(data);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return sink.finish(&losses()),
        }
        sink.flush_if_due()?;
    }
}
