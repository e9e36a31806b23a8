#!/usr/bin/env bash
# The Zenoh bridge's tests beyond its Rust tests: eclipse-zenoh (Python) as the far side of
# `ringbus-bridge` over TCP loopback, the `ringbus` CLI on the near side — --out/--in merged
# as --both, no echo, counters that name their mapping, a burst into a sleeping subscriber
# counted where it is lost and whole where it must be, endpoint and wildcard refusals,
# --in gathering wildcard key expressions, peers logged. The Rust tests run with the
# workspace's (`cargo test --workspace` in scripts/test.sh; alone: `cargo test -p ringbus-zenoh`).
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python package of the same Zenoh release as the zenoh crate in Cargo.lock.
source scripts/venv.sh 'pytest>=7' 'eclipse-zenoh==1.10.2'

step() { printf '\n==> %s\n' "$*"; }

# Already built by `cargo test --workspace` when scripts/test.sh runs this: then a no-op.
step "bridge: the CLI and the bridge";  cargo build -p ringbus-cli -p ringbus-zenoh --locked
step "bridge: eclipse-zenoh (Python)"
RINGBUS_BIN="$PWD/target/debug/ringbus" RINGBUS_BRIDGE_BIN="$PWD/target/debug/ringbus-bridge" \
  python -m pytest -q crates/ringbus-zenoh/tests/python
