#!/usr/bin/env bash
# The main demonstration: one publisher and 1 to 128 subscriber processes, each asleep until
# a message comes, through ringbus and through eventfd, POSIX message queues and Unix
# datagram sockets, and the floor of ringbus's own wake design (the futex baseline), all
# measured in the same run (`ringbus bench fanout --quick`, under a minute).
#
# It ends with a verdict computed from this run's figures; the full table goes to
# target/demo/fanout.md (and the rows to target/demo/fanout.json).
#   bash scripts/demo.sh            # the verdict
#   bash scripts/demo.sh --full     # the full table too
# Any other arguments go to `ringbus bench fanout` (see `ringbus bench fanout --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

full=0
args=()
for arg in "$@"; do
  if [ "$arg" = --full ]; then full=1; else args+=("$arg"); fi
done
mkdir -p target/demo
bench=(cargo run --release --locked -p ringbus-cli -- bench fanout --quick --json target/demo/fanout.json)
if [ "$full" = 1 ]; then
  "${bench[@]}" ${args[@]+"${args[@]}"} | tee target/demo/fanout.md
else
  "${bench[@]}" --markdown target/demo/fanout.md ${args[@]+"${args[@]}"}
fi
