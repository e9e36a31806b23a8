"""``Executor``: one thread running timers, per-message callbacks, inputs that timers read,
queue commands, service requests and fd / word callbacks, all over one :class:`WaitSet`.

Why two styles: a node that receives topics at 10, 30 and 50 Hz and processes them in a
10 Hz timer wastes most of its CPU waking up for messages it throws away — in Python each
wake-up costs tens of microseconds of interpreter time. Here the cheap style is one
argument away from the usual one: an :class:`Input` made from a ``Wake.ON_DATA``
subscriber is filled by the executor as messages arrive (one wake-up per message, the
callback style); made from a ``Wake.NEVER`` subscriber it is read by the timer itself and
nothing wakes the thread between ticks (the polling style). The timer's code is the same::

    import ringbus

    node = ringbus.Node("planner")
    executor = ringbus.Executor()
    # wake=ringbus.Wake.ON_DATA instead: the callback style, same timer code.
    scans = executor.input(node.topic("lidar", wake=ringbus.Wake.NEVER).subscriber())

    def tick() -> None:
        for scan in scans.take_all():  # everything since the last tick, oldest first
            ...
        newest = scans.latest()        # or just the newest (kept until a newer one)

    executor.timer(0.1, tick)
    executor.spin()                    # Ctrl-C stops it; so does executor.stop()

Callbacks run on the thread that spins, one at a time, in the order their sources became
ready. An exception from a callback leaves ``spin()`` (the rest of that round does not run);
the executor stays usable. ``await executor.spin_async()`` runs the same callbacks inside an
asyncio event loop, without a thread.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import time
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, Iterator, List, Optional, Union

from ._native import Consumer, Event, Sample, Server, Subscriber, WaitSet, Wake, Word
from .aio import _resolve
from .errors import LimitReached

if TYPE_CHECKING:
    from ._native import _FileLike

__all__ = ["Executor", "ExecutorStats", "Input", "Drained"]


@dataclasses.dataclass(frozen=True)
class ExecutorStats:
    """Counters of one executor since it was made."""

    wakeups: int
    """Waits that returned with something to do: the thread's wake-ups for work (a wait
    that found work without sleeping counts too)."""
    timer_calls: int
    """Timer callbacks run."""
    messages: int
    """Messages handed to subscription callbacks or queued into callback-style inputs,
    commands handed to queue callbacks and requests answered."""


class Drained:
    """What :meth:`Input.take_all` hands over: an iterator over the samples, oldest first,
    each taken as the iteration reaches it (keep only those you need: every sample kept
    pins its chunk, and a subscriber holds at most the topic's ``max_held``), and how many
    messages were lost (``lost``)."""

    def __init__(self, samples: Iterator[Sample], lost: Callable[[], int]) -> None:
        self._samples = samples
        self._lost = lost
        self.taken = 0
        """Samples handed over so far."""

    def __iter__(self) -> Drained:
        return self

    def __next__(self) -> Sample:
        sample = next(self._samples)
        self.taken += 1
        return sample

    @property
    def lost(self) -> int:
        """Messages that arrived since the previous read but are gone — overwritten in the
        topic (its ``depth`` or ``keep_last`` too small for the timer's period) or, in the
        callback style, pushed out of the input's queue (it keeps at most ``max_held``
        samples). In the polling style, final once the iteration is done."""
        return self._lost()


class Input:
    """A subscription read by timers, made by :meth:`Executor.input`. Its style follows the
    subscriber's wake mode (``polling`` says which): ``Wake.NEVER`` — the reads take straight
    from shared memory and nothing wakes the thread; ``Wake.ON_DATA`` — the executor wakes
    for every message and keeps the samples (pinned, no copy) until a timer reads them."""

    def __init__(self, subscriber: Subscriber) -> None:
        self.subscriber = subscriber
        self.polling = subscriber.wake == Wake.NEVER
        self.key: Optional[int] = None
        """The key to :meth:`Executor.remove` the executor's feed with (callback style; a
        polling input has none: nothing of it is attached)."""
        self._queue: Deque[Sample] = collections.deque()
        self._overflow = 0
        self._last: Optional[Sample] = None

    def latest(self) -> Optional[Sample]:
        """The newest message so far — the same one again if nothing newer came — or
        ``None`` before the first. Older unread messages are skipped."""
        if self.polling:
            newest = self.subscriber.take_latest()
        else:
            newest = self._queue.pop() if self._queue else None
            self._queue.clear()
        if newest is not None:
            self._keep(newest)
        return self._last

    def take_all(self) -> Drained:
        """Every message that arrived since the previous read, oldest first, as an iterator
        (see :class:`Drained`), and how many were lost in between (``Drained.lost``)."""
        if self.polling:
            lost_before = self.subscriber.lost
            return Drained(self._take_each(), lambda: self.subscriber.lost - lost_before)
        queued, self._queue = self._queue, collections.deque()
        lost, self._overflow = self._overflow, 0
        return Drained(self._each(queued), lambda: lost)

    def _take_each(self) -> Iterator[Sample]:
        while (sample := self.subscriber.take()) is not None:
            self._keep(sample)
            yield sample

    def _each(self, queued: Deque[Sample]) -> Iterator[Sample]:
        while queued:
            sample = queued.popleft()
            self._keep(sample)
            yield sample

    def _keep(self, newest: Sample) -> None:
        # Dropping a reference is all: a sample's chunk goes back when the last reference
        # to it (the timer may have kept one) and the last array over it are gone.
        self._last = newest

    def _fill(self) -> int:
        """Callback style: moves everything the subscriber has into the queue. When the
        topic's held limit is reached, the oldest queued sample makes room."""
        queued = 0
        while True:
            try:
                sample = self.subscriber.take()
            except LimitReached:
                if self._queue:
                    self._queue.popleft()
                    self._overflow += 1
                    continue
                if self._last is not None:  # unless the timer keeps it too
                    self._last = None
                    continue
                raise
            if sample is None:
                return queued
            self._queue.append(sample)
            queued += 1


