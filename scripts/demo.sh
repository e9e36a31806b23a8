#!/usr/bin/env bash
# The main demonstration: the fan-out benchmark (one publisher, 1 to 128 subscriber
# processes) in quick mode, ringbus against eventfd, POSIX mq and Unix datagram sockets,
# and against the floor of its own wake design (the futex baseline), all measured in the
# same run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo run --release --locked -p ringbus-cli -- bench fanout --quick "$@"
