"""A 1080p RGB sensor_msgs/Image (1920 x 1080 x 3, 6.2 MB) at 30 Hz: ringbus publisher to N
local ringbus subscribers, with and without ringbus-ros2 carrying the topic to a DDS reader,
and that DDS reader's latency against a Cyclone DDS publisher -> reader of the same image.

    source scripts/venv.sh 'maturin>=1.9.4,<2' 'cyclonedds==11.0.1' 'numpy>=1.24'
    python -m pip install --no-build-isolation --no-deps .        # the ringbus package
    cargo build --release -p ringbus-ros2
    python crates/ringbus-ros2/bench/ros2_bench.py [--quick] [--subscribers 1 4] [--frames 300]

Each point is one set of processes: the publisher (this process), N subscribers, and in the
"bridge" points ringbus-ros2 (--out, --network 127.0.0.1), without and then with a cyclonedds
reader (the bridge alone copies each image; with a reader it also sends it); "dds only"
is a cyclonedds writer and reader. e2e = the image's header stamp (time.time_ns() just before
publish / write) -> the reader holding the message (ringbus: the sample, header parsed, pixels
in place; cyclonedds: the taken, deserialized message). All on one machine, loopback only
(cyclonedds by unicast: CYCLONEDDS_URI is set here). Prints a markdown table (p50/p99 in ms,
frames received, the rate they arrived at, and the DDS reader's SAMPLE_LOST count: images the
writer gave up on, as opposed to images the reader's own KEEP_LAST history dropped because it
took them more slowly than they came) and the ratios; --json writes the rows.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "../../.."))
sys.path.insert(0, os.path.join(HERE, "../tests/python"))
# Loopback, unicast discovery; a socket receive buffer of up to 4 MB (the kernel caps it at
# net.core.rmem_max, 4 MB here; Cyclone's default took 1 of 60 images through the bridge): a 6.2 MB image arrives as ~4,800 fragments.
os.environ.setdefault("CYCLONEDDS_URI", (
    "<CycloneDDS><Domain Id='any'><General><Interfaces><NetworkInterface address='127.0.0.1'/>"
    "</Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery>"
    "<ParticipantIndex>auto</ParticipantIndex><Peers><Peer Address='127.0.0.1'/></Peers>"
    "</Discovery><Internal><SocketReceiveBufferSize max='4MB'/></Internal></Domain></CycloneDDS>"
))
TOPIC, ROS_NAME = "bench/camera", "/bench/camera"
HEIGHT, WIDTH = 1080, 1920
SETTLE_S = 3.0  # after the last frame, how long readers wait for late ones


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


# ------------------------------------------------------------------ child processes


def report(latencies_ns, arrivals, lost=0):
    """The child's result, one JSON line: its latencies, the rate its images arrived at
    (first to last), and, for a DDS reader, how many samples it was told were lost on the
    way (DDS SAMPLE_LOST: the writer gave them up)."""
    span = arrivals[-1] - arrivals[0] if len(arrivals) > 1 else 0.0
    rate = (len(arrivals) - 1) / span if span > 0 else float("nan")
    print(json.dumps({"latencies": latencies_ns, "rate_hz": rate, "lost": lost}), flush=True)


def ringbus_subscriber(frames):
    import ringbus
    from ringbus import ros

    with ringbus.Node("bench-sub") as node:
        sub = ros.topic(node, TOPIC, ros.IMAGE).subscriber()
        print("ready", flush=True)
        got, arrivals = [], []
        while len(got) < frames:
            try:
                sample = sub.receive(timeout=SETTLE_S if got else 600)
            except ringbus.Timeout:
                break
            now = time.time_ns()
            with memoryview(sample) as view:
                sec, nanosec = struct.unpack_from("<iI", view, 4)
            got.append(now - (sec * 1_000_000_000 + nanosec))
            arrivals.append(time.monotonic())
            sample.release()
    report(got, arrivals)


def dds_reader(domain, frames, depth):
    from cyclonedds.util import duration
    from dds_peer import Peer, matched
    from ros_types import Image

    reader = Peer(domain).reader(ROS_NAME, Image, depth=depth)
    while matched(reader) < 1:
        time.sleep(0.01)
    print("ready", flush=True)
    got, arrivals, deadline = [], [], time.monotonic() + 60
    while len(got) < frames and time.monotonic() < deadline:
        for image in reader.take_iter(timeout=duration(seconds=SETTLE_S)):
            stamp = image.header.stamp
            got.append(time.time_ns() - (stamp.sec * 1_000_000_000 + stamp.nanosec))
            arrivals.append(time.monotonic())
        if got:
            deadline = min(deadline, time.monotonic() + SETTLE_S)
    report(got, arrivals, reader.get_sample_lost_status().total_count)


def dds_writer(domain, frames, hz):
    import numpy as np
    from dds_peer import Peer, matched
    from ros_types import Header, Image, Time

    writer = Peer(domain).writer(ROS_NAME, Image)
    while matched(writer) < 1:
        time.sleep(0.01)
    print("ready", flush=True)
    sys.stdin.readline()
    pixels = np.zeros(HEIGHT * WIDTH * 3, dtype=np.uint8)
    start = time.monotonic()
    for i in range(frames):
        pixels[:] = i % 251
        ns = time.time_ns()
        header = Header(stamp=Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000), frame_id="camera")
        writer.write(Image(header=header, height=HEIGHT, width=WIDTH, encoding="rgb8", is_bigendian=0,
                           step=WIDTH * 3, data=pixels.tobytes()))
        time.sleep(max(0.0, start + (i + 1) / hz - time.monotonic()))
    time.sleep(SETTLE_S + 1)


# ------------------------------------------------------------------ the orchestrator


class Child:
    def __init__(self, args, env, stdin=False):
        self.p = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True,
                                  stdin=subprocess.PIPE if stdin else None)

    def wait_ready(self, what="ready"):
        for line in self.p.stdout:
            if line.startswith(what):
                return
        raise RuntimeError(f"{self.p.args} ended before it was {what}")

    def result(self, timeout):
        out, _ = self.p.communicate(timeout=timeout)
        return json.loads(out.strip().splitlines()[-1])

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def me(*args):
    return [sys.executable, os.path.abspath(__file__), *map(str, args)]


def publish_images(frames, hz):
    import ringbus
    from ringbus import ros

    with ringbus.Node("bench-pub") as node:
        pub = ros.topic(node, TOPIC, ros.IMAGE).publisher()
        start = time.monotonic()
        for i in range(frames):
            message = ros.loan_image(pub, HEIGHT, WIDTH, "rgb8", frame_id="camera")
            message.as_array()[:] = i % 251
            ns = time.time_ns()
            memoryview(message.loan)[4:12] = struct.pack("<iI", ns // 1_000_000_000, ns % 1_000_000_000)
            message.publish()
            time.sleep(max(0.0, start + (i + 1) / hz - time.monotonic()))


def run_point(n, bridge, reader, args, env, domain):
    """Publisher + n subscribers (+ the bridge, + a DDS reader): their latencies."""
    import ringbus
    from ringbus import ros

    children, dds, out = [], None, {}
    with ringbus.Node("bench-owner") as owner:
        ros.topic(owner, TOPIC, ros.IMAGE).subscriber().close()  # creates the topic, 16 MiB
        try:
            subs = [Child(me("sub", args.frames), env) for _ in range(n)]
            children += subs
            for s in subs:
                s.wait_ready()
            if bridge:
                nice = ["nice", "-n", str(args.bridge_nice)] if args.bridge_nice else []
                b = Child([*nice, args.bridge, "--domain", domain, "--network", "127.0.0.1", "--out", f"{TOPIC}={ROS_NAME}"], env)
                children.append(b)
                b.wait_ready("ready:")
            if bridge and reader:
                dds = Child(me("dds-reader", domain, args.frames, args.reader_depth), env)
                children.append(dds)
                dds.wait_ready()
            publish_images(args.frames, args.hz)
            local = [s.result(timeout=120) for s in subs]
            out["local"] = {"latencies": sum((r["latencies"] for r in local), []), "lost": None,
                            "rate_hz": min(r["rate_hz"] for r in local)}
            if dds:
                out["dds"] = dds.result(timeout=120)
        finally:
            for c in children:
                c.stop()
    return out


def run_dds_only(args, env, domain):
    reader = Child(me("dds-reader", domain, args.frames, args.reader_depth), env)
    writer = Child(me("dds-writer", domain, args.frames, args.hz), env, stdin=True)
    try:
        writer.wait_ready()
        reader.wait_ready()
        writer.p.stdin.write("go\n")
        writer.p.stdin.flush()
        return reader.result(timeout=120 + args.frames / args.hz)
    finally:
        writer.stop()
        reader.stop()


def row(name, result, frames):
    ms = [v / 1e6 for v in result["latencies"]]
    return {"point": name, "p50_ms": percentile(ms, 0.5), "p99_ms": percentile(ms, 0.99), "received": len(ms),
            "sent": frames, "lost_on_the_way": result["lost"], "arrival_hz": result["rate_hz"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 frames per point (default 300)")
    parser.add_argument("--frames", type=int, default=None)
    parser.add_argument("--hz", type=float, default=30.0)
    parser.add_argument("--reader-depth", type=int, default=10,
                        help="KEEP_LAST depth of the DDS reader (ROS 2's default: 10); a reader that takes "
                             "more slowly than the images come loses the oldest ones it holds beyond it")
    parser.add_argument("--subscribers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--bridge", default=os.path.join(REPO, "target/release/ringbus-ros2"))
    parser.add_argument("--bridge-nice", type=int, default=0,
                        help="run the bridge under nice -n N (local subscribers get the CPUs first)")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args()
    args.frames = args.frames or (60 if args.quick else 300)
    root = tempfile.mkdtemp(prefix="ringbus-test-bench-", dir="/dev/shm")
    env = dict(os.environ, RINGBUS_ROOT=root)
    os.environ["RINGBUS_ROOT"] = root
    domain = str(180 + os.getpid() % 40)
    rows = []
    try:
        for n in args.subscribers:
            alone = run_point(n, False, False, args, env, domain)
            unread = run_point(n, True, False, args, env, domain)
            bridged = run_point(n, True, True, args, env, domain)
            rows.append(row(f"{n} local, no bridge", alone["local"], args.frames * n))
            rows.append(row(f"{n} local, bridge without a DDS reader", unread["local"], args.frames * n))
            rows.append(row(f"{n} local, bridge attached", bridged["local"], args.frames * n))
            rows.append(row(f"DDS reader via bridge ({n} local)", bridged["dds"], args.frames))
        rows.append(row("DDS only: cyclonedds writer -> reader", run_dds_only(args, env, domain), args.frames))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print_table(rows, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


def print_table(rows, args):
    print(f"\n1080p rgb8 sensor_msgs/Image at {args.hz:g} Hz, {args.frames} frames per point, "
          f"DDS reader KEEP_LAST({args.reader_depth}), bridge at nice {args.bridge_nice}\n")
    print("| point | p50 ms | p99 ms | received / sent | arrived at (Hz) | DDS: lost on the way |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        lost = "" if r["lost_on_the_way"] is None else r["lost_on_the_way"]
        print(f"| {r['point']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['received']} / {r['sent']} | "
              f"{r['arrival_hz']:.1f} | {lost} |")
    by = {r["point"]: r for r in rows}
    dds_only = by["DDS only: cyclonedds writer -> reader"]
    print("\n| ratio | p50 | p99 |\n|---|---:|---:|")
    for n in args.subscribers:
        a, u, b = by[f"{n} local, no bridge"], by[f"{n} local, bridge without a DDS reader"], by[f"{n} local, bridge attached"]
        print(f"| {n} local: bridge without a DDS reader / no bridge | {u['p50_ms'] / a['p50_ms']:.2f} | "
              f"{u['p99_ms'] / a['p99_ms']:.2f} |")
        print(f"| {n} local: bridge attached / no bridge | {b['p50_ms'] / a['p50_ms']:.2f} | {b['p99_ms'] / a['p99_ms']:.2f} |")
        d = by[f"DDS reader via bridge ({n} local)"]
        print(f"| DDS reader: via bridge ({n} local) / DDS only | {d['p50_ms'] / dds_only['p50_ms']:.2f} | "
              f"{d['p99_ms'] / dds_only['p99_ms']:.2f} |")


def child_or_main():
    if len(sys.argv) > 1 and sys.argv[1] == "sub":
        ringbus_subscriber(int(sys.argv[2]))
    elif len(sys.argv) > 1 and sys.argv[1] == "dds-reader":
        dds_reader(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "dds-writer":
        dds_writer(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
    else:
        main()


if __name__ == "__main__":
    try:
        child_or_main()
    except KeyboardInterrupt:  # a child stopped by the orchestrator
        sys.exit(130)
