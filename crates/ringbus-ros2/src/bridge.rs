//! The bridge: its configuration, why it may refuse to start, and the running bridge
//! (threads per mapping, the monitor, the counters).

use crate::dds::Dds;
use crate::mapping::{self, Counters, Mapping};
use crate::monitor::{self, Endpoints};
use crate::names::RosType;
use crate::qos::Qos;
use crate::{incoming, outgoing, topics};
use futures::channel::oneshot;
use ringbus::Node;
use ringbus_relay::outgoing::Outgoing;
use ringbus_relay::{Ends, RingbusSide};
use rustdds::{RTPSEntity, GUID};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the monitor thread looks for DDS events to log.
const MONITOR_PERIOD: Duration = Duration::from_millis(100);

/// Why a bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// No mapping was given.
    #[error("nothing to bridge: give at least one --out, --in or --both")]
    NoMapping,
    /// A topic that does not exist yet, and no `--type` to create it with.
    #[error("the ringbus topic {topic:?} does not exist yet, so its ROS type is unknown: give --type pkg/msg/Type (e.g. std_msgs/msg/String), or start its publisher first")]
    NoType {
        /// The topic.
        topic: String,
    },
    /// An existing topic without a declared payload type.
    #[error("the ringbus topic {topic:?} carries untyped bytes; a topic bridged to ROS 2 declares its ROS type (payload type name sensor_msgs/msg/Image, size 1, align 8) and holds CDR messages")]
    Untyped {
        /// The topic.
        topic: String,
    },
    /// An existing topic whose payload type is no ROS type.
    #[error("the ringbus topic {topic:?} does not carry ROS 2 messages: {reason}")]
    NotRos {
        /// The topic.
        topic: String,
        /// Why its type is not a ROS type.
        reason: String,
    },
    /// `--type` disagrees with the existing topic's type.
    #[error("the ringbus topic {topic:?} carries {declared}, not {given}: drop --type or give {declared}")]
    TypeMismatch {
        /// The topic.
        topic: String,
        /// Its declared type.
        declared: String,
        /// `--type`.
        given: String,
    },
    /// A node name ROS 2 does not accept.
    #[error("bad ROS 2 node name {0}; use letters, digits and _")]
    NodeName(String),
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
    /// DDS failed to start or to create something.
    #[error("{0}")]
    Dds(String),
    /// A thread could not be started.
    #[error("cannot start a thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// What a bridge carries and how.
#[derive(Debug, Clone)]
pub struct BridgeConfig {
    /// How the bridge opens its ringbus side: the root, the limits of the topics it creates
    /// (`max_payload_bytes` `None`: 16 MiB), how long a message from DDS waits for room,
    /// whether its subscribers are lossy.
    pub ringbus: RingbusSide,
    /// What to carry (those of one topic and one ROS name are merged).
    pub mappings: Vec<Mapping>,
    /// The DDS domain (ROS_DOMAIN_ID), 0 to 232.
    pub domain: u16,
    /// The ROS 2 node name the bridge announces.
    pub node_name: String,
    /// Local addresses DDS may use (none: every interface).
    pub networks: Vec<IpAddr>,
    /// The QoS of every DDS writer and reader.
    pub qos: Qos,
    /// The type of topics that do not exist yet (`--type`).
    pub ros_type: Option<RosType>,
    /// Log peers, matches and QoS mismatches to stderr.
    pub log: bool,
}

impl Default for BridgeConfig {
    fn default() -> BridgeConfig {
        BridgeConfig {
            ringbus: RingbusSide::default(),
            mappings: Vec::new(),
            domain: 0,
            node_name: "ringbus_ros2".into(),
            networks: Vec::new(),
            qos: Qos::default(),
            ros_type: None,
            log: false,
        }
    }
}

/// The ringbus ends of one mapping, opened before anything goes on the network.
struct Opened {
    mapping: Mapping,
    ros_type: RosType,
    ends: Ends,
}

impl BridgeConfig {
    /// Opens the ringbus ends of `m`, its type declared.
    fn open(&self, node: &Node, m: &Mapping) -> Result<Opened, BridgeError> {
        let ros_type = topics::resolve(node, &m.topic, self.ros_type.as_ref())?;
        let ends = self.ringbus.ends(m.direction, || topics::ros_topic(node, &m.topic, &ros_type));
        let ends = ends.map_err(|source| BridgeError::Topic { topic: m.topic.clone(), source })?;
        Ok(Opened { mapping: m.clone(), ros_type, ends })
    }
}

