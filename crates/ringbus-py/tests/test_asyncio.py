"""asyncio: awaiting samples and wait-set events through WaitSet.fileno()."""

from __future__ import annotations

import asyncio

import pytest

import ringbus
import ringbus.aio


def test_await_samples_published_by_another_task(node: ringbus.Node) -> None:
    pub = node.topic("aio/chatter").publisher()
    sub = node.topic("aio/chatter").subscriber()

    async def publish_later() -> None:
        for i in range(5):
            await asyncio.sleep(0.01)
            pub.publish_copy(bytes([i]))

    async def main() -> list:
        task = asyncio.ensure_future(publish_later())
        first = await ringbus.aio.receive(sub, timeout=30.0)
        got = [first.tobytes()[0]]
        async for sample in ringbus.aio.samples(sub):
            got.append(sample.tobytes()[0])
            if len(got) == 5:
                break
        await task
        return got

    assert asyncio.run(main()) == [0, 1, 2, 3, 4]


def test_await_a_sample_from_another_thread_and_time_out(node: ringbus.Node) -> None:
    pub = node.topic("aio/thread").publisher()
    sub = node.topic("aio/thread").subscriber()

    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        with ringbus.aio.Receiver(sub) as receiver:
            with pytest.raises(ringbus.Timeout):
                await receiver.receive(timeout=0.02)
            loop.call_later(0.02, lambda: loop.run_in_executor(None, pub.publish_copy, b"threaded"))
            return (await receiver.receive(timeout=30.0)).tobytes()

    assert asyncio.run(main()) == b"threaded"


def test_add_reader_on_a_wait_set(node: ringbus.Node) -> None:
    latch = node.latch("aio/latch")

    async def main() -> list:
        with ringbus.WaitSet() as ws:
            ws.attach_latch(latch)
            assert await ringbus.aio.wait(ws, timeout=0.02) == []
            asyncio.get_running_loop().call_later(0.02, latch.set)
            events = await ringbus.aio.wait(ws, timeout=30.0)
            return [e.kind for e in events]

    assert asyncio.run(main()) == ["latch"]
    latch.unlink()
