"""The executor: timers, per-message callbacks, inputs in both styles (the same timer code),
queue commands and service requests, fds and words, stop, Ctrl-C, asyncio — and a Rust
planner driving a Python controller through a queue and a service."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path
from typing import List

import numpy as np
import pytest

import ringbus
from conftest import CHILD_TIMEOUT_S, finish, python_child, read_line
from test_queues import MOVE


def test_timer_and_subscription_callbacks(node: ringbus.Node) -> None:
    pub = node.topic("ex/chatter").publisher()
    seen: List[bytes] = []
    ticks = []
    with ringbus.Executor() as executor:
        executor.subscription(node.topic("ex/chatter").subscriber(), lambda s: seen.append(bytes(s)))

        def tick() -> None:
            ticks.append(1)
            if len(ticks) == 3:
                executor.stop()

        executor.timer(0.01, tick)
        for i in range(5):
            pub.publish_copy(b"m%d" % i)
        executor.spin()
        stats = executor.stats()
    assert seen == [b"m%d" % i for i in range(5)]
    assert (stats.messages, stats.timer_calls) == (5, 3)
    assert stats.wakeups >= 3


@pytest.mark.parametrize("wake", [ringbus.Wake.ON_DATA, ringbus.Wake.NEVER])
def test_inputs_read_the_same_way_in_both_styles(node: ringbus.Node, wake: ringbus.Wake) -> None:
    pub = node.topic("ex/scan", depth=16, max_held=8).publisher()
    with ringbus.Executor() as executor:
        scans = executor.input(node.topic("ex/scan", wake=wake).subscriber())
        assert scans.polling == (wake == ringbus.Wake.NEVER)
        assert scans.latest() is None and list(scans.take_all()) == []
        for i in range(5):
            pub.publish_copy(bytes([i]))
        executor.spin_once(0)  # the callback style queues them here; polling: nothing to do
        drained = scans.take_all()
        assert [bytes(s) for s in drained] == [bytes([i]) for i in range(5)]
        assert (drained.taken, drained.lost) == (5, 0)
        latest = scans.latest()
        assert latest is not None and bytes(latest) == b"\x04"  # the newest, again
        pub.publish_copy(b"\x05")
        pub.publish_copy(b"\x06")
        executor.spin_once(0)
        latest = scans.latest()
        assert latest is not None and bytes(latest) == b"\x06"  # older ones skipped
        assert list(scans.take_all()) == []
        expected = 7 if wake == ringbus.Wake.ON_DATA else 0
        assert executor.stats().messages == expected  # polling: nothing woke for them
        assert (scans.key is None) == scans.polling
        if scans.key is not None:
            executor.remove(scans.key)  # the executor stops feeding it
            pub.publish_copy(b"\x07")
            executor.spin_once(0)
            assert executor.stats().messages == expected


@pytest.mark.parametrize("wake", [ringbus.Wake.ON_DATA, ringbus.Wake.NEVER])
def test_inputs_count_what_they_lost(node: ringbus.Node, wake: ringbus.Wake) -> None:
    """More messages between two reads than the input can keep: the newest are read, in
    order, and the rest are counted as lost."""
    pub = node.topic("ex/fast", depth=8, max_held=4).publisher()
    with ringbus.Executor() as executor:
        fast = executor.input(node.topic("ex/fast", wake=wake).subscriber())
        for i in range(20):
            pub.publish_copy(bytes([i]))
            if wake == ringbus.Wake.ON_DATA:
                executor.spin_once(0)  # the executor wakes for each message
        drained = fast.take_all()
        got = [bytes(s)[0] for s in drained]  # each sample dropped as the next is taken
        assert got == list(range(20 - len(got), 20)), got
        assert drained.lost == 20 - len(got) > 0
        # Polling reads straight from the topic: what its depth keeps.
        assert len(got) == (8 if wake == ringbus.Wake.NEVER else 4)


def test_queue_commands_and_service_requests(node: ringbus.Node) -> None:
    applied: List[float] = []
    with node.queue("ex/moves", MOVE, capacity=8).consumer() as consumer, node.service(
        "ex/where", np.uint32, np.float32
    ) as server, ringbus.Executor() as executor:
        executor.commands(consumer, lambda m: applied.append(float(m["dx"])))
        executor.service(server, lambda _request: sum(applied))
        with node.queue("ex/moves", MOVE).producer() as producer:
            for i in range(4):
                assert producer.push((float(i), 0.0))
        executor.spin_once(1.0)
        assert applied == [0.0, 1.0, 2.0, 3.0]
        child = python_child(
            """
            import numpy as np, ringbus
            with ringbus.Node("asker") as node, node.client("ex/where", np.uint32, np.float32) as client:
                print(float(client.call(0, timeout=30.0)), flush=True)
            """
        )
        while child.poll() is None:
            executor.spin_once(0.1)
        rc, out, err = finish(child)
        assert rc == 0, err
        assert out.strip() == "6.0"
        assert executor.stats().messages == 5
        consumer.unlink()


def test_fd_and_word_callbacks(node: ringbus.Node) -> None:
    read_end, write_end = os.pipe()
    memory = bytearray(4)
    word = ringbus.Word(memory)
    got: List[object] = []
    try:
        with ringbus.Executor() as executor:
            key = executor.fd(read_end, lambda _e: got.append(os.read(read_end, 16)))
            executor.word(word, 0, got.append)
            os.write(write_end, b"ping")
            word.store(7)
            word.wake()
            while len(got) < 2:
                assert executor.spin_once(CHILD_TIMEOUT_S) is False
            assert sorted(map(repr, got)) == sorted([repr(b"ping"), repr(7)])
            executor.remove(key)
            os.write(write_end, b"unheard")
            executor.spin_once(0.05)
            assert len(got) == 2
        word.close()
    finally:
        os.close(read_end)
        os.close(write_end)


def test_spin_for_returns_and_nothing_to_wait_for_is_an_error() -> None:
    with ringbus.Executor() as executor:
        with pytest.raises(ringbus.InvalidArgument):
            executor.spin_once(None)  # nothing attached: it would sleep forever
        executor.timer(0.005, lambda: None)
        executor.spin_for(0.05)
        assert executor.stats().timer_calls >= 1


def test_ctrl_c_stops_spin() -> None:
    child = python_child(
        """
        import ringbus
        executor = ringbus.Executor()
        executor.timer(3600.0, lambda: None)
        try:
            print("spinning", flush=True)
            executor.spin()
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        """
    )
    assert read_line(child) == "spinning"
    child.send_signal(signal.SIGINT)
    rc, out, err = finish(child)
    assert (rc, out.strip()) == (0, "interrupted"), err


def test_spin_async_mixes_with_other_coroutines(node: ringbus.Node) -> None:
    pub = node.topic("ex/async").publisher()
    seen: List[bytes] = []

    async def main() -> int:
        with ringbus.Executor() as executor:
            executor.subscription(node.topic("ex/async").subscriber(), lambda s: seen.append(bytes(s)))
            spinning = asyncio.create_task(executor.spin_async())
            for i in range(10):
                pub.publish_copy(b"%d" % i)
                await asyncio.sleep(0.001)  # the loop runs other coroutines meanwhile
            while len(seen) < 10:
                await asyncio.sleep(0.001)
            executor.stop()  # from a coroutine: spin_async returns
            await asyncio.wait_for(spinning, CHILD_TIMEOUT_S)
            return executor.stats().messages

    assert asyncio.run(main()) == 10
    assert seen == [b"%d" % i for i in range(10)]


def test_a_rust_planner_drives_a_python_controller(node: ringbus.Node, command_queue: str, root: Path) -> None:
    """The other direction of the queue and service tests: the Rust example pushes its
    `Move` commands and calls the position service; a Python executor answers."""
    moves = 200
    position = np.zeros(2, dtype=np.float32)
    answer = np.dtype([("x", "<f4"), ("y", "<f4")])

    def apply(move: np.void) -> None:
        position[0] += move["dx"]
        position[1] += move["dy"]

    with node.queue("robot/moves", MOVE, capacity=16, type_name="command_queue::Move").consumer() as consumer, node.service(
        "robot/position", np.uint32, answer, capacity=4, request_type_name="u32", response_type_name="[f32; 2]"
    ) as server, ringbus.Executor() as executor:
        executor.commands(consumer, apply)
        executor.service(server, lambda _request: (position[0], position[1]))
        planner = subprocess.Popen(
            [command_queue, "--planner", str(moves)],
            env={**os.environ, "RINGBUS_ROOT": str(root)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        while planner.poll() is None:
            executor.spin_once(0.1)
        rc, out, err = finish(planner)
        consumer.unlink()
    assert rc == 0, err
    assert f"robot is at ({moves}, {moves * 0.5:g})" in out, out
    assert executor.stats().messages == moves + 1
