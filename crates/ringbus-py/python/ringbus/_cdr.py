"""Little-endian CDR as ROS 2 puts it on the DDS wire, for :mod:`ringbus.ros`: the 4-byte
encapsulation header ``00 01 00 00``, then the fields in order, each aligned to its size
(at most 4 for the fields written here) counted from the end of the header. A string is a
``u32`` length that counts its terminating NUL, the bytes, the NUL; a sequence is a ``u32``
count, then its elements. Pure Python: no numpy.
"""

from __future__ import annotations

import struct
from typing import NoReturn, Tuple

from .errors import InvalidArgument

HEADER = b"\x00\x01\x00\x00"
HEADER_BYTES = 4


def _padding(pos: int, size: int) -> int:
    """Bytes to skip at ``pos`` (a message offset) before a field of ``size`` bytes."""
    return -(pos - HEADER_BYTES) % min(max(size, 1), 4)


class Writer:
    """Writes fields one after the other, starting at message offset ``pos``."""

    def __init__(self, pos: int = HEADER_BYTES) -> None:
        self.start = pos
        self.buf = bytearray()

    @property
    def pos(self) -> int:
        """The message offset of the next byte."""
        return self.start + len(self.buf)

    def _put(self, data: bytes) -> None:
        self.buf += bytes(_padding(self.pos, len(data)))
        self.buf += data

    def u8(self, value: int) -> None:
        self._put(struct.pack("<B", value))

    def u32(self, value: int) -> None:
        self._put(struct.pack("<I", value))

    def i32(self, value: int) -> None:
        self._put(struct.pack("<i", value))

    def string(self, text: str) -> None:
        data = text.encode()
        self.u32(len(data) + 1)
        self.buf += data + b"\0"

    def header(self, stamp: Tuple[int, int], frame_id: str) -> None:
        """``std_msgs/msg/Header``: a ``builtin_interfaces/msg/Time``, then the frame."""
        self.i32(stamp[0])
        self.u32(stamp[1])
        self.string(frame_id)


class Reader:
    """Reads fields one after the other from a message, checking every bound: a message
    is untrusted input, and a bad one raises ``InvalidArgument`` naming ``what``."""

    def __init__(self, message: memoryview, what: str) -> None:
        self.message, self.what, self.pos = message, what, HEADER_BYTES
        if bytes(message[:2]) != HEADER[:2] or len(message) < HEADER_BYTES:
            self.fail("it does not start with the little-endian CDR header 00 01")

    def fail(self, why: str) -> NoReturn:
        raise InvalidArgument(f"not a {self.what} message: {why}")

    def skip(self, size: int, align: int) -> int:
        """The offset of a field of ``size`` bytes aligned as one of ``align``, passed over."""
        start = self.pos + _padding(self.pos, align)
        if start + size > len(self.message):
            self.fail(f"{len(self.message)} bytes end inside a field at offset {start}")
        self.pos = start + size
        return start

    def u8(self) -> int:
        return int(self.message[self.skip(1, 1)])

    def u32(self) -> int:
        value: int = struct.unpack_from("<I", self.message, self.skip(4, 4))[0]
        return value

    def i32(self) -> int:
        value: int = struct.unpack_from("<i", self.message, self.skip(4, 4))[0]
        return value

    def string(self) -> str:
        length = self.u32()
        if length == 0:
            self.fail("a string without its terminating NUL")
        data = bytes(self.message[self.skip(length, 1) :][: length - 1])
        try:
            return data.decode()
        except UnicodeDecodeError:
            self.fail("a string that is not UTF-8")

    def header(self) -> Tuple[int, int, str]:
        """``std_msgs/msg/Header``: seconds, nanoseconds, frame."""
        return self.i32(), self.u32(), self.string()

    def sequence(self, element_bytes: int) -> Tuple[int, int]:
        """A sequence's elements: their offset and byte count."""
        count = self.u32()
        return self.skip(count * element_bytes, 1), count * element_bytes
