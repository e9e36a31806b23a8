#!/usr/bin/env bash
# Counts the instructions a blocked subscriber executes per message it receives, for
# ringbus and for the futex floor (the same wake protocol over a bare ring), with
# valgrind's callgrind. Unlike a timing this count does not move with the machine's load:
# use it to see what a change to the take path costs or saves, then measure the effect
# on latency with `ringbus bench fanout`.
#
#   scripts/delivery-instructions.sh                     the release build of this checkout
#   scripts/delivery-instructions.sh path/to/ringbus     another build (to compare two)
#
# It runs `ringbus bench fanout` with one subscriber and 220 messages (20 warm-up) under
# callgrind, following the subscriber processes, and divides each receiver's inclusive
# instruction count (the bench's `Receiver::next`: wait, take, read the header, drop the
# sample) by the number of messages it received. Needs valgrind (apt install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind > /dev/null || { echo "needs valgrind: apt install valgrind" >&2; exit 2; }
ringbus=${1:-}
if [[ -z $ringbus ]]; then
    cargo build --release -q -p ringbus-cli
    ringbus=target/release/ringbus
fi
[[ -x $ringbus ]] || { echo "not an executable: $ringbus" >&2; exit 2; }
out=$(mktemp -d /tmp/ringbus-callgrind.XXXXXX)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out/callgrind.%p" \
    "$ringbus" bench fanout --transports ringbus,futex --subs 1 --size 64 --repeat 1 \
    --rate 200 --count 200 --root "$out/root" > "$out/bench.txt" 2> "$out/valgrind.txt" ||
    { cat "$out/valgrind.txt" >&2; exit 1; }
for profile in "$out"/callgrind.*; do
    callgrind_annotate --inclusive=yes --tree=calling "$profile" 2> /dev/null
done | python3 -c '
import re, sys
found = {}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) .*>\s+.*<ringbus_bench::transports::(\w+)::(\w+) as .*Receiver>::next \((\d+)x\)", line)
    if m:
        found[m.group(2)] = (int(m.group(1).replace(",", "")), int(m.group(4)))
if set(found) != {"ringbus", "futex"}:
    sys.exit(f"could not find both receivers in the profiles (found: {sorted(found)})")
for name, label in (("ringbus", "ringbus"), ("futex", "futex floor")):
    total, calls = found[name]
    print(f"{label}: {total / calls:.0f} instructions per message received ({calls} messages)")
'
