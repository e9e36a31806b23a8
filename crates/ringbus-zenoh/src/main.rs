//! `ringbus-bridge`: carries ringbus topics to other machines through Eclipse Zenoh, and
//! back (a separate command from `ringbus`: Zenoh is a heavy build).

use anyhow::Result;
use clap::Parser;
use ringbus_relay::command;
use ringbus_zenoh::{Bridge, BridgeConfig, BridgeError, Mapping, RingbusSide, DEFAULT_INCOMING_WAIT};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const AFTER_HELP: &str = "\
Each TOPIC travels as the Zenoh key expression ringbus/TOPIC unless TOPIC=KEY_EXPR names
another. Two bridges that map the same topic both ways deliver every message once to each
side: a bridge never sends out what it received (on any key expression of that topic), and
never hears its own puts. --out and --in of one topic and one key expression are carried as
--both, and a mapping given twice is carried once (the ready lines say so). Only --in may
use wildcards (*, **, $*) in its key expression, e.g. --in status=robot/*/status gathers
every robot's status into one topic; --out and --both put on one key expression.

Endpoints are checked before the bridge starts: a port out of range, or a host name DNS
cannot resolve, is an error (exit 1). While it runs, the bridge logs to stderr each Zenoh
peer that connects or disconnects (by its Zenoh id), and, if --connect has reached nobody
after 3 s, that nothing answered yet (it keeps trying).

Nothing is lost on the way out: the bridge reads each --out topic as a reliable subscriber,
so when it falls the topic's depth behind (a slow network, a burst), the topic's publishers
here wait for it, or fail, as their when_full says. Only while it runs: stopping or killing
the bridge releases them. --lossy-out turns this off.

On the way in, a message from Zenoh waits up to --in-wait-ms for a reliable subscriber here
that has not taken the topic's last depth messages (meanwhile Zenoh delivers nothing more
from that peer and holds its puts back), then is dropped and counted (full). A deeper topic
(--depth) absorbs a longer burst without waiting. A message larger than its topic's
max_payload_bytes is dropped and counted (too_large): give --max-payload-bytes where the
topics carry large messages.

On exit (Ctrl-C or SIGTERM) each mapping prints its counters on a line that names it
(TOPIC -> KEY_EXPR, TOPIC <- KEY_EXPR or TOPIC <-> KEY_EXPR): to_zenoh, from_zenoh,
own_skipped (its own messages seen on the topic and not sent out), too_large (from Zenoh,
over the topic's max_payload_bytes), full (from Zenoh, no room within --in-wait-ms), lost
(with --lossy-out: it fell more than the topic's depth behind), errors. Then each topic it
publishes on prints a line `topic TOPIC: subscribers_lost=N`: how much the lost counts of
the topic's lossy subscribers here (not the bridge's own) grew while the bridge ran, i.e.
messages overwritten before those subscribers read them. ringbus counts losses per
subscriber, not per publisher, so this includes what other publishers of the topic
overran; a subscriber counts a loss when it next reads. Subscribers that must not lose a
burst from Zenoh should be reliable (ringbus echo --reliable), or the topic deeper
(--depth). Exit codes: 0 stopped, 1 error, 2 bad usage.

Examples:
  ringbus-bridge --both camera/front --listen tcp/0.0.0.0:7447
  ringbus-bridge --both camera/front --connect tcp/192.168.1.20:7447
  ringbus-bridge --out imu=robot1/imu --in cmd=robot1/cmd --no-multicast --connect tcp/10.0.0.2:7447
  ringbus-bridge --in status=robot/*/status --listen tcp/0.0.0.0:7447
  ringbus-bridge --in cmd --depth 256 --in-wait-ms 200 --listen tcp/0.0.0.0:7447";

/// Carries ringbus topics to other machines through Eclipse Zenoh (peer mode), and back.
#[derive(Debug, Parser)]
#[command(name = "ringbus-bridge", version, after_help = AFTER_HELP)]
struct Args {
    /// Sends what is published on TOPIC here to Zenoh (on one key expression: no wildcards).
    /// Repeatable. Example: --out camera/front
    #[arg(long, value_name = "TOPIC[=KEY_EXPR]")]
    out: Vec<String>,

    /// Publishes on TOPIC here what others put on its key expression (which may have wildcards).
    /// Repeatable. Example: --in status=robot/*/status
    #[arg(long = "in", value_name = "TOPIC[=KEY_EXPR]")]
    incoming: Vec<String>,

    /// Both ways (what came in is never sent back; no wildcards). Repeatable. Example: --both status
    #[arg(long, value_name = "TOPIC[=KEY_EXPR]")]
    both: Vec<String>,

    /// A Zenoh endpoint to listen on. Repeatable. Example: --listen tcp/0.0.0.0:7447
    #[arg(long, value_name = "ENDPOINT")]
    listen: Vec<String>,

    /// A Zenoh endpoint (another bridge or a router) to connect to. Repeatable. Example: --connect tcp/192.168.1.20:7447
    #[arg(long, value_name = "ENDPOINT")]
    connect: Vec<String>,

    /// Do not look for peers by UDP multicast on the local network (only --listen/--connect)
    #[arg(long)]
    no_multicast: bool,

    /// The largest message the bridged topics take: topics the bridge creates get this limit;
    /// an existing topic with another is an error [default: the topic's own, or 4096 for one
    /// the bridge creates]. Example: --max-payload-bytes 1048576
    #[arg(long, value_name = "BYTES")]
    max_payload_bytes: Option<u64>,

    /// Messages each publisher of the bridged topics keeps (a power of two, 1 to 65536): topics
    /// the bridge creates get this depth; an existing topic with another is an error [default:
    /// the topic's own, or 16 for one the bridge creates]. Example: --depth 256
    #[arg(long, value_name = "N")]
    depth: Option<u32>,

    /// How long a message from Zenoh waits for a reliable subscriber here to make room before
    /// it is dropped (counted as full); 0 drops it at once. Example: --in-wait-ms 200
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_INCOMING_WAIT.as_millis() as u64)]
    in_wait_ms: u64,

    /// Read --out topics as a lossy subscriber: publishers here never wait for the bridge, and
    /// what it falls more than the topic's depth behind is lost (counted). For streams where
    /// only the newest message matters
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
        let ringbus = RingbusSide {
            root: self.root.clone(),
            max_payload_bytes: self.max_payload_bytes,
            depth: self.depth,
            incoming_wait: Duration::from_millis(self.in_wait_ms),
            lossy_out: self.lossy_out,
        };
        let config = BridgeConfig {
            ringbus,
            mappings,
            listen: self.listen.clone(),
            connect: self.connect.clone(),
            multicast_scouting: !self.no_multicast,
            log_peers: true,
        };
        Ok((config, notes))
    }
}

fn run(config: &BridgeConfig, notes: &[Option<String>]) -> Result<()> {
    let bridge = Bridge::start(config)?;
    let mut ready = vec![format!("ready: {} mapping(s)", config.mappings.len())];
    ready.extend(command::mapping_lines(&config.mappings, notes));
    command::until_stopped(ready, move || {
        let (counters, topic_counters) = (bridge.counters().to_vec(), bridge.topic_counters().to_vec());
        bridge.stop(); // the counters are final once every mapping has stopped
        let mappings = counters.iter().map(|(m, c)| format!("{m}: {}", c.line()));
        mappings.chain(topic_counters.iter().map(|t| format!("topic {}: {}", t.topic, t.line()))).collect()
    })
}

fn main() -> ExitCode {
    command::exit(Args::parse().config(), |(config, notes)| run(config, notes))
}
