"""Zero copy, proven: numpy arrays over loans and samples point into the shared-memory
segments, pin what they view, and nothing a Python object can still see is ever given
back (BufferError instead)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import ringbus

MIB = 1 << 20


def test_a_16_mib_array_travels_without_a_copy(node: ringbus.Node) -> None:
    size = 16 * MIB
    pub = node.topic("frames", max_payload_bytes=size, depth=2, max_subscribers=1, max_held=1).publisher()
    sub = node.topic("frames").subscriber()
    frame = np.random.default_rng(4).integers(0, 2**32, size // 4, dtype=np.uint32)

    loan = pub.loan(size)
    view = np.frombuffer(loan, dtype=np.uint32)
    assert view.ctypes.data == loan.address, "the loan's array is the shared-memory chunk itself"
    view[:] = frame
    del view
    loan.publish()

    sample = sub.receive(timeout=5.0)
    array = np.frombuffer(sample, dtype=np.uint32)
    start, end = sample.address, sample.address + len(sample)
    data = array.__array_interface__["data"][0]
    assert data == array.ctypes.data == start and data + array.nbytes == end, "the array lies in the sample's mapping"
    assert not array.flags.writeable and not array.flags.owndata, "a read-only view, not a copy"
    assert data != loan.address, "the subscriber reads through its own (read-only) mapping"
    assert np.array_equal(array, frame)

    # The array pins the chunk: dropping the Sample object does not release it...
    del sample
    gc.collect()
    assert pub.chunks_held_by_subscribers() == 1
    assert sub.held == 1
    # ... dropping the last view does.
    del array
    assert pub.chunks_held_by_subscribers() == 0 and sub.held == 0


def test_a_viewed_sample_cannot_be_released(node: ringbus.Node) -> None:
    pub = node.topic("pinned").publisher()
    sub = node.topic("pinned").subscriber()
    pub.publish_copy(b"12345678")
    sample = sub.take()
    assert sample is not None
    array = np.frombuffer(sample, dtype=np.uint8)
    view = memoryview(sample)
    assert view.readonly
    with pytest.raises(TypeError):
        view[0] = 0
    with pytest.raises(BufferError, match="2 buffer"):
        sample.release()
    with pytest.raises(BufferError):
        with sample:
            pass
    view.release()
    with pytest.raises(BufferError, match="1 buffer"):
        sample.release()
    assert array.tobytes() == b"12345678", "still readable: nothing was given back"
    del array
    sample.release()
    assert sample.released and pub.chunks_held_by_subscribers() == 0
    with pytest.raises(ringbus.Closed, match="released"):
        memoryview(sample)
    with pytest.raises(ringbus.Closed):
        np.frombuffer(sample, dtype=np.uint8)
    sample.release()  # idempotent


def test_a_viewed_loan_cannot_be_published_discarded_or_closed(node: ringbus.Node) -> None:
    pub = node.topic("loans", max_payload_bytes=64).publisher()
    sub = node.topic("loans").subscriber()
    loan = pub.loan(8, zeroed=True)
    array = np.frombuffer(loan, dtype=np.uint8)
    assert array.flags.writeable and not array.any()
    array[:] = np.arange(8)
    for end in (loan.publish, loan.discard, pub.close):
        with pytest.raises(BufferError, match="still view"):
            end()
    assert not loan.closed and not pub.closed
    del array
    loan.publish()
    assert loan.closed
    for call in (loan.publish, loan.discard, lambda: memoryview(loan), lambda: len(loan)):
        with pytest.raises(ringbus.Closed, match="already published"):
            call()
    assert bytes(sub.take()) == bytes(range(8))  # type: ignore[arg-type]


def test_loans_as_context_managers_and_dropped_loans(node: ringbus.Node) -> None:
    pub = node.topic("ctx", max_payload_bytes=64, depth=2).publisher()
    sub = node.topic("ctx").subscriber()
    free = pub.free_chunks()
    with pub.loan(5) as loan:
        memoryview(loan)[:] = b"hello"
    assert bytes(sub.take()) == b"hello"  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        with pub.loan(5) as loan:
            raise RuntimeError("discards the loan")
    assert loan.closed and sub.take() is None
    for _ in range(100):
        pub.loan(8)  # dropped at once: the chunk comes back
    assert pub.free_chunks() >= free - 1
    held = pub.loan(8)
    with pytest.raises(ringbus.LimitReached, match="one loan at a time"):
        pub.loan(8)
    held.truncate(3)
    assert len(held) == 3
    held.discard()


def test_closing_a_publisher_ends_its_loan(node: ringbus.Node) -> None:
    pub = node.topic("gone").publisher()
    loan = pub.loan(4)
    pub.close()
    assert loan.closed
    with pytest.raises(ringbus.Closed):
        memoryview(loan)
    with pytest.raises(ringbus.Closed):
        loan.publish()
