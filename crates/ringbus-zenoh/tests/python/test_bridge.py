"""`ringbus-bridge` with eclipse-zenoh (Python) as the far side and the `ringbus` CLI on
the near side: --out and --in of one key expression behave as --both, each mapping's
counters name it, a burst from Zenoh into a sleeping subscriber is counted where it is
lost and arrives whole where it must, bad endpoints and wildcards are refused, --in with
a wildcard gathers many key expressions into one topic, and peers are logged as they come
and go. Counts are exact."""

import json
import os
import signal
import subprocess
import time

import pytest
import zenoh
from conftest import BRIDGE, RINGBUS, Collector, counters, free_port, matched, wait_for

BURST = 100


def start_echo(root, topic, *args):
    """`ringbus echo TOPIC --json ARGS`, subscribed (its slot is in `ringbus info`)."""
    echo = root.start(RINGBUS, "echo", topic, "--json", *args)
    wait_for(lambda: root.subscriber(topic, echo.pid) is not None, "the echo's subscription")
    return echo


def texts(echo):
    """The texts an ended echo printed, once its output is read to the end (the reading
    thread may lag behind the process's exit)."""
    wait_for(lambda: echo.out.closed, "the echo's output")
    return [json.loads(l)["text"] for l in echo.out.lines]


def bridge_publishes(root, topic):
    """How many messages the bridge (the topic's only publisher) has published on `topic`."""
    info = root.info(topic)
    return sum(p["publishes"] for p in info["publishers"])


def test_out_and_in_of_one_key_expression_behave_as_both(root, bridge, zenoh_session):
    b = bridge("--out", "demo/x", "--in", "demo/x")
    merged = b.out.wait_for(lambda l: l.startswith("  "), "the mapping line")
    assert merged == "  demo/x <-> ringbus/demo/x (given as --out and --in: carried once, both ways, as --both)"
    session = zenoh_session(b)
    back = Collector(session, "ringbus/demo/x")
    put = session.declare_publisher("ringbus/demo/x")
    echo = start_echo(root, "demo/x", "--count", "1", "--timeout", "30")
    matched(put)

    put.put("hello")
    assert echo.wait(timeout=30) == 0, "\n".join(echo.err.lines)
    assert texts(echo) == ["hello"], "delivered once"
    time.sleep(1.0)  # an echo back to Zenoh would have arrived by now
    assert back.payloads == [], "nothing sent back to Zenoh"
    run = root.ringbus("pub", "demo/x", "local")
    assert run.returncode == 0, run.stderr
    wait_for(lambda: back.payloads, "the local message in Zenoh")
    time.sleep(0.5)
    assert back.payloads == ["local"], "what is published here goes out, once"

    lines = b.stop()
    assert [l.split(":")[0] for l in lines] == ["demo/x <-> ringbus/demo/x", "topic demo/x"], lines
    c = counters(lines, "demo/x <-> ringbus/demo/x")
    assert (c["from_zenoh"], c["own_skipped"], c["to_zenoh"], c["errors"]) == (1, 1, 1, 0), lines


def test_counters_lines_name_the_direction_and_key_expression(root, bridge):
    b = bridge("--out", "demo/a", "--in", "demo/b=fleet/b", "--both", "demo/c")
    lines = b.stop()
    names = [l.split(": ")[0] for l in lines]
    assert names == ["demo/a -> ringbus/demo/a", "demo/b <- fleet/b", "demo/c <-> ringbus/demo/c",
                     "topic demo/b", "topic demo/c"], lines
    assert counters(lines, "topic demo/b") == {"subscribers_lost": 0}


def burst_into_stopped_echo(session, topic, echo):
    """SIGSTOPs `echo` (it sleeps through what follows), then puts BURST messages from
    Python on the topic's key expression."""
    put = session.declare_publisher(f"ringbus/{topic}", congestion_control=zenoh.CongestionControl.BLOCK)
    matched(put)
    os.kill(echo.pid, signal.SIGSTOP)
    for i in range(BURST):
        put.put(f"m{i}")
    return put


def test_a_burst_into_a_sleeping_lossy_echo_is_counted_by_the_bridge_and_the_echo(root, bridge, zenoh_session):
    b = bridge("--in", "demo/burst")  # the topic's default depth: 16
    session = zenoh_session(b)
    echo = start_echo(root, "demo/burst", "--count", str(BURST), "--timeout", "10")
    _put = burst_into_stopped_echo(session, "demo/burst", echo)  # kept: its puts may still be queued
    wait_for(lambda: bridge_publishes(root, "demo/burst") == BURST, "the bridge published the burst")
    os.kill(echo.pid, signal.SIGCONT)

    assert echo.wait(timeout=30) == 4, "\n".join(echo.err.lines)
    assert texts(echo) == [f"m{i}" for i in range(BURST - 16, BURST)], "the last 16"
    wait_for(lambda: echo.err.closed, "the echo's message")
    assert ("16 of 100 messages before the timeout; 84 lost (overwritten before they were read: "
            "the topic's depth is 16 — use --reliable, or a deeper topic)") in echo.err.lines[-1]

    lines = b.stop()
    assert counters(lines, "topic demo/burst") == {"subscribers_lost": 84}, lines
    c = counters(lines, "demo/burst <- ringbus/demo/burst")
    assert (c["from_zenoh"], c["full"], c["errors"]) == (BURST, 0, 0), lines


