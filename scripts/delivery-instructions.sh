#!/usr/bin/env bash
# Counts what a blocked subscriber executes per message it receives, for ringbus and for
# the futex floor (the same wake protocol over a bare ring), with valgrind: the
# instructions, and the pages of code and of data it touches on every delivery. Unlike a timing
# these counts do not move with the machine's load: use them to see what a change to the
# take path costs or saves, then measure the effect on latency with `ringbus bench fanout`.
# (Pages matter because a subscriber woken after other processes ran on its CPU has
# usually lost its TLB entries: every page it touches then costs a page walk.)
#
#   scripts/delivery-instructions.sh                     the release build of this checkout
#   scripts/delivery-instructions.sh path/to/ringbus     another build (to compare two)
#
# It runs `ringbus bench fanout` with one subscriber under callgrind twice, with 200 and
# 400 measured messages (20 warm-up each), following the subscriber processes.
# Instructions: each receiver's inclusive count in the bench's `Receiver::next` (wait,
# take, read the header, drop the sample) over the messages it received, in the first
# run. Pages: the 4 KiB pages of code (the binary's and the C library's) in which some
# instruction ran (at least 0.9 times) per extra message of the second run; the pages of
# data (heap, stack, shared memory, the binary's own) loaded or stored as often, and the
# 64-byte lines of data among them, counted with valgrind's lackey. Then the pages of a
# native run, by mapping (delivery_pages.py: the accessed bits of the subscriber's page
# tables, one message at a time).
# Needs valgrind (apt install valgrind).
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
# Runs the bench with $count measured messages under valgrind with the tool options given,
# without address randomisation: pages are compared by address across runs.
under_valgrind() {
    setarch -R valgrind --trace-children=yes "$@" "$ringbus" bench fanout --transports ringbus,futex \
        --subs 1 --size 64 --repeat 1 --rate 200 --count "$count" --root "$out/root" \
        > "$out/bench.txt" 2> "$out/valgrind.txt" || { cat "$out/valgrind.txt" >&2; exit 1; }
}
for count in 200 400; do
    mkdir "$out/$count"
    under_valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$out/$count/callgrind.%p"
    under_valgrind --tool=lackey --trace-mem=yes --log-file="$out/$count/lackey.%p" # every load and store
done
python3 scripts/delivery_counts.py "$out/200" "$out/400" 200
# The same pages in a native run, where the heap is the C library's (valgrind has its own).
echo "native run:"
python3 scripts/delivery_pages.py "$ringbus"
