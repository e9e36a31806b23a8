//! Carries ringbus topics to other machines through Eclipse Zenoh, and back.
//!
//! A [`Bridge`] is one ringbus node and one Zenoh session (peer mode). For each
//! [`Mapping`]:
//! - **out** (ringbus → Zenoh): a ringbus subscriber (`Wake::OnData`) on the topic, whose
//!   samples a thread puts on the key expression with `CongestionControl::Block` (a slow
//!   network holds the bridge back rather than dropping what it was given; the topic's
//!   `KeepLast` depth then bounds what the bridge can fall behind, and what it loses is
//!   counted);
//! - **in** (Zenoh → ringbus): a Zenoh subscriber on the key expression whose callback
//!   publishes each payload on the topic with `publish_copy`.
//!
//! **No echo.** The Zenoh publisher reaches only remote subscribers and the Zenoh
//! subscriber hears only remote publishers (`Locality::Remote`), so a bridge never hears
//! itself through Zenoh; and the outgoing side skips every sample of the bridge's own
//! incoming publisher (matched by `PublisherId`), so what came in is never sent back out.
//! Two bridges mapping the same topic both ways therefore deliver each message exactly
//! once to each side (tested with two processes over loopback).
//!
//! Payloads cross the network as bytes: one copy out of shared memory on the way out, one
//! into a chunk on the way in. Zenoh's own shared-memory transport is not used.

mod mapping;

pub use mapping::{default_key_expr, Counters, Direction, Mapping};

use ringbus::{LoanError, Node, Publisher, PublisherId, ReceiveError, Subscriber};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use zenoh::qos::CongestionControl;
use zenoh::sample::{Locality, SampleKind};
use zenoh::Wait;

/// How long an outgoing thread waits for a message before it looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// Why a bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("nothing to bridge: give at least one --out, --in or --both TOPIC")]
    NoMapping,
    #[error(
        "{key_expr:?} is not a Zenoh key expression ({reason}); use slash-separated chunks such as robot1/camera/front"
    )]
    KeyExpr { key_expr: String, reason: String },
    #[error("cannot open the ringbus node")]
    Node(#[source] ringbus::OpenError),
    #[error("cannot open the ringbus topic {topic:?}")]
    Topic {
        topic: String,
        #[source]
        source: ringbus::OpenError,
    },
    #[error("cannot configure Zenoh ({what}): {reason}")]
    Config { what: String, reason: String },
    #[error("cannot start Zenoh: {0}; check the --listen and --connect endpoints (e.g. tcp/127.0.0.1:7447)")]
    Zenoh(String),
}

/// What a bridge carries and how it reaches the others.
#[derive(Debug, Clone, Default)]
pub struct BridgeConfig {
    /// The ringbus root (`None`: `RINGBUS_ROOT`, else the per-user default).
    pub root: Option<PathBuf>,
    pub mappings: Vec<Mapping>,
    /// Zenoh endpoints to listen on, e.g. `tcp/0.0.0.0:7447` (none: Zenoh's default).
    pub listen: Vec<String>,
    /// Zenoh endpoints of other bridges or routers to connect to.
    pub connect: Vec<String>,
    /// Find peers on the local network by UDP multicast (Zenoh's default).
    pub multicast_scouting: bool,
    /// The largest message the bridged topics must take: a topic the bridge creates is
    /// created so, an existing one with another limit is an error naming both (`None`:
    /// what the topic has, or ringbus's default of 4096 bytes for one the bridge creates).
    pub max_payload_bytes: Option<u64>,
}

/// A running bridge. [`Bridge::stop`] (or dropping it) ends it.
pub struct Bridge {
    stop: Arc<AtomicBool>,
    outgoing: Vec<JoinHandle<()>>,
    incoming: Vec<zenoh::pubsub::Subscriber<()>>,
    counters: Vec<(Mapping, Arc<Counters>)>,
    session: zenoh::Session,
    _node: Node,
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
}

