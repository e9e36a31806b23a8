//! Read-only snapshots of a ringbus root for tools (`ringbus list`, `info`, `top`): every
//! topic with its publishers' and subscribers' counters, every node, latch, semaphore and
//! command queue, and every file that is not a valid segment of this version; and which
//! kinds of object a name stands for.
//!
//! A snapshot only loads words the participants keep up to date anyway (their counters
//! cost the data path no system call) and probes liveness locks; it never joins a topic,
//! takes a lock or writes a byte, so it cannot disturb a live system. Every value is read
//! once and validated like any other shared-memory input; a file that fails is reported
//! as a [`Problem`], never trusted.

mod names;
mod publisher_memory;
pub(crate) mod queue;

pub use names::{kinds_of, Named};
pub use publisher_memory::PublisherMemory;
pub use queue::QueueInfo;

use crate::error::OpenError;
use crate::notify::latch;
use crate::notify::Wake;
use crate::pubsub::topic::{Role, TopicHandle};
use crate::pubsub::PublisherStats;
use crate::shm::header::SegmentKind;
use crate::shm::latch_semaphore::ObjectRecord;
use crate::shm::node::{NodeRecord, MAX_NODE_NAME_BYTES};
use crate::shm::root::FileName;
use crate::shm::topic::{decode_occupancy, SlotState};
use crate::shm::{segment, Root};
use crate::sys;
use crate::WakeStats;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// Everything in one root, as seen at one moment (each item is read once; items are not
/// read atomically together).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The root directory read.
    pub root: PathBuf,
    /// Every topic, by file name.
    pub topics: Vec<TopicInfo>,
    /// Every node file, live or left by a dead process.
    pub nodes: Vec<NodeInfo>,
    /// Every named latch and semaphore.
    pub objects: Vec<ObjectInfo>,
    /// Every command queue.
    pub queues: Vec<QueueInfo>,
    /// Files that are not valid segments of this version, with the reason.
    pub problems: Vec<Problem>,
}

/// A file in the root that could not be understood.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The file (or directory, or link).
    pub path: PathBuf,
    /// Why it is not a valid segment of this version: the [`OpenError`] message, or what
    /// its name or type gives away.
    pub reason: String,
}

/// A topic's settings as stored in its segment.
///
/// Each field is the [`TopicBuilder`](crate::TopicBuilder) setting of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicSettings {
    /// Most publishers at once.
    pub max_publishers: u32,
    /// Most subscribers at once.
    pub max_subscribers: u32,
    /// Log entries per publisher (a power of two).
    pub depth: u32,
    /// Past messages a late subscriber receives.
    pub history: u32,
    /// Samples one subscriber may hold at once.
    pub max_held: u32,
    /// Payload chunks per publisher.
    pub chunks: u32,
    /// Largest message, in bytes.
    pub max_payload_bytes: u64,
    /// Most payload memory one publisher may hold (on demand).
    pub pool_bytes: u64,
    /// Whether publishers reserve their whole pool when created.
    pub preallocate: bool,
}

impl TopicSettings {
    /// Bytes each publisher's chunks reserve when the topic preallocates — chunks × the
    /// largest payload rounded up to the payload type's alignment (`payload_align`, 64
    /// bytes to a page). Computed, for comparison with what an on-demand pool holds.
    pub fn preallocated_pool_bytes(&self, payload_align: u32) -> u64 {
        crate::shm::publisher::chunk_stride(self.max_payload_bytes, payload_align, true) * self.chunks as u64
    }
}

/// One topic.
#[derive(Debug, Clone)]
pub struct TopicInfo {
    /// The topic's name (canonical: without a leading `/`).
    pub name: String,
    /// The topic's control segment.
    pub path: PathBuf,
    /// A random id drawn when the topic was created: a topic removed and created again
    /// under the same name has another one.
    pub topic_id: u64,
    /// Its settings.
    pub settings: TopicSettings,
    /// The payload type's name (`"bytes"` for untyped topics).
    pub payload_type: String,
    /// The payload type's size in bytes (1 for untyped topics).
    pub payload_size: u64,
    /// The payload type's alignment in bytes.
    pub payload_align: u32,
    /// The wake word: bumped once per publish (wraps).
    pub wake_word: u32,
    /// Subscribers asleep (or about to sleep) in `receive` or a wait set.
    pub sleepers: u32,
    /// Live reliable subscribers (publishers wait for them).
    pub reliable_subscribers: u32,
    /// Bytes of shared memory the topic segment and its publishers' segments hold (their
    /// allocated blocks: a publisher's chunks that hold no message take none).
    pub segment_bytes: u64,
    /// Publisher slots in use, by slot.
    pub publishers: Vec<PublisherInfo>,
    /// Subscriber slots in use, by slot.
    pub subscribers: Vec<SubscriberInfo>,
}

