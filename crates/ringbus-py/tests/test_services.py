"""Services: numpy requests and responses between processes, handler errors, timeouts, a
server that is gone, and type mismatches."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

import ringbus
import ringbus.aio
from conftest import finish, python_child, read_line

POINT = np.dtype([("x", "<f4"), ("y", "<f4")])


def serve_in_thread(server: ringbus.Server, handler: object, rounds: int) -> threading.Thread:
    def run() -> None:
        answered = 0
        while answered < rounds:
            answered += server.serve_once(handler, timeout=10.0)  # type: ignore[arg-type]

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_call_and_answer(node: ringbus.Node) -> None:
    with node.service("svc/scale", np.uint32, POINT, capacity=4) as server, node.client(
        "svc/scale", np.uint32, POINT
    ) as client:
        thread = serve_in_thread(server, lambda n: (n * 1.5, -float(n)), 3)
        answers = [client.call(n, timeout=10.0) for n in (1, 2, 4)]
        thread.join()
        assert [(a["x"], a["y"]) for a in answers] == [(1.5, -1.0), (3.0, -2.0), (6.0, -4.0)]
        assert server.serve_once(lambda n: (0, 0), timeout=0.01) == 0  # nothing asked: timeout


def test_a_raising_handler_answers_zeros_then_raises(node: ringbus.Node) -> None:
    with node.service("svc/raise", np.int32, np.int32) as server, node.client("svc/raise", np.int32, np.int32) as client:
        answer: list[object] = []
        caller = threading.Thread(target=lambda: answer.append(client.call(5, timeout=10.0)))
        caller.start()

        def handler(n: np.int32) -> int:
            raise KeyError(int(n))

        with pytest.raises(KeyError, match="5"):
            while not server.serve_once(handler, timeout=10.0):
                pass
        caller.join()
        assert answer == [0]


def test_timeout_and_server_gone(node: ringbus.Node) -> None:
    with node.client("svc/none", np.int32, np.int32) as client:
        with pytest.raises(ringbus.ServerGone):
            client.call(1, timeout=1.0)
        with node.service("svc/none", np.int32, np.int32):
            with pytest.raises(ringbus.Timeout):
                client.call(1, timeout=0.1)  # nobody serves
        with pytest.raises(ringbus.ServerGone):
            client.call(1, timeout=1.0)


def test_type_mismatch(node: ringbus.Node) -> None:
    with node.service("svc/typed", np.int32, np.int32):
        with pytest.raises(ringbus.Mismatch):
            node.client("svc/typed", np.int64, np.int32)
        with pytest.raises(ringbus.Mismatch):
            node.client("svc/typed", np.int32, np.int32, response_type_name="other")
        with pytest.raises(ringbus.LimitReached):
            node.service("svc/typed", np.int32, np.int32)  # one server at a time


def test_between_python_processes(node: ringbus.Node) -> None:
    child = python_child(
        """
        import numpy as np, ringbus
        with ringbus.Node("child") as node, node.service("svc/cross", np.float64, np.float64) as server:
            print("ready", flush=True)
            served = 0
            while served < 10:
                served += server.serve_once(lambda x: x * x, timeout=30.0)
        """
    )
    assert read_line(child) == "ready"
    with node.client("svc/cross", np.float64, np.float64) as client:
        assert [client.call(float(i), timeout=10.0) for i in range(10)] == [float(i * i) for i in range(10)]
    rc, _, err = finish(child)
    assert rc == 0, err


def test_asyncio_call(node: ringbus.Node) -> None:
    with node.service("svc/async", np.int32, np.int32) as server, node.client("svc/async", np.int32, np.int32) as client:
        thread = serve_in_thread(server, lambda n: n + 1, 1)
        assert asyncio.run(ringbus.aio.call(client, 41, 10.0)) == 42
        thread.join()
