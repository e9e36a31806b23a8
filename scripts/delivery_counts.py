"""Per-delivery counts of a blocked subscriber from two callgrind runs (see
delivery-instructions.sh): instructions per message, and pages of code run on every
delivery. Usage: delivery_counts.py RUN_DIR MORE_MESSAGES_RUN_DIR EXTRA_MESSAGES"""

import collections
import re
import subprocess
import sys
from pathlib import Path

RECEIVERS = {"ringbus": "ringbus", "futex": "futex floor"}


def receiver_profiles(run_dir):
    """The callgrind profile of each receiver process in a run, by transport."""
    found = {}
    for profile in Path(run_dir).glob("callgrind.*"):
        head = profile.read_text(errors="replace")[:4096]
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


def main():
    fewer, more, extra = receiver_profiles(sys.argv[1]), receiver_profiles(sys.argv[2]), int(sys.argv[3])
    for transport, label in RECEIVERS.items():
        per_message, calls = instructions_per_message(fewer[transport])
        before, after = page_counts(fewer[transport]), page_counts(more[transport])
        hot = [p for p, n in after.items() if n - before.get(p, 0) >= 0.9 * extra]
        by_object = collections.Counter(obj for obj, _ in hot)
        detail = ", ".join(f"{n} in {obj}" for obj, n in sorted(by_object.items()))
        print(f"{label}: {per_message:.0f} instructions per message received ({calls} messages); "
              f"{len(hot)} pages of code run on every delivery ({detail})")


main()
