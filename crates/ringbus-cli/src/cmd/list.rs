//! `ringbus list`: what is on the bus — topics, nodes, latches and semaphores, and files
//! that do not belong.

use super::json;
use super::output::{bytes, paint, print_json, Colour, JsonFlag, Table};
use ringbus::inspect::{self, Snapshot};
use serde_json::{json, Value};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus list                 # every section\n  \
    ringbus list topics --json   # one JSON array, for scripts\n  \
    ringbus list nodes           # which processes are on the bus, and which died\n  \
    ringbus list queues          # command queues: how many commands wait, is the consumer alive")]
pub struct ListArgs {
    /// What to list (default: everything).
    #[arg(value_enum)]
    what: Option<What>,
    #[command(flatten)]
    json: JsonFlag,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum What {
    Topics,
    Nodes,
    Objects,
    Queues,
    Problems,
}

const ALL: [What; 5] = [What::Topics, What::Nodes, What::Objects, What::Queues, What::Problems];

impl ListArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let snap = match super::existing_root()? {
            Some(root) => inspect::snapshot(&root),
            None => Snapshot { root: ringbus::Root::default_path(), ..Snapshot::default() },
        };
        if self.json.json {
            print_json(&match self.what {
                Some(what) => section_json(&snap, what),
                None => json!({
                    "root": snap.root,
                    "topics": section_json(&snap, What::Topics), "nodes": section_json(&snap, What::Nodes),
                    "objects": section_json(&snap, What::Objects), "queues": section_json(&snap, What::Queues),
                    "problems": section_json(&snap, What::Problems),
                }),
            });
            return Ok(());
        }
        let sections: &[What] = match &self.what {
            Some(what) => std::slice::from_ref(what),
            None => &ALL,
        };
        for (i, &what) in sections.iter().enumerate() {
            let table = section_table(&snap, what);
            if self.what.is_none() {
                if table.is_empty() && what == What::Problems {
                    continue;
                }
                println!(
                    "{}{}",
                    if i > 0 { "\n" } else { "" },
                    paint(&format!("{what:?}").to_uppercase(), Colour::Bold)
                );
            }
            if table.is_empty() {
                println!("(none in {})", snap.root.display());
            } else {
                table.print();
            }
        }
        Ok(())
    }
}

fn section_json(snap: &Snapshot, what: What) -> Value {
    match what {
        What::Topics => snap.topics.iter().map(json::topic).collect(),
        What::Nodes => snap.nodes.iter().map(json::node).collect(),
        What::Objects => snap.objects.iter().map(json::object).collect(),
        What::Queues => snap.queues.iter().map(json::queue).collect(),
        What::Problems => snap.problems.iter().map(json::problem).collect(),
    }
}

fn alive(alive: bool) -> String {
    if alive {
        paint("alive", Colour::Green)
    } else {
        paint("dead", Colour::Red)
    }
}

fn section_table(snap: &Snapshot, what: What) -> Table {
    match what {
        What::Topics => {
            let mut t = Table::new(&["topic", "pubs", "subs", "asleep", "published", "type", "max payload", "shm"]);
            for topic in &snap.topics {
                let (publishes, ..) = json::publishes(topic);
                t.row(vec![
                    topic.name.clone(),
                    topic.publishers.len().to_string(),
                    topic.subscribers.len().to_string(),
                    topic.sleepers.to_string(),
                    publishes.to_string(),
                    topic.payload_type.clone(),
                    bytes(topic.settings.max_payload_bytes as f64),
                    bytes(topic.segment_bytes as f64),
                ]);
            }
            t
        }
        What::Nodes => {
            let mut t = Table::new(&["node id", "name", "pid", "state"]);
            for n in &snap.nodes {
                t.row(vec![format!("{:016x}", n.id), n.name.clone(), n.pid.to_string(), alive(n.alive)]);
            }
            t
        }
        What::Objects => {
            let mut t = Table::new(&["kind", "name", "value", "sleepers", "wake calls", "woken", "skipped"]);
            for o in &snap.objects {
                t.row(vec![
                    json::object_kind(o.kind).into(),
                    o.name.clone(),
                    o.value.to_string(),
                    o.sleepers.to_string(),
                    o.stats.wake_calls.to_string(),
                    o.stats.woken.to_string(),
                    o.stats.skipped.to_string(),
                ]);
            }
            t
        }
        What::Queues => {
            let mut t = Table::new(&["queue", "producers", "capacity", "queued", "command", "consumer", "asleep"]);
            for q in &snap.queues {
                t.row(vec![
                    q.name.clone(),
                    format!("{} alive ({})", q.producers_alive, if q.mpsc { "mpsc" } else { "spsc" }),
                    q.capacity.to_string(),
                    q.queued().to_string(),
                    format!("{} ({} B)", q.command_type, q.command_size),
                    alive(q.consumer_alive),
                    if q.polling { "never (polls)".into() } else { super::output::yes_no(q.consumer_asleep).into() },
                ]);
            }
            t
        }
        What::Problems => {
            let mut t = Table::new(&["file", "problem"]);
            for p in &snap.problems {
                t.row(vec![p.path.display().to_string(), p.reason.clone()]);
            }
            t
        }
    }
}
