"""The exceptions ringbus raises: one hierarchy under :class:`Error`.

Each class also derives from the built-in exception a Python user would expect to catch
(``Timeout`` is a ``TimeoutError``, ``InvalidArgument`` and ``Closed`` are ``ValueError``s,
``IoError`` is an ``OSError``...). Messages come from the Rust core and say what to do.
Memory that is still viewed (a numpy array over a sample or a loan) is guarded with the
built-in ``BufferError``, as ``mmap.close()`` does.
"""

from __future__ import annotations


class Error(Exception):
    """Base class of every ringbus error."""


class Timeout(Error, TimeoutError):
    """A wait (``receive``, ``Latch.wait``, a service ``call`` the server did not answer in time, a publish held back by a reliable subscriber
    with ``when_full`` in seconds, ...) ended because its timeout passed."""


class Closed(Error, ValueError):
    """The object was closed, or the sample released, or the loan published."""


class InvalidArgument(Error, ValueError):
    """An argument or a topic setting is out of range (the message says the limits)."""


class Mismatch(Error):
    """An existing topic, queue, service or segment has other settings, type or layout
    version."""


class Corrupted(Error):
    """A peer wrote a value that cannot be right (or a file is not a ringbus segment)."""


class LimitReached(Error):
    """A limit was reached: subscribers or publishers per topic, held samples, chunks, a
    publisher's ``pool_bytes``, a reliable subscriber ``depth`` messages behind a publisher
    opened with ``when_full="fail"``..."""


class NoSpace(Error):
    """The shared-memory filesystem is full: no room for the topic's chunks, or no free
    inode (file) for its segments."""


class Unsupported(Error):
    """The call does not apply to this object (e.g. ``receive`` on a ``Wake.NEVER`` subscriber)."""


class IoError(Error, OSError):
    """A system call on the ringbus root failed."""


class NotFound(IoError, FileNotFoundError):
    """A file the call needed does not exist."""


class ServerGone(Error, ConnectionError):
    """No server runs the service a client called (none was started, or it exited or was
    killed). Start it and call again: the client finds the new one by itself."""
