//! Carries ringbus topics to other machines through Eclipse Zenoh, and back.
//!
//! A [`Bridge`] is one ringbus node and one Zenoh session (peer mode). For each
//! [`Mapping`]:
//! - **out** (ringbus → Zenoh): a *reliable* ringbus subscriber (`Wake::OnData`) on the
//!   topic, whose samples a thread puts on the key expression with
//!   `CongestionControl::Block`. Nothing is lost on the way: a slow network holds the bridge
//!   back rather than dropping what it was given, and a bridge that falls the topic's depth
//!   behind holds the topic's publishers back (each waits or fails as its `when_full`
//!   says) rather than being lapped. It holds them back only while it lives: stopping or
//!   killing the bridge releases them. With [`RingbusSide::lossy_out`] the subscriber is
//!   lossy instead: publishers never wait for the bridge, and what it falls behind is lost
//!   and counted;
//! - **in** (Zenoh → ringbus): a Zenoh subscriber on the key expression whose callback
//!   publishes each payload on the topic with `publish_copy`. When a reliable subscriber
//!   here has not taken the topic's last depth messages, the callback waits for it at most
//!   [`RingbusSide::incoming_wait`] (meanwhile Zenoh holds back that peer's puts), then
//!   drops the message and counts it (`full`).
//!
//! **No echo.** The Zenoh publisher reaches only remote subscribers and the Zenoh
//! subscriber hears only remote publishers (`Locality::Remote`), so a bridge never hears
//! itself through Zenoh; and the outgoing side of a topic skips every sample of the
//! bridge's own incoming publishers of that topic, whatever their key expression (matched
//! by `PublisherId`), so what came in is never sent back out, on that key expression or
//! another. Mappings of one topic and one key expression are merged first
//! ([`mapping::merge`]: `--out x --in x` is `--both x`). Two bridges mapping the same topic
//! both ways therefore deliver each message exactly once to each side (tested with two
//! processes over loopback).
//!
//! **Feedback.** Endpoints are checked before Zenoh starts (module `endpoint`: a port out of
//! range, a host name DNS cannot resolve); peers that connect and disconnect are logged
//! ([`BridgeConfig::log_peers`]); and the losses of the local lossy subscribers of the
//! topics the bridge publishes on are counted ([`TopicCounters`]).
//!
//! What this bridge shares with the ROS 2 one (the ringbus side, merging mappings, the
//! outgoing loop, the command's life) lives in the internal crate `ringbus-relay`.
//!
//! Payloads cross the network as bytes: one copy out of shared memory on the way out, one
//! into a chunk on the way in. Zenoh's own shared-memory transport is not used.

mod endpoint;
mod incoming;
mod losses;
pub mod mapping;
mod outgoing;
mod peers;

pub use losses::TopicCounters;
pub use mapping::{default_key_expr, Counters, Direction, Mapping};
pub use ringbus_relay::{RingbusSide, DEFAULT_INCOMING_WAIT};

use ringbus::{Node, Publisher, PublisherId, Subscriber};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use zenoh::Wait;

/// How often the bridge reads the subscribers of the topics it publishes on, and its peers.
const MONITOR_PERIOD: Duration = Duration::from_millis(200);

/// Why a bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// No mapping was given.
    #[error("nothing to bridge: give at least one --out, --in or --both TOPIC")]
    NoMapping,
    /// A mapping that puts on a key expression with a wildcard.
    #[error("{0}")]
    Wildcard(String),
    /// A `--listen` or `--connect` endpoint that cannot work: a port out of range, a host
    /// name DNS cannot resolve.
    #[error("{verb} {endpoint}: {reason}")]
    Endpoint {
        /// The endpoint as given.
        endpoint: String,
        /// "cannot listen on" or "cannot connect to".
        verb: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A key expression Zenoh does not accept.
    #[error(
        "{key_expr:?} is not a Zenoh key expression ({reason}); use slash-separated chunks such as robot1/camera/front"
    )]
    KeyExpr {
        /// The key expression as given.
        key_expr: String,
        /// Zenoh's reason.
        reason: String,
    },
    /// The ringbus node could not be opened.
    #[error("cannot open the ringbus node")]
    Node(#[source] ringbus::OpenError),
    /// A bridged topic could not be opened.
    #[error("cannot open the ringbus topic {topic:?}")]
    Topic {
        /// The topic.
        topic: String,
        /// Why.
        #[source]
        source: ringbus::OpenError,
    },
    /// A Zenoh configuration value was refused.
    #[error("cannot configure Zenoh ({what}): {reason}")]
    Config {
        /// The key and value.
        what: String,
        /// Zenoh's reason.
        reason: String,
    },
    /// Zenoh failed to start or to declare something.
    #[error("cannot start Zenoh: {0}; check the --listen and --connect endpoints (e.g. tcp/127.0.0.1:7447)")]
    Zenoh(String),
}

