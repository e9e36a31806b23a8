//! The scenarios behind the `object_segment` and `node_segment` targets: a latch or
//! semaphore (or a node's record) made by the library, its file patched in place while it
//! is open, then fuzz-chosen operations — through the open handle, through a handle that
//! opens the file anew (and validates it), and through inspection and cleaning.

use crate::look::{look, Look};
use crate::patch::{self, Patch};
use crate::root::PrivateRoot;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use ringbus::{Latch, Node, Semaphore};
use std::hint::black_box;
use std::time::Duration;

/// The latch and semaphore the scenarios use.
pub const LATCH: &str = "fuzz/l";
pub const SEMAPHORE: &str = "fuzz/s";

/// One step after the patches.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Action {
    Set,
    Reset,
    Wait,
    Post,
    TryWait,
    WaitTimeout,
    /// Reads the value and the wake counters.
    Read,
    /// Opens the object again (a second handle validates the patched file).
    Reopen,
    Look(Look),
}

/// A whole input of the `object_segment` target.
#[derive(Debug, Clone, Arbitrary)]
pub struct ObjectInput {
    pub semaphore: bool,
    pub initial: u8,
    pub early: Vec<Action>,
    pub patches: Vec<Patch>,
    pub actions: Vec<Action>,
}

/// Runs one input.
pub fn run(input: &ObjectInput) {
    let root = PrivateRoot::new();
    let Some(node) = root.node("fuzz") else {
        return;
    };
    let mut handles = Handles { node, latches: Vec::new(), semaphores: Vec::new(), semaphore: input.semaphore };
    handles.open(input.initial as u32);
    for action in input.early.iter().take(crate::MAX_STEPS) {
        handles.step(*action, &root);
    }
    let prefix = if input.semaphore { "sem." } else { "latch." };
    if let Some(file) = root.file(prefix) {
        patch::apply(&file, &input.patches);
    }
    for action in input.actions.iter().take(crate::MAX_STEPS) {
        handles.step(*action, &root);
    }
}

struct Handles {
    node: Node,
    latches: Vec<Latch>,
    semaphores: Vec<Semaphore>,
    semaphore: bool,
}

impl Handles {
    fn open(&mut self, initial: u32) {
        if self.semaphore {
            self.semaphores.extend(self.node.semaphore(SEMAPHORE, initial).ok());
        } else {
            self.latches.extend(self.node.latch(LATCH).ok());
        }
    }

    fn step(&mut self, action: Action, root: &PrivateRoot) {
        match action {
            Action::Reopen => self.open(0),
            Action::Look(which) => look(root.path(), which),
            _ => {}
        }
        for latch in &self.latches {
            latch_step(latch, action);
        }
        for semaphore in &self.semaphores {
            semaphore_step(semaphore, action);
        }
    }
}

fn latch_step(latch: &Latch, action: Action) {
    match action {
        Action::Set => {
            black_box(latch.set());
        }
        Action::Reset => latch.reset(),
        Action::Wait => {
            black_box(latch.wait(Some(Duration::ZERO)).is_ok());
        }
        Action::Read => {
            black_box((latch.is_set(), latch.stats()));
        }
        _ => {}
    }
}

fn semaphore_step(semaphore: &Semaphore, action: Action) {
    match action {
        Action::Post => {
            black_box(semaphore.post().is_ok());
        }
        Action::TryWait => {
            black_box(semaphore.try_wait());
        }
        Action::WaitTimeout => {
            black_box(semaphore.wait_timeout(Duration::ZERO).is_ok());
        }
        Action::Read => {
            black_box((semaphore.value(), semaphore.stats()));
        }
        _ => {}
    }
}

/// A whole input of the `node_segment` target.
#[derive(Debug, Clone, Arbitrary)]
pub struct NodeInput {
    pub name: String,
    pub patches: Vec<Patch>,
    /// Also copy the patched record under another node's name, where no process holds
    /// it (a dead node's file).
    pub orphan_copy: bool,
    pub looks: Vec<Look>,
    /// Register another node afterwards (it sweeps dead nodes' files on its way in).
    pub second_node: bool,
}

/// Runs one input of the `node_segment` target.
pub fn run_node(input: &NodeInput) {
    let root = PrivateRoot::new();
    let mut name = String::new();
    for c in input.name.chars().filter(|c| !c.is_control()) {
        if name.len() + c.len_utf8() > 64 {
            break;
        }
        name.push(c);
    }
    let Some(node) = root.node(if name.is_empty() { "fuzz" } else { &name }) else {
        return;
    };
    let Some(file) = root.file("node.") else {
        return;
    };
    patch::apply(&file, &input.patches);
    if input.orphan_copy {
        if let Ok(bytes) = std::fs::read(&file) {
            crate::raw::write_new(&root.path().join("node.00000000000000ff"), &bytes);
        }
    }
    for which in input.looks.iter().take(crate::MAX_STEPS) {
        look(root.path(), *which);
    }
    if input.second_node {
        black_box(Node::with_root("fuzz-2", root.path()).is_ok());
    }
    drop(node);
}
