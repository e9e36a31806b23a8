"""`ringbus record` files open with the Python `mcap` package: a publisher process sends
numbered random payloads of varied sizes, the recorder writes them, and every payload read
back with `mcap.reader` is byte-exact and in order."""

from __future__ import annotations

import hashlib
import json
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from mcap.reader import make_reader

from conftest import CHILD_TIMEOUT_S, finish, read_line

COUNT = 300
TOPIC = "rec/py"


def payloads() -> list[bytes]:
    """What the publisher sends: message i is its number, then random bytes (seeded)."""
    rng = random.Random(26)
    return [i.to_bytes(4, "little") + rng.randbytes(rng.randrange(0, 4000)) for i in range(COUNT)]


PUBLISHER = """
import hashlib, json, random, sys, time
import ringbus
from test_record import payloads
with ringbus.Node("py-publisher") as node:
    pub = node.topic("rec/py", max_payload_bytes=4096, depth=64).publisher()
    print("ready", flush=True)
    sys.stdin.readline()                     # the recorder has joined
    sent = []
    for data in payloads():
        pub.publish_copy(data)               # waits for the (reliable) recorder if it falls behind
        sent.append(hashlib.sha256(data).hexdigest())
        time.sleep(0.001)
    print(json.dumps(sent), flush=True)
    sys.stdin.readline()                     # the recorder has taken everything
"""


def topic_info(cli: str) -> dict:  # type: ignore[type-arg]
    out = subprocess.run([cli, "info", TOPIC, "--json"], check=True, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def wait_for(what: str, cond) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_recording_reads_back_byte_exact_with_the_mcap_package(cli: str, tmp_path: Path) -> None:
    path = tmp_path / "py.mcap"
    publisher = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PUBLISHER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parent,
    )
    recorder = subprocess.Popen([cli, "record", TOPIC, "-o", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert read_line(publisher) == "ready"
        wait_for("the recorder's subscriber", lambda: topic_info(cli)["reliable_subscribers"] == 1)
        assert publisher.stdin is not None
        publisher.stdin.write("go\n")
        publisher.stdin.flush()
        sent = json.loads(read_line(publisher))
        wait_for("the recorder to take everything", lambda: topic_info(cli)["subscribers"][0]["taken"] == COUNT)
        recorder.send_signal(signal.SIGINT)
        _, err = recorder.communicate(timeout=CHILD_TIMEOUT_S)
        assert recorder.returncode == 0, err
        publisher.stdin.write("done\n")
        publisher.stdin.flush()
        rc, _, err = finish(publisher)
        assert rc == 0, err
    finally:
        for process in (recorder, publisher):
            if process.poll() is None:
                process.kill()
                process.wait()

    expected = payloads()
    assert sent == [hashlib.sha256(p).hexdigest() for p in expected]
    with path.open("rb") as f:
        reader = make_reader(f)
        summary = reader.get_summary()
        assert summary is not None and summary.statistics is not None
        assert summary.statistics.message_count == COUNT
        read = list(reader.iter_messages(log_time_order=False))
    assert [bytes(m.data) for _, _, m in read] == expected
    channel = read[0][1]
    assert (channel.topic, channel.message_encoding) == (TOPIC, "ringbus.bytes")
    assert channel.metadata["ringbus.max_payload_bytes"] == "4096" and channel.metadata["ringbus.depth"] == "64"
    times = [m.log_time for _, _, m in read]
    assert times == sorted(times), "log times are the publisher's timestamps, in order"
    # On the wall clock (what tools that show dates expect): within this test's minutes.
    assert time.time_ns() - 600 * 10**9 < times[0] <= times[-1] <= time.time_ns()
    assert all(m.log_time <= m.publish_time for _, _, m in read), "read after published"
