"""asyncio integration: await samples and wait-set events without blocking the loop.

A :class:`~ringbus.WaitSet` hands its ``fileno()`` to ``loop.add_reader``; the fd becomes
readable when ``WaitSet.wait(0)`` would report something. :func:`wait` awaits a wait set's
events, :class:`Receiver` (and :func:`receive`, :func:`samples`) a subscriber's samples,
:func:`wait_commands` a queue's commands and :func:`call` a service's response::

    async for sample in ringbus.aio.samples(subscriber):
        frame = numpy.frombuffer(sample, dtype=numpy.uint8)

Publishing needs no await: ``publish_copy`` and ``loan`` return at once — unless the topic
has a reliable subscriber ``depth`` messages behind. The publisher then waits as its
``when_full`` says, and that wait blocks the event loop: as long as it takes with the
default (``None``), at most the seconds given with a number. In a coroutine, open the
publisher with ``when_full="fail"`` and retry after an ``await`` on
:class:`ringbus.LimitReached`, or publish from an executor thread
(``await loop.run_in_executor(None, pub.publish_copy, data)``)::

    pub = node.topic("commands", when_full="fail").publisher()
    while True:
        try:
            pub.publish_copy(command)
            break
        except ringbus.LimitReached:  # a reliable subscriber has not caught up yet
            await asyncio.sleep(0.001)
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any, AsyncIterator, List, Optional, Type

from ._native import Client, Consumer, Event, Sample, Subscriber, WaitSet
from .errors import Timeout

__all__ = ["wait", "Receiver", "receive", "samples", "wait_commands", "call"]


def _resolve(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)


async def wait(waitset: WaitSet, timeout: Optional[float] = None) -> List[Event]:
    """Awaits the wait set's next events, at most ``timeout`` seconds (``None``: forever);
    returns them (empty on timeout), like ``WaitSet.wait`` without blocking the loop."""
    loop = asyncio.get_running_loop()
    fd = waitset.fileno()
    deadline = None if timeout is None else loop.time() + timeout
    while True:
        events = waitset.wait(0)  # collects what is ready and re-arms the fd
        if events:
            return events
        remaining = None if deadline is None else deadline - loop.time()
        if remaining is not None and remaining <= 0:
            return []
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, _resolve, ready)
        try:
            await asyncio.wait_for(ready, remaining)
        except asyncio.TimeoutError:
            return []
        finally:
            loop.remove_reader(fd)


class Receiver:
    """Awaits the samples of one subscriber (which must wake: not ``Wake.NEVER``) through a
    wait set of its own. ``async for sample in receiver`` iterates forever; close it (or
    use ``with``) to release the wait set."""

    def __init__(self, subscriber: Subscriber) -> None:
        self.subscriber = subscriber
        self._waitset = WaitSet()
        self._waitset.attach_subscriber(subscriber)

    async def receive(self, timeout: Optional[float] = None) -> Sample:
        """The next sample, at most ``timeout`` seconds away (``None``: forever); raises
        :class:`ringbus.Timeout`."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            sample = self.subscriber.take()
            if sample is not None:
                return sample
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                raise Timeout("no sample arrived before the timeout")
            await wait(self._waitset, remaining)

    def __aiter__(self) -> "Receiver":
        return self

    async def __anext__(self) -> Sample:
        return await self.receive()

    def close(self) -> None:
        """Releases the wait set (the subscriber stays open)."""
        self._waitset.close()

    def __enter__(self) -> "Receiver":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()


async def receive(subscriber: Subscriber, timeout: Optional[float] = None) -> Sample:
    """Awaits the next sample of ``subscriber``, at most ``timeout`` seconds (``None``:
    forever); raises :class:`ringbus.Timeout`. For many samples, a :class:`Receiver` (or
    :func:`samples`) keeps one wait set instead of making one per call."""
    sample = subscriber.take()
    if sample is not None:
        return sample
    with Receiver(subscriber) as receiver:
        return await receiver.receive(timeout)


async def samples(subscriber: Subscriber) -> AsyncIterator[Sample]:
    """Yields the samples of ``subscriber`` as they arrive, forever."""
    with Receiver(subscriber) as receiver:
        while True:
            yield await receiver.receive()


async def wait_commands(consumer: Consumer, timeout: Optional[float] = None) -> bool:
    """Awaits a command ready for ``consumer`` (of a queue that wakes: not ``Wake.NEVER``),
    at most ``timeout`` seconds (``None``: forever); returns whether one is, like
    ``Consumer.wait`` without blocking the loop. Then ``pop`` until ``None``."""
    with WaitSet() as waitset:
        waitset.attach_consumer(consumer)
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            if consumer.wait(0):
                return True
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return False
            await wait(waitset, remaining)


async def call(client: Client, request: object, timeout: Optional[float] = None) -> Any:
    """Awaits ``client.call(request, timeout)``, made on the default executor's thread (the
    call releases the GIL while it waits), without blocking the loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, client.call, request, timeout)
