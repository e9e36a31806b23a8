"""ROS 2 messages in ringbus topics (ringbus.ros): the bytes ROS 2 puts on the wire,
written in one loan with the pixels or points filled in place, read back as read-only
views; topics declaring the ROS type name; bad messages refused."""

from __future__ import annotations

import numpy as np
import pytest

import ringbus
from ringbus import ros

XYZI = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("intensity", "<f4")])

# The same layouts as the Rust helpers' tests (crates/ringbus-ros2/src/cdr.rs).
IMAGE_2X1_MONO8 = bytes(
    [0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, *b"cam\0", 2, 0, 0, 0, 1, 0, 0, 0]
    + [6, 0, 0, 0, *b"mono8\0", 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 7, 8]
)


def test_a_string_is_its_length_its_bytes_and_a_nul(node: ringbus.Node) -> None:
    topic = ros.topic(node, "chatter", ros.STRING)
    pub, sub = topic.publisher(), topic.subscriber()
    ros.publish_string(pub, "hi")
    with sub.take() as sample:
        assert bytes(sample) == bytes([0, 1, 0, 0, 3, 0, 0, 0, *b"hi", 0])
        assert len(sample) == ros.string_len("hi") and ros.read_string(sample) == "hi"
    ros.publish_string(pub, "ünïcode ✓")
    with sub.take() as sample:
        assert ros.read_string(sample) == "ünïcode ✓"


def test_an_image_is_written_in_one_loan_and_read_in_place(node: ringbus.Node) -> None:
    topic = ros.topic(node, "camera", ros.IMAGE)
    pub, sub = topic.publisher(), topic.subscriber()
    with ros.loan_image(pub, 2, 1, "mono8", frame_id="cam", stamp=ros.Stamp(1, 2)) as message:
        pixels = message.as_array()
        assert pixels.shape == (2, 1, 1) and pixels.flags.writeable
        assert pixels.ctypes.data == message.loan.address + len(IMAGE_2X1_MONO8) - 2, "the loan itself"
        pixels[:, 0, 0] = [7, 8]
        del pixels
    with sub.take() as sample:
        assert bytes(sample) == IMAGE_2X1_MONO8
        image = ros.read_image(sample)
        assert (image.stamp, image.frame_id, image.encoding, image.step) == ((1, 2), "cam", "mono8", 1)
        assert image.pixels.ctypes.data == sample.address + len(sample) - 2, "zero copy"
        assert not image.pixels.flags.writeable and image.pixels[:, 0, 0].tolist() == [7, 8]
        del image


def test_a_1080p_rgb_image_is_height_by_width_by_channels(node: ringbus.Node) -> None:
    topic = ros.topic(node, "camera", ros.IMAGE)
    pub, sub = topic.publisher(), topic.subscriber()
    frame = np.random.default_rng(3).integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    with ros.loan_image(pub, 1080, 1920, "rgb8", frame_id="camera") as message:
        message.as_array()[:] = frame
    with sub.take() as sample:
        image = ros.read_image(sample)
        assert (image.height, image.width, image.step) == (1080, 1920, 5760)
        assert image.pixels.shape == (1080, 1920, 3) and np.array_equal(image.pixels, frame)
        del image


def test_multi_byte_and_unknown_encodings(node: ringbus.Node) -> None:
    topic = ros.topic(node, "depth", ros.IMAGE)
    pub, sub = topic.publisher(), topic.subscriber()
    with ros.loan_image(pub, 2, 3, "32FC1") as message:
        message.as_array()[:] = 0.5
    with ros.loan_image(pub, 2, 3, "jpeg-like", step=5) as message:
        assert message.as_array().shape == (2, 5)
    with sub.take() as sample:
        depth = ros.read_image(sample)
        assert depth.pixels.dtype == np.float32 and depth.pixels.shape == (2, 3, 1) and depth.step == 12
        del depth
    with sub.take() as sample:
        assert ros.read_image(sample).pixels.shape == (2, 5)
    with pytest.raises(ringbus.InvalidArgument, match="give step="):
        ros.loan_image(pub, 2, 3, "jpeg-like")
    with pytest.raises(ringbus.InvalidArgument, match="give step >= 9"):
        ros.loan_image(pub, 2, 3, "rgb8", step=8)


