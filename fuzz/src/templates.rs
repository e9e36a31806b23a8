//! Valid segment files of every kind, made once per process by the library itself and
//! kept as bytes: a topic (with a reliable and a lossy subscriber slot, both dead by the
//! time a run writes the file back), its publisher's segment with messages in the log and
//! a chunk pinned, an MPSC and an SPSC queue with commands in them, a set latch, a
//! semaphore and a node record. Targets write them into their root, patched, to reach the
//! validation behind each header.

use crate::raw::Kind;
use crate::root::{PrivateRoot, Use};
use ringbus::WhenFull;
use std::sync::OnceLock;

/// One valid file.
#[derive(Debug, Clone)]
pub struct Template {
    pub kind: Kind,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The templates, made on first use.
pub fn templates() -> &'static [Template] {
    static TEMPLATES: OnceLock<Vec<Template>> = OnceLock::new();
    TEMPLATES.get_or_init(capture)
}

/// The template of `kind` (the first, for queues).
pub fn template(kind: Kind) -> &'static Template {
    templates().iter().find(|t| t.kind == kind).expect("a template of every kind of segment")
}

/// The id of the templates' topic (publisher file names carry it).
pub fn topic_id() -> u64 {
    let name = &template(Kind::Publisher).name;
    let id = name.rsplit('.').nth(2).expect("pub.<topic>.<id>.<slot>.<incarnation>");
    u64::from_str_radix(id, 16).expect("a hexadecimal topic id")
}

fn kind_of(name: &str) -> Kind {
    let prefix = name.split('.').next().unwrap_or("");
    match prefix {
        "topic" => Kind::Topic,
        "pub" => Kind::Publisher,
        "node" => Kind::Node,
        "latch" => Kind::Latch,
        "sem" => Kind::Semaphore,
        "queue" => Kind::Queue,
        "" => Kind::Temp,
        _ => Kind::Unknown,
    }
}

/// Builds one of each with the library and reads the files while their users live.
fn capture() -> Vec<Template> {
    let root = PrivateRoot::for_use(Use::Templates);
    let node = root.node("fuzz").expect("a node in a fresh root");
    let topic = || node.topic(crate::pubsub::TOPIC);
    let mut publisher = topic()
        .depth(4)
        .max_publishers(2)
        .max_subscribers(3)
        .max_held(2)
        .history(2)
        .max_payload_bytes(64)
        .when_full(WhenFull::Fail)
        .publisher()
        .expect("a publisher");
    let mut reliable = topic().reliable().subscriber().expect("a reliable subscriber");
    let _lossy = topic().wake(ringbus::Wake::Never).subscriber().expect("a lossy subscriber");
    for len in [5, 64, 0] {
        publisher.publish_copy(&[7; 64][..len]).expect("room for three messages");
    }
    let _held = reliable.take().expect("a message").expect("one published");
    let mut mpsc = node.queue::<u64>(crate::queue::QUEUE).capacity(4).mpsc().producer().expect("an MPSC queue");
    let mut consumer = node.queue::<u64>(crate::queue::QUEUE).consumer().expect("its consumer");
    for v in 0..3 {
        mpsc.push(v).expect("room");
    }
    consumer.pop().expect("a command");
    let mut spsc = node.queue::<[u32; 3]>("fuzz/r").capacity(2).spsc().producer().expect("an SPSC queue");
    spsc.push([1, 2, 3]).expect("room");
    let latch = node.latch(crate::objects::LATCH).expect("a latch");
    latch.set();
    let _semaphore = node.semaphore(crate::objects::SEMAPHORE, 2).expect("a semaphore");
    root.files()
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(root.path().join(&name)).expect("a file just listed");
            Template { kind: kind_of(&name), name, bytes }
        })
        .collect()
}