/// One publisher slot in use (its owner alive, or dead and not yet reclaimed).
#[derive(Debug, Clone)]
pub struct PublisherInfo {
    /// Its slot in the topic (as in [`PublisherId::slot`](crate::PublisherId::slot)).
    pub slot: u32,
    /// Which publisher of the slot (as in
    /// [`PublisherId::incarnation`](crate::PublisherId::incarnation)).
    pub incarnation: u32,
    /// Whether its process still holds the slot (`false`: it died; the slot is reclaimed
    /// by the next publisher or by `ringbus clean`).
    pub alive: bool,
    /// The id of its [`Node`](crate::Node) ([`NodeInfo::id`]).
    pub node_id: u64,
    /// Its process id.
    pub pid: u32,
    /// Its counters, as it last wrote them.
    pub stats: PublisherStats,
    /// Its memory (`None` if its segment could not be read).
    pub memory: Option<PublisherMemory>,
}

/// One subscriber slot in use.
#[derive(Debug, Clone)]
pub struct SubscriberInfo {
    /// Its slot in the topic, `0..max_subscribers`.
    pub slot: u32,
    /// Whether its process still holds the slot (`false`: it died; a publisher or the next
    /// subscriber reclaims the slot).
    pub alive: bool,
    /// The id of its [`Node`](crate::Node) ([`NodeInfo::id`]).
    pub node_id: u64,
    /// Its process id.
    pub pid: u32,
    /// Whether it sleeps and is woken, or only polls.
    pub wake: Wake,
    /// Messages it has taken ([`Subscriber::taken`](crate::Subscriber::taken)).
    pub taken: u64,
    /// Messages it lost ([`Subscriber::lost`](crate::Subscriber::lost)).
    pub lost: u64,
    /// Samples it holds right now.
    pub held: u32,
    /// Counted in the topic's sleepers.
    pub asleep: bool,
    /// Messages published that it has not yet taken, lost or skipped (exact once the
    /// subscriber has looked and found nothing; see `SubscriberSlot::read_mark`).
    pub lag: u64,
    /// Publishers never overwrite what it has not taken (they wait for it).
    pub reliable: bool,
}

/// One node.
#[derive(Debug, Clone)]
pub struct NodeInfo {
    /// Its random id ([`Node::id`](crate::Node::id)).
    pub id: u64,
    /// Its name ([`Node::name`](crate::Node::name)).
    pub name: String,
    /// The process that created it.
    pub pid: u32,
    /// Whether its process still holds the node's lock.
    pub alive: bool,
    /// Its node file.
    pub path: PathBuf,
}

/// Latch or semaphore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// A [`Latch`](crate::Latch).
    Latch,
    /// A [`Semaphore`](crate::Semaphore).
    Semaphore,
}

/// One named latch or semaphore.
#[derive(Debug, Clone)]
pub struct ObjectInfo {
    /// Latch or semaphore.
    pub kind: ObjectKind,
    /// Its name.
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// Latch: 1 if set, else 0. Semaphore: free tokens.
    pub value: u32,
    /// Latch: sets so far (wraps at 2^30). Semaphore: the initial count.
    pub generation_or_initial: u32,
    /// Latch: 1 if its waiters bit is on. Semaphore: registered sleepers.
    pub sleepers: u32,
    /// Its wake counters.
    pub stats: WakeStats,
}

