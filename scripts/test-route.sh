#!/usr/bin/env bash
# The MAVLink router's tests: Rust (framing, routing rules, filters, expiry, 10^5-cycle
# link churn), pymavlink clients end to end through `ringbus route` over UDP and TCP, and
# the churn test under AddressSanitizer with its canary (which must fail).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh 'pytest>=7' pymavlink

step() { printf '\n==> %s\n' "$*"; }

step "router: rust tests";  cargo test -p ringbus-route --locked
step "router: the CLI";     cargo build -p ringbus-cli --locked
step "router: pymavlink";   RINGBUS_BIN="$PWD/target/debug/ringbus" python -m pytest -q crates/ringbus-route/tests/python
step "router: churn under AddressSanitizer, and its canary"
bash scripts/asan-route.sh
