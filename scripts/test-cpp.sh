#!/usr/bin/env bash
# The C++ API's tests: the GoogleTest suite under AddressSanitizer and
# UndefinedBehaviorSanitizer (with its canaries, which must fail), the examples built with
# -Werror through add_subdirectory and run, and an install into a temporary prefix used
# through find_package (the examples' project) and pkg-config. Everything is built under
# target/cpp.
#
# Needs cmake, a C++17 compiler, GoogleTest and pkg-config; as root on Debian or Ubuntu it
# installs those that are missing (apt-get install -y cmake g++ libgtest-dev pkg-config).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v c++ >/dev/null || missing+=(g++)
command -v pkg-config >/dev/null || missing+=(pkg-config)
[ -e /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    step "C++: installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "scripts/test-cpp.sh needs ${missing[*]}: install them (Debian: sudo apt-get install -y ${missing[*]})"
    exit 1
  fi
fi

jobs=$(nproc)
out=target/cpp
prefix=$(mktemp -d "${TMPDIR:-/tmp}/ringbus-cpp-install-XXXXXX")
trap 'rm -rf "$prefix"' EXIT

# Examples run alone make a root of their own (/dev/shm/ringbus-example-PID) and remove it.
# Each gets 60 s (they take well under one), then it is killed and the script fails.
run_example() {
  local exe=$1
  env -u RINGBUS_ROOT "$exe" &
  local pid=$!
  (for _ in $(seq 600); do sleep 0.1; done; kill -9 "$pid" 2>/dev/null) &  # killed, leaves no sleep behind
  local watchdog=$!
  if ! wait "$pid"; then
    kill "$watchdog" 2>/dev/null || true
    echo "$exe failed (or ran over 60 s)"; exit 1
  fi
  kill "$watchdog" 2>/dev/null || true
  if [ -e "/dev/shm/ringbus-example-$pid" ]; then
    echo "$exe left /dev/shm/ringbus-example-$pid behind"; exit 1
  fi
}

# Already built by `cargo test --workspace` when scripts/test.sh runs this: then a no-op.
step "C++: the C library, the CLI and the Rust example the tests call"
cargo build -p ringbus-c -p ringbus-cli --locked
cargo build -p ringbus --example command_queue --locked

step "C++: tests (GoogleTest, AddressSanitizer, UndefinedBehaviorSanitizer)"
cmake -S crates/ringbus-c -B "$out/tests" -DRINGBUS_BUILD_TESTS=ON -DRINGBUS_CARGO_PROFILE=dev >/dev/null
cmake --build "$out/tests" -j "$jobs"
(cd "$out/tests" && ctest --output-on-failure)

step "C++: examples through add_subdirectory, with -Werror"
cmake -S examples/cpp -B "$out/examples" -DRINGBUS_FROM_SOURCE=ON -DRINGBUS_CARGO_PROFILE=dev >/dev/null
cmake --build "$out/examples" -j "$jobs"
for example in listener camera waitset service talker; do run_example "$out/examples/$example"; done
# latency is a benchmark: built (above), not run here.

step "C++: install, then find_package and pkg-config"
cmake --install "$out/tests" --prefix "$prefix" >/dev/null
cmake -S examples/cpp -B "$out/installed" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$out/installed" -j "$jobs"
grep -q "ringbus_DIR:PATH=$prefix/" "$out/installed/CMakeCache.txt" \
  || { echo "find_package found another ringbus than the one installed in $prefix"; exit 1; }
run_example "$out/installed/listener"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
echo "pkg-config --cflags --libs ringbus: $(pkg-config --cflags --libs ringbus)"
c++ -std=c++17 -Wall -Wextra -Werror examples/cpp/talker.cpp $(pkg-config --cflags --libs ringbus) -o "$out/talker-pkg-config"
LD_LIBRARY_PATH="$prefix/lib" run_example "$out/talker-pkg-config"

echo "C++: all passed in ${SECONDS} s"
