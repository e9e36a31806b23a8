"""The transports `python -m ringbus.bench` compares, each as a sender (in the benchmark's
process) and a receiver (in a process of its own).

Every message carries, in its first 8 bytes, the sender's ``time.monotonic_ns()`` taken
before it loaned, filled or sent anything; the receiver subtracts it from its own clock
once it holds the payload as a numpy array, then acknowledges, and the sender sends the
next message only after the acknowledgement (one-way latency, no queueing). A stamp of
``WARMUP`` is not recorded; ``STOP`` ends the receiver, which then sends back what it
measured.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import time
from multiprocessing import shared_memory
from typing import Any, Dict, List

import numpy as np

import ringbus

WARMUP = 0
STOP = 1
MAX_BYTES = 1 << 20
ACK = b"k"

Latencies = Dict[int, List[int]]


def stamp(array: "np.ndarray[Any, np.dtype[np.uint8]]", t0: int) -> None:
    """Writes `t0` into the first 8 bytes of a uint8 array."""
    array[:8].view(np.int64)[0] = t0


def stamp_of(array: "np.ndarray[Any, np.dtype[np.uint8]]") -> int:
    return int(array[:8].view(np.int64)[0])


def record(latencies: Latencies, array: "np.ndarray[Any, np.dtype[np.uint8]]", t1: int) -> bool:
    """Records one message's latency; False for the stop message."""
    t0 = stamp_of(array)
    if t0 == STOP:
        return False
    if t0 != WARMUP:
        latencies.setdefault(array.nbytes, []).append(t1 - t0)
    return True


class Ringbus:
    """ringbus: the sender writes into a loan in place; the receiver views the sample."""

    name = "ringbus"

    def __init__(self, channels: Any, workdir: str, role: str) -> None:
        self.node = ringbus.Node(f"bench-{role}", root=os.path.join(workdir, "root"))
        data = self.node.topic("bench/data", max_payload_bytes=MAX_BYTES, depth=4, max_subscribers=1)
        ack = self.node.topic("bench/ack", max_payload_bytes=8, depth=4, max_subscribers=1)
        if role == "sender":
            self.out, self.back = data.publisher(), ack.subscriber()
        else:
            self.back_pub, self.data = ack.publisher(), data.subscriber()

    def send(self, payload: "np.ndarray[Any, np.dtype[np.uint8]]", t0: int) -> None:
        with self.out.loan(payload.nbytes) as loan:
            view = np.frombuffer(loan, dtype=np.uint8)  # type: ignore[call-overload]  # numpy's stubs predate Buffer on 3.11
            view[:] = payload
            stamp(view, t0)
            del view
        self.back.receive().release()

    def receive_all(self, latencies: Latencies) -> None:
        while True:
            sample = self.data.receive()
            array = np.frombuffer(sample, dtype=np.uint8)  # type: ignore[call-overload]  # as above
            going = record(latencies, array, time.monotonic_ns())
            del array
            sample.release()
            self.back_pub.publish_copy(ACK)
            if not going:
                return

    @staticmethod
    def channels(ctx: Any, workdir: str) -> Any:
        return None

    def close(self) -> None:
        self.node.close()


class MpQueue:
    """multiprocessing.Queue: the array is pickled through a pipe."""

    name = "multiprocessing.Queue"

    def __init__(self, channels: Any, workdir: str, role: str) -> None:
        self.data, self.ack = channels

    @staticmethod
    def channels(ctx: Any, workdir: str) -> Any:
        return ctx.Queue(), ctx.Queue()

    def send(self, payload: "np.ndarray[Any, np.dtype[np.uint8]]", t0: int) -> None:
        stamp(payload, t0)
        self.data.put(payload)
        self.ack.get()

    def receive_all(self, latencies: Latencies) -> None:
        while True:
            array = self.data.get()
            going = record(latencies, array, time.monotonic_ns())
            self.ack.put(ACK)
            if not going:
                return

    def close(self) -> None:
        pass


class SharedMemoryEvent:
    """multiprocessing.shared_memory with multiprocessing Events: the sender copies into
    the block and sets `ready`; the receiver views the block and sets `done`."""

    name = "shared_memory+Event"

    def __init__(self, channels: Any, workdir: str, role: str) -> None:
        block_name, self.ready, self.done, self.size = channels
        self.block = shared_memory.SharedMemory(block_name)
        self.role = role  # the sender owns the block and unlinks it

    @staticmethod
    def channels(ctx: Any, workdir: str) -> Any:
        block = shared_memory.SharedMemory(create=True, size=MAX_BYTES)
        block.close()  # the sender opens it again by name, and unlinks it
        return block.name, ctx.Event(), ctx.Event(), ctx.Value("q", 0, lock=False)

    def send(self, payload: "np.ndarray[Any, np.dtype[np.uint8]]", t0: int) -> None:
        view = np.ndarray((payload.nbytes,), dtype=np.uint8, buffer=self.block.buf)
        view[:] = payload
        stamp(view, t0)
        del view
        self.size.value = payload.nbytes
        self.ready.set()
        self.done.wait()
        self.done.clear()

    def receive_all(self, latencies: Latencies) -> None:
        while True:
            self.ready.wait()
            self.ready.clear()
            array = np.ndarray((self.size.value,), dtype=np.uint8, buffer=self.block.buf)
            going = record(latencies, array, time.monotonic_ns())
            del array
            self.done.set()
            if not going:
                return

    def close(self) -> None:
        self.block.close()
        if self.role == "sender":
            self.block.unlink()


class Zmq:
    """pyzmq PAIR sockets over ipc:// (large messages sent without a copy on the sender)."""

    name = "pyzmq ipc://"

    def __init__(self, channels: Any, workdir: str, role: str) -> None:
        import zmq

        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.PAIR)
        if role == "sender":
            self.socket.bind(channels)
        else:
            self.socket.connect(channels)

    @staticmethod
    def channels(ctx: Any, workdir: str) -> Any:
        return f"ipc://{workdir}/zmq.sock"

    def send(self, payload: "np.ndarray[Any, np.dtype[np.uint8]]", t0: int) -> None:
        stamp(payload, t0)
        if payload.nbytes < 65536:
            self.socket.send(payload)  # type: ignore[call-overload]  # pyzmq's stubs want Buffer (3.12)
        else:
            self.socket.send(payload, copy=False)  # type: ignore[call-overload]  # as above
        self.socket.recv()

    def receive_all(self, latencies: Latencies) -> None:
        while True:
            message = self.socket.recv(copy=False)
            array = np.frombuffer(message.buffer, dtype=np.uint8)
            going = record(latencies, array, time.monotonic_ns())
            del array, message
            self.socket.send(ACK)
            if not going:
                return

    def close(self) -> None:
        self.socket.close(linger=0)
        self.context.term()


TRANSPORTS = {t.name: t for t in (Ringbus, MpQueue, SharedMemoryEvent, Zmq)}


def receiver(name: str, channels: Any, workdir: str, control: multiprocessing.connection.Connection) -> None:
    """A receiver process: opens its side, says it is ready, records until STOP, replies."""
    transport = TRANSPORTS[name](channels, workdir, "receiver")
    control.send("ready")
    latencies: Latencies = {}
    transport.receive_all(latencies)
    control.send(latencies)
    transport.close()
