"""numpy arrays over loans and samples: typed and shaped, zero copy, read-only on the
subscriber's side, pinning the memory they view; wrong dtypes and shapes raise
InvalidArgument before any view exists; numpy stays optional."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import ringbus
from conftest import finish, python_child, read_line, run_python

POINTS = (1000, 4)


def test_a_float32_array_travels_typed_shaped_and_without_a_copy(node: ringbus.Node) -> None:
    pub = node.topic("points", max_payload_bytes=64 * 1024).publisher()
    sub = node.topic("points").subscriber()
    points = np.random.default_rng(7).random(POINTS, dtype=np.float32)

    loan = pub.loan_array(POINTS, np.float32)
    assert len(loan) == points.nbytes == 16000
    target = loan.as_array()
    assert target.shape == POINTS and target.dtype == np.float32 and target.flags.writeable
    assert target.ctypes.data == loan.address, "the array is the loaned chunk itself"
    target[:] = points
    with pytest.raises(BufferError, match="still view"):
        loan.publish()
    del target
    loan.publish()

    sample = sub.take()
    assert sample is not None
    array = sample.as_array(np.float32, POINTS)
    assert np.array_equal(array, points)
    assert array.ctypes.data == sample.address and array.nbytes == len(sample), "zero copy: the chunk itself"
    assert np.shares_memory(array, np.frombuffer(sample, dtype=np.uint8))
    assert not array.flags.writeable and not array.flags.owndata
    with pytest.raises(ValueError, match="read-only"):
        array[0, 0] = 1.0
    with pytest.raises(ValueError):
        array.flags.writeable = True
    assert sample.as_array(np.float32, (-1, 4)).shape == POINTS
    assert sample.as_array("<f4").shape == (4000,)
    assert sample.as_array(np.dtype([("xyzw", "<f4", 4)])).shape == (1000,)


def test_an_array_pins_its_sample_as_any_view_does(node: ringbus.Node) -> None:
    pub = node.topic("pinned").publisher()
    sub = node.topic("pinned").subscriber()
    pub.publish_copy(np.arange(8, dtype=np.int64))
    sample = sub.take()
    assert sample is not None
    array = sample.as_array(np.int64, (2, 4))
    with pytest.raises(BufferError, match="1 buffer"):
        sample.release()
    del sample
    gc.collect()
    assert pub.chunks_held_by_subscribers() == 1 and sub.held == 1, "the array keeps the chunk"
    assert array.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]], "still readable"
    del array
    assert pub.chunks_held_by_subscribers() == 0 and sub.held == 0


def test_wrong_dtypes_and_shapes_raise_invalid_argument_and_leave_no_view(node: ringbus.Node) -> None:
    pub = node.topic("checked", max_payload_bytes=64 * 1024).publisher()
    sub = node.topic("checked").subscriber()
    pub.publish_copy(np.zeros(POINTS, dtype=np.float32))
    sample = sub.take()
    assert sample is not None
    xyz = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4")])
    for dtype, shape, message in [
        (xyz, None, r"16000 bytes, not a whole number of .* \(12 bytes each\); pass the dtype the publisher wrote"),
        (np.float32, (1000, 3), r"16000 bytes hold 4000 elements of float32; pass a shape whose sizes multiply to 4000"),
        (np.float32, (-1, 3), "multiply to 4000"),
        (np.float32, (-1, -1), "one -1"),
        (np.float32, "rows", "not an int or a sequence of ints"),
        (object, None, "cannot be read from shared memory"),
        ("not a dtype", None, "not a numpy dtype"),
    ]:
        with pytest.raises(ringbus.InvalidArgument, match=message):
            sample.as_array(dtype, shape)  # type: ignore[arg-type]
    sample.release()  # no view was left alive by any failed call
    assert pub.chunks_held_by_subscribers() == 0

    with pytest.raises(ringbus.InvalidArgument, match="pass sizes >= 0"):
        pub.loan_array((-1, 4), np.float32)
    with pytest.raises(ringbus.InvalidArgument, match=f"a loan of {8 << 40} bytes exceeds the topic's max_payload_bytes"):
        pub.loan_array((1 << 20, 1 << 20), np.float64)
    with pytest.raises(ringbus.InvalidArgument, match=f"an array of {8 << 120} bytes is larger than any loan can be"):
        pub.loan_array((1 << 40, 1 << 40, 1 << 40), np.float64)
    with pytest.raises(ringbus.InvalidArgument, match="pass a dtype"):
        pub.loan(16).as_array()
    loan = pub.loan(16)
    assert loan.as_array(np.uint32, (2, 2)).shape == (2, 2), "a plain loan takes a dtype and a shape"
    loan.truncate(6)
    with pytest.raises(ringbus.InvalidArgument, match="6 bytes, not a whole number"):
        loan.as_array(np.uint32)
    loan.discard()


def test_misaligned_memory_is_refused() -> None:
    from ringbus import _arrays

    aligned = np.zeros(4, dtype=np.float64)
    shifted = memoryview(aligned).cast("B")[1:9]
    with pytest.raises(ringbus.InvalidArgument, match="not aligned to 8 bytes as float64 needs"):
        _arrays.view(shifted, np.float64, None)
    assert _arrays.view(shifted, np.uint8, (2, 4)).shape == (2, 4)


def test_numpy_is_optional_and_its_absence_says_what_to_install() -> None:
    out = run_python(
        """
        import sys
        import ringbus
        print("numpy imported:", "numpy" in sys.modules)
        sys.modules["numpy"] = None  # as if it were not installed
        with ringbus.Node("no-numpy") as node:
            pub = node.topic("t").publisher()
            sub = node.topic("t").subscriber()
            pub.publish_copy(b"1234")
            sample = sub.take()
            for call in (lambda: sample.as_array("f4"), lambda: pub.loan_array(4, "u1")):
                try:
                    call()
                except ModuleNotFoundError as e:
                    print(e.name, e)
            print(bytes(sample))
            sample.release()
            pub.close()
            sub.close()
        """
    )
    hint = "numpy ringbus arrays need numpy, which is not installed: pip install 'ringbus[numpy]' (or numpy)"
    assert out.splitlines() == ["numpy imported: False", hint, hint, "b'1234'"]


IMAGE = (48, 64, 3)


def test_a_topic_declared_as_arrays_checks_every_opener_and_every_view(node: ringbus.Node) -> None:
    """`payload_dtype`/`payload_shape` declare what every message is: loans and samples
    need no arguments, another dtype or shape is refused, and so is an opener declaring
    another type; the topic is sized for exactly one array."""
    topic = node.topic("camera", payload_dtype=np.uint8, payload_shape=IMAGE)
    pub, sub = topic.publisher(), topic.subscriber()
    assert pub.max_payload_bytes == 48 * 64 * 3
    frame = np.random.default_rng(3).integers(0, 256, IMAGE, dtype=np.uint8)
    with pub.loan_array() as loan:  # published when the block ends
        loan.as_array()[:] = frame
    with sub.take() as sample:
        image = sample.as_array()
        assert image.shape == IMAGE and image.dtype == np.uint8 and not image.flags.writeable
        assert np.array_equal(image, frame)
        with pytest.raises(ringbus.Mismatch, match="uint8"):
            sample.as_array(np.float32)
        with pytest.raises(ringbus.Mismatch, match="shape"):
            sample.as_array(np.uint8, (64, 48, 3))
        del image
    with pytest.raises(ringbus.Mismatch, match="declared"):
        pub.loan_array((10,), np.uint8)
    with pytest.raises(ringbus.Mismatch):
        node.topic("camera", payload_dtype=np.uint16, payload_shape=IMAGE).subscriber()
    with pytest.raises(ringbus.InvalidArgument, match="payload_dtype"):
        node.topic("camera", payload_shape=IMAGE)
    # The same declaration in another process, a record dtype under the name C gives it.
    point = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4")], align=True)
    cloud = node.topic("cloud", payload_dtype=point, payload_shape=100, payload_type_name="geometry.Cloud100")
    cloud_pub = cloud.publisher()
    reader = python_child(
        """
        import numpy as np, ringbus
        point = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4")], align=True)
        with ringbus.Node("reader") as node:
            topic = node.topic("cloud", payload_dtype=point, payload_shape=100, payload_type_name="geometry.Cloud100")
            sub = topic.subscriber()
            print("ready", flush=True)
            with sub.receive(timeout=30.0) as sample:
                points = sample.as_array()
                print(points.shape, float(points["z"].sum()), flush=True)
                del points
        """
    )
    assert read_line(reader) == "ready"
    with cloud_pub.loan_array(zeroed=True) as loan:
        loan.as_array()["z"] = 0.5
    rc, out, err = finish(reader)
    assert rc == 0, err
    assert out.strip() == "(100,) 50.0"
    cloud_pub.close()
    pub.close()
    sub.close()
