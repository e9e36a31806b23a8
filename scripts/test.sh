#!/usr/bin/env bash
# Runs every ringbus test: formatting, lints, docs, unit and multi-process tests, the
# SIGKILL chaos test, doctests (README and guide included), the guide, the loom models,
# Miri, a short run of every fuzz target, the Python bindings and their wheel, the C++ API
# (GoogleTest under sanitizers, its CMake package), MCAP recordings read by Foxglove's Go
# CLI, the router
# (pymavlink, AddressSanitizer), the Zenoh bridge (eclipse-zenoh from Python), and the
# crates' packaging (cargo publish --dry-run).
#
# What it needs:
#   - root: the exact system-call counts read a kernel tracepoint (raw_syscalls, through
#     perf and tracefs), and some tests mount small tmpfs filesystems (full, read-only);
#     without root those tests fail. setup.sh also installs tmux and python3-venv.
#   - network: crates.io (crates, and the packaging check), rustup's server (the nightly
#     toolchain for Miri and AddressSanitizer), PyPI (maturin, pytest, numpy, pyzmq, mypy,
#     pymavlink, eclipse-zenoh, mcap), the Go module proxy (Foxglove's mcap CLI; skipped
#     without it) and, once, the Debian archive (tmux, python3-venv; for
#     C++, cmake, g++, libgtest-dev and pkg-config if missing).
#   - disk: about 15 GB free — target/ grows to about 13 GB (a full debug build with its
#     incremental caches is 11 GB of it; release, loom, Miri, AddressSanitizer and the Python
#     environments the rest), plus the nightly toolchain (about 1.7 GB) and ~/.cargo.
#   - time: about 30 minutes on 2 cores from nothing, mostly compiling (21 minutes measured
#     on a clean clone once mdBook, cargo-fuzz and the nightly toolchain were installed).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "scripts/test.sh needs root, network access (crates.io, rustup, PyPI), about 15 GB of disk" \
     "and about 30 minutes on 2 cores (see the top of this script)."
source scripts/setup.sh

# Every test gets its own root; this one catches whatever uses the default root
# (doctests, examples) and is checked for leftovers at the end.
export RINGBUS_ROOT; RINGBUS_ROOT="$(mktemp -d /dev/shm/ringbus-ci-XXXXXX)"
trap 'rm -rf "$RINGBUS_ROOT"' EXIT

step() { printf '\n==> %s\n' "$*"; }

step "format";            cargo fmt --all -- --check
step "clippy";            cargo clippy --workspace --all-targets --locked -- -D warnings
step "rustdoc"
# -D warnings reaches rustdoc only; cargo's own warnings (two crates whose docs land in one
# directory, one overwriting the other) would pass, so any warning in its output fails too.
doc_log=$(RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked 2>&1 | tee >(cat >&2))
if grep -q '^warning' <<<"$doc_log"; then
  echo "cargo doc warned (above); fix the warning, do not silence it"; exit 1
fi
step "tests";             cargo test --workspace --locked
# The guide builds into target/book; its links, anchors and code blocks are checked (its
# Rust examples ran above as doctests, its Python ones run with the Python tests).
step "guide";             ensure_mdbook; mdbook build docs
                          python3 scripts/check-links.py; python3 scripts/check-code-blocks.py
# The loom models need optimisation, not link-time optimisation (which only slows their build).
step "loom models";       RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom CARGO_PROFILE_RELEASE_LTO=off \
                          CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo test -p ringbus --lib --release --locked

step "miri (algorithms on heap-backed segments)"
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^miri'; then
  rustup toolchain install nightly --profile minimal --component miri --component rust-src
fi
CARGO_TARGET_DIR=target/miri cargo +nightly miri test -p ringbus --lib --locked

# Every fuzz target briefly, from its committed corpus: an input that crashed once stays
# fixed. Longer runs: scripts/fuzz.sh.
step "fuzz smoke";        cargo fmt --manifest-path fuzz/Cargo.toml -- --check
                          bash scripts/fuzz.sh "${RINGBUS_FUZZ_SMOKE_SECONDS:-20}"

step "python bindings";   bash scripts/test-python.sh
step "MCAP recordings (Foxglove's Go mcap CLI: doctor, info; skipped if it cannot be built)"
                          bash scripts/test-mcap-go.sh
step "C++ (GoogleTest under ASan/UBSan, CMake install, pkg-config)"; bash scripts/test-cpp.sh
step "router (pymavlink, AddressSanitizer)"; bash scripts/test-route.sh
step "bridge (eclipse-zenoh from Python)"; bash scripts/test-bridge.sh
step "ROS 2 bridge (cyclonedds from Python)"; bash scripts/test-ros2.sh

# The published crates package and build from their packages alone, together: each one's
# path dependencies come from the others' packages (crates.io does not have them yet).
step "packages (cargo publish --dry-run)"
# cargo unpacks the packages it verifies under ~/.cargo/registry/src/-<id of this checkout's
# path>/ and never unpacks the same version there again: a checkout at a path used before
# would be verified against the sources of that earlier run. Our crates are on no registry,
# so every unpacked copy of them is such a leftover.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ringbus-[0-9]* "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ringbus-*-[0-9]*
cargo publish --dry-run --allow-dirty --locked -p ringbus -p ringbus-route -p ringbus-bench -p ringbus-cli

step "leftovers"
# ringbus-example-*: the roots the examples make for themselves when run alone.
leftover=$(find "$RINGBUS_ROOT" /dev/shm -maxdepth 1 -mindepth 1 \( -name 'ringbus-test-*' -o -name 'ringbus-fuzz-*' \
  -o -name 'ringbus-example-*' -o -path "$RINGBUS_ROOT/*" \) 2>/dev/null || true)
if [ -n "$leftover" ]; then
  echo "tests left shared memory behind:"; echo "$leftover"; exit 1
fi
echo "all tests passed"
