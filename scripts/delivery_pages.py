#!/usr/bin/env python3
"""Pages a blocked subscriber touches per delivery in a native run (no valgrind), by mapping.

Runs `ringbus bench fanout` with one subscriber at 5 messages a second. For each of
WINDOWS periods it clears the subscriber process's accessed bits (/proc/PID/clear_refs,
which also drops its TLB entries), waits one period (one message arrives, is taken and the
subscriber sleeps again) and reads how many pages of each mapping were referenced
(/proc/PID/smaps). Prints the median over the windows, for ringbus and for the futex
floor (the same wake protocol over a bare ring). Complements delivery-instructions.sh,
whose counts run under valgrind's own allocator: here the heap is the C library's.

Usage: delivery_pages.py RINGBUS_BINARY [WINDOWS]   (needs Linux; about 15 s per transport)"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RATE_HZ = 5
WARM_UP_MESSAGES = 20  # the bench's own warm-up before its measured messages


def worker_pid(transport, deadline):
    """The bench's subscriber process for `transport` (its arguments name it)."""
    while time.monotonic() < deadline:
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                args = cmdline.read_bytes().split(b"\0")
            except OSError:
                continue
            if b"bench-worker" in args and any(f'"transport":"{transport}"'.encode() in a for a in args):
                return int(cmdline.parent.name)
        time.sleep(0.05)
    sys.exit(f"no {transport} subscriber process appeared")


def referenced_pages(pid, binary_name):
    """Referenced 4 KiB pages per mapping, named by what it is."""
    pages, name = {}, None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        m = re.match(r"[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)", line)
        if m:
            perms, path = m.group(1), m.group(2)
            file = path.rsplit("/", 1)[-1]
            if file == binary_name:
                file = "the binary"
            elif "/dev/shm/" in path:
                file = "shared memory: " + re.sub(r"\.[0-9a-f]{16}.*|\.t\d+$", "", file)
            name = f"{file or '[anonymous]'} ({'code' if 'x' in perms else perms})"
        elif line.startswith("Referenced:") and name:
            pages[name] = pages.get(name, 0) + int(line.split()[1]) // 4
    return pages


def measure(binary, transport, windows, root):
    bench = [binary, "bench", "fanout", "--transports", transport, "--subs", "1", "--size", "64",
             "--repeat", "1", "--rate", str(RATE_HZ), "--count", str(windows + 10), "--root", root]
    run = subprocess.Popen(bench, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        pid = worker_pid(transport, time.monotonic() + 30)
        time.sleep((WARM_UP_MESSAGES + 2) / RATE_HZ)
        samples = []
        for _ in range(windows):
            Path(f"/proc/{pid}/clear_refs").write_text("1")
            time.sleep(1 / RATE_HZ)
            samples.append(referenced_pages(pid, Path(binary).name))
    finally:
        _, err = run.communicate()
    if run.returncode != 0:
        sys.exit(f"the bench failed:\n{err}")
    names = sorted({n for s in samples for n in s})
    medians = {n: statistics.median(s.get(n, 0) for s in samples) for n in names}
    total = statistics.median(sum(s.values()) for s in samples)
    detail = ", ".join(f"{medians[n]:g} {n}" for n in names if medians[n])
    print(f"{transport}: {total:g} pages per delivery (median of {windows} windows): {detail}")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary, windows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 25
    if not os.access(binary, os.X_OK):
        sys.exit(f"not an executable: {binary}")
    with tempfile.TemporaryDirectory(prefix="ringbus-pages-", dir="/dev/shm") as root:
        for transport in ("ringbus", "futex"):
            measure(binary, transport, windows, root + "/" + transport)


main()
