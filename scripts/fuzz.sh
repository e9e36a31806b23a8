#!/usr/bin/env bash
# Fuzzes what ringbus reads from shared memory: builds the libFuzzer targets in fuzz/ and
# runs each (or each one named) for SECONDS (default 60) from its corpus in
# fuzz/corpus/<target>. Exits non-zero if any target crashes, panics, hangs or runs out
# of memory; libFuzzer saves the input that did it in fuzz/artifacts/<target>/ (replay it
# with `cargo +nightly fuzz run <target> <file>` in fuzz/).
#
#   scripts/fuzz.sh                      every target, 60 s each
#   scripts/fuzz.sh 600 queue_segment    one target, 10 minutes
#   scripts/fuzz.sh --merge 300          and add the inputs that reach new code to the
#                                        committed corpus (only those: it stays small)
#
# The corpus files named regression-* are inputs that once failed; keep them.
#
# Installs what is missing: the nightly toolchain (libFuzzer needs it) and cargo-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

merge=0
if [ "${1:-}" = "--merge" ]; then merge=1; shift; fi
seconds="${1:-60}"
[ $# -gt 0 ] && shift
case "$seconds" in
  ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [--merge] [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

if ! cargo +nightly --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

cd fuzz
cargo +nightly fetch --locked --quiet # the committed Cargo.lock is current
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
# Debug assertions on (an overflow is a bug, as in the tests); address sanitizer.
if [ ${#targets[@]} -eq 1 ]; then
  cargo +nightly fuzz build --debug-assertions "${targets[0]}"
else
  cargo +nightly fuzz build --debug-assertions
fi

# A run's root is /dev/shm/ringbus-fuzz-<pid>[-templates], removed when the run ends or
# panics; a run killed for a hang cannot remove its own.
remove_dead_roots() {
  local dir pid
  for dir in /dev/shm/ringbus-fuzz-*; do
    [ -e "$dir" ] || continue
    pid="${dir#/dev/shm/ringbus-fuzz-}"; pid="${pid%-templates}"
    kill -0 "$pid" 2>/dev/null || rm -rf "$dir"
  done
}

mkdir -p target/logs
failed=()
for target in "${targets[@]}"; do
  corpus="corpus/$target"
  found="target/new-corpus/$target" # new finds go here, not into the committed corpus
  mkdir -p "$corpus" "$found"
  log="target/logs/$target.log"
  printf '%-20s %s s ... ' "$target" "$seconds"
  status=0
  cargo +nightly fuzz run --debug-assertions "$target" "$found" "$corpus" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 >"$log" 2>&1 || status=$?
  remove_dead_roots
  if [ "$status" -ne 0 ]; then
    echo "FAILED (exit $status)"; tail -n 60 "$log"
    failed+=("$target")
    continue
  fi
  grep -ao 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -n 1
  if [ "$merge" = 1 ]; then
    cargo +nightly fuzz run --debug-assertions "$target" "$corpus" "$found" -- \
      -merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 >>"$log" 2>&1
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found a problem in: ${failed[*]} (inputs in fuzz/artifacts/, logs in fuzz/target/logs/)" >&2
  exit 1
fi
