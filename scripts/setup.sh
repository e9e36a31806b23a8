#!/usr/bin/env bash
# Prepares a fresh Debian machine (as root) for building and testing ringbus. Idempotent;
# sourced by scripts/test.sh and scripts/demo.sh.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: Rust is missing; install it with rustup (https://rustup.rs)" >&2; exit 1; }
if command -v rustup >/dev/null 2>&1; then
  for component in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$component" || rustup component add "$component"
  done
fi

# Exact system-call counting reads the raw_syscalls:sys_enter tracepoint from tracefs.
if [ ! -e /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ] && [ ! -e /sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || echo "setup: could not mount tracefs; syscall counts will be unavailable" >&2
fi

# The live view of `ringbus top` is tested through a real terminal: tmux (skipped without it).
if ! command -v tmux >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; } || echo "setup: could not install tmux; the terminal test of ringbus top will be skipped" >&2
  else
    echo "setup: tmux is missing and this is not root; the terminal test of ringbus top will be skipped" >&2
  fi
fi

# The user guide (docs/) is built by mdBook, at a pinned version; only scripts/test.sh asks
# for it (a first install builds it from source: about 5 minutes on 2 cores).
MDBOOK_VERSION=0.5.4
ensure_mdbook() {
  if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
    cargo install mdbook --locked --version "$MDBOOK_VERSION" --no-default-features --features search
  fi
}
