"""A ROS 2 peer made of cyclonedds: readers and writers on `rt/<name>` with ROS 2's QoS."""

from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration


def qos(reliable=True, depth=10, transient_local=False):
    """ROS 2's default QoS (RELIABLE, VOLATILE, KEEP_LAST(10)), or BEST_EFFORT, another depth,
    or TRANSIENT_LOCAL."""
    reliability = Policy.Reliability.Reliable(duration(seconds=1)) if reliable else Policy.Reliability.BestEffort
    durability = Policy.Durability.TransientLocal if transient_local else Policy.Durability.Volatile
    return Qos(reliability, durability, Policy.History.KeepLast(depth))


class Peer:
    def __init__(self, domain):
        self.participant = DomainParticipant(domain)

    def reader(self, name, message_type, reliable=True, depth=10):
        topic = Topic(self.participant, f"rt{name}", message_type)
        return DataReader(self.participant, topic, qos=qos(reliable, depth))

    def graph_reader(self):
        """A reader of ros_discovery_info as ROS 2's graph cache reads it: reliable,
        transient-local (a late reader gets each participant's latest), KEEP_LAST(1)."""
        from ros_types import ParticipantEntitiesInfo

        topic = Topic(self.participant, "ros_discovery_info", ParticipantEntitiesInfo)
        return DataReader(self.participant, topic, qos=qos(depth=1, transient_local=True))

    def writer(self, name, message_type):
        return DataWriter(self.participant, Topic(self.participant, f"rt{name}", message_type), qos=qos())


def matched(entity):
    """How many remote endpoints a reader or writer is matched with."""
    status = entity.get_subscription_matched_status() if isinstance(entity, DataReader) else \
        entity.get_publication_matched_status()
    return status.current_count