/// What a bridge carries and how it reaches the others.
#[derive(Debug, Clone, Default)]
pub struct BridgeConfig {
    /// How the bridge opens its ringbus side: the root, the topics' limits, how long a
    /// message from Zenoh waits for room (Zenoh delivers nothing more from that peer
    /// meanwhile), whether its subscribers are lossy.
    pub ringbus: RingbusSide,
    /// What to carry (mappings of one topic and one key expression are merged).
    pub mappings: Vec<Mapping>,
    /// Zenoh endpoints to listen on, e.g. `tcp/0.0.0.0:7447` (none: Zenoh's default).
    pub listen: Vec<String>,
    /// Zenoh endpoints of other bridges or routers to connect to.
    pub connect: Vec<String>,
    /// Find peers on the local network by UDP multicast (Zenoh's default).
    pub multicast_scouting: bool,
    /// Log to stderr, one line each, when a Zenoh peer connects or disconnects, and when
    /// the `connect` endpoints have reached nobody after a few seconds.
    pub log_peers: bool,
}

/// A running bridge. [`Bridge::stop`] (or dropping it) ends it.
pub struct Bridge {
    stop: Arc<AtomicBool>,
    outgoing: Vec<JoinHandle<()>>,
    incoming: Vec<zenoh::pubsub::Subscriber<()>>,
    counters: Vec<(Mapping, Arc<Counters>)>,
    topic_counters: Vec<Arc<TopicCounters>>,
    /// Stopped after everything else, so that its last look counts every loss.
    monitor: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    session: zenoh::Session,
    node: Node,
}

/// A Zenoh error's text without the source location it ends with.
fn zenoh_reason(e: &impl std::fmt::Display) -> String {
    let text = e.to_string();
    text.split(" at /").next().unwrap_or_default().trim_end_matches('.').to_string()
}

impl BridgeConfig {
    /// The Zenoh session configuration a bridge opens with: peer mode, the endpoints,
    /// multicast scouting on or off (also what `examples/bridge_bench.rs` gives its bare
    /// Zenoh baseline, so both run over the same kind of link).
    pub fn zenoh_config(&self) -> Result<zenoh::Config, BridgeError> {
        let mut config = zenoh::Config::default();
        let mut set = |key: &str, value: String| {
            config
                .insert_json5(key, &value)
                .map_err(|e| BridgeError::Config { what: format!("{key} = {value}"), reason: zenoh_reason(&e) })
        };
        set("mode", "\"peer\"".into())?;
        let list = |endpoints: &[String]| serde_json::to_string(endpoints).expect("strings serialize");
        if !self.listen.is_empty() {
            set("listen/endpoints", list(&self.listen))?;
        }
        if !self.connect.is_empty() {
            set("connect/endpoints", list(&self.connect))?;
        }
        if !self.multicast_scouting {
            set("scouting/multicast/enabled", "false".into())?;
        }
        Ok(config)
    }

    /// The mappings, merged ([`mapping::merge`]), once each key expression and endpoint is
    /// known to work: nothing is opened before that.
    fn checked_mappings(&self) -> Result<Vec<Mapping>, BridgeError> {
        let mappings: Vec<Mapping> = mapping::merge(&self.mappings).into_iter().map(|(m, _)| m).collect();
        if mappings.is_empty() {
            return Err(BridgeError::NoMapping);
        }
        for m in &mappings {
            zenoh::key_expr::KeyExpr::try_from(m.key_expr.clone())
                .map_err(|e| BridgeError::KeyExpr { key_expr: m.key_expr.clone(), reason: zenoh_reason(&e) })?;
            if let Some(refusal) = m.wildcard_refusal() {
                return Err(BridgeError::Wildcard(refusal));
            }
        }
        for listen in &self.listen {
            endpoint::check(endpoint::Role::Listen, listen)?;
        }
        for connect in &self.connect {
            endpoint::check(endpoint::Role::Connect, connect)?;
        }
        Ok(mappings)
    }
}

