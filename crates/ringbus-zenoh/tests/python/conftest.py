"""Fixtures for the tests of `ringbus-bridge` with the eclipse-zenoh Python package as the
far side: a ringbus root of the test's own under /dev/shm (removed afterwards), the
`ringbus` CLI on it, a bridge process listening on a free loopback port, Python Zenoh
sessions in peer mode connected to it (multicast scouting off on both sides), and a
watchdog per test."""

import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

import pytest
import zenoh

# What the suites share (watchdog, waits, lines): scripts/pytest_helpers.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4, "scripts"))
import pytest_helpers  # noqa: E402
from pytest_helpers import Lines  # noqa: E402

RINGBUS = os.environ.get("RINGBUS_BIN", "target/debug/ringbus")
BRIDGE = os.environ.get("RINGBUS_BRIDGE_BIN", "target/debug/ringbus-bridge")
TEST_SECONDS = 90
WAIT_SECONDS = 20

watchdog = pytest_helpers.watchdog(TEST_SECONDS)
wait_for = functools.partial(pytest_helpers.wait_for, timeout=WAIT_SECONDS)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Root:
    """A ringbus root of the test's own; `ringbus` runs the CLI on it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ringbus-test-", dir="/dev/shm")
        self.env = dict(os.environ, RINGBUS_ROOT=self.dir)
        self.processes = []

    def ringbus(self, *args, timeout=60):
        return subprocess.run([RINGBUS, *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def start(self, program, *args):
        """A background process on this root, its output read line by line."""
        p = subprocess.Popen([program, *args], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True)
        p.out, p.err = Lines(p.stdout, WAIT_SECONDS), Lines(p.stderr, WAIT_SECONDS)
        self.processes.append(p)
        return p

    def info(self, topic):
        """`ringbus info TOPIC --json`, or None while the topic does not exist."""
        run = self.ringbus("info", topic, "--json")
        return json.loads(run.stdout) if run.returncode == 0 else None

    def subscriber(self, topic, pid):
        """The subscriber of process `pid` on `topic`, or None."""
        info = self.info(topic)
        return next((s for s in (info or {}).get("subscribers", []) if s["pid"] == pid), None)

    def remove(self):
        for p in self.processes:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)  # a stopped process would ignore the kill's exit
                p.kill()
            p.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def root():
    r = Root()
    yield r
    r.remove()


class Bridge:
    """A `ringbus-bridge` process listening on a free loopback port, multicast off."""

    def __init__(self, root, args):
        self.port = free_port()
        self.endpoint = f"tcp/127.0.0.1:{self.port}"
        self.process = root.start(BRIDGE, "--no-multicast", "--listen", self.endpoint, *args)
        self.process.out.wait_for(lambda l: l.startswith("ready: "), "the bridge's ready line")

    @property
    def out(self):
        return self.process.out

    @property
    def err(self):
        return self.process.err

    def stop(self):
        """SIGTERM; returns the lines it printed after its ready lines (its counters)."""
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=30) == 0, "\n".join(self.err.lines)
        wait_for(lambda: self.out.closed, "the bridge's last lines")
        return [l for l in self.out.lines if not l.startswith(("ready: ", "  "))]


def counters(lines, name):
    """The counters (a dict) of the mapping or topic printed as `name` on a stopped bridge."""
    line = next((l for l in lines if l.startswith(f"{name}: ")), None)
    assert line is not None, f"no counters of {name!r} in {lines}"
    return {k: int(v) for k, v in (kv.split("=") for kv in line[len(name) + 2:].split())}


@pytest.fixture
def bridge(root):
    made = []

    def make(*args):
        b = Bridge(root, args)
        made.append(b)
        return b

    yield make


def zenoh_config(connect=None):
    config = zenoh.Config()
    config.insert_json5("mode", '"peer"')
    config.insert_json5("scouting/multicast/enabled", "false")
    config.insert_json5("listen/endpoints", '["tcp/127.0.0.1:0"]')
    if connect:
        config.insert_json5("connect/endpoints", json.dumps([connect]))
    return config


@pytest.fixture
def zenoh_session():
    """Opens Python Zenoh sessions connected to a bridge; closes them afterwards."""
    sessions = []

    def open_session(bridge):
        s = zenoh.open(zenoh_config(bridge.endpoint))
        sessions.append(s)
        return s

    yield open_session
    for s in sessions:
        if not s.is_closed():
            s.close()


def matched(publisher, what="the bridge's subscriber"):
    """Waits until `publisher` reaches a subscriber (puts before that go nowhere)."""
    wait_for(lambda: publisher.matching_status.matching, what)


class Collector:
    """A Zenoh subscriber that keeps every payload it receives from other sessions (not the
    test's own puts), as text."""

    def __init__(self, session, key_expr):
        self.payloads = []
        self.subscriber = session.declare_subscriber(
            key_expr, lambda s: self.payloads.append(s.payload.to_bytes().decode(errors="replace")),
            allowed_origin=zenoh.Locality.REMOTE)
