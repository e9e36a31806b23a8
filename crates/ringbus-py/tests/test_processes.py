"""Across processes: the Rust `ringbus` command publishing to Python and subscribing to
Python, and two Python processes exchanging numpy arrays."""

from __future__ import annotations

import json
import subprocess

import numpy as np

import ringbus
from conftest import CHILD_TIMEOUT_S, python_child, read_line, run_python, finish


def test_rust_publisher_to_python_subscriber(node: ringbus.Node, cli: str) -> None:
    count = 50
    sub = node.topic("cross/rust-to-py", depth=64).subscriber()  # room for the whole burst
    subprocess.run(
        [cli, "pub", "cross/rust-to-py", "from rust", "--count", str(count), "--wait-subscribers", "1"],
        check=True,
        timeout=CHILD_TIMEOUT_S,
        capture_output=True,
    )
    received = []
    for _ in range(count):
        with sub.receive(timeout=10.0) as sample:
            received.append((sample.position, bytes(sample)))
    assert received == [(i, b"from rust") for i in range(count)]
    assert sub.take() is None and sub.lost == 0


def test_python_publisher_to_rust_subscriber(node: ringbus.Node, cli: str) -> None:
    count = 10
    # Late joiners receive up to `history` past messages: the command gets all of them.
    pub = node.topic("cross/py-to-rust", depth=16, history=count).publisher()
    for i in range(count):
        pub.publish_copy(f"from python {i}".encode())
    echo = subprocess.run(
        [cli, "echo", "cross/py-to-rust", "--json", "--count", str(count)],
        check=True,
        timeout=CHILD_TIMEOUT_S,
        capture_output=True,
        text=True,
    )
    lines = [json.loads(line) for line in echo.stdout.splitlines()]
    assert [m["text"] for m in lines] == [f"from python {i}" for i in range(count)]
    assert [m["position"] for m in lines] == list(range(count))


def test_numpy_arrays_between_python_processes(node: ringbus.Node) -> None:
    sub = node.topic("cross/arrays", max_payload_bytes=8 * 1024, depth=64).subscriber()
    run_python(
        """
        import numpy as np, ringbus
        with ringbus.Node("child") as node:
            pub = node.topic("cross/arrays").publisher()
            for i in range(20):
                with pub.loan(8 * 1024) as loan:
                    np.frombuffer(loan, dtype=np.float64)[:] = i
            # Stay until the parent has read everything (the topic outlives us anyway).
        """
    )
    for i in range(20):
        sample = sub.receive(timeout=10.0)
        array = np.frombuffer(sample, dtype=np.float64)
        assert array.shape == (1024,) and (array == i).all()
        assert array.ctypes.data == sample.address


def test_a_python_receiver_in_another_process(node: ringbus.Node) -> None:
    child = python_child(
        """
        import ringbus
        with ringbus.Node("child") as node:
            sub = node.topic("cross/wake").subscriber()
            print("ready", flush=True)
            print(sub.receive(timeout=30.0).tobytes().decode(), flush=True)
        """
    )
    pub = node.topic("cross/wake").publisher()
    assert read_line(child) == "ready"
    pub.publish_copy(b"across")
    rc, out, err = finish(child)
    assert rc == 0, err
    assert out.strip() == "across"
