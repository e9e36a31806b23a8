"""python -m ringbus.bench [--quick] [--json FILE]

End-to-end latency of numpy payloads (64 B and 1 MiB) between two Python processes:
ringbus against what Python users reach for today — multiprocessing.Queue,
multiprocessing.shared_memory with multiprocessing Events, pyzmq over ipc:// — in one run.
Transports and sizes are interleaved in rounds (a noisy machine slows them all alike).
e2e = the sender's time.monotonic_ns() before it loans/fills/sends → the receiver holding
the payload as a numpy array; each message is acknowledged before the next is sent
(one-way latency without queueing). Prints a markdown table and the ratios our targets
are set on; --json writes the rows.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List

import numpy as np

from .transports import STOP, TRANSPORTS, WARMUP, Latencies, receiver

SIZES = [64, 1 << 20]
MODE = "one-way, acknowledged before the next message (no queueing)"


def available() -> List[str]:
    names = list(TRANSPORTS)
    try:
        import zmq  # noqa: F401
    except ImportError:
        print("pyzmq is not installed: skipping pyzmq ipc:// (pip install pyzmq)", file=sys.stderr)
        names.remove("pyzmq ipc://")
    return names


def run(rounds: int, batch: int, warmup: int) -> Dict[str, Latencies]:
    ctx = multiprocessing.get_context("spawn")
    workdir = tempfile.mkdtemp(dir="/dev/shm", prefix="ringbus-bench-py-")
    os.mkdir(os.path.join(workdir, "root"))
    senders: Dict[str, Any] = {}
    receivers: Dict[str, Any] = {}
    try:
        for name in available():
            channels = TRANSPORTS[name].channels(ctx, workdir)
            mine, theirs = ctx.Pipe()
            process = ctx.Process(target=receiver, args=(name, channels, workdir, theirs), daemon=True)
            process.start()
            senders[name] = TRANSPORTS[name](channels, workdir, "sender")
            if not mine.poll(60) or mine.recv() != "ready":
                raise RuntimeError(f"the {name} receiver did not start")
            receivers[name] = (process, mine)
        payloads = {n: np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8) for n in SIZES}
        for name, sender in senders.items():
            for n in SIZES:
                for _ in range(warmup):
                    sender.send(payloads[n], WARMUP)
        order = list(senders)
        for _ in range(rounds):
            for n in SIZES:
                random.shuffle(order)
                for name in order:
                    for _ in range(batch):
                        senders[name].send(payloads[n], time.monotonic_ns())
        results = {}
        for name, sender in senders.items():
            sender.send(payloads[SIZES[0]], STOP)
            process, control = receivers[name]
            if not control.poll(60):
                raise RuntimeError(f"the {name} receiver did not report")
            results[name] = control.recv()
            process.join(10)
        return results
    finally:
        for sender in senders.values():
            sender.close()
        for process, _ in receivers.values():
            if process.is_alive():
                process.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def rows(results: Dict[str, Latencies]) -> List[Dict[str, Any]]:
    out = []
    for name, latencies in results.items():
        for n in SIZES:
            us = np.array(latencies[n]) / 1000.0
            out.append(
                {
                    "transport": name,
                    "payload_bytes": n,
                    "e2e_p50_us": round(float(np.percentile(us, 50)), 2),
                    "e2e_p99_us": round(float(np.percentile(us, 99)), 2),
                    "samples": int(us.size),
                }
            )
    return out


def p50(table: List[Dict[str, Any]], transport: str, n: int) -> float:
    return next(float(r["e2e_p50_us"]) for r in table if r["transport"] == transport and r["payload_bytes"] == n)


def ratios(table: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The targets, as same-run ratios of p50."""
    targets = [(1 << 20, "multiprocessing.Queue", 0.2), (1 << 20, "pyzmq ipc://", 0.5), (64, "pyzmq ipc://", 1.0)]
    out = []
    for n, baseline, target in targets:
        if any(r["transport"] == baseline for r in table):
            ratio = p50(table, "ringbus", n) / p50(table, baseline, n)
            out.append(
                {"payload_bytes": n, "baseline": baseline, "ratio": round(ratio, 3), "target": target, "met": ratio <= target}
            )
    return out


def markdown(table: List[Dict[str, Any]], checks: List[Dict[str, Any]]) -> str:
    size = {64: "64 B", 1 << 20: "1 MiB"}
    lines = [
        f"mode: {MODE}; e2e = sender's monotonic_ns() before loan/fill -> receiver holds the numpy array",
        "",
        "| transport | payload | e2e p50 (µs) | e2e p99 (µs) | p50 ÷ ringbus | messages |",
        "|---|---|---|---|---|---|",
    ]
    for r in table:
        base = p50(table, "ringbus", r["payload_bytes"])
        lines.append(
            f"| {r['transport']} | {size[r['payload_bytes']]} | {r['e2e_p50_us']:.1f} | {r['e2e_p99_us']:.1f} "
            f"| {r['e2e_p50_us'] / base:.2f} | {r['samples']} |"
        )
    lines.append("")
    for c in checks:
        verdict = "met" if c["met"] else "NOT met"
        lines.append(
            f"{size[c['payload_bytes']]}: ringbus p50 = {c['ratio']:.3f} × {c['baseline']} (target ≤ {c['target']}): {verdict}"
        )
    return "\n".join(lines) + "\n"


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m ringbus.bench", description=__doc__.split("\n\n")[1])
    parser.add_argument("--quick", action="store_true", help="a short run (a smoke test; about 10 s)")
    parser.add_argument("--json", metavar="FILE", help="write the rows (and the target ratios) as JSON")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 20, 3 with --quick)")
    parser.add_argument("--batch", type=int, help="messages per transport, size and round (default 50, 10 with --quick)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 20)
    batch = args.batch or (10 if args.quick else 50)
    table = rows(run(rounds, batch, warmup=5 if args.quick else 50))
    checks = ratios(table)
    print(markdown(table, checks))
    if args.json:
        machine = {"nproc": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()}
        with open(args.json, "w") as f:
            json.dump({"mode": MODE, "machine": machine, "rows": table, "targets": checks}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
