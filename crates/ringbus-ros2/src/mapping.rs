//! What the bridge carries: a ringbus topic, the ROS 2 topic it travels as, the direction;
//! and the per-mapping counters.

use crate::names::{default_ros_name, ros_topic_name};
pub use ringbus_relay::Direction;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// One topic carried by the bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// The ringbus topic.
    pub topic: String,
    /// The ROS 2 topic name, absolute (`/chatter`).
    pub ros_name: String,
    /// Which way its messages go.
    pub direction: Direction,
}

impl Mapping {
    /// Parses the command line's forms: `TOPIC[=ROS_NAME]` for `--out` and `--both`,
    /// `ROS_NAME[=TOPIC]` for `--in` (the ringbus topic defaults to the ROS name without
    /// its leading slash, the ROS name to `/` + the topic).
    pub fn parse(spec: &str, direction: Direction) -> Result<Mapping, String> {
        let (first, second) = match spec.split_once('=') {
            Some((a, b)) => (a, Some(b)),
            None => (spec, None),
        };
        let form = if direction == Direction::In { "ROS_NAME or ROS_NAME=TOPIC" } else { "TOPIC or TOPIC=ROS_NAME" };
        if first.is_empty() || second == Some("") {
            return Err(format!("{spec:?}: write {form}, e.g. camera/front=/camera/front/image_raw"));
        }
        let (topic, ros_name) = match (direction, second) {
            (Direction::In, None) => (ros_topic_name(first)?[1..].to_string(), ros_topic_name(first)?),
            (Direction::In, Some(topic)) => (topic.to_string(), ros_topic_name(first)?),
            (_, None) => (first.to_string(), default_ros_name(first)?),
            (_, Some(ros)) => (first.to_string(), ros_topic_name(ros)?),
        };
        Ok(Mapping { topic, ros_name, direction })
    }
}

/// The mappings with those of one topic and one ROS name merged (`--out x --in /x` is
/// `--both x`; a mapping given twice is carried once), in the order first given, each with
/// a note of what was merged into it ([`ringbus_relay::mapping::merge`]).
pub use ringbus_relay::mapping::merge;

impl ringbus_relay::Pair for Mapping {
    fn parts(&self) -> (&str, &str, Direction) {
        (&self.topic, &self.ros_name, self.direction)
    }
    fn set_direction(&mut self, direction: Direction) {
        self.direction = direction;
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.topic, self.direction.arrow(), self.ros_name)
    }
}

/// What one mapping did; every field only grows.
#[derive(Debug, Default)]
pub struct Counters {
    /// Messages taken from the ringbus topic and written to DDS.
    pub to_ros: AtomicU64,
    /// Messages received from DDS and published on the ringbus topic.
    pub from_ros: AtomicU64,
    /// The bridge's own messages seen on either side and not sent back.
    pub own_skipped: AtomicU64,
    /// Messages from the ringbus topic that are not little-endian CDR (no
    /// `00 01 00 00`-style encapsulation header), not written.
    pub not_cdr: AtomicU64,
    /// Messages from DDS larger than the topic's `max_payload_bytes`, not published.
    pub too_large: AtomicU64,
    /// Messages from DDS not published: a reliable subscriber here left no room in time.
    pub full: AtomicU64,
    /// Messages the bridge's lossy ringbus subscriber lost (`--lossy-out`).
    pub lost: AtomicU64,
    /// Failed operations (a DDS write, a full chunk pool), each skipped.
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
            "to_ros={} from_ros={} own_skipped={} not_cdr={} too_large={} full={} lost={} errors={}",
            get(&self.to_ros),
            get(&self.from_ros),
            get(&self.own_skipped),
            get(&self.not_cdr),
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
    fn each_direction_has_its_form() {
        let out = Mapping::parse("camera/front", Direction::Out).unwrap();
        assert_eq!(out.to_string(), "camera/front -> /camera/front");
        let named = Mapping::parse("cam=/robot1/image_raw", Direction::Both).unwrap();
        assert_eq!(named.to_string(), "cam <-> /robot1/image_raw");
        let incoming = Mapping::parse("/chatter", Direction::In).unwrap();
        assert_eq!(incoming.to_string(), "chatter <- /chatter");
        let renamed = Mapping::parse("/chatter=talk", Direction::In).unwrap();
        assert_eq!(renamed.to_string(), "talk <- /chatter");
        for (bad, d) in [("", Direction::Out), ("x=", Direction::Out), ("=x", Direction::In)] {
            assert!(Mapping::parse(bad, d).unwrap_err().contains("write"), "{bad}");
        }
        assert!(Mapping::parse("a=/b-c", Direction::Out).unwrap_err().contains("not a ROS 2 topic name"));
    }

    #[test]
    fn out_and_in_of_one_pair_merge_into_both() {
        let given = [
            Mapping::parse("x", Direction::Out).unwrap(),
            Mapping::parse("/x", Direction::In).unwrap(),
            Mapping::parse("y", Direction::Out).unwrap(),
            Mapping::parse("y", Direction::Out).unwrap(),
        ];
        let merged = merge(&given);
        let shown: Vec<String> = merged.iter().map(|(m, _)| m.to_string()).collect();
        assert_eq!(shown, ["x <-> /x", "y -> /y"]);
        assert_eq!(merged[0].1.as_deref(), Some("given as --out and --in: carried once, both ways, as --both"));
    }
}
