"""Publishing and receiving in one process: the API, its counters and its errors."""

from __future__ import annotations

import itertools
import threading
import time

import numpy as np
import pytest

import ringbus


def test_publish_take_receive_and_iterate(node: ringbus.Node) -> None:
    with node.topic("chatter", max_payload_bytes=64).publisher() as pub, node.topic("chatter").subscriber() as sub:
        assert sub.take() is None and not sub.has_data()
        for i in range(5):
            pub.publish_copy(bytes([i]) * 3)
        assert sub.has_data()
        assert bytes(sub.peek()) == b"\x00\x00\x00"  # type: ignore[arg-type]
        first = sub.take()
        assert first is not None and bytes(first) == b"\x00\x00\x00" and first.position == 0 and len(first) == 3
        assert bytes(sub.receive(timeout=1.0)) == b"\x01\x01\x01"
        assert [s.tobytes() for s in itertools.islice(sub, 3)] == [b"\x02" * 3, b"\x03" * 3, b"\x04" * 3]
        assert (sub.taken, sub.lost) == (5, 0)
        stats = pub.stats()
        assert stats["publishes"] == 5 and stats["payload_bytes"] == 15 and stats["wake_syscalls"] == 0
        first.release()
        assert first.released
    assert pub.closed and sub.closed


def test_take_latest_and_keep_last(node: ringbus.Node) -> None:
    pub = node.topic("k", depth=8).publisher()
    latest = node.topic("k").subscriber()
    last3 = node.topic("k", keep_last=3).subscriber()
    for i in range(10):
        pub.publish_copy(bytes([i]))
    newest = latest.take_latest()
    assert newest is not None and bytes(newest) == b"\x09" and latest.take() is None
    got = []
    while (s := last3.take()) is not None:
        got.append(s.tobytes()[0])
        s.release()
    assert got == [7, 8, 9] and last3.lost == 7


def test_receive_releases_the_gil(node: ringbus.Node) -> None:
    pub = node.topic("gil").publisher()
    sub = node.topic("gil").subscriber()
    got: list = []
    receiver = threading.Thread(target=lambda: got.append(sub.receive(timeout=30.0).tobytes()))
    receiver.start()
    # If receive() held the GIL, this thread could not run until it timed out (30 s).
    while pub.sleeping_subscribers() == 0:
        time.sleep(0.001)
    pub.publish_copy(b"woken")
    receiver.join(timeout=30.0)
    assert got == [b"woken"] and pub.stats()["wake_syscalls"] == 1


def test_publish_copy_takes_any_contiguous_buffer(node: ringbus.Node) -> None:
    pub = node.topic("buffers", max_payload_bytes=1024).publisher()
    sub = node.topic("buffers").subscriber()
    values = np.arange(16, dtype=np.float64)
    for data in (b"bytes", bytearray(b"bytearray"), memoryview(b"memoryview"), values):
        pub.publish_copy(data)
    assert [sub.take().tobytes() for _ in range(3)] == [b"bytes", b"bytearray", b"memoryview"]  # type: ignore[union-attr]
    assert np.array_equal(np.frombuffer(sub.take(), dtype=np.float64), values)  # type: ignore[arg-type]
    with pytest.raises(ringbus.InvalidArgument, match="C-contiguous"):
        pub.publish_copy(values[::2])
    with pytest.raises(TypeError):
        pub.publish_copy("text is not a buffer")  # type: ignore[arg-type]


def test_a_publisher_waking_one_sleeper_itself_still_reaches_all_of_them(node: ringbus.Node) -> None:
    # direct_wakes=1 with three sleepers: the publish wakes one, which wakes the other two.
    pub = node.topic("relay", direct_wakes=1).publisher()
    subs = [node.topic("relay").subscriber() for _ in range(3)]
    got: list = []
    receivers = [threading.Thread(target=lambda s=s: got.append(s.receive(timeout=30.0).tobytes())) for s in subs]
    for r in receivers:
        r.start()
    while pub.sleeping_subscribers() < 3:
        time.sleep(0.001)
    pub.publish_copy(b"all")
    for r in receivers:
        r.join(timeout=30.0)
    assert got == [b"all"] * 3 and pub.stats()["wake_syscalls"] == 1


def test_bad_arguments_raise_clear_exceptions(node: ringbus.Node) -> None:
    with pytest.raises(ringbus.InvalidArgument, match="invalid name"):
        node.topic("no spaces allowed").publisher()
    with pytest.raises(ringbus.InvalidArgument, match="depth"):
        node.topic("d", depth=3).publisher()
    with pytest.raises(ringbus.InvalidArgument, match="direct_wakes"):
        node.topic("d", direct_wakes=0).publisher()
    with pytest.raises(OverflowError):
        node.topic("d", depth=-1)
    with pytest.raises(TypeError):
        node.topic("d", depth="16")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        node.topic("d", colour="red")  # type: ignore[call-arg]
    pub = node.topic("limits", max_payload_bytes=16, max_subscribers=1, max_held=1).publisher()
    with pytest.raises(ringbus.InvalidArgument, match="max_payload_bytes of 16"):
        pub.loan(17)
    with pytest.raises(ringbus.Mismatch, match="max_payload_bytes = 16"):
        node.topic("limits", max_payload_bytes=32).subscriber()
    sub = node.topic("limits").subscriber()
    with pytest.raises(ringbus.LimitReached, match="maximum of 1 live subscribers"):
        node.topic("limits").subscriber()
    pub.publish_copy(b"a")
    pub.publish_copy(b"b")
    held = sub.take()
    with pytest.raises(ringbus.LimitReached, match="max_held"):
        sub.take()
    del held
    with pytest.raises(ringbus.InvalidArgument, match="timeout"):
        sub.receive(timeout=-1)
    with pytest.raises(ValueError):
        sub.receive(timeout=float("nan"))
    never = node.topic("polled", wake=ringbus.Wake.NEVER).subscriber()
    with pytest.raises(ringbus.Unsupported, match="take"):
        never.receive(timeout=0)
    with pytest.raises(ringbus.Timeout) as timeout:
        node.topic("quiet").subscriber().receive(timeout=0.01)
    assert isinstance(timeout.value, TimeoutError) and isinstance(timeout.value, ringbus.Error)


def test_closed_objects_raise_closed(node: ringbus.Node) -> None:
    pub = node.topic("closing").publisher()
    sub = node.topic("closing").subscriber()
    pub.publish_copy(b"kept")
    sample = sub.take()
    sub.close()
    pub.close()
    assert sample is not None and bytes(sample) == b"kept", "a sample outlives its subscriber and publisher"
    for call in (lambda: pub.publish_copy(b"x"), lambda: pub.loan(1), sub.take, lambda: sub.receive(0), lambda: sub.taken):
        with pytest.raises(ringbus.Closed, match="closed"):
            call()
    sample.release()
    with pytest.raises(ringbus.Closed, match="released"):
        bytes(sample)
    with pytest.raises(ringbus.Closed):
        sample.position
    node.close()
    with pytest.raises(ringbus.Closed):
        node.topic("after")
    pub.close()  # idempotent
    assert "closed" in repr(pub)
