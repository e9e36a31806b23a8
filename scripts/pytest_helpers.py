"""What the pytest suites that start real processes share (the Zenoh bridge's, the ROS 2
bridge's, the MAVLink router's): a watchdog per test, waiting for a condition, and the
lines a process prints, read as they come. Each suite's conftest.py puts this folder on
sys.path and imports what it needs; the timeouts stay the suite's own."""

import signal
import threading
import time

import pytest


def watchdog(seconds):
    """An autouse fixture: a test that takes longer than `seconds` fails (TimeoutError)
    instead of stalling the run. In a conftest: `watchdog = pytest_helpers.watchdog(90)`."""

    @pytest.fixture(autouse=True)
    def watchdog():
        """A hung test fails instead of stalling the run."""

        def expired(*_):
            raise TimeoutError(f"test took longer than {seconds} s")

        old = signal.signal(signal.SIGALRM, expired)
        signal.alarm(seconds)
        yield
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)

    return watchdog


def wait_for(predicate, what, timeout):
    """Waits until `predicate()` is true; fails, naming `what`, after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Lines:
    """The lines a pipe gives, read by a thread as they come; `closed` once the pipe is."""

    def __init__(self, pipe, timeout):
        self.lines = []
        self.closed = False
        self.timeout = timeout
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe):
        for line in pipe:
            self.lines.append(line.rstrip("\n"))
        self.closed = True

    def wait_for(self, wanted, what=None, timeout=None):
        """The first line that contains `wanted` (a string) or satisfies it (a function),
        waiting for it (at most `timeout` seconds, else the one given when made)."""
        matches = (lambda l: wanted in l) if isinstance(wanted, str) else wanted
        found = []
        wait_for(lambda: found.extend(l for l in list(self.lines) if matches(l)) or found,
                 what or repr(wanted), self.timeout if timeout is None else timeout)
        return found[0]
