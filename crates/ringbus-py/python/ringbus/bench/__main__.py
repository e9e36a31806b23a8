"""python -m ringbus.bench [transports|polling|service|all] [--quick] [--json FILE]

Three measurements, each against what Python users reach for today, in one run:

transports: end-to-end latency of numpy payloads (64 B and 1 MiB) between two Python processes:
ringbus against what Python users reach for today — multiprocessing.Queue,
multiprocessing.shared_memory with multiprocessing Events, pyzmq over ipc:// — in one run.
Transports and sizes are interleaved in rounds (a noisy machine slows them all alike).
e2e = the sender's time.monotonic_ns() before it loans/fills/sends → the receiver holding
the payload as a numpy array; each message is acknowledged before the next is sent
(one-way latency without queueing). Prints a markdown table and the ratios our targets
are set on; --json writes the rows.

polling: a node reading three topics (10, 30, 50 Hz) in a 10 Hz timer, callback style
against polling style (ringbus.Executor inputs): CPU time and wake-ups per second.

service: a 64-byte request/response round trip between two processes, ringbus services
against pyzmq REQ/REP over ipc://.
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

from . import polling, service
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


def transports(rounds: int, batch: int, warmup: int) -> Dict[str, Any]:
    table = rows(run(rounds, batch, warmup))
    checks = ratios(table)
    print(markdown(table, checks))
    return {"mode": MODE, "rows": table, "targets": checks}


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ringbus.bench",
        description="Python benchmarks of ringbus against multiprocessing and pyzmq, in one run.",
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenario", nargs="?", default="all", choices=["transports", "polling", "service", "all"])
    parser.add_argument("--quick", action="store_true", help="a short run (a smoke test; about 20 s for all)")
    parser.add_argument("--json", metavar="FILE", help="write every scenario's rows (and the target ratios) as JSON")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 20, 3 with --quick)")
    parser.add_argument("--batch", type=int, help="messages or calls per transport and round (default 50, 10 with --quick)")
    parser.add_argument("--seconds", type=float, help="polling: seconds measured per pass (default 10, 2 with --quick)")
    parser.add_argument("--passes", type=int, help="polling: passes (default 3, 1 with --quick)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 20)
    batch = args.batch or (10 if args.quick else 50)
    warmup = 5 if args.quick else 50
    results: Dict[str, Any] = {}
    if args.scenario in ("transports", "all"):
        results["transports"] = transports(rounds, batch, warmup)
    if args.scenario in ("polling", "all"):
        results["polling"] = polling.main(args.seconds or (2.0 if args.quick else 10.0), args.passes or (1 if args.quick else 3))
    if args.scenario in ("service", "all"):
        results["service"] = service.main(rounds, batch * 10, warmup)
    if args.json:
        machine = {"nproc": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()}
        with open(args.json, "w") as f:
            json.dump({"machine": machine, **results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
