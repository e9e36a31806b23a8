"""Every example under examples/python runs as its docstring says, exits 0, prints what it
is about and cleans up: once in the test's root (RINGBUS_ROOT, which the `root` fixture
checks is empty afterwards), once alone, when it makes a root of its own under /dev/shm,
which must be gone afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from conftest import CHILD_TIMEOUT_S

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "python"

# Each example with its arguments and a line its output must have (the start of it).
CASES = {
    "hello": ([], "subscriber: received 6, lost 0"),
    "numpy_image": (["--frames", "3"], "camera: published 3 frames of 3.5 MiB; "),
    "asyncio_subscriber": ([], "asyncio: awaited 6 messages; "),
    "wait_set": ([], "thermostat: shutdown after 10 readings (mean 21.12 °C) and "),
    "polling_node": (["--seconds", "1"], "polling node: "),
}


def test_every_example_is_tested() -> None:
    assert sorted(p.stem for p in EXAMPLES.glob("*.py")) == sorted(CASES)


def run(name: str, env: "dict[str, str]") -> List[str]:
    args, _ = CASES[name]
    child = subprocess.Popen(
        [sys.executable, str(EXAMPLES / f"{name}.py"), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = child.communicate(timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        pytest.fail(f"{name} hung: {out}{err}")
    assert child.returncode == 0, f"{name} failed ({child.returncode}):\n{out}\n{err}"
    own_root = Path(f"/dev/shm/ringbus-example-{child.pid}")
    assert not own_root.exists(), f"{name} left {own_root} behind"
    return out.splitlines()


@pytest.mark.parametrize("name", sorted(CASES))
def test_example(name: str, root: Path) -> None:
    _, expected = CASES[name]
    in_root = run(name, dict(os.environ))  # RINGBUS_ROOT: the fixture's root
    alone = run(name, {k: v for k, v in os.environ.items() if k != "RINGBUS_ROOT"})
    for lines in (in_root, alone):
        assert any(line.startswith(expected) for line in lines), f"no line {expected!r} in {lines}"
