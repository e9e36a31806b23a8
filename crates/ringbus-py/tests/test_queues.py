"""Command queues: numpy values of one dtype between threads and processes, the full,
empty and timeout paths, type mismatches, and a Rust program consuming Python's commands."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import ringbus
import ringbus.aio
from conftest import CHILD_TIMEOUT_S, finish, python_child, read_line

MOVE = np.dtype([("dx", "<f4"), ("dy", "<f4")], align=True)


def test_push_and_pop_values_of_the_dtype(node: ringbus.Node) -> None:
    queue = node.queue("q/values", MOVE, capacity=4)
    assert queue.type_name == "numpy:[('dx', '<f4'), ('dy', '<f4')]"
    with queue.consumer() as consumer, queue.producer() as producer:
        assert consumer.pop() is None and len(consumer.pop_batch(8)) == 0
        assert producer.push((1.0, 0.5))
        assert producer.push(np.array([(2.0, 1.0)], dtype=MOVE))
        assert producer.push(np.zeros((), dtype=MOVE)[()])
        assert producer.push(np.array((4.0, 2.0), dtype=MOVE).tobytes())
        assert not producer.push((5.0, 2.5))  # full: capacity 4
        first = consumer.pop()
        assert first is not None and first.dtype == MOVE and (first["dx"], first["dy"]) == (1.0, 0.5)
        rest = consumer.pop_batch(8)
        assert rest.dtype == MOVE and rest["dx"].tolist() == [2.0, 0.0, 4.0]
        assert producer.push_batch(np.ones(6, dtype=MOVE)) == 4
        assert producer.consumer_alive() and consumer.abandoned == 0
        consumer.unlink()


def test_wrong_values_are_refused(node: ringbus.Node) -> None:
    queue = node.queue("q/wrong", np.uint32)
    with queue.consumer() as consumer, queue.producer() as producer:
        with pytest.raises(ringbus.InvalidArgument):
            producer.push(b"123")  # 3 bytes, not 4
        with pytest.raises(ringbus.InvalidArgument):
            producer.push(np.float64(1.0))  # another dtype
        with pytest.raises(ringbus.InvalidArgument):
            producer.push([1, 2])  # two commands
        assert producer.push(7)
        assert consumer.pop() == 7
        consumer.unlink()


def test_waits_time_out_and_wake(node: ringbus.Node) -> None:
    queue = node.queue("q/wait", np.uint64, capacity=2)
    with queue.consumer() as consumer, queue.producer() as producer:
        start = time.monotonic()
        assert not consumer.wait(0.05)
        assert producer.push(1) and producer.push(2)
        assert not producer.push(3, timeout=0.05)  # full for the whole timeout
        assert time.monotonic() - start >= 0.1
        # Room comes while the producer waits (GIL released: the other thread runs).
        popper = threading.Timer(0.05, consumer.pop)
        popper.start()
        assert producer.push(3, timeout=5.0)
        popper.join()
        assert consumer.wait(0) and consumer.pop_batch(4).tolist() == [2, 3]
        consumer.unlink()


def test_type_mismatch(node: ringbus.Node) -> None:
    queue = node.queue("q/typed", np.uint32, type_name="counter")
    with queue.consumer() as consumer:
        with pytest.raises(ringbus.Mismatch):
            node.queue("q/typed", np.uint64, type_name="counter").producer()
        with pytest.raises(ringbus.Mismatch):
            node.queue("q/typed", np.uint32).producer()  # another name
        with pytest.raises(ringbus.LimitReached):
            queue.consumer()  # one consumer
        consumer.unlink()


def test_between_python_processes(node: ringbus.Node) -> None:
    count = 500
    consumer = node.queue("q/cross", MOVE, capacity=16, mpsc=True).consumer()
    child = python_child(
        """
        import numpy as np, ringbus, sys
        move = np.dtype([("dx", "<f4"), ("dy", "<f4")], align=True)
        with ringbus.Node("child") as node, node.queue("q/cross", move).producer() as producer:
            print("ready", flush=True)
            for i in range(int(sys.argv[1])):
                assert producer.push((i, -i), timeout=30.0)
        """,
        str(count),
    )
    assert read_line(child) == "ready"
    got: list[float] = []
    while len(got) < count:
        assert consumer.wait(10.0)
        got.extend(consumer.pop_batch(8)["dx"].tolist())
    rc, _, err = finish(child)
    assert rc == 0, err
    assert got == [float(i) for i in range(count)]
    consumer.unlink()
    consumer.close()


def test_asyncio_waits_for_commands(node: ringbus.Node) -> None:
    queue = node.queue("q/async", np.int32)
    with queue.consumer() as consumer, queue.producer() as producer:

        async def main() -> bool:
            assert not await ringbus.aio.wait_commands(consumer, 0.02)
            asyncio.get_running_loop().call_later(0.02, producer.push, 5)
            return await ringbus.aio.wait_commands(consumer, 5.0)

        assert asyncio.run(main())
        assert consumer.pop() == 5
        consumer.unlink()


def test_python_commands_to_a_rust_controller_and_its_answer(node: ringbus.Node, command_queue: str, root: Path) -> None:
    """Python pushes the example's `Move` commands to its Rust controller, then asks the
    controller's service where the robot is: both directions, with Rust's type names."""
    moves = 200
    controller = subprocess.Popen(
        [command_queue, "--controller", str(moves)],
        env={**os.environ, "RINGBUS_ROOT": str(root)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert read_line(controller) == "ready"
    with node.queue("robot/moves", MOVE, type_name="command_queue::Move").producer() as producer:
        for i in range(moves):
            assert producer.push((1.0, 0.5), timeout=10.0), f"move {i}"
    position = np.dtype([("x", "<f4"), ("y", "<f4")])
    with node.client(
        "robot/position", np.uint32, position, request_type_name="u32", response_type_name="[f32; 2]"
    ) as client:
        answer = client.call(0, timeout=CHILD_TIMEOUT_S)
    assert (answer["x"], answer["y"]) == (moves, moves * 0.5)
    rc, out, err = finish(controller)
    assert rc == 0, err
    assert f"applied {moves} moves" in out
