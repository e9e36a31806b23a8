"""Foreign event loops sleeping on a WaitSet's fileno(): asyncio and a plain epoll loop,
under load from another process, lose nothing and never sit on a quiet fd while data
waits; a waiter on the fd shows as asleep; a wait set refuses other threads."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading

import pytest

import ringbus
import ringbus.aio

from conftest import MEASUREMENTS, finish, python_child, read_line

TOPICS = 200
RATE_HZ = 50
SECONDS = 6.0

# A subscriber child: every topic, through wait sets of 100 (one holds at most 128), all
# in one loop. A wait that times out (0.5 s; a message comes every 20 ms) after which a
# take finds a message is a stall: the fd stayed quiet while data waited. Topics are deep
# (64 = 1.3 s), so a slow but correct loop loses nothing. Prints one JSON line at the end.
SUBSCRIBER = """
import asyncio, json, select, sys, time
import ringbus, ringbus.aio

style, topics, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
node = ringbus.Node("loop-" + style)
subs = [node.topic(f"load/{i}", depth=64).subscriber() for i in range(topics)]
sets = []
for k in range(0, topics, 100):
    ws = ringbus.WaitSet()
    for s in subs[k:k + 100]:
        ws.attach_subscriber(s)
    sets.append(ws)
stats = {"taken": 0, "stalls": 0, "wakeups": 0}

def drain(events):
    for e in events:
        while e.source.take() is not None:
            stats["taken"] += 1

def after_timeout():
    found = 0
    for s in subs:
        while s.take() is not None:
            found += 1
    if found:
        stats["stalls"] += 1
        stats["taken"] += found

async def watch(ws, until):
    while time.monotonic() < until:
        events = await ringbus.aio.wait(ws, timeout=0.5)
        stats["wakeups"] += 1
        if events:
            drain(events)
        else:
            after_timeout()

async def main_asyncio(until):
    await asyncio.gather(*(watch(ws, until) for ws in sets))

def main_epoll(until):
    ep = select.epoll()
    by_fd = {ws.fileno(): ws for ws in sets}
    for fd in by_fd:
        ep.register(fd, select.EPOLLIN)
    while time.monotonic() < until:
        ready = ep.poll(0.5)
        stats["wakeups"] += 1
        if not ready:
            after_timeout()
        for fd, _ in ready:
            drain(by_fd[fd].wait(0))  # once per readiness, then back to epoll

print("ready", flush=True)
until = time.monotonic() + seconds + 2.0  # the publisher starts now and runs `seconds`
if style == "asyncio":
    asyncio.run(main_asyncio(until))
else:
    main_epoll(until)
for s in subs:
    while s.take() is not None:
        stats["taken"] += 1
stats["lost"] = sum(s.lost for s in subs)
print(json.dumps(stats), flush=True)
"""

PUBLISHER = """
import sys, time
import ringbus
topics, rate, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
with ringbus.Node("load-publisher") as node:
    pubs = [node.topic(f"load/{i}", depth=64).publisher() for i in range(topics)]
    payload = bytes(256)
    start, rounds = time.monotonic(), int(rate * seconds)
    for r in range(rounds):
        for p in pubs:
            p.publish_copy(payload)
        delay = start + (r + 1) / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    print(rounds * topics, flush=True)
"""


def test_asyncio_and_epoll_loops_take_every_message_under_load() -> None:
    """200 topics at 50 Hz (10 000 messages/s) for 6 s to two asyncio loops and one epoll
    loop in three processes, each over two wait sets."""
    styles = ["asyncio", "asyncio", "epoll"]
    loops = [python_child(SUBSCRIBER, style, str(TOPICS), str(SECONDS)) for style in styles]
    for child in loops:
        assert read_line(child) == "ready"
    publisher = python_child(PUBLISHER, str(TOPICS), str(RATE_HZ), str(SECONDS))
    rc, out, err = finish(publisher)
    assert rc == 0, err
    published = int(out.strip())
    results = [finish(child) for child in loops]  # all of them, before any assertion
    for style, (rc, out, err) in zip(styles, results):
        assert rc == 0, err
        stats = json.loads(out.strip().splitlines()[-1])
        MEASUREMENTS.append(f"{style} loop under {TOPICS} topics x {RATE_HZ} Hz: {stats}")
        assert stats["stalls"] == 0, f"{style}: waits timed out while messages waited: {stats}"
        assert stats["lost"] == 0, f"{style}: {stats}"
        assert stats["taken"] == published, f"{style}: {stats}, {published} published"


def test_a_subscriber_waiting_through_the_fd_shows_as_asleep(node: ringbus.Node, cli: str) -> None:
    pub = node.topic("aio/asleep").publisher()
    child = python_child(
        """
        import asyncio
        import ringbus, ringbus.aio

        async def main():
            with ringbus.Node("aio-sleeper") as node:
                sub = node.topic("aio/asleep").subscriber()
                assert sub.take() is None  # a new subscriber has looked once: no first "data"
                with ringbus.WaitSet() as ws:
                    ws.attach_subscriber(sub)
                    for _ in range(2):
                        # Printed once the wait below is parked on the fd.
                        asyncio.get_running_loop().call_soon(lambda: print("waiting", flush=True))
                        events = await ringbus.aio.wait(ws, timeout=60.0)
                        assert [e.kind for e in events] == ["data"], events
                        while sub.take() is not None:
                            pass

        asyncio.run(main())
        """
    )
    for _ in range(2):  # the first wait, and one after handling events
        assert read_line(child) == "waiting"
        shown = subprocess.run([cli, "info", "aio/asleep", "--json"], capture_output=True, text=True, check=True)
        subscribers = json.loads(shown.stdout)["subscribers"]
        assert [s["asleep"] for s in subscribers] == [True], subscribers
        assert pub.sleeping_subscribers() == 1
        pub.publish_copy(b"wake up")
    rc, _, err = finish(child)
    assert rc == 0, err


def test_a_wait_set_refuses_other_threads(node: ringbus.Node) -> None:
    latch = node.latch("threads/latch")
    ws = ringbus.WaitSet()
    ws.attach_latch(latch)
    errors: list = []

    def elsewhere() -> None:
        for call in (lambda: ws.wait(0), ws.fileno, lambda: ws.attach_interval(1.0), ws.close):
            try:
                call()
            except ringbus.Error as e:
                errors.append(str(e))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert len(errors) == 4, errors
    assert all("only by the thread that created it" in e for e in errors), errors
    latch.set()
    assert [e.kind for e in ws.wait(0)] == ["latch"], "the creating thread still uses it"
    ws.close()
    latch.unlink()
