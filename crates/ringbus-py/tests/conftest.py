"""Fixtures of the Python tests: a ringbus root of its own per test (under /dev/shm,
removed afterwards), a node in it, the `ringbus` CLI, child Python processes with a
watchdog, and measurements reported at the end of the run."""

from __future__ import annotations

import gc
import os
import select
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Iterator, List

import pytest

import ringbus

REPO = Path(__file__).resolve().parents[3]

# A child process that has not finished by then has hung: the test fails instead of stalling.
CHILD_TIMEOUT_S = 60

MEASUREMENTS: List[str] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--ringbus-cli",
        default=os.environ.get("RINGBUS_CLI"),
        help="path of the `ringbus` command (cargo build -p ringbus-cli) for the cross-process tests",
    )


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    if MEASUREMENTS:
        terminalreporter.section("measured (reported, not asserted on time)")
        for line in MEASUREMENTS:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own RINGBUS_ROOT, removed afterwards; anything the test left
    behind once its objects are gone fails it."""
    path = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ringbus-test-py-"))
    monkeypatch.setenv("RINGBUS_ROOT", str(path))
    try:
        yield path
        gc.collect()
        left = sorted(p.name for p in path.iterdir())
        assert left == [], f"the test left files in its ringbus root: {left}"
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def node() -> Iterator[ringbus.Node]:
    with ringbus.Node("pytest") as n:
        yield n


@pytest.fixture
def cli(pytestconfig: pytest.Config) -> str:
    path = pytestconfig.getoption("--ringbus-cli")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("pass the ringbus command: --ringbus-cli target/debug/ringbus (cargo build -p ringbus-cli)")
    return str(path)


def python_child(code: str, *args: str) -> "subprocess.Popen[str]":
    """Starts `code` in a child Python (same interpreter and RINGBUS_ROOT)."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(child: "subprocess.Popen[str]") -> "tuple[int, str, str]":
    """Waits for a child (killing it if it hangs) and returns (returncode, stdout, stderr)."""
    try:
        out, err = child.communicate(timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        pytest.fail(f"child process hung for {CHILD_TIMEOUT_S} s; stdout={out!r} stderr={err!r}")
    return child.returncode, out, err


def run_python(code: str, *args: str) -> str:
    """Runs `code` in a child Python; fails the test unless it exits 0; returns stdout."""
    rc, out, err = finish(python_child(code, *args))
    assert rc == 0, f"child failed ({rc}): {err}"
    return out


def read_line(child: "subprocess.Popen[str]") -> str:
    """The child's next stdout line (the child prints one when it is ready)."""
    assert child.stdout is not None
    ready, _, _ = select.select([child.stdout], [], [], CHILD_TIMEOUT_S)
    if not ready:
        child.kill()
        pytest.fail(f"child printed nothing for {CHILD_TIMEOUT_S} s")
    line = child.stdout.readline()
    if not line:
        _, _, err = finish(child)
        pytest.fail(f"child ended before printing: {err}")
    return line.strip()


@pytest.fixture(scope="session")
def command_queue() -> str:
    """The Rust example `command_queue` (built here if needed)."""
    subprocess.run(
        ["cargo", "build", "-q", "-p", "ringbus", "--example", "command_queue"],
        cwd=REPO,
        check=True,
        timeout=600,
    )
    return str(REPO / "target" / "debug" / "examples" / "command_queue")