impl Bridge {
    /// Opens the node and the Zenoh session and starts every mapping; any error stops
    /// what was started.
    pub fn start(config: &BridgeConfig) -> Result<Bridge, BridgeError> {
        let mappings = config.checked_mappings()?;
        let node = config.ringbus.node("ringbus-bridge").map_err(BridgeError::Node)?;
        let zenoh_config = config.zenoh_config()?;
        // The ringbus side next: a bad topic fails before anything goes on the network.
        let mut opened = Vec::new();
        for m in &mappings {
            let ends = config.ringbus.ends(m.direction, || node.topic(&m.topic));
            opened.push((m, ends.map_err(|source| BridgeError::Topic { topic: m.topic.clone(), source })?));
        }
        // What the bridge publishes on a topic is never sent out, whichever mapping it came in by.
        let owns = ringbus_relay::own_publishers(&opened, |(m, ends)| (&m.topic, ends));
        let session = zenoh::open(zenoh_config).wait().map_err(|e| BridgeError::Zenoh(zenoh_reason(&e)))?;
        let mut bridge = Bridge {
            stop: Arc::new(AtomicBool::new(false)),
            outgoing: Vec::new(),
            incoming: Vec::new(),
            counters: Vec::new(),
            topic_counters: Vec::new(),
            monitor: None,
            session,
            node,
        };
        for ((m, ends), own) in opened.into_iter().zip(owns) {
            bridge.add(m, ends.publisher, ends.subscriber, own)?;
        }
        bridge.start_monitor(config, &mappings)?;
        Ok(bridge)
    }

    fn add(
        &mut self,
        m: &Mapping,
        publisher: Option<Publisher>,
        subscriber: Option<Subscriber>,
        own: Vec<PublisherId>,
    ) -> Result<(), BridgeError> {
        let counters = Arc::new(Counters::default());
        if let Some(publisher) = publisher {
            let subscriber = incoming::declare(&self.session, m.key_expr.clone(), publisher, counters.clone());
            self.incoming.push(subscriber.map_err(|e| BridgeError::Zenoh(zenoh_reason(&e)))?);
        }
        if let Some(subscriber) = subscriber {
            let from = ringbus_relay::outgoing::Outgoing { subscriber, own, stop: self.stop.clone() };
            let ends = outgoing::Ends { from, counters: counters.clone() };
            self.outgoing.push(outgoing::start(&self.session, m, ends)?);
        }
        self.counters.push((m.clone(), counters));
        Ok(())
    }

    /// The thread that counts the losses of the subscribers of the topics the bridge
    /// publishes on and, with [`BridgeConfig::log_peers`], logs the peers.
    fn start_monitor(&mut self, config: &BridgeConfig, mappings: &[Mapping]) -> Result<(), BridgeError> {
        let published: Vec<&str> =
            mappings.iter().filter(|m| m.direction.incoming()).map(|m| m.topic.as_str()).collect();
        let mut losses = losses::LossWatch::new(&self.node, &published);
        losses.poll(); // where each subscriber's count starts
        self.topic_counters = losses.counters();
        let mut peers = config.log_peers.then(|| peers::PeerLog::new(&config.connect));
        let (stop, session) = (Arc::new(AtomicBool::new(false)), self.session.clone());
        let stopped = stop.clone();
        let thread = std::thread::Builder::new()
            .name("bridge monitor".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    std::thread::sleep(MONITOR_PERIOD);
                    losses.poll();
                    if let Some(peers) = &mut peers {
                        peers.poll(&session);
                    }
                }
                losses.poll();
            })
            .map_err(|e| BridgeError::Zenoh(format!("cannot start a thread: {e}")))?;
        self.monitor = Some((stop, thread));
        Ok(())
    }

    /// Every mapping (merged as [`mapping::merge`] says) with its counters.
    pub fn counters(&self) -> &[(Mapping, Arc<Counters>)] {
        &self.counters
    }

    /// The counters of each topic the bridge publishes on (`--in`, `--both`), final once
    /// the bridge has stopped.
    pub fn topic_counters(&self) -> &[Arc<TopicCounters>] {
        &self.topic_counters
    }

    /// Stops every mapping. Outgoing threads end within 100 ms, or once the put they are in
    /// returns (Zenoh gives up on a peer that takes nothing for 5 s), dropping their
    /// subscribers: publishers here no longer wait for them. Then incoming subscribers are
    /// undeclared (a callback waiting for room ends within the incoming wait).
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        // Outgoing first: the bridge's own incoming publishers may be waiting for its
        // reliable subscribers.
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.outgoing.drain(..) {
            let _ = thread.join();
        }
        for subscriber in self.incoming.drain(..) {
            let _ = subscriber.undeclare().wait();
        }
        if let Some((stop, thread)) = self.monitor.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = thread.join();
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.shut_down();
    }
}