/// A running bridge. [`Bridge::stop`] (or dropping it) ends it.
pub struct Bridge {
    stop: Arc<AtomicBool>,
    outgoing: Vec<JoinHandle<()>>,
    incoming: Vec<(oneshot::Sender<()>, JoinHandle<()>)>,
    monitor: Option<JoinHandle<()>>,
    counters: Vec<(Mapping, Arc<Counters>)>,
    _dds: Dds,
    _node: Node,
}

impl Bridge {
    /// Opens the ringbus topics (a bad type fails here, before DDS starts), joins the DDS
    /// domain as a ROS 2 node and starts every mapping.
    pub fn start(config: &BridgeConfig) -> Result<Bridge, BridgeError> {
        let mappings: Vec<Mapping> = mapping::merge(&config.mappings).into_iter().map(|(m, _)| m).collect();
        if mappings.is_empty() {
            return Err(BridgeError::NoMapping);
        }
        config.qos.check().map_err(BridgeError::Dds)?;
        let node = config.ringbus.node("ringbus-ros2").map_err(BridgeError::Node)?;
        let opened = mappings.iter().map(|m| config.open(&node, m)).collect::<Result<Vec<_>, _>>()?;
        let dds = Dds::join(config.domain, &config.networks, &config.node_name, config.qos)?;
        let mut bridge = Bridge {
            stop: Arc::new(AtomicBool::new(false)),
            outgoing: Vec::new(),
            incoming: Vec::new(),
            monitor: None,
            counters: Vec::new(),
            _dds: dds,
            _node: node,
        };
        let endpoints = bridge.start_mappings(opened)?;
        let guids = |list: &[(GUID, String)]| list.iter().map(|(g, _)| *g).collect::<Vec<_>>();
        bridge._dds.announce(&guids(&endpoints.readers), &guids(&endpoints.writers))?;
        if config.log {
            bridge.start_monitor(endpoints)?;
        }
        Ok(bridge)
    }

    /// Starts each mapping's threads; the DDS endpoints, named, for the monitor.
    fn start_mappings(&mut self, opened: Vec<Opened>) -> Result<Endpoints, BridgeError> {
        let own_participant = self._dds.participant.guid();
        let mut endpoints =
            Endpoints { writers: Vec::new(), readers: Vec::new(), own: own_participant, qos: self._dds.qos };
        let owns = ringbus_relay::own_publishers(&opened, |o| (&o.mapping.topic, &o.ends));
        for (o, own) in opened.into_iter().zip(owns) {
            let (m, counters) = (o.mapping, Arc::new(Counters::default()));
            if let Some(publisher) = o.ends.publisher {
                let reader = self._dds.reader(&m.ros_name, &o.ros_type)?;
                endpoints.readers.push((reader.guid(), m.ros_name.clone()));
                let ends = incoming::Ends { reader, publisher, own: own_participant, counters: counters.clone() };
                let (tx, rx) = oneshot::channel();
                self.incoming.push((tx, incoming::start(&m.topic, ends, rx)?));
            }
            if let Some(subscriber) = o.ends.subscriber {
                let writer = self._dds.writer(&m.ros_name, &o.ros_type)?;
                endpoints.writers.push((writer.guid(), m.ros_name.clone()));
                let from = Outgoing { subscriber, own, stop: self.stop.clone() };
                let ends = outgoing::Ends { from, writer, counters: counters.clone() };
                self.outgoing.push(outgoing::start(&m.topic, ends)?);
            }
            self.counters.push((m, counters));
        }
        Ok(endpoints)
    }

    fn start_monitor(&mut self, endpoints: Endpoints) -> Result<(), BridgeError> {
        let listener = self._dds.participant.status_listener();
        let stop = self.stop.clone();
        let thread = std::thread::Builder::new().name("ros2 monitor".into()).spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                monitor::drain(&listener, &endpoints);
                std::thread::sleep(MONITOR_PERIOD);
            }
        })?;
        self.monitor = Some(thread);
        Ok(())
    }

    /// Every mapping (merged) with its counters.
    pub fn counters(&self) -> &[(Mapping, Arc<Counters>)] {
        &self.counters
    }

    /// Stops every mapping; the counters are final when it returns.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.outgoing.drain(..).chain(self.monitor.take()) {
            let _ = thread.join();
        }
        for (stop, thread) in self.incoming.drain(..) {
            let _ = stop.send(());
            let _ = thread.join();
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.shut_down();
    }
}