@pytest.mark.parametrize("how", ["reliable echo", "depth 128"])
def test_a_burst_into_a_sleeping_echo_arrives_whole_when_reliable_or_deep_enough(root, bridge, zenoh_session, how):
    if how == "reliable echo":
        # The bridge waits for the stopped echo up to --in-wait-ms per message.
        b, echo_args, published = bridge("--in", "demo/burst", "--in-wait-ms", "3000"), ["--reliable"], 16
    else:
        b, echo_args, published = bridge("--in", "demo/burst", "--depth", "128"), [], BURST
    session = zenoh_session(b)
    echo = start_echo(root, "demo/burst", "--count", str(BURST), "--timeout", "30", *echo_args)
    _put = burst_into_stopped_echo(session, "demo/burst", echo)  # kept: its puts may still be queued
    wait_for(lambda: bridge_publishes(root, "demo/burst") >= published, "the bridge published what fits")
    time.sleep(0.2)
    os.kill(echo.pid, signal.SIGCONT)

    assert echo.wait(timeout=30) == 0, "\n".join(echo.err.lines)
    assert texts(echo) == [f"m{i}" for i in range(BURST)], "the whole burst, in order"
    lines = b.stop()
    assert counters(lines, "topic demo/burst") == {"subscribers_lost": 0}, lines
    c = counters(lines, "demo/burst <- ringbus/demo/burst")
    assert (c["from_zenoh"], c["full"], c["errors"]) == (BURST, 0, 0), lines


def refused(root, *args):
    """`ringbus-bridge ARGS` that is expected to exit at once."""
    return subprocess.run([BRIDGE, "--no-multicast", *args], env=root.env, capture_output=True, text=True, timeout=30)


def test_an_unresolvable_connect_or_a_port_out_of_range_exits_1_naming_the_endpoint(root):
    run = refused(root, "--out", "demo/x", "--connect", "tcp/nosuch.invalid:7447")
    assert run.returncode == 1, run.stderr
    assert "cannot connect to tcp/nosuch.invalid:7447: DNS could not resolve the host name" in run.stderr
    assert "ready" not in run.stdout
    run = refused(root, "--out", "demo/x", "--connect", "tcp/127.0.0.1:70000")
    assert run.returncode == 1, run.stderr
    assert "port 70000 is out of range 1-65535" in run.stderr


@pytest.mark.parametrize("option,spec", [("--out", "a/b=robot/*/a"), ("--both", "a=robot/**"),
                                         ("--out", "a=robot/$*1")])
def test_a_wildcard_where_the_bridge_puts_exits_2(root, option, spec):
    run = refused(root, option, spec)
    assert run.returncode == 2, run.stderr
    assert "wildcard" in run.stderr and "only for --in" in run.stderr, run.stderr


def test_in_with_a_wildcard_gathers_two_key_expressions_into_one_topic(root, bridge, zenoh_session):
    b = bridge("--in", "fleet/status=robot/*/status")
    session = zenoh_session(b)
    echo = start_echo(root, "fleet/status", "--count", "2", "--timeout", "30")
    robots = [session.declare_publisher(f"robot/{n}/status") for n in (1, 2)]
    for put in robots:
        matched(put)
    robots[0].put("robot 1 ok")
    robots[1].put("robot 2 ok")
    assert echo.wait(timeout=30) == 0, "\n".join(echo.err.lines)
    assert texts(echo) == ["robot 1 ok", "robot 2 ok"]
    c = counters(b.stop(), "fleet/status <- robot/*/status")
    assert (c["from_zenoh"], c["errors"]) == (2, 0)


def test_peers_are_logged_as_they_connect_and_disconnect(root, bridge, zenoh_session):
    b = bridge("--both", "demo/x")
    session = zenoh_session(b)
    zid = str(session.zid())
    b.err.wait_for(lambda l: l == f"ringbus-bridge: peer {zid} connected", "the connection's log line")
    session.close()
    b.err.wait_for(lambda l: l == f"ringbus-bridge: peer {zid} disconnected", "the disconnection's log line")
    b.stop()
    assert [l for l in b.err.lines if "peer" in l] == [f"ringbus-bridge: peer {zid} connected",
                                                       f"ringbus-bridge: peer {zid} disconnected"]


def test_a_connect_that_nobody_answers_is_reported_once(root, bridge):
    nobody = f"tcp/127.0.0.1:{free_port()}"
    b = bridge("--out", "demo/x", "--connect", nobody)
    b.err.wait_for(lambda l: l.startswith(f"ringbus-bridge: nothing answered on {nobody} yet"), "the report")
    time.sleep(1.0)
    b.stop()
    assert len([l for l in b.err.lines if "nothing answered" in l]) == 1, b.err.lines
