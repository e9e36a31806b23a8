//! The DDS side: one RustDDS participant per bridge, registered as a ROS 2 node (it
//! publishes `ros_discovery_info`, so ROS 2's graph tools list it), and a raw writer or
//! reader per mapping on the topic `rt/<name>` with the type `<pkg>::msg::dds_::<Type>_`.

use crate::names::{dds_topic_name, RosType};
use crate::qos::Qos;
use crate::raw::{CdrBody, RawAdapter, Received};
use crate::BridgeError;
use ros2_client::dds::rustdds::no_key::{DataWriter, SimpleDataReader};
use ros2_client::dds::rustdds::{DomainParticipant, DomainParticipantBuilder, Topic, TopicKind};
use ros2_client::{Context, Node, NodeName, NodeOptions};
use std::net::IpAddr;

/// The bridge's DDS writer of one mapping.
pub(crate) type RawWriter = DataWriter<CdrBody, RawAdapter>;
/// The bridge's DDS reader of one mapping.
pub(crate) type RawReader = SimpleDataReader<Received, RawAdapter>;

/// A participant in a domain and the ROS 2 node it announces.
pub(crate) struct Dds {
    pub participant: DomainParticipant,
    pub publisher: ros2_client::dds::rustdds::Publisher,
    pub subscriber: ros2_client::dds::rustdds::Subscriber,
    pub qos: Qos,
    /// Kept for its announcement: dropping it takes the node out of the ROS 2 graph.
    _node: Node,
    _context: Context,
}

fn dds_error(what: &str, e: impl std::fmt::Display) -> BridgeError {
    BridgeError::Dds(format!("{what}: {e}"))
}

impl Dds {
    /// Joins `domain` (only through `networks` when some are given) as the node `node_name`.
    pub fn join(domain: u16, networks: &[IpAddr], node_name: &str, qos: Qos) -> Result<Dds, BridgeError> {
        let mut builder = DomainParticipantBuilder::new(domain);
        if !networks.is_empty() {
            builder = builder.with_only_networks(networks.iter().copied());
        }
        let participant = builder.build().map_err(|e| dds_error("cannot join the DDS domain", e))?;
        let context = Context::from_domain_participant(participant.clone())
            .map_err(|e| dds_error("cannot start the ROS 2 context", e))?;
        let name = NodeName::new("/", node_name).map_err(|e| BridgeError::NodeName(format!("{node_name:?}: {e:?}")))?;
        let options = NodeOptions::new().enable_rosout(false);
        let node = context.new_node(name, options).map_err(|e| dds_error("cannot create the ROS 2 node", e))?;
        let publisher = participant.create_publisher(&qos.policies()).map_err(|e| dds_error("publisher", e))?;
        let subscriber = participant.create_subscriber(&qos.policies()).map_err(|e| dds_error("subscriber", e))?;
        Ok(Dds { participant, publisher, subscriber, qos, _node: node, _context: context })
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
