"""A service round trip between two Python processes: a 64-byte request answered with a
64-byte response, ringbus (``Node.service`` / ``Node.client``) against pyzmq's REQ/REP
over ``ipc://``, in one run.

Each server is a process of its own that echoes the request; the benchmark's process is
the client and times each call from before it sends to after it holds the response
(``time.perf_counter_ns``). Calls go one at a time; the two transports alternate in
blocks, in random order, so a noisy machine slows both alike.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import random
import shutil
import tempfile
import time
from typing import Any, Dict, List

import numpy as np

import ringbus

MESSAGE = np.dtype([("data", "u1", (64,))])
SERVICE = "bench/echo"
STOP = 1  # first byte of the request that ends a server


def ringbus_server(workdir: str, control: multiprocessing.connection.Connection) -> None:
    stopping = []

    def echo(request: Any) -> Any:
        if request["data"][0] == STOP:
            stopping.append(True)
        return request

    with ringbus.Node("bench-server", root=os.path.join(workdir, "root")) as node, node.service(
        SERVICE, MESSAGE, MESSAGE, capacity=8
    ) as server:
        control.send("ready")
        while not stopping:
            server.serve_once(echo, timeout=None)


def zmq_server(workdir: str, control: multiprocessing.connection.Connection) -> None:
    import zmq

    context = zmq.Context()
    socket = context.socket(zmq.REP)
    socket.bind(f"ipc://{workdir}/echo.sock")
    control.send("ready")
    while True:
        request = socket.recv()
        socket.send(request)
        if request[0] == STOP:
            break
    socket.close(linger=0)
    context.term()


class Ringbus:
    name = "ringbus"

    def __init__(self, workdir: str) -> None:
        self.node = ringbus.Node("bench-client", root=os.path.join(workdir, "root"))
        self.client = self.node.client(SERVICE, MESSAGE, MESSAGE)
        self.request = np.zeros((), MESSAGE)

    def call(self, first: int) -> None:
        self.request["data"][0] = first
        answer = self.client.call(self.request, timeout=10.0)
        assert answer["data"][0] == first

    def close(self) -> None:
        self.client.close()
        self.node.close()


class Zmq:
    name = "pyzmq REQ/REP ipc://"

    def __init__(self, workdir: str) -> None:
        import zmq

        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.REQ)
        self.socket.connect(f"ipc://{workdir}/echo.sock")
        self.request = bytearray(64)

    def call(self, first: int) -> None:
        self.request[0] = first
        self.socket.send(self.request)
        assert self.socket.recv()[0] == first

    def close(self) -> None:
        self.socket.close(linger=0)
        self.context.term()


SERVERS = {Ringbus.name: ringbus_server, Zmq.name: zmq_server}


def transports() -> List[Any]:
    try:
        import zmq  # noqa: F401
    except ImportError:
        print("pyzmq is not installed: measuring ringbus alone (pip install pyzmq)")
        return [Ringbus]
    return [Ringbus, Zmq]


def run(rounds: int, batch: int, warmup: int) -> Dict[str, List[int]]:
    """Per transport, the round-trip times (ns) of every timed call."""
    ctx = multiprocessing.get_context("spawn")
    workdir = tempfile.mkdtemp(dir="/dev/shm", prefix="ringbus-bench-py-")
    os.mkdir(os.path.join(workdir, "root"))
    clients, servers = [], []
    try:
        for kind in transports():
            mine, theirs = ctx.Pipe()
            process = ctx.Process(target=SERVERS[kind.name], args=(workdir, theirs), daemon=True)
            process.start()
            servers.append(process)
            if not mine.poll(60) or mine.recv() != "ready":
                raise RuntimeError(f"the {kind.name} server did not start")
            clients.append(kind(workdir))
        for client in clients:
            for _ in range(warmup):
                client.call(0)
        times: Dict[str, List[int]] = {c.name: [] for c in clients}
        for _ in range(rounds):
            random.shuffle(clients)
            for client in clients:
                for _ in range(batch):
                    t0 = time.perf_counter_ns()
                    client.call(0)
                    times[client.name].append(time.perf_counter_ns() - t0)
        for client in clients:
            client.call(STOP)
        return times
    finally:
        for client in clients:
            client.close()
        for process in servers:
            process.join(10)
            if process.is_alive():
                process.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def rows(times: Dict[str, List[int]]) -> List[Dict[str, Any]]:
    out = []
    for name, ns in times.items():
        us = np.array(ns) / 1000.0
        out.append(
            {
                "transport": name,
                "round_trip_p50_us": round(float(np.percentile(us, 50)), 2),
                "round_trip_p99_us": round(float(np.percentile(us, 99)), 2),
                "calls": int(us.size),
            }
        )
    return out


def markdown(table: List[Dict[str, Any]]) -> str:
    lines = [
        "service round trip: 64-byte request, 64-byte response, client and server in two processes",
        "",
        "| transport | round trip p50 (µs) | p99 (µs) | calls |",
        "|---|---|---|---|",
    ]
    for r in table:
        lines.append(f"| {r['transport']} | {r['round_trip_p50_us']:.1f} | {r['round_trip_p99_us']:.1f} | {r['calls']} |")
    ratio = check(table)
    if ratio is not None:
        verdict = "met" if ratio["met"] else "NOT met"
        lines += ["", f"ringbus p50 = {ratio['ratio']:.3f} × pyzmq REQ/REP's (target ≤ {ratio['target']}): {verdict}"]
    return "\n".join(lines) + "\n"


def check(table: List[Dict[str, Any]]) -> Any:
    by = {r["transport"]: r["round_trip_p50_us"] for r in table}
    if Zmq.name not in by:
        return None
    ratio = by[Ringbus.name] / by[Zmq.name]
    return {"baseline": Zmq.name, "ratio": round(ratio, 3), "target": 0.5, "met": ratio <= 0.5}


def main(rounds: int, batch: int, warmup: int) -> Dict[str, Any]:
    table = rows(run(rounds, batch, warmup))
    print(markdown(table))
    return {"rows": table, "target": check(table)}
