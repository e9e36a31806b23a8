"""polling_node: a node whose 10 Hz timer reads three topics (10, 30 and 50 Hz) with a
ringbus.Executor, in the polling style (the timer reads the topics; nothing else wakes the
process) or the callback style (the executor wakes for every message). The timer's code is
the same; the inputs' wake mode is the one line that differs.

    python examples/python/polling_node.py                      # polling, 2 s
    python examples/python/polling_node.py --style callback     # per-message wake-ups
    python examples/python/polling_node.py --seconds 10

The three topics are published by a second process (this script again, --feeder). Run
alone, the example uses a root of its own ($RINGBUS_ROOT if set, else a directory under
/dev/shm that it removes at the end).
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
import time

import ringbus

RATES_HZ = {"odometry": 10, "imu": 30, "lidar": 50}
STYLES = {"polling": ringbus.Wake.NEVER, "callback": ringbus.Wake.ON_DATA}


def say(line: str) -> None:
    """Prints `line` in one write (two processes share the output)."""
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), (line + "\n").encode())


def topic(node: ringbus.Node, name: str, wake: ringbus.Wake = ringbus.Wake.ON_DATA) -> ringbus.Topic:
    # depth 16: a topic keeps the last 16 messages, more than a 10 Hz timer lets pile up.
    return node.topic(f"robot/{name}", max_payload_bytes=64, depth=16, max_held=16, wake=wake)


def feed(seconds: float) -> None:
    """The other process: publishes each topic at its rate for `seconds`."""
    with ringbus.Node("feeder") as node, ringbus.Executor() as executor:
        for name, rate in RATES_HZ.items():
            publisher = topic(node, name).publisher()
            executor.timer(1.0 / rate, functools.partial(publisher.publish_copy, name.encode()))
        say("feeder: publishing")
        executor.spin_for(seconds)


def run_node(style: str, seconds: float) -> None:
    with ringbus.Node("planner") as node, ringbus.Executor() as executor:
        inputs = {name: executor.input(topic(node, name, STYLES[style]).subscriber()) for name in RATES_HZ}
        read = dict.fromkeys(RATES_HZ, 0)
        lost = 0

        def tick() -> None:  # 10 Hz: everything that came since the last tick, oldest first
            nonlocal lost
            for name, source in inputs.items():
                drained = source.take_all()
                read[name] += sum(1 for _ in drained)
                lost += drained.lost

        executor.timer(0.1, tick)
        start = time.process_time()
        executor.spin_for(seconds)
        cpu_ms = (time.process_time() - start) * 1000
        stats = executor.stats()
    counts = ", ".join(f"{name} {n}" for name, n in read.items())
    say(f"{style} node: {stats.timer_calls} ticks read {counts} (lost {lost}); "
        f"{stats.wakeups / seconds:.1f} wake-ups/s, {cpu_ms / seconds:.2f} ms of CPU per second")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--style", choices=list(STYLES), default="polling")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--feeder", action="store_true", help="(internal) publish the three topics")
    args = parser.parse_args()
    if args.feeder:
        feed(args.seconds)
        return
    own = not os.environ.get("RINGBUS_ROOT")
    root = f"/dev/shm/ringbus-example-{os.getpid()}" if own else os.environ["RINGBUS_ROOT"]
    env = {**os.environ, "RINGBUS_ROOT": root}
    os.environ["RINGBUS_ROOT"] = root
    try:
        # The feeder runs a little longer than the node measures.
        feeder = subprocess.Popen([sys.executable, __file__, "--feeder", "--seconds", str(args.seconds + 1.0)], env=env)
        try:
            time.sleep(0.2)  # its first messages are out
            run_node(args.style, args.seconds)
        finally:
            if feeder.wait(timeout=60) != 0:
                sys.exit(f"the feeder failed ({feeder.returncode})")
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
