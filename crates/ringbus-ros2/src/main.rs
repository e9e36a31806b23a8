//! `ringbus-ros2`: carries ringbus topics to ROS 2 through DDS, and back (a separate
//! command from `ringbus`: DDS is a heavy build).

use anyhow::Result;
use clap::Parser;
use ringbus_relay::command;
use ringbus_ros2::{Bridge, BridgeConfig, BridgeError, Mapping, Qos, RingbusSide, RosType};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const AFTER_HELP: &str = "\
A ringbus topic bridged to ROS 2 holds each message exactly as ROS 2 puts it on the wire:
CDR-serialized, its 4-byte encapsulation header first (00 01 00 00), and declares the ROS
type name (e.g. sensor_msgs/msg/Image) as its payload type. The bridge never decodes: the
bytes of a message are the bytes ROS 2 nodes send and receive. The type comes from the
ringbus topic; a topic that does not exist yet is created with --type.

Each ROS 2 topic /NAME travels on DDS as rt/NAME with the DDS type
<pkg>::msg::dds_::<Type>_, so any ROS 2 node on the same --domain (ROS_DOMAIN_ID) sees it.
The bridge announces itself as the ROS 2 node /ringbus_ros2 (--node-name). It never sends
back what it brought in: --out and --in of one topic and one name are carried as --both.

