//! Feedback on stderr, one line each: a DDS participant that joins or leaves, a remote
//! reader or writer matched with one of the bridge's, and a remote one whose QoS does not
//! match (nothing flows between those two: the line says which way and why).

use crate::qos::Qos;
use rustdds::policy::Durability;
use rustdds::DomainParticipantStatusListener;
use rustdds::{DomainParticipantStatusEvent as Event, QosPolicies, StatusEvented, GUID};

/// What the monitor knows of the bridge's own DDS endpoints: each with its ROS name.
pub(crate) struct Endpoints {
    pub writers: Vec<(GUID, String)>,
    pub readers: Vec<(GUID, String)>,
    pub own: GUID,
    pub qos: Qos,
}

impl Endpoints {
    fn name(list: &[(GUID, String)], guid: GUID) -> Option<&str> {
        list.iter().find(|(g, _)| *g == guid).map(|(_, n)| n.as_str())
    }

    /// The line for one event, if it concerns a peer or one of the bridge's endpoints.
    pub fn describe(&self, event: &Event) -> Option<String> {
        match event {
            Event::ParticipantDiscovered { dpd } if dpd.guid.prefix != self.own.prefix => {
                Some(format!("DDS participant {:?} joined", dpd.guid.prefix))
            }
            Event::ParticipantLost { id, reason } => Some(format!("DDS participant {id:?} left ({reason:?})")),
            Event::RemoteReaderMatched { local_writer, remote_reader } if remote_reader.prefix != self.own.prefix => {
                Endpoints::name(&self.writers, *local_writer).map(|n| format!("{n}: a ROS 2 reader matched"))
            }
            Event::RemoteWriterMatched { local_reader, remote_writer } if remote_writer.prefix != self.own.prefix => {
                Endpoints::name(&self.readers, *local_reader).map(|n| format!("{n}: a ROS 2 writer matched"))
            }
            Event::RemoteReaderQosIncompatible { local_writer, requested_qos, .. } => {
                Endpoints::name(&self.writers, *local_writer).map(|n| {
                    format!(
                        "{n}: a ROS 2 reader asks for QoS this bridge does not offer ({}; the bridge offers {}): \
                         it receives nothing; change --reliability/--durability or the reader's QoS",
                        summary(requested_qos),
                        self.qos
                    )
                })
            }
            Event::RemoteWriterQosIncompatible { local_reader, offered_qos, .. } => {
                Endpoints::name(&self.readers, *local_reader).map(|n| {
                    format!(
                        "{n}: a ROS 2 writer offers less than this bridge asks for ({}; the bridge asks for {}): \
                         nothing comes in from it; change --reliability/--durability or the writer's QoS",
                        summary(offered_qos),
                        self.qos
                    )
                })
            }
            _ => None,
        }
    }
}

/// Reliability and durability of a remote endpoint, in ROS 2's words. A durability the
/// endpoint did not announce is DDS's default, VOLATILE (Cyclone DDS leaves it out).
fn summary(qos: &QosPolicies) -> String {
    let reliability = if qos.is_reliable() { "RELIABLE" } else { "BEST_EFFORT" };
    let durability = match qos.durability() {
        None | Some(Durability::Volatile) => "VOLATILE",
        Some(Durability::TransientLocal) => "TRANSIENT_LOCAL",
        Some(Durability::Transient) => "TRANSIENT",
        Some(Durability::Persistent) => "PERSISTENT",
    };
    format!("{reliability}/{durability}")
}

/// Logs every pending event; called by the monitor thread.
pub(crate) fn drain(listener: &DomainParticipantStatusListener, endpoints: &Endpoints) {
    while let Some(event) = listener.try_recv_status() {
        if let Some(line) = endpoints.describe(&event) {
            eprintln!("ringbus-ros2: {line}");
        }
    }
}
