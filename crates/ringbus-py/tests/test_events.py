"""Latches, semaphores, raw words and wait sets, within a process and across processes."""

from __future__ import annotations

import mmap
import os
import socket
import threading

import pytest

import ringbus
from conftest import finish, python_child, read_line


def test_latch_and_semaphore_across_processes(node: ringbus.Node) -> None:
    latch = node.latch("events/go")
    tokens = node.semaphore("events/tokens", 0)
    child = python_child(
        """
        import ringbus
        with ringbus.Node("child") as node:
            latch, tokens = node.latch("events/go"), node.semaphore("events/tokens")
            print("ready", flush=True)
            latch.wait(timeout=30.0)
            for _ in range(3):
                tokens.post()
        """
    )
    assert read_line(child) == "ready"
    assert not latch.is_set()
    assert latch.set() and not latch.set()
    for _ in range(3):
        tokens.wait(timeout=30.0)
    rc, _, err = finish(child)
    assert rc == 0, err
    assert tokens.value == 0 and not tokens.try_wait()
    with pytest.raises(ringbus.Timeout):
        tokens.wait(timeout=0.01)
    latch.reset()
    with pytest.raises(ringbus.Timeout):
        latch.wait(timeout=0.01)
    assert set(latch.stats()) == {"wake_calls", "woken", "skipped"}
    for obj in (latch, tokens):
        obj.unlink()
        obj.close()
        with pytest.raises(ringbus.Closed):
            obj.name


def test_a_word_in_a_shared_mapping(root: os.PathLike) -> None:
    path = os.path.join(root, "word-file")  # any MAP_SHARED mapping will do
    with open(path, "wb") as f:
        f.write(bytes(8))
    child = python_child(
        """
        import mmap, sys, ringbus
        with open(sys.argv[1], "r+b") as f, mmap.mmap(f.fileno(), 8) as m:
            word = ringbus.Word(m, 4)
            print("ready", flush=True)
            print(word.wait(0, timeout=30.0), flush=True)
            word.close()
        """,
        path,
    )
    try:
        with open(path, "r+b") as f, mmap.mmap(f.fileno(), 8) as m:
            word = ringbus.Word(m, 4)
            assert read_line(child) == "ready"
            assert word.load() == 0
            word.store(41)
            assert word.fetch_add(1) == 41 and word.load() == 42
            word.wake()
            rc, out, err = finish(child)
            assert rc == 0, err
            assert int(out.split()[-1]) in (41, 42)
            assert word.wait(7, timeout=0) == 42, "returns at once when the word differs"
            with pytest.raises(ringbus.Timeout):
                word.wait(42, timeout=0.01)
            with pytest.raises(BufferError):
                m.close()  # the word still views the mapping
            word.close()
            with pytest.raises(ringbus.Closed):
                word.load()
    finally:
        os.unlink(path)


def test_words_refuse_bad_buffers() -> None:
    with pytest.raises(ringbus.InvalidArgument, match="read-only"):
        ringbus.Word(b"1234")
    with pytest.raises(ringbus.InvalidArgument, match="4 contiguous bytes"):
        ringbus.Word(bytearray(4), 4)
    with pytest.raises(ringbus.InvalidArgument, match="aligned"):
        ringbus.Word(mmap.mmap(-1, 8), 2)
    with pytest.raises(TypeError):
        ringbus.Word(42)  # type: ignore[arg-type]


def test_a_wait_set_over_every_kind_of_source(node: ringbus.Node) -> None:
    pub = node.topic("ws/topic").publisher()
    sub = node.topic("ws/topic").subscriber()
    latch = node.latch("ws/latch")
    tokens = node.semaphore("ws/tokens", 0)
    memory = mmap.mmap(-1, 4)
    word = ringbus.Word(memory)
    left, right = socket.socketpair()
    with ringbus.WaitSet() as ws:
        keys = {
            "data": ws.attach_subscriber(sub),
            "latch": ws.attach_latch(latch),
            "token": ws.attach_semaphore(tokens),
            "word": ws.attach_word(word, 0),
            "fd": ws.attach_fd(left),
        }
        assert sub.take() is None  # "data" means "take until None": nothing yet
        assert ws.wait(timeout=0.01) == []
        with pytest.raises(BufferError):
            word.close()  # attached

        def kinds(timeout: float = 5.0) -> dict:
            return {e.kind: e for e in ws.wait(timeout=timeout)}

        pub.publish_copy(b"x")
        got = kinds()
        assert got["data"].key == keys["data"] and got["data"].source is sub
        assert sub.take() is not None and sub.take() is None
        latch.set()
        assert "latch" in kinds()
        latch.reset()
        tokens.post()
        assert kinds()["token"].source is tokens and tokens.value == 0, "the token was taken for us"
        word.store(5)
        word.wake()
        event = kinds()["word"]
        assert (event.key, event.value) == (keys["word"], 5)
        right.send(b"!")
        event = kinds()["fd"]
        assert event.readable and not event.hangup and event.source is left
        assert ws.backend in ("io_uring", "epoll")
        ws.detach(keys["fd"])
        ws.detach(keys["word"])
        word.close()  # detached: allowed now
        interval = ws.attach_interval(0.001)
        assert any(e.kind == "interval" and e.key == interval for e in ws.wait(timeout=5.0))
        ws.detach(interval)
        deadline = ws.attach_deadline(0.0)
        assert [e.kind for e in ws.wait(timeout=5.0)] == ["deadline"]
        ws.detach(deadline)
    left.close()
    right.close()
    latch.unlink()
    tokens.unlink()
    with pytest.raises(ringbus.Closed):
        ws.wait(0)
    with pytest.raises(ringbus.Unsupported):
        ringbus.WaitSet().attach_subscriber(node.topic("ws/polled", wake=ringbus.Wake.NEVER).subscriber())
    with pytest.raises(ringbus.InvalidArgument, match="never return"):
        ringbus.WaitSet().wait()


def test_a_wait_set_wakes_a_thread(node: ringbus.Node) -> None:
    latch = node.latch("ws/thread")
    events: list = []

    def waiter() -> None:
        with ringbus.WaitSet() as ws:
            ws.attach_latch(latch)
            events.extend(e.kind for e in ws.wait(timeout=30.0))

    thread = threading.Thread(target=waiter)
    thread.start()
    latch.set()
    thread.join(timeout=30.0)
    assert events == ["latch"]
    latch.unlink()
