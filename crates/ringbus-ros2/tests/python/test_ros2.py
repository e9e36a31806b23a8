"""`ringbus-ros2` against cyclonedds as the ROS 2 peer: std_msgs/String both ways, a 1080p
sensor_msgs/Image byte-exact, QoS mismatches, a bridge killed and restarted, refusals."""

import signal
import time

import numpy as np
from conftest import EXAMPLES, wait_for
from dds_peer import Peer, matched
from ros_types import Image, String


def take_all(reader, count, what):
    got = []
    try:
        wait_for(lambda: got.extend(reader.take(count)) or len(got) >= count, what)
    except AssertionError:
        raise AssertionError(f"{what}: got {len(got)}: {[getattr(m, 'data', None) for m in got][:40]}")
    return got


def matched_both_ways(bridge, reader, ros_name):
    """Waits until the bridge's writer and the peer's reader have each seen the other, so
    that the first message written is delivered (DDS discovery is not symmetric in time)."""
    bridge.err.wait_for(f"{ros_name}: a ROS 2 reader matched")
    wait_for(lambda: matched(reader) >= 1, "the peer's reader to match the bridge")


def counters(bridge, mapping):
    """The counters line of `mapping` printed by a stopped bridge, as a dict."""
    line = next(l for l in bridge.out.lines if l.startswith(mapping + ":"))
    return {k: int(v) for k, v in (pair.split("=") for pair in line.split(": ", 1)[1].split())}


def test_strings_go_out_in_order_with_their_exact_text(world):
    # Each round a bridge that has written nothing yet meets a new reader and a burst written
    # at once, as fast as the talker can: the first message after the reader joined gives it
    # its start point (see outgoing.rs), so none of the burst is taken for old history. Without
    # that, a round lost messages from the middle of the burst about one time in five here.
    for round in range(4):
        topic = f"chatter{round}"  # a topic per round: earlier rounds' readers stay out of it
        reader = Peer(world.domain).reader(f"/{topic}", String, depth=32)
        # A burst within the writers' KEEP_LAST depth: none is overwritten before it is acknowledged.
        bridge = world.bridge("--out", topic, "--type", "std_msgs/msg/String", "--depth", "32")
        matched_both_ways(bridge, reader, f"/{topic}")
        world.run("ros2_chatter", "talk", topic, "20")
        got = take_all(reader, 20, f"round {round}: 20 strings at the cyclonedds reader")
        assert [s.data for s in got] == [f"hello {i}" for i in range(20)], f"round {round}"
        assert bridge.stop() == 0
        assert counters(bridge, f"{topic} -> /{topic}")["to_ros"] == 20


def test_strings_come_in_in_order_and_are_not_echoed(world):
    peer = Peer(world.domain)
    writer, reader = peer.writer("/chatter", String), peer.reader("/chatter", String)
    bridge = world.bridge("--both", "chatter", "--type", "std_msgs/msg/String")
    listener = world.start([f"{EXAMPLES}/ros2_chatter", "listen", "chatter", "10"])
    listener.out.wait_for("listening")
    bridge.err.wait_for("/chatter: a ROS 2 writer matched")
    # The peer's writer matches its own reader too: the bridge's reader makes two.
    wait_for(lambda: matched(writer) >= 2, "the peer's writer to match the bridge")
    texts = [f"ünïcode {i} ✓" for i in range(10)]
    for text in texts:
        writer.write(String(data=text))
    wait_for(lambda: len(listener.out.lines) >= 11, "10 strings on the ringbus topic")
    assert listener.out.lines[1:] == texts
    assert bridge.stop() == 0
    c = counters(bridge, "chatter <-> /chatter")
    assert (c["from_ros"], c["to_ros"], c["own_skipped"]) == (10, 0, 10)


def expected_pixels(i, n):
    return ((np.arange(n, dtype=np.int64) + i) % 251).astype(np.uint8)


def test_a_1080p_image_from_a_loan_arrives_byte_exact(world):
    reader = Peer(world.domain).reader("/camera/image_raw", Image)
    bridge = world.bridge("--out", "camera=/camera/image_raw", "--type", "sensor_msgs/msg/Image")
    matched_both_ways(bridge, reader, "/camera/image_raw")
    # Several, at 30 Hz: every image that arrives is checked whole (image i starts with byte i).
    world.run("ros2_image", "camera", "10", "30")
    images = take_all(reader, 1, "an image at the cyclonedds reader")
    for image in images:
        i = image.data[0]
        assert (image.height, image.width, image.encoding, image.step) == (1080, 1920, "rgb8", 5760)
        assert image.header.frame_id == "camera" and image.header.stamp.sec > 0
        data = np.frombuffer(bytes(image.data), dtype=np.uint8)
        assert np.array_equal(data, expected_pixels(i, 1080 * 5760))
    assert bridge.stop() == 0


