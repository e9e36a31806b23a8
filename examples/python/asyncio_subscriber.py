"""asyncio_subscriber: await messages in an asyncio program without blocking its loop.
A publisher thread sends five readings 20 ms apart and a "bye"; a coroutine awaits them
(ringbus.aio.Receiver: a wait set whose fd the loop watches) while another coroutine keeps
beating every 5 ms, which it could not do if the loop were blocked.

    python examples/python/asyncio_subscriber.py

The publisher could as well be another process. Uses $RINGBUS_ROOT if set, else a
directory of its own under /dev/shm, removed at the end.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time

import ringbus
import ringbus.aio


def publisher(node: ringbus.Node) -> None:
    with node.topic("sensor/readings").publisher() as pub:
        for i in range(5):
            time.sleep(0.02)
            pub.publish_copy(f"reading {i}".encode())
        pub.publish_copy(b"bye")


async def beat(beats: list[float]) -> None:
    while True:
        await asyncio.sleep(0.005)
        beats.append(time.monotonic())


async def main(root: str) -> None:
    with ringbus.Node("listener", root) as node, node.topic("sensor/readings").subscriber() as sub:
        beats: list[float] = []
        heart = asyncio.create_task(beat(beats))
        thread = threading.Thread(target=publisher, args=(node,))
        thread.start()  # after subscribing: the subscriber gets every message
        awaited = 0
        with ringbus.aio.Receiver(sub) as receiver:
            while True:
                sample = await receiver.receive(timeout=10.0)  # the loop runs meanwhile
                text = bytes(sample).decode()
                sample.release()
                awaited += 1
                print(f"asyncio: {text} (the loop beat {len(beats)} times so far)")
                if text == "bye":
                    break
        heart.cancel()
        await asyncio.to_thread(thread.join)
        print(f"asyncio: awaited {awaited} messages; the loop beat {len(beats)} times meanwhile")


if __name__ == "__main__":
    own = not os.environ.get("RINGBUS_ROOT")
    root = f"/dev/shm/ringbus-example-{os.getpid()}" if own else os.environ["RINGBUS_ROOT"]
    try:
        asyncio.run(main(root))
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)
