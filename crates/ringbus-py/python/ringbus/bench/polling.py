"""The polling node: a Python node whose 10 Hz timer reads the newest message of three
topics (10, 30 and 50 Hz) and publishes a fourth, in both styles, side by side in one run.

A feeder process publishes the three topics, staggered (topic i starts i/3 of its period
late, so that messages of different topics do not arrive together); two node processes run
the same :class:`ringbus.Executor` code — three inputs and a timer that reads
``latest()`` of each and publishes — one with ``Wake.ON_DATA`` subscribers (callback
style: the executor wakes for every message and keeps it for the timer), one with
``Wake.NEVER`` subscribers (polling style: the timer reads the topics, nothing else wakes
the process). Each node measures, over the same window, its process CPU time
(``getrusage``), its executor's wake-ups, its voluntary context switches (the waits' checks
for Ctrl-C would show there) and the messages its executor took for the inputs.
"""

from __future__ import annotations

import functools
import multiprocessing
import multiprocessing.connection
import resource
import shutil
import tempfile
import time
from typing import Any, Dict, List

import ringbus

RATES_HZ = [10, 30, 50]
TIMER_HZ = 10
STYLES = {"callback": ringbus.Wake.ON_DATA, "polling": ringbus.Wake.NEVER}


def _topic(i: int) -> str:
    return f"bench/polling/in{i}"


def feeder(root: str, seconds: float, control: multiprocessing.connection.Connection) -> None:
    """Publishes topic i at RATES_HZ[i] (64-byte messages) for `seconds`, staggered."""
    with ringbus.Node("bench-feeder", root=root) as node, ringbus.Executor() as executor:
        # max_held 16: a callback-style input may keep a few samples pinned between ticks.
        publishers = [
            node.topic(_topic(i), max_payload_bytes=64, depth=16, max_held=16).publisher() for i in range(len(RATES_HZ))
        ]
        control.send("ready")
        control.recv()  # start
        payload, start = bytes(64), time.monotonic()
        for i, (publisher, rate) in enumerate(zip(publishers, RATES_HZ)):
            time.sleep(max(0.0, start + i / len(RATES_HZ) / rate - time.monotonic()))
            executor.timer(1.0 / rate, functools.partial(publisher.publish_copy, payload))
        executor.spin_for(seconds)


def node(root: str, style: str, seconds: float, control: multiprocessing.connection.Connection) -> None:
    """The node under test: a 10 Hz timer reads the newest of three inputs and publishes."""
    with ringbus.Node(f"bench-{style}", root=root) as n, ringbus.Executor() as executor:
        inputs = [executor.input(n.topic(_topic(i), wake=STYLES[style]).subscriber()) for i in range(len(RATES_HZ))]
        output = n.topic(f"bench/polling/out-{style}", max_payload_bytes=64).publisher()
        payload = bytes(64)

        def tick() -> None:
            newest = [source.latest() for source in inputs]
            if all(sample is not None for sample in newest):
                output.publish_copy(payload)

        executor.timer(1.0 / TIMER_HZ, tick)
        control.send("ready")
        control.recv()  # start
        executor.spin_once(0)
        tick()  # what the feeder published before the start is not measured
        before, stats_before, t0 = resource.getrusage(resource.RUSAGE_SELF), executor.stats(), time.monotonic()
        executor.spin_for(seconds)
        after, stats_after, elapsed = resource.getrusage(resource.RUSAGE_SELF), executor.stats(), time.monotonic() - t0
        published = output.stats()["publishes"]
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    control.send(
        {
            "style": style,
            "seconds": round(elapsed, 3),
            "cpu_ms_per_s": round(1000.0 * cpu / elapsed, 3),
            "wakeups_per_s": round((stats_after.wakeups - stats_before.wakeups) / elapsed, 2),
            "timer_calls_per_s": round((stats_after.timer_calls - stats_before.timer_calls) / elapsed, 2),
            "context_switches_per_s": round((after.ru_nvcsw - before.ru_nvcsw) / elapsed, 2),
            "messages_taken": stats_after.messages - stats_before.messages,
            "published": published,
        }
    )


def run(seconds: float) -> List[Dict[str, Any]]:
    """One pass: the feeder and both nodes at once; the nodes' reports."""
    ctx = multiprocessing.get_context("spawn")
    workdir = tempfile.mkdtemp(dir="/dev/shm", prefix="ringbus-bench-py-")
    processes, controls = [], []
    try:
        # The nodes measure a little less than the feeder runs, inside its window.
        starts = [(feeder, (workdir, seconds + 1.0))] + [(node, (workdir, s, seconds)) for s in STYLES]
        for target, args in starts:
            mine, theirs = ctx.Pipe()
            process = ctx.Process(target=target, args=(*args, theirs), daemon=True)
            process.start()
            if not mine.poll(60) or mine.recv() != "ready":
                raise RuntimeError(f"a {target.__name__} process did not start")
            processes.append(process)
            controls.append(mine)
        controls[0].send("start")
        time.sleep(0.5)  # the feeder's first messages are out
        for control in controls[1:]:
            control.send("start")
        rows = []
        for control in controls[1:]:
            if not control.poll(seconds + 60):
                raise RuntimeError("a node did not report")
            rows.append(control.recv())
        return rows
    finally:
        for process in processes:
            process.join(10)
            if process.is_alive():
                process.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def summary(passes: List[List[Dict[str, Any]]]) -> Dict[str, Any]:
    """Per pass, polling ÷ callback CPU; the median of those ratios (target ≤ 0.3)."""
    ratios = []
    for rows in passes:
        by = {r["style"]: r for r in rows}
        ratios.append(by["polling"]["cpu_ms_per_s"] / by["callback"]["cpu_ms_per_s"])
    ratios.sort()
    median = ratios[len(ratios) // 2]
    return {"cpu_polling_over_callback": [round(r, 3) for r in ratios], "median": round(median, 3), "target": 0.3}


def markdown(passes: List[List[Dict[str, Any]]], result: Dict[str, Any]) -> str:
    rates = "/".join(map(str, RATES_HZ))
    lines = [
        f"polling node: inputs at {rates} Hz (64 B), a {TIMER_HZ} Hz timer reading the newest of each and publishing",
        "",
        "| pass | style | CPU (ms per s) | executor wake-ups/s | timer calls/s | context switches/s | taken by the executor | published |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, rows in enumerate(passes, 1):
        for r in rows:
            lines.append(
                f"| {i} | {r['style']} | {r['cpu_ms_per_s']:.2f} | {r['wakeups_per_s']:.1f} | {r['timer_calls_per_s']:.1f} "
                f"| {r['context_switches_per_s']:.1f} | {r['messages_taken']} | {r['published']} |"
            )
    verdict = "met" if result["median"] <= result["target"] else "NOT met"
    lines += [
        "",
        f"CPU polling ÷ callback per pass: {result['cpu_polling_over_callback']}; median {result['median']} "
        f"(target ≤ {result['target']}): {verdict}",
    ]
    return "\n".join(lines) + "\n"


def main(seconds: float, passes: int) -> Dict[str, Any]:
    results = [run(seconds) for _ in range(passes)]
    result = summary(results)
    print(markdown(results, result))
    return {"passes": results, "summary": result}
