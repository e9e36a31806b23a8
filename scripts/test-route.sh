#!/usr/bin/env bash
# The MAVLink router's tests beyond its Rust tests: pymavlink clients end to end through
# `ringbus route` over UDP and TCP, and the churn test under AddressSanitizer with its
# canary (which must fail). The Rust tests (framing, routing rules, filters, expiry, 10^5-cycle
# link churn) run with the workspace's (`cargo test --workspace` in scripts/test.sh; alone:
# `cargo test -p ringbus-route`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh 'pytest>=7' pymavlink

step() { printf '\n==> %s\n' "$*"; }

# Already built by `cargo test --workspace` when scripts/test.sh runs this: then a no-op.
step "router: the CLI";     cargo build -p ringbus-cli --locked
step "router: pymavlink";   RINGBUS_BIN="$PWD/target/debug/ringbus" python -m pytest -q crates/ringbus-route/tests/python
step "router: churn under AddressSanitizer, and its canary"
bash scripts/asan-route.sh
