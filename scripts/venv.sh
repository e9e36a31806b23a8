#!/usr/bin/env bash
# Creates (once) the Python virtual environment that tests and benchmarks use and installs
# into it the packages named as arguments (pip requirement specifiers). Sourced, it leaves
# the environment's bin/ first on PATH. RINGBUS_VENV moves it (default: target/venv).
#   source scripts/venv.sh 'pytest>=8' pymavlink
ringbus_venv="${RINGBUS_VENV:-$PWD/target/venv}"
if [ ! -x "$ringbus_venv/bin/python" ]; then
  if ! python3 -m venv "$ringbus_venv" 2>/dev/null; then
    # Debian ships venv's ensurepip separately.
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
      rm -rf "$ringbus_venv"; python3 -m venv "$ringbus_venv"
    else
      echo "venv: python3 -m venv failed; install python3-venv" >&2; return 1 2>/dev/null || exit 1
    fi
  fi
fi
export VIRTUAL_ENV="$ringbus_venv"
export PATH="$ringbus_venv/bin:$PATH"
if [ $# -gt 0 ]; then
  "$ringbus_venv/bin/python" -m pip install -q --disable-pip-version-check "$@"
fi
