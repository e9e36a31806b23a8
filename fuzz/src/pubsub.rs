//! The publish/subscribe scenario behind the `topic_segment` and `publisher_segment`
//! targets: a topic built by the library (a publisher, perhaps a subscriber, some
//! messages), one of its files patched in place while everyone is still attached, then
//! fuzz-chosen steps through the public API — new subscribers and publishers joining,
//! takes, peeks, loans — that read the patched memory back.

use crate::look::{look, Look};
use crate::patch::{self, Patch};
use crate::root::PrivateRoot;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use ringbus::{Node, Publisher, Sample, Subscriber, TopicBuilder, Wake, WhenFull};
use std::hint::black_box;

/// The topic every scenario uses.
pub const TOPIC: &str = "fuzz/t";

/// Which file of the topic the patches go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patched {
    /// `topic.<name>`: configuration, wake words, slot tables.
    Topic,
    /// The first publisher's segment: geometry, log entries, chunk words, read positions.
    Publisher,
}

/// A topic's settings, each folded into a small valid range.
#[derive(Debug, Clone, Arbitrary)]
pub struct TopicPlan {
    depth_log2: u8,
    max_publishers: u8,
    max_subscribers: u8,
    max_held: u8,
    history: u8,
    max_payload_bytes: u8,
    preallocate: bool,
    /// Declare `u64` payloads.
    typed: bool,
    /// A subscriber that joins before the first message.
    early_subscriber: Option<SubscriberPlan>,
    /// Lengths of the messages published before the patches.
    messages: Vec<u8>,
    /// Takes of the early subscriber before the patches (it holds the last one).
    early_takes: u8,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct SubscriberPlan {
    reliable: bool,
    keep_last: Option<u8>,
    polling: bool,
}

/// One step after the patches; `u8`s pick a subscriber, publisher or sample (modulo).
#[derive(Debug, Clone, Arbitrary)]
pub enum Action {
    Take(u8),
    Peek(u8),
    TakeLatest(u8),
    TakeAll(u8),
    HasData(u8),
    DropSample(u8),
    Subscribe(SubscriberPlan),
    DropSubscriber(u8),
    Publish(u8, u16),
    LoanAndDrop(u8, u16),
    ChunksHeld(u8),
    NewPublisher,
    DropPublisher(u8),
    Look(Look),
}

/// A whole input of the publish/subscribe targets.
#[derive(Debug, Clone, Arbitrary)]
pub struct PubsubInput {
    pub plan: TopicPlan,
    pub patches: Vec<Patch>,
    pub actions: Vec<Action>,
}

/// Everything alive in one run, dropped in field order: samples before the subscribers
/// that took them, the nodes and the root last.
struct World {
    samples: Vec<Sample>,
    subscribers: Vec<Subscriber>,
    publishers: Vec<Publisher>,
    node: Node,
    plan: TopicPlan,
    root: PrivateRoot,
}

/// Runs one input.
pub fn run(input: &PubsubInput, patched: Patched) {
    let Some(mut world) = World::build(&input.plan) else {
        return;
    };
    let file = match patched {
        Patched::Topic => world.root.file("topic."),
        Patched::Publisher => world.root.file("pub."),
    };
    if let Some(file) = file {
        patch::apply(&file, &input.patches);
    }
    world.reopen();
    for action in input.actions.iter().take(crate::MAX_STEPS) {
        world.step(action);
    }
}

impl TopicPlan {
    fn depth(&self) -> u32 {
        1 << (self.depth_log2 % 4)
    }

    fn max_payload_bytes(&self) -> u64 {
        let bytes = 1 + self.max_payload_bytes as u64;
        if self.typed {
            bytes.max(8)
        } else {
            bytes
        }
    }

    /// The builder that creates the topic.
    fn creator(&self, node: &Node) -> TopicBuilder {
        let builder = node
            .topic(TOPIC)
            .depth(self.depth())
            .max_publishers(1 + self.max_publishers as u32 % 3)
            .max_subscribers(1 + self.max_subscribers as u32 % 4)
            .max_held(1 + self.max_held as u32 % 3)
            .history(self.history as u32 % (self.depth() + 1))
            .max_payload_bytes(self.max_payload_bytes())
            .preallocate(self.preallocate);
        if self.typed {
            builder.payload_type::<u64>()
        } else {
            builder
        }
    }
}

impl World {
    fn build(plan: &TopicPlan) -> Option<World> {
        let root = PrivateRoot::new();
        let node = root.node("fuzz")?;
        let publisher = plan.creator(&node).when_full(WhenFull::Fail).publisher().ok()?;
        let mut world = World {
            samples: Vec::new(),
            subscribers: Vec::new(),
            publishers: vec![publisher],
            node,
            plan: plan.clone(),
            root,
        };
        if let Some(early) = plan.early_subscriber {
            world.subscribe(early);
        }
        for &len in plan.messages.iter().take(crate::MAX_STEPS) {
            world.publish(0, len as u16);
        }
        for _ in 0..plan.early_takes % 4 {
            world.take(0);
        }
        Some(world)
    }

