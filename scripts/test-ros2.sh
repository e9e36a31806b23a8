#!/usr/bin/env bash
# The ROS 2 bridge's tests beyond its Rust tests: the cyclonedds Python package as a ROS 2
# peer of `ringbus-ros2` (loopback only, unicast discovery), the crate's examples on the
# ringbus side — std_msgs/String both ways, a 1080p sensor_msgs/Image byte-exact, QoS
# mismatches, a bridge killed and restarted, refusals — and the Python helpers
# (ringbus.ros): the same bytes as the Rust ones, a Python image through the bridge. The Rust tests run with the
# workspace's (`cargo test --workspace`; alone: `cargo test -p ringbus-ros2`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh 'maturin>=1.9.4,<2' 'pytest>=7' 'cyclonedds==11.0.1' 'numpy>=1.24'

step() { printf '\n==> %s\n' "$*"; }

step "ros2: the bridge and its examples"; cargo build -p ringbus-ros2 --examples --bins --locked
step "ros2: the Python package"
python -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall .
step "ros2: cyclonedds (Python) as the ROS 2 peer"
RINGBUS_ROS2_BIN="$PWD/target/debug/ringbus-ros2" RINGBUS_ROS2_EXAMPLES="$PWD/target/debug/examples" \
  python -m pytest -q crates/ringbus-ros2/tests/python
step "ros2: the image bench runs (5 frames, debug build: figures not meaningful)"
python crates/ringbus-ros2/bench/ros2_bench.py --frames 5 --subscribers 1 --bridge "$PWD/target/debug/ringbus-ros2"
