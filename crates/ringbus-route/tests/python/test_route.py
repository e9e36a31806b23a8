"""`ringbus route` with pymavlink as the vehicle and the ground station, over UDP and TCP:
heartbeats, a targeted COMMAND_LONG answered by COMMAND_ACK, broadcasts, targets, no echo,
exact counts against the router's counters, signed frames, a TCP client dying while it
floods, endpoints removed and added again during a flood."""

import socket
import threading
import time

import pytest
from pymavlink import mavutil

GCS = (255, 190)
REQUEST_MESSAGE = mavutil.mavlink.MAV_CMD_REQUEST_MESSAGE


def url(transport, port):
    return f"udpout:127.0.0.1:{port}" if transport == "udp" else f"tcp:127.0.0.1:{port}"


def wait_for(predicate, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def settle(*clients):
    """Reads what is still on its way to each client; returns the messages per client."""
    return [c.drain() for c in clients]


def link_of(router, endpoint, client):
    """The router's link serving `client` (matched by the client's own address)."""
    own = client.conn.port.getsockname()
    for link in router.links(endpoint):
        if link["peer"].endswith(f":{own[1]}"):
            return link
    raise AssertionError(f"no link of {endpoint} for {own}: {router.links(endpoint)}")


def assert_exact_counts(router, endpoint, *clients):
    """Frames and bytes each client sent and received, exactly as the router counted them."""
    for c in clients:
        link = link_of(router, endpoint, c)
        mav = c.conn.mav
        assert (link["frames_in"], link["bytes_in"]) == (mav.total_packets_sent, mav.total_bytes_sent), link
        assert link["frames_out"] == mav.total_packets_received, link
        assert (link["dropped_out"], link["garbage_bytes"]) == (0, 0), link


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_vehicle_and_ground_station_talk_through_the_router(router_factory, clients, transport):
    router = router_factory(f"gcs={transport}-in:127.0.0.1:0", f"vehicle={transport}-in:127.0.0.1:0")
    gcs = clients(url(transport, router.port("gcs")), *GCS)
    vehicle = clients(url(transport, router.port("vehicle")), 1, 1)
    gcs.heartbeat()  # over UDP, this makes the ground station a link of the router
    wait_for(lambda: len(router.links("gcs")) == 1, "the ground station's link")
    vehicle.heartbeat()
    hb = gcs.receive("HEARTBEAT")
    assert hb is not None and (hb.get_srcSystem(), hb.get_srcComponent()) == (1, 1)
    gcs.heartbeat()
    hb = vehicle.receive("HEARTBEAT")
    assert hb is not None and hb.get_srcSystem() == 255
    gcs.command(1, 1)
    cmd = vehicle.receive("COMMAND_LONG")
    assert cmd is not None and (cmd.target_system, cmd.target_component, cmd.command) == (1, 1, REQUEST_MESSAGE)
    vehicle.conn.mav.command_ack_send(cmd.command, mavutil.mavlink.MAV_RESULT_ACCEPTED, 100, 0, *GCS)
    ack = gcs.receive("COMMAND_ACK")
    assert ack is not None and (ack.command, ack.target_system, ack.target_component) == (REQUEST_MESSAGE, *GCS)
    settle(gcs, vehicle)
    assert_exact_counts(router, "gcs", gcs)
    assert_exact_counts(router, "vehicle", vehicle)
    assert vehicle.conn.mav.total_packets_received >= 2 and gcs.conn.mav.total_packets_received == 2


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_targets_broadcasts_and_no_echo_between_three_clients_of_one_server(router_factory, clients, transport):
    router = router_factory(f"all={transport}-in:127.0.0.1:0")
    port = router.port("all")
    gcs, one, two = clients(url(transport, port), *GCS), clients(url(transport, port), 1, 1), clients(url(transport, port), 2, 1)
    for c in (gcs, one, two):
        c.heartbeat()
        wait_for(lambda: len(router.links("all")) >= [gcs, one, two].index(c) + 1, "a link per client")
    for c in (gcs, one, two):  # now every client is a link: every system is heard everywhere
        c.heartbeat()
    settle(gcs, one, two)

    gcs.command(2, 1)
    got = settle(gcs, one, two)
    assert [len(g) for g in got] == [0, 0, 1], "only the target, never back to the sender"
    assert (got[2][0].get_type(), got[2][0].target_system) == ("COMMAND_LONG", 2)

    gcs.command(0, 0)
    got = settle(gcs, one, two)
    assert [len(g) for g in got] == [0, 1, 1], "a broadcast reaches everyone else"

    gcs.command(1, 0)  # component 0: any component of system 1
    assert [len(g) for g in settle(gcs, one, two)] == [0, 1, 0]

    gcs.command(9, 1)  # a system nobody has heard
    assert [len(g) for g in settle(gcs, one, two)] == [0, 0, 0]
    assert router.status()["unroutable"] == 1

    one.heartbeat()
    assert [len(g) for g in settle(gcs, one, two)] == [1, 0, 1]
    assert_exact_counts(router, "all", gcs, one, two)


def test_signed_frames_pass_through_a_router_without_the_key(router_factory, clients):
    router = router_factory("gcs=udp-in:127.0.0.1:0", "vehicle=udp-in:127.0.0.1:0")
    key = bytes(range(32))
    gcs = clients(url("udp", router.port("gcs")), *GCS)
    vehicle = clients(url("udp", router.port("vehicle")), 1, 1)
    gcs.conn.setup_signing(key, sign_outgoing=True)
    vehicle.conn.setup_signing(key, sign_outgoing=False, allow_unsigned_callback=lambda *_: False)
    gcs.heartbeat()
    vehicle.heartbeat()
    wait_for(lambda: len(router.links("gcs")) == 1 and len(router.links("vehicle")) == 1, "both links")
    gcs.heartbeat()
    assert vehicle.receive("HEARTBEAT") is not None
    sent = gcs.conn.mav.command_long_encode(1, 1, REQUEST_MESSAGE, 0, 1, 2, 3, 4, 5, 6, 7)
    gcs.conn.mav.send(sent)
    got = vehicle.receive("COMMAND_LONG")
    assert got is not None, "the vehicle, which accepts only frames signed with its key, got the command"
    assert got._signed and got.get_msgbuf() == sent.get_msgbuf(), "byte for byte, signature included"
    assert vehicle.conn.mav.signing.badsig_count == 0


def test_a_tcp_client_that_dies_while_flooding_leaves_the_router_working(router_factory, clients):
    # The watcher is a TCP client: nothing sent to it is lost after the router counted it.
    router = router_factory("tcp=tcp-in:127.0.0.1:0", "watch=tcp-in:127.0.0.1:0")
    watcher = clients(url("tcp", router.port("watch")), 50, 1)
    watcher.heartbeat()
    wait_for(lambda: len(router.links("watch")) == 1, "the watcher's link")
    mav = mavutil.mavlink.MAVLink(None, srcSystem=7, srcComponent=1)
    frame = mav.heartbeat_encode(6, 8, 0, 0, 0).pack(mav)
    flooder = socket.create_connection(("127.0.0.1", router.port("tcp")), timeout=5)
    wait_for(lambda: len(router.links("tcp")) == 1, "the flooder's link")
    stop_at = time.monotonic() + 0.5
    sent = 0
    while time.monotonic() < stop_at:
        flooder.sendall(frame * 16)
        sent += 16
    flooder.sendall(frame[:7])  # half a frame, then a reset
    flooder.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    flooder.close()
    wait_for(lambda: router.links("tcp") == [], "the dead client's link to go")
    got = settle(watcher)[0]
    watch = router.links("watch")[0]
    assert 0 < len(got) and watch["frames_out"] + watch["dropped_out"] <= sent
    assert watcher.conn.mav.total_packets_received == watch["frames_out"], watch
    again = clients(url("tcp", router.port("tcp")), 8, 1)
    wait_for(lambda: len(router.links("tcp")) == 1, "a new client's link")
    again.heartbeat()
    hb = watcher.receive("HEARTBEAT")
    assert hb is not None and hb.get_srcSystem() == 8
    assert router.process.poll() is None


def flood(client, stop):
    while not stop.is_set():
        client.heartbeat()
        time.sleep(0.0005)


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_endpoints_removed_and_added_again_during_a_flood(router_factory, clients, transport):
    router = router_factory("gcs=udp-in:127.0.0.1:0", f"vehicle={transport}-in:127.0.0.1:0")
    port = router.port("vehicle")
    gcs = clients(url("udp", router.port("gcs")), *GCS)
    stop = threading.Event()
    flooding = threading.Thread(target=flood, args=(gcs, stop), daemon=True)
    flooding.start()
    try:
        for cycle in range(5):
            vehicle = clients(url(transport, port), 1, 1)
            vehicle.heartbeat()
            hb = vehicle.receive("HEARTBEAT", timeout=10)
            assert hb is not None and hb.get_srcSystem() == 255, f"cycle {cycle}: the flood reaches the vehicle"
            router.ctl("remove", "vehicle")
            # Loopback sends are delivered before they return: whatever the router sent before
            # the removal is in the socket now. Read it; after that, nothing may come.
            before = []
            while (m := vehicle.conn.recv_match(blocking=False)) is not None:
                before.append(m)
            time.sleep(0.5)
            late = [m for m in vehicle.drain(quiet=0.2) if m.get_type() == "HEARTBEAT"]
            assert late == [], f"cycle {cycle}: {len(late)} frame(s) reached a removed link"
            vehicle.close()
            router.ctl("add", f"vehicle={transport}-in:127.0.0.1:{port}")
    finally:
        stop.set()
        flooding.join(timeout=5)
    assert router.process.poll() is None
