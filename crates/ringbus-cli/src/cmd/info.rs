//! `ringbus info TOPIC`: one topic's configuration, its publishers and subscribers with
//! their counters, and its wake statistics.

use super::json;
use super::output::{bytes, counted, paint, print_json, yes_no, Colour, Failure, JsonFlag, Table};
use ringbus::inspect::{self, PublisherMemory, TopicInfo};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus info lidar/points          # who publishes, who lags, who loses messages\n  \
    ringbus info lidar/points --json   # the same, for scripts (exit 3 if the topic does not exist)")]
pub struct InfoArgs {
    /// The topic (`/a/b` and `a/b` are the same).
    topic: String,
    #[command(flatten)]
    json: JsonFlag,
}

impl InfoArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let found = match super::existing_root()? {
            Some(root) => inspect::topic(&root, &self.topic)?,
            None => None,
        };
        let Some(topic) = found else {
            return Err(Failure::NotFound(format!(
                "no topic {:?} in {}; `ringbus list topics` shows the topics that exist",
                self.topic,
                ringbus::Root::default_path().display()
            ))
            .into());
        };
        if self.json.json {
            print_json(&json::topic(&topic));
        } else {
            print_human(&topic);
        }
        Ok(())
    }
}

fn state(alive: bool) -> String {
    if alive {
        "alive".into()
    } else {
        paint("dead", Colour::Red)
    }
}

fn print_human(t: &TopicInfo) {
    let s = &t.settings;
    let (publishes, payload_bytes, wake_syscalls, wakes_skipped) = json::publishes(t);
    println!("{} {}  (id {:016x})", paint("topic", Colour::Bold), t.name, t.topic_id);
    println!("file      {}", t.path.display());
    println!(
        "payload   {} (size {}, align {}), at most {} per message",
        t.payload_type,
        t.payload_size,
        t.payload_align,
        bytes(s.max_payload_bytes as f64)
    );
    println!(
        "settings  depth {}, history {}, max publishers {}, max subscribers {}, max held {}, chunks {}",
        s.depth, s.history, s.max_publishers, s.max_subscribers, s.max_held, s.chunks
    );
    let pool = if s.preallocate {
        "each publisher reserves its whole pool when it starts".to_string()
    } else {
        format!("on demand, at most {} per publisher", bytes(s.pool_bytes as f64))
    };
    println!("memory    {} of shared memory held now; chunks {pool}", bytes(t.segment_bytes as f64));
    println!(
        "traffic   {publishes} published ({}); wake system calls {wake_syscalls}, skipped (nobody asleep) {wakes_skipped}; {} asleep now",
        bytes(payload_bytes as f64),
        t.sleepers
    );
    if t.reliable_subscribers > 0 {
        println!(
            "reliable  {} that publishers wait for instead of overwriting (column `waited` below)",
            counted(t.reliable_subscribers.into(), "subscriber")
        );
    }
    println!("\n{}", paint("PUBLISHERS", Colour::Bold));
    let mut pubs = Table::new(&[
        "slot",
        "node",
        "pid",
        "published",
        "bytes",
        "wake syscalls",
        "skipped",
        "memory",
        "in log",
        "held chunks",
        "waited",
        "state",
    ]);
    for p in &t.publishers {
        let memory = |f: fn(&PublisherMemory) -> String| p.memory.as_ref().map_or("?".into(), f);
        pubs.row(vec![
            p.slot.to_string(),
            format!("{:016x}", p.node_id),
            p.pid.to_string(),
            p.stats.publishes.to_string(),
            bytes(p.stats.payload_bytes as f64),
            p.stats.wake_syscalls.to_string(),
            p.stats.wakes_skipped.to_string(),
            memory(|m| bytes(m.reserved_bytes as f64)),
            memory(|m| bytes(m.in_log_bytes as f64)),
            memory(|m| m.held_chunks.to_string()),
            waited(p.stats.blocked, p.stats.blocked_ns),
            state(p.alive),
        ]);
    }
    print_or_none(&pubs);
    println!("\n{}", paint("SUBSCRIBERS", Colour::Bold));
    let mut subs =
        Table::new(&["slot", "node", "pid", "wake", "reliable", "taken", "lost", "lag", "held", "asleep", "state"]);
    for x in &t.subscribers {
        subs.row(vec![
            x.slot.to_string(),
            format!("{:016x}", x.node_id),
            x.pid.to_string(),
            json::wake_name(x.wake).into(),
            yes_no(x.reliable).into(),
            x.taken.to_string(),
            x.lost.to_string(),
            x.lag.to_string(),
            x.held.to_string(),
            yes_no(x.asleep).into(),
            state(x.alive),
        ]);
    }
    print_or_none(&subs);
}

/// How often a publisher's loans waited for a reliable subscriber, and how long in all.
fn waited(times: u64, ns: u64) -> String {
    if times == 0 {
        "-".into()
    } else {
        format!("{times}× {:.1} ms", ns as f64 / 1e6)
    }
}

fn print_or_none(table: &Table) {
    if table.is_empty() {
        println!("(none)");
    } else {
        table.print();
    }
}
