"""wait_set: one wait over several sources. A thermostat sleeps until a temperature
reading comes, its 50 ms timer is due, or its shutdown latch is set, whichever is first.
A sensor thread publishes ten readings (a float each, 20 ms apart), then sets the latch.

    python examples/python/wait_set.py

The sensor could as well be another process: the topic and the latch are shared memory
named under the root. Uses $RINGBUS_ROOT if set, else a directory of its own under
/dev/shm, removed at the end.
"""

from __future__ import annotations

import os
import shutil
import struct
import threading
import time

import ringbus

READINGS = 10


def sensor(node: ringbus.Node) -> None:
    with node.topic("sensor/temperature").publisher() as pub:
        for i in range(READINGS):
            pub.publish_copy(struct.pack("=f", 20.0 + 0.25 * i))
            time.sleep(0.02)
    # Latches are named objects: another process would open it the same way.
    with node.latch("thermostat/shutdown") as shutdown:
        shutdown.set()  # wakes the waiter (one system call), or none if it is not asleep


def run(root: str) -> None:
    with ringbus.Node("thermostat", root) as node, \
            node.topic("sensor/temperature").subscriber() as sub, \
            node.latch("thermostat/shutdown") as shutdown, \
            ringbus.WaitSet() as waitset:
        shutdown.reset()  # a latch outlives its users: start from "not set"
        on_reading = waitset.attach_subscriber(sub)
        on_tick = waitset.attach_interval(0.05)
        on_shutdown = waitset.attach_latch(shutdown)
        readings: list[float] = []
        ticks = 0

        def take_all() -> None:
            while (sample := sub.take()) is not None:
                with sample:
                    (celsius,) = struct.unpack("=f", sample)  # read in place
                print(f"thermostat: reading {celsius:.2f} °C")
                readings.append(celsius)

        thread = threading.Thread(target=sensor, args=(node,))
        thread.start()
        stopping = False
        while not stopping:
            events = waitset.wait(timeout=10.0)  # one sleep over all three
            if not events:
                raise SystemExit("nothing happened for 10 s")
            for event in events:
                if event.key == on_reading:
                    take_all()
                elif event.key == on_tick:
                    ticks += 1
                elif event.key == on_shutdown:
                    take_all()  # what came before the latch was set
                    stopping = True
        thread.join()
        mean = sum(readings) / len(readings)
        print(f"thermostat: shutdown after {len(readings)} readings (mean {mean:.2f} °C) "
              f"and {ticks} timer ticks; backend {waitset.backend}")
        shutdown.unlink()  # named objects persist until unlinked; topics go with their last user


if __name__ == "__main__":
    own = not os.environ.get("RINGBUS_ROOT")
    root = f"/dev/shm/ringbus-example-{os.getpid()}" if own else os.environ["RINGBUS_ROOT"]
    try:
        run(root)
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)
