"""ringbus: zero-copy publish/subscribe between processes through Linux shared memory.

A publisher writes a message in place into a chunk of its own shared memory
(``Publisher.loan``) and publishes it in O(1); every subscriber reads the same bytes in
place (``Sample`` supports the buffer protocol: ``numpy.frombuffer(sample, dtype)`` copies
nothing). An ``Executor`` runs timers and callbacks on one thread; its inputs let a
timer poll topics instead of waking for every message. Processes also wait on latches,
semaphores and raw shared-memory words, together with fds and timers, in one ``WaitSet``
— whose ``fileno()`` plugs into asyncio (:mod:`ringbus.aio`). Command queues (``Node.queue``) and services (``Node.service``,
``Node.client``) move numpy values of one dtype, shared with C, C++ and Rust programs that
give the same type names.

Example::

    import ringbus
    with ringbus.Node("demo") as node:
        pub = node.topic("chatter", max_payload_bytes=64).publisher()
        sub = node.topic("chatter").subscriber()
        pub.publish_copy(b"hello")
        assert bytes(sub.receive(timeout=1.0)) == b"hello"
"""

from __future__ import annotations

from . import errors
from ._native import (
    Event,
    Client,
    Consumer,
    Latch,
    Loan,
    Node,
    Producer,
    Publisher,
    Queue,
    Sample,
    Semaphore,
    Server,
    Subscriber,
    Topic,
    WaitSet,
    Wake,
    Word,
)
from .executor import Drained, Executor, ExecutorStats, Input
from .errors import (
    Closed,
    Corrupted,
    Error,
    InvalidArgument,
    IoError,
    LimitReached,
    Mismatch,
    NoSpace,
    NotFound,
    ServerGone,
    Timeout,
    Unsupported,
)

__all__ = [
    "Node",
    "Topic",
    "Publisher",
    "Loan",
    "Subscriber",
    "Sample",
    "Queue",
    "Producer",
    "Consumer",
    "Server",
    "Client",
    "Wake",
    "WaitSet",
    "Event",
    "Executor",
    "ExecutorStats",
    "Input",
    "Drained",
    "Latch",
    "Semaphore",
    "Word",
    "errors",
    "Error",
    "Timeout",
    "Closed",
    "InvalidArgument",
    "Mismatch",
    "Corrupted",
    "LimitReached",
    "NoSpace",
    "Unsupported",
    "IoError",
    "NotFound",
    "ServerGone",
]
