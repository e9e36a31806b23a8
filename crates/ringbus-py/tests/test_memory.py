"""A topic's memory settings from Python: pool_bytes and preallocate round trip and must
match an existing topic, a loan over the budget raises LimitReached with the core's
message, and reserved_payload_bytes follows what the publisher holds."""

from __future__ import annotations

import pytest

import ringbus

MIB = 1 << 20


def test_memory_settings_round_trip_and_must_match(node: ringbus.Node) -> None:
    pub = node.topic("fixed", max_payload_bytes=MIB, chunks=20, depth=8, preallocate=True).publisher()
    assert pub.reserved_payload_bytes() == 20 * MIB, "a preallocated pool holds every chunk from the start"
    # The same settings, or none, open the existing topic.
    node.topic("fixed", preallocate=True, pool_bytes=1 << 30).subscriber().close()
    node.topic("fixed").subscriber().close()
    with pytest.raises(ringbus.Mismatch, match="preallocate = 1, but 0 was requested"):
        node.topic("fixed", preallocate=False).subscriber()
    with pytest.raises(ringbus.Mismatch, match=f"pool_bytes = {1 << 30}, but {2 * MIB} was requested"):
        node.topic("fixed", pool_bytes=2 * MIB).publisher()
    with pytest.raises(ringbus.InvalidArgument, match="pool_bytes"):
        node.topic("too-small", max_payload_bytes=4 * MIB, pool_bytes=MIB).publisher()
    pub.close()


def test_an_on_demand_pool_holds_only_what_is_in_flight(node: ringbus.Node) -> None:
    pub = node.topic("cam", max_payload_bytes=64 * MIB, depth=4, preallocate=False).publisher()
    sub = node.topic("cam").subscriber()
    assert pub.reserved_payload_bytes() < MIB, "nothing lent yet: (almost) nothing held"
    with pub.loan(8 * MIB) as loan:
        memoryview(loan)[-1] = 7
    assert pub.reserved_payload_bytes() >= 8 * MIB
    sample = sub.take()
    assert sample is not None and len(sample) == 8 * MIB and sample.tobytes()[-1] == 7
    sample.release()
    for _ in range(40):  # the large message leaves the log; its chunk serves small ones
        pub.publish_copy(b"small")
    assert pub.reserved_payload_bytes() < MIB, f"{pub.reserved_payload_bytes()} bytes still held"


def test_a_loan_over_pool_bytes_raises_limit_reached_and_smaller_loans_still_work(node: ringbus.Node) -> None:
    pub = node.topic("pc", max_payload_bytes=4 * MIB, pool_bytes=4 * MIB).publisher()
    pub.publish_copy(bytes(3 * MIB))  # stays in the log, holding its memory
    with pytest.raises(ringbus.LimitReached) as over:
        pub.loan(2 * MIB)
    message = str(over.value)
    assert f"a loan of {2 * MIB} bytes" in message and f"pool_bytes of {4 * MIB}" in message, message
    assert "larger pool_bytes" in message, "the message says what to do"
    with pub.loan(512 * 1024) as loan:
        memoryview(loan)[:4] = b"fits"
    assert pub.reserved_payload_bytes() <= 4 * MIB
    assert pub.stats()["publishes"] == 2
