//! What the bridge carries: a ringbus topic, the Zenoh key expression it travels as, and
//! the direction; and the per-mapping counters.

pub use ringbus_relay::Direction;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// One topic carried by the bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// The ringbus topic.
    pub topic: String,
    /// The Zenoh key expression it travels as (with a wildcard only when incoming).
    pub key_expr: String,
    /// Which way its messages go.
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
        let mapping = Mapping { topic: topic.to_string(), key_expr, direction };
        match mapping.wildcard_refusal() {
            Some(refusal) => Err(refusal),
            None => Ok(mapping),
        }
    }

    /// Why this mapping cannot be carried, if it puts on a key expression with a wildcard
    /// (`*`, `**`, `$*`): a put needs one key expression; only a subscription (`--in`)
    /// may match many.
    pub fn wildcard_refusal(&self) -> Option<String> {
        (self.direction.outgoing() && self.key_expr.contains('*')).then(|| {
            format!(
                "--{} {}={}: the key expression has a wildcard (*, ** or $*); wildcards are only for --in, \
                 which gathers every matching key expression into the topic; --out and --both put on one \
                 key expression, e.g. robot1/camera",
                self.direction.name(),
                self.topic,
                self.key_expr
            )
        })
    }
}

/// Mappings as given on the command line, with those of one topic and one key expression
/// merged into one, each with a note of what was merged into it ([`ringbus_relay::mapping::merge`]).
pub use ringbus_relay::mapping::merge;

impl ringbus_relay::Pair for Mapping {
    fn parts(&self) -> (&str, &str, Direction) {
        (&self.topic, &self.key_expr, self.direction)
    }
    fn set_direction(&mut self, direction: Direction) {
        self.direction = direction;
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.topic, self.direction.arrow(), self.key_expr)
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
        ringbus_relay::outgoing::count(counter, n);
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

    fn parse_all(specs: &[(&str, Direction)]) -> Vec<Mapping> {
        specs.iter().map(|(spec, d)| Mapping::parse(spec, *d).unwrap()).collect()
    }

    #[test]
    fn out_and_in_of_one_key_expression_merge_into_both() {
        let merged = merge(&parse_all(&[("x", Direction::Out), ("y", Direction::Out), ("x", Direction::In)]));
        let shown: Vec<String> = merged.iter().map(|(m, _)| m.to_string()).collect();
        assert_eq!(shown, ["x <-> ringbus/x", "y -> ringbus/y"]);
        let note = merged[0].1.as_deref().unwrap();
        assert_eq!(note, "given as --out and --in: carried once, both ways, as --both");
        assert_eq!(merged[1].1, None);
    }

    #[test]
    fn duplicates_are_carried_once_and_other_key_expressions_stay_apart() {
        let merged = merge(&parse_all(&[("x", Direction::Out), ("x", Direction::Out), ("x=b", Direction::In)]));
        let shown: Vec<String> = merged.iter().map(|(m, _)| m.to_string()).collect();
        assert_eq!(shown, ["x -> ringbus/x", "x <- b"]);
        assert_eq!(merged[0].1.as_deref(), Some("given 2 times as --out: carried once"));
        let both = merge(&parse_all(&[("x", Direction::Both), ("x", Direction::In)]));
        assert_eq!(both[0].0.direction, Direction::Both);
        assert_eq!(both[0].1.as_deref(), Some("given as --both and --in: carried once, both ways, as --both"));
    }

    #[test]
    fn wildcards_are_refused_where_the_bridge_puts() {
        for (spec, direction) in
            [("a=robot/*/a", Direction::Out), ("a=robot/**", Direction::Both), ("a=r/$*x", Direction::Out)]
        {
            let e = Mapping::parse(spec, direction).unwrap_err();
            assert!(e.contains("wildcard") && e.contains("only for --in"), "{e}");
        }
        let gather = Mapping::parse("a=robot/*/a", Direction::In).unwrap();
        assert_eq!(gather.key_expr, "robot/*/a");
    }

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
