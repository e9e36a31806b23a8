"""Fixtures for the tests of `ringbus-ros2` with the cyclonedds Python package as the ROS 2
peer: a ringbus root of the test's own under /dev/shm (removed afterwards), a DDS domain of
the test's own, cyclonedds and the bridge both on loopback only (cyclonedds by unicast to
127.0.0.1: the loopback interface here has no multicast), the bridge and the example
programs as processes (killed afterwards), and a watchdog per test."""

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# What the suites share (watchdog, waits, lines): scripts/pytest_helpers.py.
sys.path.insert(0, os.path.join(HERE, *[".."] * 4, "scripts"))
import pytest_helpers  # noqa: E402
from pytest_helpers import Lines  # noqa: E402
# cyclonedds reads its configuration when the module is loaded: loopback, unicast discovery.
os.environ["CYCLONEDDS_URI"] = (
    "<CycloneDDS><Domain Id='any'><General><Interfaces><NetworkInterface address='127.0.0.1'/>"
    "</Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery>"
    "<ParticipantIndex>auto</ParticipantIndex><Peers><Peer Address='127.0.0.1'/></Peers>"
    "</Discovery></Domain></CycloneDDS>"
)

BRIDGE = os.environ.get("RINGBUS_ROS2_BIN", "target/debug/ringbus-ros2")
EXAMPLES = os.environ.get("RINGBUS_ROS2_EXAMPLES", "target/debug/examples")
TEST_SECONDS = 120
WAIT_SECONDS = 30
# Each test gets its own DDS domain, so tests (and other runs on this machine) never meet.
_next_domain = [100 + os.getpid() % 50 * 2]

watchdog = pytest_helpers.watchdog(TEST_SECONDS)
wait_for = functools.partial(pytest_helpers.wait_for, timeout=WAIT_SECONDS)


class Proc:
    """A process with its stdout and stderr read as lines."""

    def __init__(self, args, env):
        self.p = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out, self.err = Lines(self.p.stdout, WAIT_SECONDS), Lines(self.p.stderr, WAIT_SECONDS)

    def stop(self):
        """SIGINT, then the exit code once it ended."""
        self.p.send_signal(signal.SIGINT)
        code = self.p.wait(timeout=WAIT_SECONDS)
        self.out.thread.join(timeout=5)
        self.err.thread.join(timeout=5)
        return code


class World:
    """A ringbus root, a DDS domain, and the processes started on them."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ringbus-test-", dir="/dev/shm")
        self.env = dict(os.environ, RINGBUS_ROOT=self.dir)
        _next_domain[0] += 1
        self.domain = _next_domain[0]
        self.procs = []

    def start(self, args):
        proc = Proc(args, self.env)
        self.procs.append(proc)
        return proc

    def bridge(self, *args):
        """A bridge on this root and domain, loopback only; waits until it is ready."""
        b = self.start([BRIDGE, "--domain", str(self.domain), "--network", "127.0.0.1", *args])
        b.out.wait_for("ready:", "the bridge to start")
        return b

    def run(self, example, *args):
        """Runs an example program to its end; its stdout lines."""
        done = subprocess.run([f"{EXAMPLES}/{example}", *args], env=self.env, capture_output=True, text=True,
                              timeout=WAIT_SECONDS, check=True)
        return done.stdout.splitlines()

    def refused(self, *args):
        """Runs a bridge expected to refuse to start: its exit code and stderr."""
        done = subprocess.run([BRIDGE, "--domain", str(self.domain), *args], env=self.env, capture_output=True,
                              text=True, timeout=WAIT_SECONDS)
        return done.returncode, done.stderr

    def close(self):
        for proc in self.procs:
            if proc.p.poll() is None:
                proc.p.kill()
                proc.p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def world():
    w = World()
    yield w
    w.close()
