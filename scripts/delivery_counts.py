"""Per-delivery counts of a blocked subscriber, from two runs of the fan-out bench under
valgrind's callgrind and lackey (see delivery-instructions.sh): instructions per message,
pages of code and of data touched on every delivery, and the 64-byte lines of data among
them. (A line or page counts when it is used on every delivery: the log entry and payload
lines, which move on with each message, are not in the line count.)

Usage: delivery_counts.py RUN_DIR MORE_MESSAGES_RUN_DIR EXTRA_MESSAGES"""

import collections
import re
import subprocess
import sys
from pathlib import Path

RECEIVERS = {"ringbus": "ringbus", "futex": "futex floor"}


def receiver_profiles(run_dir, tool="callgrind"):
    """The profile (or lackey trace) of each receiver process in a run, by transport."""
    found = {}
    for profile in Path(run_dir).glob(f"{tool}.*"):
        with profile.open(errors="replace") as f:
            head = f.read(4096)
        m = re.search(r'"transport":"(\w+)"', head)
        if m and m.group(1) in RECEIVERS and "bench-worker" in head:
            found[m.group(1)] = profile
    if set(found) != set(RECEIVERS):
        sys.exit(f"could not find both receivers in {run_dir} (found: {sorted(found)})")
    return found


def instructions_per_message(profile):
    tree = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--tree=calling", str(profile)],
        capture_output=True, text=True, check=True,
    ).stdout
    pattern = r"\s*([\d,]+) .*>\s+.*<ringbus_bench::transports::\w+::\w+ as .*Receiver>::next \((\d+)x\)"
    for line in tree.splitlines():
        m = re.match(pattern, line)
        if m:
            total, calls = int(m.group(1).replace(",", "")), int(m.group(2))
            return total / calls, calls
    sys.exit(f"no Receiver::next in {profile}")


def page_counts(profile):
    """Most executions of any one instruction, per (object, 4 KiB page) of code."""
    pages = collections.defaultdict(int)
    objects, obj, addr, after_call = {}, "?", 0, False
    for line in profile.read_text(errors="replace").splitlines():
        m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(3):
                objects[m.group(2)] = m.group(3).rsplit("/", 1)[-1]
            if m.group(1) == "ob":
                obj = objects.get(m.group(2), "?")
            continue
        if line.startswith("calls="):
            after_call = True  # the next cost line is the call's inclusive cost
            continue
        if not line or line[0] not in "+-*0123456789":
            continue
        fields = line.split()
        if fields[0].startswith("0x"):
            addr = int(fields[0], 16)
        elif fields[0][0] in "+-":
            addr += int(fields[0], 0)
        if after_call:
            after_call = False
        elif len(fields) >= 3 and fields[2].isdigit():
            key = (obj, addr >> 12)
            pages[key] = max(pages[key], int(fields[2]))
    return pages


def data_counts(trace):
    """Loads and stores per 4 KiB page and per 64-byte line of data, from a lackey trace."""
    pages, lines = collections.Counter(), collections.Counter()
    with trace.open(errors="replace") as f:
        for line in f:
            if line[:2] in (" L", " S", " M"):
                address = int(line[3:].split(",", 1)[0], 16)
                pages[address >> 12] += 1
                lines[address >> 6] += 1
    return pages, lines


def touched_every_delivery(before, after, extra):
    """The pages (or lines) used (at least 0.9 times) once more per extra message."""
    return [p for p, n in after.items() if n - before.get(p, 0) >= 0.9 * extra]


def main():
    fewer, more, extra = receiver_profiles(sys.argv[1]), receiver_profiles(sys.argv[2]), int(sys.argv[3])
    fewer_traces, more_traces = receiver_profiles(sys.argv[1], "lackey"), receiver_profiles(sys.argv[2], "lackey")
    for transport, label in RECEIVERS.items():
        per_message, calls = instructions_per_message(fewer[transport])
        before, after = page_counts(fewer[transport]), page_counts(more[transport])
        code = touched_every_delivery(before, after, extra)
        by_object = collections.Counter(obj for obj, _ in code)
        detail = ", ".join(f"{n} in {obj}" for obj, n in sorted(by_object.items()))
        (pages_before, lines_before), (pages_after, lines_after) = (
            data_counts(fewer_traces[transport]), data_counts(more_traces[transport]))
        data = touched_every_delivery(pages_before, pages_after, extra)
        lines = touched_every_delivery(lines_before, lines_after, extra)
        print(f"{label}: {per_message:.0f} instructions per message received ({calls} messages); "
              f"pages touched on every delivery: {len(code)} of code ({detail}), {len(data)} of data "
              f"({len(lines)} lines of data)")


main()
