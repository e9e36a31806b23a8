"""Reliable subscribers from Python: a publisher `depth` messages ahead of one fails
(`when_full="fail"`: LimitReached), waits a bounded time (Timeout) or waits until it takes,
with the GIL released; a burst from another process arrives whole; bad options are refused."""

from __future__ import annotations

import struct
import threading

import pytest

import ringbus
from conftest import finish, python_child, read_line

FULL = "has not taken the message this loan would overwrite (4 messages back; waited "


def publish(pub: ringbus.Publisher, value: int) -> None:
    pub.publish_copy(struct.pack("<Q", value))


def drain(sub: ringbus.Subscriber) -> list:
    values = []
    while (sample := sub.take()) is not None:
        values.append(struct.unpack("<Q", sample)[0])
        sample.release()
    return values


def test_fail_raises_limit_reached_after_depth_untaken_messages_and_a_take_makes_room(node: ringbus.Node) -> None:
    reliable = node.topic("cmd", depth=4, max_payload_bytes=8, reliable=True).subscriber()
    lossy = node.topic("cmd").subscriber()
    pub = node.topic("cmd", when_full="fail").publisher()
    for i in range(4):
        publish(pub, i)
    with pytest.raises(ringbus.LimitReached) as full:
        publish(pub, 4)
    message = str(full.value)
    assert FULL in message and "larger depth" in message, message
    with pytest.raises(ringbus.LimitReached, match="reliable subscriber"):
        pub.loan(8)

    first = reliable.take()
    assert first is not None and struct.unpack("<Q", first)[0] == 0
    publish(pub, 4)  # one taken: room for one more
    with pytest.raises(ringbus.LimitReached):
        publish(pub, 5)
    assert drain(reliable) == [1, 2, 3, 4]
    assert (reliable.taken, reliable.lost) == (5, 0)
    assert drain(lossy) == [1, 2, 3, 4] and lossy.lost == 1, "the lossy subscriber was lapped"
    stats = pub.stats()
    assert (stats["publishes"], stats["blocked"], stats["blocked_ns"]) == (5, 0, 0), "failing is not waiting"


def test_a_wait_in_seconds_raises_timeout_saying_how_long_and_counts_one_blocked_loan(node: ringbus.Node) -> None:
    reliable = node.topic("slow", depth=4, max_payload_bytes=8, reliable=True).subscriber()
    pub = node.topic("slow", when_full=0.12).publisher()
    for i in range(4):
        publish(pub, i)
    with pytest.raises(ringbus.Timeout) as waited:
        publish(pub, 4)
    assert isinstance(waited.value, TimeoutError)
    assert FULL in str(waited.value), str(waited.value)
    # The wait ran in several slices (signal handlers run between them): still one loan.
    stats = pub.stats()
    assert stats["blocked"] == 1 and stats["blocked_ns"] > 0, stats
    assert stats["publishes"] == 4

    instant = node.topic("slow", when_full=0).publisher()  # 0 s: no wait at all
    for i in range(4):
        publish(instant, i)
    with pytest.raises(ringbus.Timeout, match="reliable subscriber"):
        publish(instant, 4)
    assert instant.stats()["blocked"] == 0
    assert len(drain(reliable)) == 8 and reliable.lost == 0


def test_a_waiting_publish_releases_the_gil_and_goes_on_once_a_thread_takes(node: ringbus.Node) -> None:
    reliable = node.topic("gil", depth=4, max_payload_bytes=8, reliable=True).subscriber()
    # A bound, so that a publish holding the GIL would fail instead of hanging the test.
    pub = node.topic("gil", when_full=60.0).publisher()
    for i in range(4):
        publish(pub, i)
    publishing = threading.Event()
    taken: list = []

    def take_one() -> None:
        publishing.wait()
        # Needs the GIL: it gets it only if the waiting publish released it.
        taken.append(struct.unpack("<Q", reliable.receive(timeout=60.0))[0])

    taker = threading.Thread(target=take_one)
    taker.start()
    publishing.set()
    publish(pub, 4)  # waits until the thread has taken message 0 (unless it already has)
    taker.join(timeout=60.0)
    assert taken == [0]
    assert drain(reliable) == [1, 2, 3, 4] and reliable.lost == 0
    assert pub.stats()["blocked"] <= 1


def test_a_reliable_subscriber_gets_all_of_a_burst_from_another_process(node: ringbus.Node) -> None:
    total, depth = 2000, 8
    sub = node.topic("burst", depth=depth, max_payload_bytes=8, reliable=True).subscriber()
    child = python_child(
        """
        import struct, sys, ringbus
        with ringbus.Node("burst") as node:
            pub = node.topic("burst").publisher()  # when_full=None: waits as long as it takes
            print("ready", flush=True)
            for i in range(int(sys.argv[1])):
                pub.publish_copy(struct.pack("<Q", i))
            stats = pub.stats()
            print(stats["publishes"], stats["blocked"], flush=True)
        """,
        str(total),
    )
    assert read_line(child) == "ready"
    got = [struct.unpack("<Q", sub.receive(timeout=60.0))[0] for _ in range(total)]
    rc, out, err = finish(child)
    assert rc == 0, err
    assert got == list(range(total)), "every message, in order"
    assert (sub.taken, sub.lost) == (total, 0)
    publishes, blocked = map(int, out.split())
    assert publishes == total and 0 <= blocked <= total - depth, out


def test_reliable_and_when_full_are_checked(node: ringbus.Node) -> None:
    with pytest.raises(ringbus.InvalidArgument, match="keep_last"):
        node.topic("bad", reliable=True, keep_last=2).subscriber()
    for value, error in [
        ("wait", ringbus.InvalidArgument),
        (-1.0, ringbus.InvalidArgument),
        (float("nan"), ringbus.InvalidArgument),
        (True, TypeError),
        ([1.0], TypeError),
    ]:
        with pytest.raises(error, match='when_full must be "fail", a number of seconds >= 0, or None'):
            node.topic("bad", when_full=value)  # type: ignore[arg-type]
    for fine in (None, "fail", 0, 2, 0.5, float("inf")):
        node.topic("bad", when_full=fine).publisher().close()
    with pytest.raises(TypeError):
        node.topic("bad", reliable=1)  # type: ignore[arg-type]