QoS: every writer and reader of the bridge uses --reliability, --durability and --depth
(ROS 2's defaults: reliable, volatile, 10). A reader asking for more than the bridge offers
(reliable from a best-effort bridge) gets nothing; the bridge says so on stderr, as it does
for each DDS participant that joins or leaves and each reader or writer matched.

Nothing is lost on the way out: the bridge reads each --out topic as a reliable subscriber
(--lossy-out turns this off). On the way in, a message waits up to --in-wait-ms for a
reliable subscriber here to make room, then is dropped and counted (full).

Discovery: DDS finds peers by UDP multicast, and on one machine also by unicast to
127.0.0.1. Where multicast does not work (a loopback interface without it), peers on the
same machine still meet; --network 127.0.0.1 keeps all traffic on loopback.

On exit (Ctrl-C or SIGTERM) each mapping prints its counters on a line that names it
(TOPIC -> /NAME, TOPIC <- /NAME, TOPIC <-> /NAME): to_ros, from_ros, own_skipped, not_cdr
(messages here without a little-endian CDR header, not sent), too_large, full, lost (with
--lossy-out), errors. Exit codes: 0 stopped, 1 error, 2 bad usage.

Examples:
  ringbus-ros2 --out camera/front=/camera/front/image_raw
  ringbus-ros2 --in /chatter --type std_msgs/msg/String --domain 7
  ringbus-ros2 --both chatter --reliability best-effort --depth 1
  ringbus ros2 --out lidar/points=/points --network 127.0.0.1";

/// Carries ringbus topics to ROS 2 (DDS) and back, message bytes untouched.
#[derive(Debug, Parser)]
#[command(name = "ringbus-ros2", version, after_help = AFTER_HELP)]
struct Args {
    /// Publishes a ringbus topic to ROS 2 (as /TOPIC unless ROS_NAME is given). Repeatable.
    /// Example: --out camera/front=/camera/front/image_raw
    #[arg(long, value_name = "TOPIC[=ROS_NAME]")]
    out: Vec<String>,

    /// Publishes on a ringbus topic what ROS 2 nodes publish on ROS_NAME (the topic is
    /// ROS_NAME without its leading / unless TOPIC is given). Repeatable. Example: --in /chatter
    #[arg(long = "in", value_name = "ROS_NAME[=TOPIC]")]
    incoming: Vec<String>,

    /// Both ways (what came in is never sent back). Repeatable. Example: --both chatter
    #[arg(long, value_name = "TOPIC[=ROS_NAME]")]
    both: Vec<String>,

    /// The ROS type of topics that do not exist yet. Example: --type sensor_msgs/msg/Image
    #[arg(long = "type", value_name = "PKG/msg/TYPE")]
    ros_type: Option<String>,

    /// The DDS domain (ROS_DOMAIN_ID) [default: $ROS_DOMAIN_ID, else 0]
    #[arg(long, value_name = "ID")]
    domain: Option<u16>,

    /// reliable or best-effort
    #[arg(long, value_name = "KIND", default_value = "reliable")]
    reliability: String,

    /// volatile or transient-local
    #[arg(long, value_name = "KIND", default_value = "volatile")]
    durability: String,

    /// KEEP_LAST depth of the DDS writers and readers, 1 to 10000
    #[arg(long, value_name = "N", default_value_t = 10)]
    depth: u32,

    /// The ROS 2 node name the bridge announces
    #[arg(long, value_name = "NAME", default_value = "ringbus_ros2")]
    node_name: String,

    /// A local address DDS may use (repeatable; default: every interface). Example: --network 127.0.0.1
    #[arg(long, value_name = "ADDR")]
    network: Vec<IpAddr>,

    /// The largest message of topics the bridge creates [default: 16 MiB]
    #[arg(long, value_name = "BYTES")]
    max_payload_bytes: Option<u64>,

    /// How long a message from ROS 2 waits for a reliable subscriber here to make room; 0 drops it at once
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    in_wait_ms: u64,

    /// Read --out topics as a lossy subscriber: publishers here never wait for the bridge
    #[arg(long)]
    lossy_out: bool,

    /// The ringbus root directory [default: $RINGBUS_ROOT, else /dev/shm/ringbus-$UID]
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

impl Args {
    /// The bridge's configuration, and the note of each mapping that merges several given.
    fn config(&self) -> Result<(BridgeConfig, Vec<Option<String>>), String> {
        let (mappings, notes) =
            command::mappings(&self.out, &self.incoming, &self.both, Mapping::parse, BridgeError::NoMapping)?;
        let qos = Qos {
            reliable: Qos::parse_reliability(&self.reliability)?,
            transient_local: Qos::parse_durability(&self.durability)?,
            depth: self.depth,
        };
        qos.check()?;
        ringbus_ros2::names::check_node_name(&self.node_name)?;
        let domain = match self.domain {
            Some(d) => d,
            None => domain_from_env()?,
        };
        if domain > 232 {
            return Err(format!("domain {domain}: DDS domains are 0 to 232"));
        }
        let ringbus = RingbusSide {
            root: self.root.clone(),
            max_payload_bytes: self.max_payload_bytes,
            depth: None,
            incoming_wait: Duration::from_millis(self.in_wait_ms),
            lossy_out: self.lossy_out,
        };
        let ros_type = self.ros_type.as_deref().map(RosType::parse).transpose()?;
        let config = BridgeConfig {
            ringbus,
            mappings,
            domain,
            node_name: self.node_name.clone(),
            networks: self.network.clone(),
            qos,
            ros_type,
            log: true,
        };
        Ok((config, notes))
    }
}

/// `ROS_DOMAIN_ID`, as ROS 2 reads it (unset or empty: 0).
fn domain_from_env() -> Result<u16, String> {
    match std::env::var("ROS_DOMAIN_ID") {
        Ok(v) if !v.is_empty() => v.parse().map_err(|_| format!("ROS_DOMAIN_ID={v:?} is not a domain id (0 to 232)")),
        _ => Ok(0),
    }
}

fn run(config: &BridgeConfig, notes: &[Option<String>]) -> Result<()> {
    let bridge = Bridge::start(config)?;
    let mut ready =
        vec![format!("ready: {} mapping(s), domain {}, QoS {}", config.mappings.len(), config.domain, config.qos)];
    ready.extend(command::mapping_lines(&config.mappings, notes));
    command::until_stopped(ready, move || {
        let counters = bridge.counters().to_vec();
        bridge.stop(); // the counters are final once every mapping has stopped
        counters.iter().map(|(m, c)| format!("{m}: {}", c.line())).collect()
    })
}

fn main() -> ExitCode {
    command::exit(Args::parse().config(), |(config, notes)| run(config, notes))
}