_Handler = Callable[[Event], object]


class Executor:
    """Runs callbacks on one thread. See the module documentation.

    Register timers (:meth:`timer`), per-message callbacks (:meth:`subscription`), inputs for
    timers to read (:meth:`input`), queue commands (:meth:`commands`), service requests
    (:meth:`service`), fds and words; then :meth:`spin` until a callback calls :meth:`stop`,
    or :meth:`spin_once` / :meth:`spin_for` for a bounded time, or ``await``
    :meth:`spin_async` in an asyncio program. Each registration returns a key for
    :meth:`remove` (an input has its ``key``). Use an executor from the thread that made it
    (as its wait set requires).
    """

    def __init__(self, waitset: Optional[WaitSet] = None) -> None:
        self.waitset = waitset if waitset is not None else WaitSet()
        self._handlers: Dict[int, _Handler] = {}
        self._stopping = False
        self._wakeups = self._timer_calls = self._messages = 0
        self._async_ready: Optional[asyncio.Future[None]] = None

    def timer(self, period: float, callback: Callable[[], object]) -> int:
        """Calls ``callback()`` every ``period`` seconds, first one period from now. Late
        ticks are not queued up: a tick that finds several periods passed runs once."""

        def tick(_event: Event) -> None:
            self._timer_calls += 1
            callback()

        return self._add(self.waitset.attach_interval(period), tick)

    def subscription(self, subscriber: Subscriber, callback: Callable[[Sample], object]) -> int:
        """Calls ``callback(sample)`` once per message of ``subscriber`` (which must wake:
        ``Wake.ON_DATA``), oldest first. The sample is the callback's: keep it (its chunk
        stays pinned, up to the topic's ``max_held``) or let it go."""

        def deliver(_event: Event) -> None:
            while (sample := subscriber.take()) is not None:
                self._messages += 1
                callback(sample)

        return self._add(self.waitset.attach_subscriber(subscriber), deliver)

    def input(self, subscriber: Subscriber) -> Input:
        """An :class:`Input` fed from ``subscriber``, read by your timers with
        :meth:`Input.latest` or :meth:`Input.take_all`. ``Wake.ON_DATA``: callback style,
        the executor wakes for every message; ``Wake.NEVER``: polling style, nothing wakes
        the thread and the timer's read takes from shared memory."""
        feed = Input(subscriber)
        if not feed.polling:

            def fill(_event: Event) -> None:
                self._messages += feed._fill()

            feed.key = self._add(self.waitset.attach_subscriber(subscriber), fill)
        return feed

    def commands(self, consumer: Consumer, callback: Callable[[Any], object]) -> int:
        """Calls ``callback(command)`` for every command of the queue (of a queue that
        wakes: not ``Wake.NEVER``), in order, as they come."""

        def drain(_event: Event) -> None:
            while (command := consumer.pop()) is not None:
                self._messages += 1
                callback(command)

        return self._add(self.waitset.attach_consumer(consumer), drain)

    def service(self, server: Server, handler: Callable[[Any], object]) -> int:
        """Answers the service's requests as they come: ``handler(request)`` returns the
        response (see :meth:`Server.serve_once`)."""

        def serve(_event: Event) -> None:
            self._messages += server.serve_once(handler, timeout=0)

        return self._add(self.waitset.attach_server(server), serve)

    def fd(
        self,
        fd: Union[int, _FileLike],
        callback: Callable[[Event], object],
        *,
        readable: bool = True,
        writable: bool = False,
    ) -> int:
        """Calls ``callback(event)`` while ``fd`` is ready (level-triggered: drain it)."""
        return self._add(self.waitset.attach_fd(fd, readable=readable, writable=writable), callback)

    def word(self, word: Word, expected: int, callback: Callable[[int], object]) -> int:
        """Calls ``callback(value)`` with the new value whenever ``word`` changes from
        ``expected`` (the value reported becomes the next ``expected``)."""

        def changed(event: Event) -> None:
            if event.value is not None:
                callback(event.value)

        return self._add(self.waitset.attach_word(word, expected), changed)

    def remove(self, key: int) -> None:
        """Removes a timer, subscription, input feed, queue, service, fd or word callback
        (unknown keys are ignored)."""
        self.waitset.detach(key)
        self._handlers.pop(key, None)

    def stop(self) -> None:
        """Asks the running ``spin``/``spin_async``/``spin_for`` to return once the current
        round of callbacks is done. Call it from a callback, or from a coroutine on the
        loop that runs ``spin_async``."""
        self._stopping = True
        if self._async_ready is not None and not self._async_ready.done():
            self._async_ready.set_result(None)

    def stats(self) -> ExecutorStats:
        """Wake-ups, timer calls and messages so far."""
        return ExecutorStats(self._wakeups, self._timer_calls, self._messages)

    def spin_once(self, timeout: Optional[float] = None) -> bool:
        """Waits at most ``timeout`` seconds (``None``: until something is ready) and runs
        the callbacks of whatever became ready. Returns whether a callback asked to stop.
        Releases the GIL while it waits; Ctrl-C raises ``KeyboardInterrupt``."""
        self._stopping = False
        self._dispatch(self.waitset.wait(timeout))
        return self._stopping

    def spin(self) -> None:
        """Runs until a callback calls :meth:`stop` (or raises)."""
        while not self.spin_once(None):
            pass

    def spin_for(self, seconds: float) -> None:
        """Runs for ``seconds`` (or until a callback stops it)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if self.spin_once(left):
                return

    async def spin_async(self) -> None:
        """Runs the callbacks inside the running asyncio loop until :meth:`stop` is called
        (by a callback or a coroutine): the wait set's fd is registered with the loop, so
        other coroutines run while nothing is ready."""
        loop = asyncio.get_running_loop()
        fd = self.waitset.fileno()
        self._stopping = False
        while not self._stopping:
            events = self.waitset.wait(0)  # collects what is ready and re-arms the fd
            if events:
                self._dispatch(events)
                await asyncio.sleep(0)  # a busy stream of events must not starve the loop
                continue
            self._async_ready = loop.create_future()
            loop.add_reader(fd, _resolve, self._async_ready)
            try:
                await self._async_ready
            finally:
                loop.remove_reader(fd)
                self._async_ready = None

    def close(self) -> None:
        """Detaches everything and closes the wait set (the subscribers, queues and servers
        stay open). Idempotent."""
        self._handlers.clear()
        self.waitset.close()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _add(self, key: int, handler: Callable[[Event], object]) -> int:
        self._handlers[key] = handler
        return key

    def _dispatch(self, events: List[Event]) -> None:
        if not events:
            return
        self._wakeups += 1
        for event in events:
            handler = self._handlers.get(event.key)
            if handler is not None:
                handler(event)
