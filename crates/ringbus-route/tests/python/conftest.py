"""Fixtures for the pymavlink tests of `ringbus route`: a router process with its own
ringbus root and control socket, pymavlink clients on loopback, and a watchdog per test."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("MAVLINK20", "1")
os.environ.setdefault("MAVLINK_DIALECT", "common")

import pytest  # noqa: E402
from pymavlink import mavutil  # noqa: E402

# What the suites share (watchdog, waits, lines): scripts/pytest_helpers.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4, "scripts"))
import pytest_helpers  # noqa: E402

RINGBUS = os.environ.get("RINGBUS_BIN", "target/debug/ringbus")
TEST_SECONDS = 90

watchdog = pytest_helpers.watchdog(TEST_SECONDS)


class Router:
    """A `ringbus route` process; `ctl` runs `ringbus route ctl` against it."""

    def __init__(self, endpoints, config=None):
        self.dir = tempfile.mkdtemp(prefix="ringbus-test-", dir="/dev/shm")
        self.control = os.path.join(self.dir, "control.sock")
        env = dict(os.environ, RINGBUS_ROOT=os.path.join(self.dir, "root"))
        args = [RINGBUS, "route", "--control", self.control]
        if config is not None:
            path = os.path.join(self.dir, "router.toml")
            with open(path, "w") as f:
                f.write(config)
            args += ["--config", path]
        for spec in endpoints:
            args += ["--endpoint", spec]
        # The router logs on stderr (endpoints, peers, connections): a file, never a pipe
        # nobody reads, which would stop the router once full.
        self.log_path = os.path.join(self.dir, "router.log")
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(args, env=env, stderr=log, text=True)
        deadline = time.monotonic() + 20
        while not os.path.exists(self.control):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"router did not start: {self.log()}")
            time.sleep(0.02)

    def ctl(self, *args):
        out = subprocess.run([RINGBUS, "route", "ctl", "--control", self.control, *args],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        return out.stdout

    def log(self):
        """What the router has logged so far."""
        with open(self.log_path) as f:
            return f.read()

    def status(self):
        return json.loads(self.ctl("list", "--json"))

    def port(self, endpoint):
        for e in self.status()["endpoints"]:
            if e["name"] == endpoint:
                return int(e["local"].rsplit(":", 1)[1])
        raise KeyError(endpoint)

    def links(self, endpoint):
        return [link for link in self.status()["links"] if link["endpoint"] == endpoint]

    def endpoint(self, name):
        return next(e for e in self.status()["endpoints"] if e["name"] == name)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def router_factory():
    routers = []

    def make(*endpoints, config=None):
        r = Router(endpoints, config)
        routers.append(r)
        return r

    yield make
    for r in routers:
        r.stop()
        assert r.process.returncode == 0, f"router exited with {r.process.returncode}"


class Client:
    """A pymavlink connection with counts of what it sent and received."""

    def __init__(self, url, system, component):
        self.conn = mavutil.mavlink_connection(url, source_system=system, source_component=component,
                                               autoreconnect=False)
        self.system, self.component = system, component
        self.sent = 0

    def heartbeat(self):
        self.conn.mav.heartbeat_send(mavutil.mavlink.MAV_TYPE_QUADROTOR, mavutil.mavlink.MAV_AUTOPILOT_GENERIC,
                                     0, 0, 0)
        self.sent += 1

    def command(self, target_system, target_component, command=mavutil.mavlink.MAV_CMD_REQUEST_MESSAGE):
        self.conn.mav.command_long_send(target_system, target_component, command, 0, 1, 2, 3, 4, 5, 6, 7)
        self.sent += 1

    def receive(self, kind=None, timeout=5.0):
        """The next message (of `kind`), or None after `timeout` seconds."""
        return self.conn.recv_match(type=kind, blocking=True, timeout=timeout)

    def drain(self, quiet=0.3):
        """Everything that arrives until nothing has for `quiet` seconds."""
        got = []
        while True:
            m = self.conn.recv_match(blocking=True, timeout=quiet)
            if m is None:
                return got
            if m.get_type() != "BAD_DATA":
                got.append(m)

    def close(self):
        self.conn.close()


@pytest.fixture
def clients():
    made = []

    def make(url, system, component):
        c = Client(url, system, component)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()
