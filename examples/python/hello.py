"""hello: publish/subscribe between two processes. The publisher writes each message in
place in shared memory; the subscriber sleeps in receive() and reads it where it lies.

    python examples/python/hello.py                 # both: starts the subscriber itself
    python examples/python/hello.py --subscriber    # or, in one terminal,
    python examples/python/hello.py --publisher     # and in another

Options: --count N messages (default 5). Run alone, the example uses a root of its own
($RINGBUS_ROOT if set, else a directory under /dev/shm that it removes at the end); the two
roles started by hand meet in the default root ($RINGBUS_ROOT, else /dev/shm/ringbus-<uid>).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from typing import Optional

import ringbus


def say(line: str) -> None:
    """Prints `line` in one write: both processes print to the same output, and a line
    written in pieces could be cut by the other's."""
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), (line + "\n").encode())


def topic(node: ringbus.Node) -> ringbus.Topic:
    # Both sides describe the topic alike: two different values are an error (Mismatch).
    return node.topic("hello", max_payload_bytes=256)


def subscribe(root: Optional[str]) -> None:
    with ringbus.Node("hello-subscriber", root) as node, topic(node).subscriber() as sub:
        say("subscriber: listening on topic hello")
        while True:
            with sub.receive(timeout=10.0) as sample:  # sleeps (GIL released) until a message comes
                text = bytes(sample).decode()
            say(f"subscriber: {text}")
            if text == "bye":
                break
        say(f"subscriber: received {sub.taken}, lost {sub.lost}")


def publish(root: Optional[str], count: int) -> None:
    with ringbus.Node("hello-publisher", root) as node, topic(node).publisher() as pub:
        # A topic keeps no past messages by default: wait until a subscriber is asleep in
        # receive(), so that it gets every message.
        deadline = time.monotonic() + 10.0
        while pub.sleeping_subscribers() == 0:
            if time.monotonic() > deadline:
                sys.exit("no subscriber came within 10 s: start --subscriber first")
            time.sleep(0.005)
        for i in range(count):
            data = f"hello {i}".encode()
            with pub.loan(len(data)) as loan:  # a chunk of shared memory, published at the end
                with memoryview(loan) as chunk:
                    chunk[:] = data  # written in place
            time.sleep(0.01)
        pub.publish_copy(b"bye")  # small messages can also be copied in
        stats = pub.stats()
        say(f"publisher: published {stats['publishes']} messages; "
            f"{stats['wake_syscalls']} woke a sleeping subscriber")


def both(count: int) -> None:
    """Runs the subscriber as a second process (this script, --subscriber) and publishes."""
    own = not os.environ.get("RINGBUS_ROOT")
    root = f"/dev/shm/ringbus-example-{os.getpid()}" if own else os.environ["RINGBUS_ROOT"]
    try:
        subscriber = subprocess.Popen([sys.executable, __file__, "--subscriber"],
                                      env={**os.environ, "RINGBUS_ROOT": root})
        try:
            publish(root, count)
        finally:
            if subscriber.wait(timeout=30) != 0:
                sys.exit(f"the subscriber failed ({subscriber.returncode})")
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    role = parser.add_mutually_exclusive_group()
    role.add_argument("--publisher", action="store_true", help="only publish (in the default root)")
    role.add_argument("--subscriber", action="store_true", help="only subscribe (in the default root)")
    parser.add_argument("--count", type=int, default=5, help="messages to publish before 'bye'")
    args = parser.parse_args()
    if args.subscriber:
        subscribe(None)
    elif args.publisher:
        publish(None, args.count)
    else:
        both(args.count)


if __name__ == "__main__":
    main()
