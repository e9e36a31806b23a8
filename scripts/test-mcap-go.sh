#!/usr/bin/env bash
# Foxglove's own MCAP tools accept what `ringbus record` writes: builds their Go command
# (`mcap`) with `go install` from the Go module proxy into target/go-bin, records two topics
# (one untyped, one split over two files) and runs `mcap doctor` and `mcap info` on every file.
# Without Go, or if the module cannot be fetched or built, it says "skipped: ..." and
# succeeds: the recordings are also read back by the mcap crate (cargo test) and the Python
# mcap package (the Python tests).
set -euo pipefail
cd "$(dirname "$0")/.."

go=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
export GOBIN="$PWD/target/go-bin"
if [ ! -x "$go" ]; then
  echo "skipped: the mcap Go CLI check needs Go (none at $go; set GO=/path/to/go)"; exit 0
fi
if ! "$go" install github.com/foxglove/mcap/go/cli/mcap@latest; then
  echo "skipped: \`go install github.com/foxglove/mcap/go/cli/mcap@latest\` failed (above): the mcap Go CLI check did not run"
  exit 0
fi
cargo build -q -p ringbus-cli --locked
ringbus=target/debug/ringbus

RINGBUS_ROOT=$(mktemp -d /dev/shm/ringbus-test-go-XXXXXX); export RINGBUS_ROOT
out=$(mktemp -d "${TMPDIR:-/tmp}/ringbus-mcap-go-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$RINGBUS_ROOT" "$out"; }
trap cleanup EXIT

"$ringbus" pub go/chatter hello --rate 200 --count 400 --wait-subscribers 2 & pids+=($!)
head -c 300000 /dev/urandom > "$out/frame.bin"
"$ringbus" pub go/frames --file "$out/frame.bin" --rate 20 --count 40 --wait-subscribers 2 & pids+=($!)
"$ringbus" record go/chatter go/frames -o "$out/one.mcap" --duration 4s & pids+=($!)
"$ringbus" record go/chatter go/frames -o "$out/split.mcap" --max-bytes 8MiB --compression lz4 --duration 4s & pids+=($!)
wait "${pids[@]}"; pids=()

for file in "$out"/one.mcap "$out"/split-*.mcap; do
  echo "== $(basename "$file")"
  "$GOBIN/mcap" doctor "$file"
  "$GOBIN/mcap" info "$file"
done
echo "mcap doctor and mcap info accept the recordings"