/// Reads everything under `root`, without joining, locking or writing anything. A file
/// that cannot be read is listed in [`Snapshot::problems`], never an error.
///
/// ```
/// # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
/// # let node = ringbus::Node::with_root("doc", dir.path())?;
/// let _publisher = node.topic("chatter").publisher()?;
/// let snapshot = ringbus::inspect::snapshot(node.root());
/// let topic = &snapshot.topics[0];
/// assert_eq!(topic.name, "chatter");
/// assert_eq!(topic.publishers.len(), 1);
/// assert!(topic.publishers[0].alive);
/// assert_eq!(snapshot.nodes[0].name, "doc");
/// assert!(snapshot.problems.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn snapshot(root: &Root) -> Snapshot {
    let mut snap = Snapshot { root: root.path().to_path_buf(), ..Snapshot::default() };
    let mut names = root.entries();
    names.sort();
    for name in &names {
        let path = root.path().join(name);
        let read = match FileName::of(name) {
            FileName::Topic(file_name) => topic_in(root, file_name, &names).map(|t| snap.topics.extend(t)),
            FileName::Node => node(&path).map(|n| snap.nodes.extend(n)),
            FileName::Latch(object_name) => {
                object(&path, ObjectKind::Latch, object_name).map(|o| snap.objects.extend(o))
            }
            FileName::Semaphore(object_name) => {
                object(&path, ObjectKind::Semaphore, object_name).map(|o| snap.objects.extend(o))
            }
            FileName::Queue(_) => queue::queue(&path).map(|q| snap.queues.extend(q)),
            // Counted with their topic; `clean` judges orphans.
            FileName::Publisher(_) => Ok(()),
            // `clean` judges abandoned ones; only a regular file is a segment being built.
            FileName::Temp => {
                if let Some(reason) = not_a_temp_file(&path) {
                    snap.problems.push(Problem { path, reason: reason.into() });
                }
                continue;
            }
            FileName::Unknown => {
                snap.problems.push(Problem { path, reason: "not a ringbus file name".into() });
                continue;
            }
        };
        if let Err(e) = read {
            snap.problems.push(Problem { path, reason: e.to_string() });
        }
    }
    snap
}

/// Why a `.tmp.*` entry cannot be a segment being built (which is always a regular file),
/// looked at without following a symbolic link; `None` if it can (or is gone).
fn not_a_temp_file(path: &Path) -> Option<&'static str> {
    let kind = std::fs::symlink_metadata(path).ok()?.file_type();
    if kind.is_file() {
        None
    } else if kind.is_symlink() {
        Some("a symbolic link named like a segment being built")
    } else if kind.is_dir() {
        Some("a directory named like a segment being built")
    } else {
        Some("not a regular file, named like a segment being built")
    }
}

/// Bytes of memory a file holds (its allocated blocks, as `du` counts them; 0 if gone).
fn allocated_bytes(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| std::os::unix::fs::MetadataExt::blocks(&m) * 512).unwrap_or(0)
}

/// Reads one topic by name; `Ok(None)` if it does not exist.
pub fn topic(root: &Root, name: &str) -> Result<Option<TopicInfo>, OpenError> {
    let (_, file_name) = crate::shm::root::file_name(name)?;
    topic_in(root, &file_name, &root.entries())
}

fn topic_in(root: &Root, file_name: &str, names: &[String]) -> Result<Option<TopicInfo>, OpenError> {
    let Some(t) = TopicHandle::open_for_sweep(root, file_name)? else {
        return Ok(None);
    };
    let c = *t.segment.config();
    let words = t.segment.wake_words();
    let wake_word = words.word_now();
    let prefix = Root::publisher_prefix(file_name, t.topic_id);
    let publisher_bytes: u64 =
        names.iter().filter(|n| n.starts_with(&prefix)).map(|n| allocated_bytes(&root.path().join(n))).sum();
    let topic_bytes = allocated_bytes(&t.path);
    Ok(Some(TopicInfo {
        name: t.name.clone(),
        path: t.path.clone(),
        topic_id: t.topic_id,
        settings: TopicSettings {
            max_publishers: c.max_publishers,
            max_subscribers: c.max_subscribers,
            depth: c.depth,
            history: c.history,
            max_held: c.max_held,
            chunks: c.chunk_count,
            max_payload_bytes: c.max_payload_bytes,
            pool_bytes: c.pool_bytes,
            preallocate: c.preallocate != 0,
        },
        payload_type: t.payload.name.clone(),
        payload_size: t.payload.size,
        payload_align: t.payload.align,
        wake_word,
        sleepers: words.sleepers_now(),
        reliable_subscribers: t.segment.reliable_set().count(),
        segment_bytes: topic_bytes + publisher_bytes,
        publishers: (0..c.max_publishers).filter_map(|s| publisher(&t, s)).collect(),
        subscribers: (0..c.max_subscribers).filter_map(|s| subscriber(&t, s, wake_word)).collect(),
    }))
}