impl Bridge {
    /// Opens the node and the Zenoh session and starts every mapping; any error stops
    /// what was started.
    pub fn start(config: &BridgeConfig) -> Result<Bridge, BridgeError> {
        if config.mappings.is_empty() {
            return Err(BridgeError::NoMapping);
        }
        for m in &config.mappings {
            zenoh::key_expr::KeyExpr::try_from(m.key_expr.clone())
                .map_err(|e| BridgeError::KeyExpr { key_expr: m.key_expr.clone(), reason: zenoh_reason(&e) })?;
        }
        let node = match &config.root {
            Some(root) => Node::with_root("ringbus-bridge", root),
            None => Node::new("ringbus-bridge"),
        }
        .map_err(BridgeError::Node)?;
        let zenoh_config = config.zenoh_config()?;
        // The ringbus side next: a bad topic fails before anything goes on the network.
        let mut ends = Vec::new();
        for m in &config.mappings {
            let topic_error = |source| BridgeError::Topic { topic: m.topic.clone(), source };
            let topic = || match config.max_payload_bytes {
                Some(n) => node.topic(&m.topic).max_payload_bytes(n),
                None => node.topic(&m.topic),
            };
            let publisher = m.direction.incoming().then(|| topic().publisher()).transpose();
            let subscriber = m.direction.outgoing().then(|| topic().subscriber()).transpose();
            ends.push((m, publisher.map_err(topic_error)?, subscriber.map_err(topic_error)?));
        }
        let session = zenoh::open(zenoh_config).wait().map_err(|e| BridgeError::Zenoh(zenoh_reason(&e)))?;
        let mut bridge = Bridge {
            stop: Arc::new(AtomicBool::new(false)),
            outgoing: Vec::new(),
            incoming: Vec::new(),
            counters: Vec::new(),
            session,
            _node: node,
        };
        for (m, publisher, subscriber) in ends {
            bridge.add(m, publisher, subscriber)?;
        }
        Ok(bridge)
    }

    fn add(
        &mut self,
        m: &Mapping,
        publisher: Option<Publisher>,
        subscriber: Option<Subscriber>,
    ) -> Result<(), BridgeError> {
        let counters = Arc::new(Counters::default());
        let own = publisher.as_ref().map(Publisher::id);
        if let Some(publisher) = publisher {
            self.incoming.push(self.declare_incoming(m, publisher, counters.clone())?);
        }
        if let Some(subscriber) = subscriber {
            let publisher = self
                .session
                .declare_publisher(m.key_expr.clone())
                .congestion_control(CongestionControl::Block)
                .allowed_destination(Locality::Remote)
                .wait()
                .map_err(|e| BridgeError::Zenoh(zenoh_reason(&e)))?;
            let (counters, stop) = (counters.clone(), self.stop.clone());
            let name = format!("bridge {}", m.topic);
            let thread = std::thread::Builder::new()
                .name(name)
                .spawn(move || forward_out(subscriber, publisher, own, &counters, &stop))
                .map_err(|e| BridgeError::Zenoh(format!("cannot start a thread: {e}")))?;
            self.outgoing.push(thread);
        }
        self.counters.push((m.clone(), counters));
        Ok(())
    }

    fn declare_incoming(
        &self,
        m: &Mapping,
        publisher: Publisher,
        counters: Arc<Counters>,
    ) -> Result<zenoh::pubsub::Subscriber<()>, BridgeError> {
        let publisher = Mutex::new(publisher);
        self.session
            .declare_subscriber(m.key_expr.clone())
            .callback(move |sample| {
                if sample.kind() != SampleKind::Put {
                    return;
                }
                let bytes = sample.payload().to_bytes();
                let mut publisher = publisher.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let counter = match publisher.publish_copy(&bytes) {
                    Ok(()) => &counters.from_zenoh,
                    Err(LoanError::TooLarge { .. }) => &counters.too_large,
                    Err(_) => &counters.errors,
                };
                Counters::add(counter, 1);
            })
            .allowed_origin(Locality::Remote)
            .wait()
            .map_err(|e| BridgeError::Zenoh(zenoh_reason(&e)))
    }

    /// Every mapping with its counters.
    pub fn counters(&self) -> &[(Mapping, Arc<Counters>)] {
        &self.counters
    }

    /// Stops every mapping: outgoing threads end within 100 ms (`STOP_POLL`), incoming
    /// subscribers are undeclared.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.outgoing.drain(..) {
            let _ = thread.join();
        }
        for subscriber in self.incoming.drain(..) {
            let _ = subscriber.undeclare().wait();
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// The outgoing loop of one mapping: every sample not published by the bridge itself goes
/// to Zenoh, until `stop`.
fn forward_out(
    mut subscriber: Subscriber,
    publisher: zenoh::pubsub::Publisher<'static>,
    own: Option<PublisherId>,
    counters: &Counters,
    stop: &AtomicBool,
) {
    let mut lost_seen = 0;
    while !stop.load(Ordering::Relaxed) {
        match subscriber.receive(Some(STOP_POLL)) {
            Ok(sample) if Some(sample.publisher()) == own => Counters::add(&counters.own_skipped, 1),
            Ok(sample) => {
                let counter = match publisher.put(sample.to_vec()).wait() {
                    Ok(()) => &counters.to_zenoh,
                    Err(_) => &counters.errors,
                };
                Counters::add(counter, 1);
            }
            Err(ReceiveError::Timeout) => {}
            Err(_) => {
                // A corrupted or vanished peer: counted, and no busy loop while it lasts.
                Counters::add(&counters.errors, 1);
                std::thread::sleep(STOP_POLL);
            }
        }
        let lost = subscriber.lost();
        Counters::add(&counters.lost, lost - lost_seen);
        lost_seen = lost;
    }
}