def test_a_best_effort_reader_gets_a_reliable_bridge_s_messages(world):
    reader = Peer(world.domain).reader("/chatter", String, reliable=False)
    bridge = world.bridge("--out", "chatter", "--type", "std_msgs/msg/String")
    matched_both_ways(bridge, reader, "/chatter")
    world.run("ros2_chatter", "talk", "chatter", "3")
    assert [s.data for s in take_all(reader, 3, "3 strings")] == ["hello 0", "hello 1", "hello 2"]
    assert bridge.stop() == 0


def test_a_reliable_reader_of_a_best_effort_bridge_is_reported(world):
    reader = Peer(world.domain).reader("/chatter", String, reliable=True)
    bridge = world.bridge("--out", "chatter", "--type", "std_msgs/msg/String", "--reliability", "best-effort")
    # Both sides report it: the ROS 2 reader (as rclcpp's "incompatible QoS" event would), and
    # the bridge on stderr, saying what to change. They never match.
    wait_for(lambda: reader.get_requested_incompatible_qos_status().total_count >= 1, "the reader to report it")
    bridge.err.wait_for("/chatter: a ROS 2 reader asks for QoS this bridge does not offer (RELIABLE/VOLATILE; "
                        "the bridge offers BEST_EFFORT/VOLATILE/KEEP_LAST(10))")
    assert matched(reader) == 0
    assert bridge.stop() == 0


def test_a_killed_bridge_restarts_and_carries_on(world):
    reader = Peer(world.domain).reader("/chatter", String)
    args = ("--out", "chatter", "--type", "std_msgs/msg/String")
    first = world.bridge(*args)
    matched_both_ways(first, reader, "/chatter")
    world.run("ros2_chatter", "talk", "chatter", "2")
    assert len(take_all(reader, 2, "2 strings before the kill")) == 2
    first.p.send_signal(signal.SIGKILL)
    first.p.wait()
    second = world.bridge(*args)
    matched_both_ways(second, reader, "/chatter")
    world.run("ros2_chatter", "talk", "chatter", "3")
    assert [s.data for s in take_all(reader, 3, "3 strings after the restart")] == ["hello 0", "hello 1", "hello 2"]
    assert second.stop() == 0


def test_bad_types_and_names_are_refused_with_a_message(world):
    code, err = world.refused("--out", "chatter")
    assert code == 1 and "does not exist yet" in err and "--type" in err
    code, err = world.refused("--out", "chatter", "--type", "std_msgs/String")
    assert code == 2 and "package/msg/Type" in err
    code, err = world.refused("--out", "cam-1")
    assert code == 2 and "TOPIC=ROS_NAME" in err
    code, err = world.refused("--in", "/a/b-c")
    assert code == 2 and "not a ROS 2 topic name" in err
    code, err = world.refused("--out", "x", "--reliability", "sometimes")
    assert code == 2 and "reliable or best-effort" in err
    code, err = world.refused("--out", "x", "--node-name", "my-bridge")
    assert code == 2 and "not a ROS 2 node name" in err
    holder = world.start([f"{EXAMPLES}/ros2_chatter", "listen", "chatter", "1"])  # chatter is a std_msgs/msg/String
    holder.out.wait_for("listening")
    code, err = world.refused("--out", "chatter", "--type", "sensor_msgs/msg/Image")
    assert code == 1 and "carries std_msgs/msg/String, not sensor_msgs/msg/Image" in err


def test_the_bridge_is_a_ros_2_node_with_its_readers_and_writers(world):
    # What `ros2 node list` and `ros2 node info` read: ros_discovery_info, transient-local.
    peer = Peer(world.domain)
    graph = peer.graph_reader()
    chatter = peer.reader("/chatter", String)
    bridge = world.bridge("--out", "chatter", "--in", "/cmd", "--type", "std_msgs/msg/String", "--node-name", "camera_bridge")
    matched_both_ways(bridge, chatter, "/chatter")

    def bridge_node():
        for info in graph.read(64):
            for node in info.node_entities_info_seq:
                if (node.node_namespace, node.node_name) == ("/", "camera_bridge"):
                    return info, node
        return None

    wait_for(bridge_node, "the bridge's node on ros_discovery_info")
    info, node = bridge_node()
    writer_key = chatter.get_matched_publication_data(chatter.get_matched_publications()[0]).key.bytes
    assert bytes(info.gid.data)[:12] == writer_key[:12], "the participant's gid"
    assert writer_key in [bytes(g.data) for g in node.writer_gid_seq], "the /chatter writer under the node"
    assert len(node.reader_gid_seq) == 1, "the /cmd reader under the node"
    assert bridge.stop() == 0