fn publisher(t: &TopicHandle, slot: u32) -> Option<PublisherInfo> {
    // An unknown state is skipped here; subscribers report it as corruption.
    let (incarnation, state) = decode_occupancy(t.publisher_occupancy(slot)).ok()?;
    if state == SlotState::Free {
        return None;
    }
    let s = t.segment.publisher(slot).snapshot();
    Some(PublisherInfo {
        slot,
        incarnation,
        alive: t.is_alive(Role::Publisher, slot),
        node_id: s.node_id,
        pid: s.pid,
        stats: PublisherStats {
            publishes: s.publishes,
            wake_syscalls: s.wake_syscalls,
            wakes_skipped: s.wakes_skipped,
            payload_bytes: s.payload_bytes,
            blocked: s.blocked,
            blocked_ns: s.blocked_ns,
        },
        memory: publisher_memory::read(t, slot, incarnation),
    })
}

fn subscriber(t: &TopicHandle, slot: u32, wake_word: u32) -> Option<SubscriberInfo> {
    let slot_view = t.segment.subscriber(slot);
    if slot_view.state() != SlotState::Active as u32 {
        return None;
    }
    let s = slot_view.snapshot();
    // Signed distance: a mark a little ahead of the word (a publish racing the look that
    // set it) is no lag, not 4 billion.
    let lag = wake_word.wrapping_sub(s.read_mark) as i32;
    Some(SubscriberInfo {
        slot,
        alive: t.is_alive(Role::Subscriber, slot),
        node_id: s.node_id,
        pid: s.pid,
        wake: if s.wake_mode == Wake::Never as u32 { Wake::Never } else { Wake::OnData },
        taken: s.taken,
        lost: s.lost,
        held: s.held,
        asleep: s.sleeping != 0,
        lag: lag.max(0) as u64,
        reliable: s.reliable,
    })
}

fn node(path: &Path) -> Result<Option<NodeInfo>, OpenError> {
    let Some(opened) = segment::open(path, SegmentKind::Node, false)? else {
        return Ok(None);
    };
    let record = NodeRecord::read(&opened.region, &opened.header).map_err(|e| segment::header_error(path, e))?;
    let len = (record.name_len as usize).min(MAX_NODE_NAME_BYTES);
    Ok(Some(NodeInfo {
        id: record.node_id,
        name: String::from_utf8_lossy(&record.name[..len]).into_owned(),
        pid: record.pid,
        alive: sys::lock::is_locked(opened.file.as_fd(), 0).unwrap_or(true),
        path: path.to_path_buf(),
    }))
}

fn object(path: &Path, kind: ObjectKind, file_name: &str) -> Result<Option<ObjectInfo>, OpenError> {
    let segment_kind = match kind {
        ObjectKind::Latch => SegmentKind::Latch,
        ObjectKind::Semaphore => SegmentKind::Semaphore,
    };
    let Some(opened) = segment::open(path, segment_kind, false)? else {
        return Ok(None);
    };
    ObjectRecord::validate(&opened.region, &opened.header).map_err(|e| segment::header_error(path, e))?;
    let words = ObjectRecord::words(&opened.region);
    let record: ObjectRecord = opened.region.read_plain(0);
    let word = words.word_now();
    let (value, generation_or_initial, sleepers) = match kind {
        ObjectKind::Latch => (word & latch::SET, latch::generation(word), (word & latch::WAITERS != 0) as u32),
        ObjectKind::Semaphore => (word, record.initial, words.sleepers_now()),
    };
    Ok(Some(ObjectInfo {
        kind,
        name: file_name.replace('.', "/"),
        path: path.to_path_buf(),
        value,
        generation_or_initial,
        sleepers,
        stats: WakeStats::read(&words),
    }))
}
