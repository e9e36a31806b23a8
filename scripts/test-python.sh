#!/usr/bin/env bash
# The Python bindings' tests: builds the package into the test virtual environment
# (target/venv), builds the `ringbus` command for the cross-process tests, then runs
# pytest, mypy.stubtest and a quick benchmark run (a smoke test: its times are not checked).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh 'maturin>=1.9.4,<2' 'pytest>=9,<10' 'numpy>=2,<3' 'pyzmq>=27,<28' 'mypy>=2,<3'

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
