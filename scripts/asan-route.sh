#!/usr/bin/env bash
# Runs the router's churn test under AddressSanitizer, then its canary, which must FAIL
# with a heap-use-after-free report (else the sanitizer could not see the bug it is there
# to catch). Needs the nightly toolchain with rust-src (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^rust-src'; then
  rustup toolchain install nightly --profile minimal --component rust-src
fi
asan() {
  RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" CARGO_TARGET_DIR=target/asan \
    cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu -p ringbus-route --locked "$@"
}
asan --test churn
log=$(mktemp)
if RINGBUS_ASAN_CANARY=1 asan --test canary >"$log" 2>&1; then
  cat "$log"; rm -f "$log"
  echo "asan: the canary's use-after-free went unseen: the sanitizer is not working" >&2; exit 1
fi
if ! grep -q "heap-use-after-free" "$log"; then
  cat "$log"; rm -f "$log"
  echo "asan: the canary failed, but not with a use-after-free report" >&2; exit 1
fi
rm -f "$log"
echo "asan: churn clean; the canary's use-after-free was reported, as it must be"
