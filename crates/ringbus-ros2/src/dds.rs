//! The DDS side: one RustDDS participant per bridge, announced as a ROS 2 node on
//! `ros_discovery_info` with its readers and writers (so `ros2 node list` and `ros2 node
//! info` see it), and a raw writer or reader per mapping on the topic `rt/<name>` with the
//! type `<pkg>::msg::dds_::<Type>_`.

use crate::cdr::ParticipantEntitiesInfo;
use crate::names::{check_node_name, dds_topic_name, RosType};
use crate::qos::Qos;
use crate::raw::{CdrBody, RawAdapter, Received, HEADER_BYTES};
use crate::BridgeError;
use rustdds::bytes::Bytes;
use rustdds::no_key::{DataWriter, SimpleDataReader};
use rustdds::{DomainParticipant, DomainParticipantBuilder, RTPSEntity, Topic, TopicKind, GUID};
use std::net::IpAddr;

/// Where ROS 2 participants announce their nodes, and the message's type.
const GRAPH_TOPIC: &str = "ros_discovery_info";
const GRAPH_TYPE: &str = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_";

/// The bridge's DDS writer of one mapping.
pub(crate) type RawWriter = DataWriter<CdrBody, RawAdapter>;
/// The bridge's DDS reader of one mapping.
pub(crate) type RawReader = SimpleDataReader<Received, RawAdapter>;

/// A participant in a domain and the ROS 2 node it announces.
pub(crate) struct Dds {
    pub participant: DomainParticipant,
    pub publisher: rustdds::Publisher,
    pub subscriber: rustdds::Subscriber,
    pub qos: Qos,
    node_name: String,
    /// The node's announcement: kept, so late joiners get it (transient-local).
    graph: RawWriter,
}

fn dds_error(what: &str, e: impl std::fmt::Display) -> BridgeError {
    BridgeError::Dds(format!("{what}: {e}"))
}

impl Dds {
    /// Joins `domain` (only through `networks` when some are given) as the node `node_name`.
    pub fn join(domain: u16, networks: &[IpAddr], node_name: &str, qos: Qos) -> Result<Dds, BridgeError> {
        check_node_name(node_name).map_err(BridgeError::NodeName)?;
        let mut builder = DomainParticipantBuilder::new(domain);
        if !networks.is_empty() {
            builder = builder.with_only_networks(networks.iter().copied());
        }
        let participant = builder.build().map_err(|e| dds_error("cannot join the DDS domain", e))?;
        let publisher = participant.create_publisher(&qos.policies()).map_err(|e| dds_error("publisher", e))?;
        let subscriber = participant.create_subscriber(&qos.policies()).map_err(|e| dds_error("subscriber", e))?;
        // As every ROS 2 participant announces itself: reliable, transient-local, the latest.
        let graph_qos = Qos { reliable: true, transient_local: true, depth: 1 }.policies();
        let topic = participant
            .create_topic(GRAPH_TOPIC.into(), GRAPH_TYPE.into(), &graph_qos, TopicKind::NoKey)
            .map_err(|e| dds_error("cannot create the ROS 2 graph topic", e))?;
        let graph = publisher
            .create_datawriter_no_key::<CdrBody, RawAdapter>(&topic, Some(graph_qos))
            .map_err(|e| dds_error("cannot create the ROS 2 graph writer", e))?;
        Ok(Dds { participant, publisher, subscriber, qos, node_name: node_name.into(), graph })
    }

    /// Announces the node `/<node_name>` with these readers and writers (`ros2 node info`).
    pub fn announce(&self, readers: &[GUID], writers: &[GUID]) -> Result<(), BridgeError> {
        let gids = |guids: &[GUID]| guids.iter().map(GUID::to_bytes).collect::<Vec<_>>();
        let (readers, writers) = (gids(readers), gids(writers));
        let info = ParticipantEntitiesInfo {
            participant: self.participant.guid().to_bytes(),
            namespace: "/",
            name: &self.node_name,
            readers: &readers,
            writers: &writers,
        };
        let body = CdrBody(Bytes::copy_from_slice(&info.encode()[HEADER_BYTES..]));
        self.graph.write(body, None).map_err(|e| dds_error("cannot announce the ROS 2 node", e))
    }

    fn topic(&self, ros_name: &str, ros_type: &RosType) -> Result<Topic, BridgeError> {
        let name = dds_topic_name(ros_name);
        self.participant
            .create_topic(name.clone(), ros_type.dds_name(), &self.qos.policies(), TopicKind::NoKey)
            .map_err(|e| dds_error(&format!("cannot create the DDS topic {name}"), e))
    }

    /// A writer of raw CDR bodies on the ROS topic `ros_name`.
    pub fn writer(&self, ros_name: &str, ros_type: &RosType) -> Result<RawWriter, BridgeError> {
        let topic = self.topic(ros_name, ros_type)?;
        self.publisher
            .create_datawriter_no_key::<CdrBody, RawAdapter>(&topic, Some(self.qos.policies()))
            .map_err(|e| dds_error(&format!("cannot create a DDS writer on {ros_name}"), e))
    }

    /// A reader of raw CDR bodies on the ROS topic `ros_name`.
    pub fn reader(&self, ros_name: &str, ros_type: &RosType) -> Result<RawReader, BridgeError> {
        let topic = self.topic(ros_name, ros_type)?;
        self.subscriber
            .create_simple_datareader_no_key::<Received, RawAdapter>(&topic, Some(self.qos.policies()))
            .map_err(|e| dds_error(&format!("cannot create a DDS reader on {ros_name}"), e))
    }
}
