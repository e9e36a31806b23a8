//! The scenarios that write whole files into an empty root: `segment_header` (one file of
//! fuzz bytes, under a header that may or may not be valid, opened the way its kind is
//! opened) and `inspect_root` (several files, fuzz bytes or patched templates, under
//! names of every kind, then inspected and cleaned).

use crate::look::look_all;
use crate::patch::{self, Patch};
use crate::raw::{write_new, Kind, RawFile};
use crate::root::PrivateRoot;
use crate::templates::{template, templates, topic_id};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use std::hint::black_box;

/// An input of the `segment_header` target.
#[derive(Debug, Clone, Arbitrary)]
pub struct HeaderInput {
    pub kind: Kind,
    pub file: RawFile,
}

/// Writes the file under the name its kind is opened by, opens it that way, then looks
/// at the root.
pub fn run_header(input: &HeaderInput) {
    templates();
    let root = PrivateRoot::new();
    if input.kind == Kind::Publisher {
        // The topic says a publisher is in slot 0 (incarnation 1): subscribers open its file.
        let topic = template(Kind::Topic);
        write_new(&root.path().join(&topic.name), &topic.bytes);
    }
    let name = input.kind.file_name(0, topic_id());
    write_new(&root.path().join(name), &input.file.contents(input.kind));
    if let Some(node) = root.node("fuzz") {
        open_as(input.kind, &node);
    }
    look_all(root.path());
}

/// Opens the root's file of `kind` as ringbus users do, and uses it a little.
fn open_as(kind: Kind, node: &ringbus::Node) {
    match kind {
        Kind::Topic | Kind::Publisher => {
            if let Ok(mut subscriber) = node.topic(crate::pubsub::TOPIC).subscriber() {
                for _ in 0..3 {
                    black_box(subscriber.take().map(|s| s.map(|s| s.len())).ok());
                }
            }
            if let Ok(mut publisher) = node.topic(crate::pubsub::TOPIC).publisher() {
                black_box(publisher.publish_copy(b"fuzz").is_ok());
            }
        }
        Kind::Queue => {
            if let Ok(mut consumer) = node.queue::<u64>(crate::queue::QUEUE).consumer() {
                black_box(consumer.pop().ok());
            }
            if let Ok(mut producer) = node.queue::<u64>(crate::queue::QUEUE).producer() {
                black_box(producer.push(7).is_ok());
            }
        }
        Kind::Latch => {
            if let Ok(latch) = node.latch(crate::objects::LATCH) {
                black_box((latch.set(), latch.is_set(), latch.stats()));
            }
        }
        Kind::Semaphore => {
            if let Ok(semaphore) = node.semaphore(crate::objects::SEMAPHORE, 0) {
                black_box((semaphore.post().is_ok(), semaphore.try_wait(), semaphore.value()));
            }
        }
        // Read by the looks (and a node's sweep, which registering `node` just ran).
        Kind::Node | Kind::Temp | Kind::Unknown => {}
    }
}

/// One file of an `inspect_root` input.
#[derive(Debug, Clone, Arbitrary)]
pub enum FileSpec {
    /// A valid file (`which` picks one, modulo), patched, perhaps under another name of
    /// its kind.
    Template { which: u8, patches: Vec<Patch>, rename: Option<u8> },
    /// Fuzz bytes under a name of `kind`.
    Raw { kind: Kind, name: u8, file: RawFile },
}

/// An input of the `inspect_root` target.
#[derive(Debug, Clone, Arbitrary)]
pub struct InspectInput {
    pub files: Vec<FileSpec>,
}

/// Writes the files (a name already taken is skipped) and looks at the root every way.
pub fn run_inspect(input: &InspectInput) {
    let all = templates();
    let root = PrivateRoot::new();
    for spec in input.files.iter().take(8) {
        match spec {
            FileSpec::Template { which, patches, rename } => {
                let t = &all[*which as usize % all.len()];
                let name = rename.map_or_else(|| t.name.clone(), |n| t.kind.file_name(n, topic_id()));
                let path = root.path().join(name);
                if write_new(&path, &t.bytes) {
                    patch::apply(&path, patches);
                }
            }
            FileSpec::Raw { kind, name, file } => {
                write_new(&root.path().join(kind.file_name(*name, topic_id())), &file.contents(*kind));
            }
        }
    }
    look_all(root.path());
}
