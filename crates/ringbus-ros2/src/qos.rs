//! The QoS the bridge's DDS writers and readers use: reliability, durability and history
//! depth, with ROS 2's defaults (RELIABLE, VOLATILE, KEEP_LAST(10)).

use rustdds::policy::{Durability, History, Reliability};
use rustdds::{QosPolicies, QosPolicyBuilder};
use std::fmt;
use std::time::Duration;

/// How long a reliable writer may block when its history is full of unacknowledged
/// messages (ROS 2's rmw default is 100 ms as well).
const MAX_BLOCKING: Duration = Duration::from_millis(100);

/// The QoS of every DDS writer and reader of one bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qos {
    /// RELIABLE (true) or BEST_EFFORT.
    pub reliable: bool,
    /// TRANSIENT_LOCAL (true: late readers get the last `depth` messages) or VOLATILE.
    pub transient_local: bool,
    /// KEEP_LAST depth, 1 to 10000.
    pub depth: u32,
}

impl Default for Qos {
    fn default() -> Qos {
        Qos { reliable: true, transient_local: false, depth: 10 }
    }
}

impl Qos {
    /// Parses `reliable` or `best-effort`.
    pub fn parse_reliability(text: &str) -> Result<bool, String> {
        match text {
            "reliable" => Ok(true),
            "best-effort" | "best_effort" => Ok(false),
            _ => Err(format!("reliability {text:?}: write reliable or best-effort")),
        }
    }

    /// Parses `volatile` or `transient-local`.
    pub fn parse_durability(text: &str) -> Result<bool, String> {
        match text {
            "volatile" => Ok(false),
            "transient-local" | "transient_local" => Ok(true),
            _ => Err(format!("durability {text:?}: write volatile or transient-local")),
        }
    }

    /// Checks the depth: 1 to 10000.
    pub fn check(&self) -> Result<(), String> {
        match self.depth {
            1..=10000 => Ok(()),
            d => Err(format!("QoS depth {d}: give 1 to 10000 (ROS 2's default is 10)")),
        }
    }

    /// The RustDDS policies.
    pub fn policies(&self) -> QosPolicies {
        let reliability = match self.reliable {
            true => Reliability::Reliable { max_blocking_time: MAX_BLOCKING.into() },
            false => Reliability::BestEffort,
        };
        let durability = if self.transient_local { Durability::TransientLocal } else { Durability::Volatile };
        QosPolicyBuilder::new()
            .reliability(reliability)
            .durability(durability)
            .history(History::KeepLast { depth: self.depth as i32 })
            .build()
    }
}

impl fmt::Display for Qos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reliability = if self.reliable { "RELIABLE" } else { "BEST_EFFORT" };
        let durability = if self.transient_local { "TRANSIENT_LOCAL" } else { "VOLATILE" };
        write!(f, "{reliability}/{durability}/KEEP_LAST({})", self.depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_ros_2_defaults_and_words_are_checked() {
        assert_eq!(Qos::default().to_string(), "RELIABLE/VOLATILE/KEEP_LAST(10)");
        assert!(Qos::default().policies().is_reliable());
        assert!(!Qos::parse_reliability("best-effort").unwrap());
        assert!(Qos::parse_reliability("sometimes").unwrap_err().contains("reliable or best-effort"));
        assert!(Qos::parse_durability("transient-local").unwrap());
        assert!(Qos { depth: 0, ..Qos::default() }.check().is_err());
    }
}
