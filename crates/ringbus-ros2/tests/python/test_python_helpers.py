"""The Python helpers (ringbus.ros) against the Rust ones and against a ROS 2 peer: the same
std_msgs/String, sensor_msgs/Image and sensor_msgs/PointCloud2 built by both are the same
bytes, and a 1080p image a Python publisher writes in a loan reaches a cyclonedds reader
through the bridge byte-exact."""

import time

import numpy as np
import pytest
import ringbus
from ringbus import ros
from test_ros2 import expected_pixels, matched_both_ways, take_all
from dds_peer import Peer
from ros_types import Image

# What the example ros2_messages publishes.
STAMP = ros.Stamp(1_700_000_000, 123_456_789)
XYZI = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("intensity", "<f4")])


@pytest.fixture
def node(world):
    with ringbus.Node("python-helpers", root=world.dir) as n:
        yield n


def python_messages(node):
    """The example's three messages, written by ringbus.ros on topics py/*: their bytes."""
    topics = {kind: ros.topic(node, f"py/{kind}", t) for kind, t in
              [("string", ros.STRING), ("image", ros.IMAGE), ("cloud", ros.POINT_CLOUD2)]}
    subs = {kind: t.subscriber() for kind, t in topics.items()}
    pubs = {kind: t.publisher() for kind, t in topics.items()}
    ros.publish_string(pubs["string"], "hello ✓")
    with ros.loan_image(pubs["image"], 3, 4, "rgb8", frame_id="camera", stamp=STAMP) as m:
        m.as_array()[:] = np.arange(36, dtype=np.uint8).reshape(3, 4, 3)
    with ros.loan_point_cloud(pubs["cloud"], XYZI, 5, frame_id="lidar", stamp=STAMP) as m:
        points = m.as_array()[0]
        points["x"], points["y"], points["z"], points["intensity"] = np.arange(5), 2 * np.arange(5), 3 * np.arange(5), 0.5
        del points
    return {kind: sub.take().tobytes() for kind, sub in subs.items()}


def test_python_and_rust_write_the_same_bytes(world, node):
    kinds = {"string": ros.STRING, "image": ros.IMAGE, "cloud": ros.POINT_CLOUD2}
    subs = {kind: ros.topic(node, f"rust/{kind}", t).subscriber() for kind, t in kinds.items()}
    world.run("ros2_messages", "rust")
    rust = {kind: sub.receive(timeout=30).tobytes() for kind, sub in subs.items()}
    assert python_messages(node) == rust
    cloud = ros.read_point_cloud(rust["cloud"])
    assert cloud.points["z"].tolist() == [[0, 3, 6, 9, 12]] and cloud.stamp == STAMP
    assert ros.read_image(rust["image"]).pixels[2, 3].tolist() == [33, 34, 35]


def publish_images(node, count):
    """``count`` 1080p images at 30 Hz from a Python loan (image ``i``: stamp ``(i, 0)``,
    pixel byte ``k`` = ``(i + k) mod 251``); what each message holds before its pixels."""
    pub = ros.topic(node, "camera", ros.IMAGE).publisher()
    heads = []
    for i in range(count):
        with ros.loan_image(pub, 1080, 1920, "rgb8", frame_id="camera", stamp=ros.Stamp(i, 0)) as message:
            message.as_array()[:] = expected_pixels(i, 1080 * 5760).reshape(1080, 1920, 3)
            heads.append(bytes(memoryview(message.loan)[:-1080 * 5760]))
        time.sleep(1 / 30)
    return heads


def test_a_1080p_image_from_a_python_loan_arrives_byte_exact(world, node):
    reader = Peer(world.domain).reader("/camera/image_raw", Image)
    bridge = world.bridge("--out", "camera=/camera/image_raw", "--type", "sensor_msgs/msg/Image")
    matched_both_ways(bridge, reader, "/camera/image_raw")
    heads = publish_images(node, 10)
    # Every image that arrives is checked whole: the peer's own encoding of it is what Python wrote.
    for image in take_all(reader, 1, "an image at the cyclonedds reader"):
        i = image.header.stamp.sec
        assert (image.height, image.width, image.encoding, image.step) == (1080, 1920, "rgb8", 5760)
        encoded = image.serialize()
        assert encoded[: len(heads[i])] == heads[i]
        assert np.array_equal(np.frombuffer(encoded[len(heads[i]) :], dtype=np.uint8), expected_pixels(i, 1080 * 5760))
    assert bridge.stop() == 0
