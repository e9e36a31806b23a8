#!/usr/bin/env bash
# The Python bindings' tests: builds the package into the test virtual environment
# (target/venv), builds the `ringbus` command for the cross-process tests, then runs
# pytest, mypy.stubtest and a quick benchmark run (a smoke test: its times are not checked).
# Last, the wheel users install: `maturin build --release` (one abi3 wheel for CPython 3.11
# and later, with a manylinux tag), installed offline into a fresh virtual environment
# (target/wheel-venv) that then publishes and receives a message.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh 'maturin>=1.9.4,<2' 'pytest>=9,<10' 'numpy>=2,<3' 'pyzmq>=27,<28' 'mypy>=2,<3' 'mcap>=1.2,<2'

# What `pip install .` does on a user's machine, with the venv's maturin and cargo's
# incremental build in target/ (release profile).
python -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall .
cargo build -q -p ringbus-cli --locked

python -m pytest -x -q -p no:cacheprovider crates/ringbus-py/tests --ringbus-cli target/debug/ringbus
# mypy's cache goes under target/, not into the source tree (stubtest keeps it in its
# working directory).
export MYPY_CACHE_DIR="$PWD/target/mypy-cache"
(cd target && python -m mypy.stubtest ringbus)
python -m mypy --strict crates/ringbus-py/python/ringbus
python -m ringbus.bench --quick

step() { printf '\n==> %s\n' "$*"; }
step "python: the wheel, in a fresh virtual environment"
wheels=target/wheels
rm -f "$wheels"/ringbus-*.whl
maturin build --release --locked --out "$wheels"
wheel=$(ls "$wheels"/ringbus-*.whl)
case "$(basename "$wheel")" in
  ringbus-*-cp311-abi3-manylinux*.whl) echo "wheel: $(basename "$wheel")" ;;
  *) echo "wheel: $(basename "$wheel") is not a cp311-abi3 manylinux wheel" >&2; exit 1 ;;
esac
rm -rf target/wheel-venv
python3 -m venv target/wheel-venv
target/wheel-venv/bin/python -m pip install -q --disable-pip-version-check --no-index "$wheel"
# From a directory without the sources, so that only the installed package can be imported.
(cd target/wheel-venv && bin/python - <<'PY'
import tempfile
import ringbus

assert "wheel-venv" in ringbus.__file__, ringbus.__file__
with tempfile.TemporaryDirectory(dir="/dev/shm") as root, ringbus.Node("wheel", root=root) as node:
    topic = node.topic("wheel/hello")
    sub = topic.subscriber()
    topic.publisher().publish_copy(b"hello from the wheel")
    assert sub.receive(timeout=5.0).tobytes() == b"hello from the wheel"
print("wheel: installed, imported, published and received")
PY
)
