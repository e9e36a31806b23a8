//! The JSON shapes of what `ringbus::inspect` reads, shared by `list`, `info` and `top`.
//! Field names are a contract for scripts: add fields, never rename them.

use super::top::rows::{Order, SubscriberRow, TopicRow};
use ringbus::inspect::{
    NodeInfo, ObjectInfo, ObjectKind, Problem, PublisherInfo, QueueInfo, SubscriberInfo, TopicInfo,
};
use ringbus::Wake;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

pub fn wake_name(wake: Wake) -> &'static str {
    match wake {
        Wake::OnData => "on_data",
        Wake::Never => "never",
    }
}

pub fn object_kind(kind: ObjectKind) -> &'static str {
    match kind {
        ObjectKind::Latch => "latch",
        ObjectKind::Semaphore => "semaphore",
    }
}

pub fn publisher(p: &PublisherInfo) -> Value {
    let memory = p.memory.map(|m| {
        json!({
            "reserved_bytes": m.reserved_bytes, "in_log_bytes": m.in_log_bytes, "held_chunks": m.held_chunks,
            "preallocated": m.preallocated,
        })
    });
    json!({
        "slot": p.slot, "incarnation": p.incarnation, "alive": p.alive, "node_id": format!("{:016x}", p.node_id),
        "pid": p.pid, "publishes": p.stats.publishes, "payload_bytes": p.stats.payload_bytes,
        "wake_syscalls": p.stats.wake_syscalls, "wakes_skipped": p.stats.wakes_skipped, "memory": memory,
        "blocked": p.stats.blocked, "blocked_ns": p.stats.blocked_ns,
    })
}

pub fn subscriber(s: &SubscriberInfo) -> Value {
    json!({
        "slot": s.slot, "alive": s.alive, "node_id": format!("{:016x}", s.node_id), "pid": s.pid,
        "wake": wake_name(s.wake), "taken": s.taken, "lost": s.lost, "held": s.held, "asleep": s.asleep, "lag": s.lag,
        "reliable": s.reliable,
    })
}

/// Totals over a topic's publishers.
pub fn publishes(t: &TopicInfo) -> (u64, u64, u64, u64) {
    t.publishers.iter().fold((0, 0, 0, 0), |(p, b, w, s), x| {
        (p + x.stats.publishes, b + x.stats.payload_bytes, w + x.stats.wake_syscalls, s + x.stats.wakes_skipped)
    })
}

pub fn topic(t: &TopicInfo) -> Value {
    let (publishes, payload_bytes, wake_syscalls, wakes_skipped) = publishes(t);
    let s = &t.settings;
    json!({
        "name": t.name, "path": t.path, "topic_id": format!("{:016x}", t.topic_id),
        "payload_type": t.payload_type, "payload_size": t.payload_size, "payload_align": t.payload_align,
        "settings": {
            "max_publishers": s.max_publishers, "max_subscribers": s.max_subscribers, "depth": s.depth,
            "history": s.history, "max_held": s.max_held, "chunks": s.chunks, "max_payload_bytes": s.max_payload_bytes,
            "pool_bytes": s.pool_bytes, "preallocate": s.preallocate,
        },
        "segment_bytes": t.segment_bytes, "sleepers": t.sleepers, "reliable_subscribers": t.reliable_subscribers,
        "publishes": publishes, "payload_bytes": payload_bytes,
        "wake_syscalls": wake_syscalls, "wakes_skipped": wakes_skipped,
        "publishers": t.publishers.iter().map(publisher).collect::<Vec<_>>(),
        "subscribers": t.subscribers.iter().map(subscriber).collect::<Vec<_>>(),
    })
}

pub fn node(n: &NodeInfo) -> Value {
    json!({ "id": format!("{:016x}", n.id), "name": n.name, "pid": n.pid, "alive": n.alive, "path": n.path })
}

pub fn object(o: &ObjectInfo) -> Value {
    let mut v = json!({
        "kind": object_kind(o.kind), "name": o.name, "path": o.path, "value": o.value, "sleepers": o.sleepers,
        "wake_calls": o.stats.wake_calls, "woken": o.stats.woken, "skipped": o.stats.skipped,
    });
    let extra = match o.kind {
        ObjectKind::Latch => ("generation", o.generation_or_initial),
        ObjectKind::Semaphore => ("initial", o.generation_or_initial),
    };
    v[extra.0] = json!(extra.1);
    v
}

pub fn queue(q: &QueueInfo) -> Value {
    json!({
        "name": q.name, "path": q.path, "capacity": q.capacity, "producers": if q.mpsc { "mpsc" } else { "spsc" },
        "command_type": q.command_type, "command_size": q.command_size, "head": q.head, "tail": q.tail,
        "queued": q.queued(), "consumer_alive": q.consumer_alive, "producer_alive": q.producer_alive,
        "producers_alive": q.producers_alive, "wake": if q.polling { "never" } else { "on-data" },
        "consumer_asleep": q.consumer_asleep, "producers_waiting": q.producers_waiting,
    })
}

pub fn problem(p: &Problem) -> Value {
    json!({ "path": p.path, "reason": p.reason })
}

/// One frame of `ringbus top --once --json`: rates over `elapsed` (asked: `interval_s`).
pub fn top(root: &Path, interval_s: f64, elapsed: Duration, order: Order, rows: &[TopicRow]) -> Value {
    json!({
        "root": root, "interval_s": interval_s, "elapsed_s": elapsed.as_secs_f64(),
        "sort": order.key.name(), "descending": order.descending(),
        "topics": rows.iter().map(top_topic).collect::<Vec<_>>(),
    })
}

fn top_topic(t: &TopicRow) -> Value {
    json!({
        "name": t.name, "topic_id": format!("{:016x}", t.topic_id),
        "publishers": t.publishers, "subscribers": t.subscribers,
        "messages": t.messages, "messages_per_s": t.messages_per_s, "bytes_per_s": t.bytes_per_s,
        "sleepers": t.sleepers, "memory_bytes": t.memory_bytes, "wake_syscalls_per_s": t.wake_syscalls_per_s,
        "wakes_skipped_per_s": t.wakes_skipped_per_s,
        "subscribers_detail": t.subscriber_rows.iter().map(top_subscriber).collect::<Vec<_>>(),
    })
}

fn top_subscriber(s: &SubscriberRow) -> Value {
    json!({
        "slot": s.slot, "node_id": format!("{:016x}", s.node_id), "pid": s.pid, "wake": wake_name(s.wake),
        "taken_per_s": s.taken_per_s, "lag": s.lag, "lost": s.lost, "lost_per_s": s.lost_per_s,
        "held": s.held, "asleep": s.asleep, "reliable": s.reliable, "alive": s.alive,
    })
}
