//! The command-queue scenario behind the `queue_segment` target: a queue built by the
//! library (SPSC or MPSC, waking or polling, with some commands in it), its file patched
//! in place while its producer (and perhaps consumer) are attached, then fuzz-chosen
//! pushes, pops, new producers and consumers that read the patched positions, marks and
//! claim words back.

use crate::look::{look, Look};
use crate::patch::{self, Patch};
use crate::root::PrivateRoot;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use ringbus::{Consumer, Node, Pod, Producer, Wake};
use std::hint::black_box;
use std::time::Duration;

/// The queue every scenario uses.
pub const QUEUE: &str = "fuzz/q";

/// A queue's settings and what happens before the patches.
#[derive(Debug, Clone, Arbitrary)]
pub struct QueuePlan {
    mpsc: bool,
    capacity_log2: u8,
    polling: bool,
    command: Command,
    early_consumer: bool,
    pushes: u8,
    pops: u8,
}

/// The command type, for slots of different strides and alignments.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Command {
    U8,
    U64,
    Triple,
    Wide,
}

/// One step after the patches; `u8`s pick a producer (modulo) or count commands.
#[derive(Debug, Clone, Arbitrary)]
pub enum Action {
    Push(u8),
    PushBatch(u8, u8),
    PushTimeout(u8),
    Pop,
    PopBatch(u8),
    Wait,
    NewConsumer,
    DropConsumer,
    NewProducer,
    DropProducer(u8),
    Look(Look),
}

/// A whole input of the `queue_segment` target.
#[derive(Debug, Clone, Arbitrary)]
pub struct QueueInput {
    pub plan: QueuePlan,
    pub patches: Vec<Patch>,
    pub actions: Vec<Action>,
}

/// Runs one input with the command type it names.
pub fn run(input: &QueueInput) {
    match input.plan.command {
        Command::U8 => run_with::<u8>(input),
        Command::U64 => run_with::<u64>(input),
        Command::Triple => run_with::<[u32; 3]>(input),
        Command::Wide => run_with::<[u64; 5]>(input),
    }
}

/// Everything alive in one run, dropped in field order.
struct World<T: Pod> {
    consumer: Option<Consumer<T>>,
    producers: Vec<Producer<T>>,
    node: Node,
    plan: QueuePlan,
    root: PrivateRoot,
}

fn run_with<T: Pod + Default>(input: &QueueInput) {
    let Some(mut world) = World::<T>::build(&input.plan) else {
        return;
    };
    if let Some(file) = world.root.file("queue.") {
        patch::apply(&file, &input.patches);
    }
    world.reopen();
    for action in input.actions.iter().take(crate::MAX_STEPS) {
        world.step(action);
    }
}

impl<T: Pod + Default> World<T> {
    fn build(plan: &QueuePlan) -> Option<World<T>> {
        let root = PrivateRoot::new();
        let node = root.node("fuzz")?;
        let mut world = World { consumer: None, producers: Vec::new(), node, plan: plan.clone(), root };
        world.new_producer();
        if plan.early_consumer {
            world.new_consumer();
        }
        for _ in 0..plan.pushes % 40 {
            world.push(0);
        }
        for _ in 0..plan.pops % 40 {
            world.pop();
        }
        Some(world)
    }

    /// Right after the patches: a new producer and consumer open the queue (validating it
    /// and reading its positions), and every end pushes or pops once.
    fn reopen(&mut self) {
        self.new_producer();
        self.new_consumer();
        for p in 0..self.producers.len() {
            self.push(p as u8);
        }
        self.pop();
    }

    fn builder(&self) -> ringbus::queue::QueueBuilder<T> {
        let builder = self.node.queue::<T>(QUEUE).capacity(2 << (self.plan.capacity_log2 % 5));
        let builder = if self.plan.mpsc { builder.mpsc() } else { builder.spsc() };
        builder.wake(if self.plan.polling { Wake::Never } else { Wake::OnData })
    }

    fn new_producer(&mut self) {
        if let Ok(producer) = self.builder().producer() {
            self.producers.push(producer);
        }
    }

    fn new_consumer(&mut self) {
        if let Ok(consumer) = self.builder().consumer() {
            self.consumer = Some(consumer);
        }
    }

    fn push(&mut self, p: u8) {
        let n = self.producers.len();
        if n > 0 {
            let producer = &mut self.producers[p as usize % n];
            black_box(producer.push(T::default()).is_ok());
            black_box((producer.head_reads(), producer.consumer_alive(), producer.capacity()));
        }
    }

    fn pop(&mut self) {
        if let Some(consumer) = &mut self.consumer {
            black_box(consumer.pop().ok());
            black_box((consumer.abandoned(), consumer.tail_reads()));
        }
    }

    fn step(&mut self, action: &Action) {
        let n = self.producers.len();
        match *action {
            Action::Push(p) => self.push(p),
            Action::PushBatch(p, count) if n > 0 => {
                let batch = vec![T::default(); count as usize % 40];
                black_box(self.producers[p as usize % n].push_batch(&batch).ok());
            }
            Action::PushTimeout(p) if n > 0 => {
                black_box(self.producers[p as usize % n].push_timeout(T::default(), Some(Duration::ZERO)).is_ok());
            }
            Action::Pop => self.pop(),
            Action::PopBatch(count) => {
                if let Some(consumer) = &mut self.consumer {
                    let mut out = vec![T::default(); count as usize % 40];
                    black_box(consumer.pop_batch(&mut out).ok());
                }
            }
            Action::Wait => {
                if let Some(consumer) = &mut self.consumer {
                    black_box(consumer.wait(Some(Duration::ZERO)));
                }
            }
            Action::NewConsumer => self.new_consumer(),
            Action::DropConsumer => self.consumer = None,
            Action::NewProducer => self.new_producer(),
            Action::DropProducer(p) if n > 0 => {
                self.producers.swap_remove(p as usize % n);
            }
            Action::Look(which) => look(self.root.path(), which),
            _ => {}
        }
    }
}