def test_a_point_cloud_is_a_structured_array_of_its_fields(node: ringbus.Node) -> None:
    topic = ros.topic(node, "lidar", ros.POINT_CLOUD2)
    pub, sub = topic.publisher(), topic.subscriber()
    with ros.loan_point_cloud(pub, XYZI, 1000, frame_id="lidar", is_dense=False) as message:
        points = message.as_array()
        points["x"], points["intensity"] = np.arange(1000), 0.25
        del points
    with sub.take() as sample:
        assert bytes(sample)[-1] == 0, "is_dense comes last"
        cloud = ros.read_point_cloud(sample)
        assert [f.name for f in cloud.fields] == ["x", "y", "z", "intensity"]
        assert (cloud.height, cloud.width, cloud.point_step, cloud.row_step) == (1, 1000, 16, 16000)
        assert cloud.points.dtype.names == XYZI.names and not cloud.is_dense
        assert cloud.points["x"][0, 999] == 999 and cloud.points["intensity"].sum() == 250
        assert not cloud.points.flags.writeable
        del cloud


def test_point_fields_of_a_dtype_and_back() -> None:
    fields = ros.point_fields(np.dtype([("xyz", "<f8", (3,)), ("ring", "<u2")]))
    assert fields == [ros.PointField("xyz", 0, ros.FLOAT64, 3), ros.PointField("ring", 24, ros.UINT16, 1)]
    assert ros.point_dtype(fields, 32).itemsize == 32
    with pytest.raises(ringbus.InvalidArgument, match="little-endian"):
        ros.point_fields(np.dtype([("x", ">f4")]))
    with pytest.raises(ringbus.InvalidArgument, match="datatype 9"):
        ros.point_dtype([ros.PointField("x", 0, 9)], 4)


def test_a_topic_declares_the_ros_type_and_refuses_another(node: ringbus.Node) -> None:
    images = ros.topic(node, "camera", ros.IMAGE).subscriber()
    assert ros.topic(node, "camera", ros.IMAGE).publisher().max_payload_bytes == ros.DEFAULT_MAX_PAYLOAD_BYTES
    with pytest.raises(ringbus.Mismatch, match="sensor_msgs/msg/Image"):
        ros.topic(node, "camera", ros.STRING).subscriber()
    with pytest.raises(ringbus.Mismatch):
        node.topic("camera", payload_dtype=np.uint8).subscriber()
    with pytest.raises(ringbus.InvalidArgument, match="package/msg/Type"):
        ros.topic(node, "camera", "sensor_msgs/Image")
    small = ros.topic(node, "small", ros.STRING, max_payload_bytes=256).publisher()
    assert ros.topic(node, "small", ros.STRING).publisher().max_payload_bytes == small.max_payload_bytes == 256
    images.close()


def test_payload_size_and_align_need_a_name_and_no_dtype(node: ringbus.Node) -> None:
    with pytest.raises(ringbus.InvalidArgument, match="payload_type_name"):
        node.topic("t", payload_size=1)
    with pytest.raises(ringbus.InvalidArgument, match="payload_dtype"):
        node.topic("t", payload_dtype=np.uint8, payload_size=1)
    with pytest.raises(ringbus.InvalidArgument, match="payload_size"):
        node.topic("t", payload_type_name="x")


def test_a_message_that_is_not_one_is_refused() -> None:
    with pytest.raises(ringbus.InvalidArgument, match="CDR header"):
        ros.read_string(b"\x01\x00\x00\x00")
    with pytest.raises(ringbus.InvalidArgument, match="end inside a field"):
        ros.read_image(IMAGE_2X1_MONO8[:30])
    with pytest.raises(ringbus.InvalidArgument, match="do not hold 2 rows"):
        ros.read_image(IMAGE_2X1_MONO8[:-6] + bytes([1, 0, 0, 0, 7]))