    /// Right after the patches: a new subscriber and a new publisher join (validating the
    /// topic and attaching to the publishers), every subscriber takes once, and the new
    /// publisher publishes more than a log's worth (so every reliable reader is consulted).
    fn reopen(&mut self) {
        self.subscribe(SubscriberPlan { reliable: false, keep_last: None, polling: false });
        for s in 0..self.subscribers.len() {
            self.take(s as u8);
        }
        self.step(&Action::NewPublisher);
        let newest = (self.publishers.len() as u8).saturating_sub(1);
        for _ in 0..=self.plan.depth() {
            self.publish(newest, 1);
        }
    }

    fn step(&mut self, action: &Action) {
        match *action {
            Action::Take(s) => self.take(s),
            Action::Peek(s) => {
                if let Some(sub) = pick(&mut self.subscribers, s) {
                    keep(&mut self.samples, sub.peek());
                }
            }
            Action::TakeLatest(s) => {
                if let Some(sub) = pick(&mut self.subscribers, s) {
                    keep(&mut self.samples, sub.take_latest());
                }
            }
            Action::TakeAll(s) => {
                if let Some(sub) = pick(&mut self.subscribers, s) {
                    let mut all = sub.take_all();
                    for sample in all.by_ref() {
                        keep(&mut Vec::new(), sample.map(Some));
                    }
                    black_box(all.lost());
                }
            }
            Action::HasData(s) => {
                if let Some(sub) = pick(&mut self.subscribers, s) {
                    black_box((sub.has_data(), sub.taken(), sub.lost(), sub.held()));
                }
            }
            Action::DropSample(i) => {
                if !self.samples.is_empty() {
                    self.samples.swap_remove(i as usize % self.samples.len());
                }
            }
            Action::Subscribe(plan) => self.subscribe(plan),
            Action::DropSubscriber(s) => {
                if !self.subscribers.is_empty() {
                    self.subscribers.swap_remove(s as usize % self.subscribers.len());
                }
            }
            Action::Publish(p, len) => self.publish(p, len),
            Action::LoanAndDrop(p, len) => {
                if let Some(publisher) = pick(&mut self.publishers, p) {
                    black_box(publisher.loan(len as usize).map(|loan| loan.len()).ok());
                }
            }
            Action::ChunksHeld(p) => {
                if let Some(publisher) = pick(&mut self.publishers, p) {
                    black_box((publisher.chunks_held_by_subscribers(), publisher.free_chunks(), publisher.stats()));
                    black_box((publisher.reserved_payload_bytes(), publisher.sleeping_subscribers()));
                }
            }
            Action::NewPublisher => {
                if let Ok(publisher) = self.node.topic(TOPIC).when_full(WhenFull::Fail).publisher() {
                    self.publishers.push(publisher);
                }
            }
            Action::DropPublisher(p) => {
                if !self.publishers.is_empty() {
                    self.publishers.swap_remove(p as usize % self.publishers.len());
                }
            }
            Action::Look(which) => look(self.root.path(), which),
        }
    }

    fn subscribe(&mut self, plan: SubscriberPlan) {
        let mut builder = self.node.topic(TOPIC);
        if plan.reliable {
            builder = builder.reliable();
        }
        if let Some(k) = plan.keep_last {
            builder = builder.keep_last(k as u32 % 9);
        }
        if plan.polling {
            builder = builder.wake(Wake::Never);
        }
        if let Ok(subscriber) = builder.subscriber() {
            self.subscribers.push(subscriber);
        }
    }

    fn take(&mut self, s: u8) {
        if let Some(sub) = pick(&mut self.subscribers, s) {
            keep(&mut self.samples, sub.take());
        }
    }

    /// Publishes a message of `len` bytes (folded into the topic's limit) from publisher `p`.
    fn publish(&mut self, p: u8, len: u16) {
        let max = self.plan.max_payload_bytes();
        let typed = self.plan.typed;
        let Some(publisher) = pick(&mut self.publishers, p) else {
            return;
        };
        if typed {
            let _ = publisher.publish_value(&(len as u64));
            return;
        }
        let len = len as u64 % (max + 1);
        if let Ok(mut loan) = publisher.loan_uninit(len as usize) {
            loan.fill(len as u8);
            loan.publish();
        }
    }
}

fn pick<T>(items: &mut [T], i: u8) -> Option<&mut T> {
    let n = items.len();
    (n > 0).then(|| &mut items[i as usize % n])
}

/// Reads a taken sample whole, and keeps it (pinned) in `samples`.
fn keep<E: std::fmt::Display>(samples: &mut Vec<Sample>, taken: Result<Option<Sample>, E>) {
    match taken {
        Ok(Some(sample)) => {
            black_box(sample.iter().fold(0u8, |a, b| a ^ b));
            black_box((sample.value::<u64>().ok(), sample.slice::<u32>().map(|s| s.len()).ok()));
            black_box((sample.position(), sample.publisher(), sample.timestamp_ns()));
            samples.push(sample);
        }
        Ok(None) => {}
        Err(e) => {
            black_box(e.to_string());
        }
    }
}
