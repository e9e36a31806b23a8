//! What the bridge carries: a ringbus topic, the Zenoh key expression it travels as, and
//! the direction; and the per-mapping counters.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which way messages go between a ringbus topic and a Zenoh key expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// ringbus → Zenoh: what is published on the topic here is put on the key expression.
    Out,
    /// Zenoh → ringbus: what other machines put on the key expression is published here.
    In,
    /// Both ways; what the bridge itself publishes here is never sent back out.
    Both,
}

impl Direction {
    pub fn outgoing(self) -> bool {
        matches!(self, Direction::Out | Direction::Both)
    }

    pub fn incoming(self) -> bool {
        matches!(self, Direction::In | Direction::Both)
    }

    pub fn name(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
            Direction::Both => "both",
        }
    }
}

/// One topic carried by the bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub topic: String,
    pub key_expr: String,
    pub direction: Direction,
}

/// The key expression a topic travels as unless one is given: `ringbus/<topic>`.
pub fn default_key_expr(topic: &str) -> String {
    format!("ringbus/{topic}")
}

impl Mapping {
    /// Parses `TOPIC` or `TOPIC=KEY_EXPR` (the command line's form).
    pub fn parse(spec: &str, direction: Direction) -> Result<Mapping, String> {
        let (topic, key_expr) = match spec.split_once('=') {
            Some((topic, key)) => (topic, key.to_string()),
            None => (spec, default_key_expr(spec)),
        };
        if topic.is_empty() || key_expr.is_empty() {
            return Err(format!("{spec:?}: write TOPIC or TOPIC=KEY_EXPR, e.g. camera/front=robot1/camera/front"));
        }
        Ok(Mapping { topic: topic.to_string(), key_expr, direction })
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arrow = match self.direction {
            Direction::Out => "->",
            Direction::In => "<-",
            Direction::Both => "<->",
        };
        write!(f, "{} {arrow} {}", self.topic, self.key_expr)
    }
}

/// What one mapping did; every field only grows.
#[derive(Debug, Default)]
pub struct Counters {
    /// Messages taken from the ringbus topic and put on Zenoh.
    pub to_zenoh: AtomicU64,
    /// Messages received from Zenoh and published on the ringbus topic.
    pub from_zenoh: AtomicU64,
    /// Messages of the bridge's own publisher, seen on the topic and not sent back out.
    pub own_skipped: AtomicU64,
    /// Messages from Zenoh larger than the topic's `max_payload_bytes`, not published.
    pub too_large: AtomicU64,
    /// Messages from Zenoh not published because a reliable subscriber here left no room
    /// (it had not taken the topic's last depth messages) within the incoming wait.
    pub full: AtomicU64,
    /// Messages the ringbus subscriber lost: it fell more than the topic's depth behind
    /// (a lossy subscriber), or a publisher it had not drained was replaced.
    pub lost: AtomicU64,
    /// Failed operations (a full chunk pool, a corrupted peer, a Zenoh error), each skipped.
    pub errors: AtomicU64,
}

impl Counters {
    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// One line, `name=value` pairs, for logs and tests.
    pub fn line(&self) -> String {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        format!(
            "to_zenoh={} from_zenoh={} own_skipped={} too_large={} full={} lost={} errors={}",
            get(&self.to_zenoh),
            get(&self.from_zenoh),
            get(&self.own_skipped),
            get(&self.too_large),
            get(&self.full),
            get(&self.lost),
            get(&self.errors)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapping_is_a_topic_with_an_optional_key_expression() {
        let m = Mapping::parse("camera/front", Direction::Out).unwrap();
        assert_eq!((m.topic.as_str(), m.key_expr.as_str()), ("camera/front", "ringbus/camera/front"));
        let m = Mapping::parse("camera/front=robot1/cam", Direction::Both).unwrap();
        assert_eq!((m.topic.as_str(), m.key_expr.as_str()), ("camera/front", "robot1/cam"));
        assert_eq!(m.to_string(), "camera/front <-> robot1/cam");
        for bad in ["", "=x", "topic="] {
            let e = Mapping::parse(bad, Direction::In).unwrap_err();
            assert!(e.contains("TOPIC=KEY_EXPR"), "{e}");
        }
    }
}
