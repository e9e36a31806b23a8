"""ROS 2 messages in ringbus topics, written and read in place.

A ringbus topic that carries ROS 2 messages holds each one exactly as ROS 2 puts it on the
DDS wire (the 4-byte CDR header ``00 01 00 00``, then the CDR body) and declares the ROS
type name, e.g. ``sensor_msgs/msg/Image``, as its payload type: :func:`topic` opens one.
``ringbus-ros2`` carries such topics to and from ROS 2 without decoding a message, and the
Rust crate ``ringbus_ros2::cdr`` writes the same bytes.

Writing: :func:`loan_image` and :func:`loan_point_cloud` compute the message's length,
take one loan of exactly that many bytes, write every field but the pixels or points, and
give back a :class:`MessageLoan` whose :meth:`~MessageLoan.as_array` is a writable numpy
view of the pixels (height × width × channels) or points (a structured array) inside the
loan: a 1080p image is filled directly in shared memory. :func:`publish_string` writes a
``std_msgs/msg/String``.

Reading: :func:`read_image` and :func:`read_point_cloud` give the fields of a received
``Sample`` and a read-only numpy view of its pixels or points (no copy; the view pins the
sample, as ``Sample.as_array`` does); :func:`read_string` the text of a String.

numpy is needed for images and point clouds only (``pip install 'ringbus[numpy]'``).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from . import _cdr
from ._native import Loan, Node, Publisher, Topic
from .errors import InvalidArgument

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import DTypeLike, NDArray
    from typing_extensions import Buffer, Self

__all__ = [
    "DEFAULT_MAX_PAYLOAD_BYTES",
    "IMAGE",
    "POINT_CLOUD2",
    "STRING",
    "Image",
    "MessageLoan",
    "PointCloud2",
    "PointField",
    "Stamp",
    "loan_image",
    "loan_point_cloud",
    "point_dtype",
    "point_fields",
    "publish_string",
    "read_image",
    "read_point_cloud",
    "read_string",
    "string_len",
    "topic",
]

STRING = "std_msgs/msg/String"
IMAGE = "sensor_msgs/msg/Image"
POINT_CLOUD2 = "sensor_msgs/msg/PointCloud2"

#: The payload type's size a ROS topic declares: messages are variable-size bytes.
PAYLOAD_SIZE = 1
#: The payload alignment a ROS topic declares: chunks start on 8 bytes, as DDS buffers do.
PAYLOAD_ALIGN = 8
#: The largest message of a topic :func:`topic` creates unless told: 16 MiB (a 1080p RGB
#: image is 6.2 MB). Memory is taken only for the messages in flight.
DEFAULT_MAX_PAYLOAD_BYTES = 16 << 20

_ROS_TYPE = re.compile(r"[a-z][a-z0-9_]*/msg/[A-Z][A-Za-z0-9]*")


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise ModuleNotFoundError(
            "ROS 2 images and point clouds need numpy, which is not installed: pip install 'ringbus[numpy]'",
            name="numpy",
        ) from None
    return numpy


def topic(node: Node, name: str, ros_type: str, *, max_payload_bytes: Optional[int] = None, **settings: Any) -> Topic:
    """Describes the ringbus topic ``name`` carrying ROS 2 messages of ``ros_type``
    (``package/msg/Type``): its payload type is that name, with size 1 and alignment 8,
    and every opener is checked against it (``Mismatch``). A topic that does not exist yet
    is created with ``max_payload_bytes`` (default :data:`DEFAULT_MAX_PAYLOAD_BYTES`); an
    existing one keeps its own unless ``max_payload_bytes`` is given (then checked against
    it). Other keyword arguments are ``Node.topic``'s. Raises ``InvalidArgument`` for a
    name that is no ROS 2 message type."""
    if not _ROS_TYPE.fullmatch(ros_type):
        raise InvalidArgument(f"{ros_type!r} is not a ROS 2 message type; write package/msg/Type, e.g. {IMAGE}")
    if max_payload_bytes is None and not node.topic_exists(name):
        max_payload_bytes = DEFAULT_MAX_PAYLOAD_BYTES
    return node.topic(
        name,
        max_payload_bytes=max_payload_bytes,
        payload_type_name=ros_type,
        payload_size=PAYLOAD_SIZE,
        payload_align=PAYLOAD_ALIGN,
        **settings,
    )


class Stamp(NamedTuple):
    """``builtin_interfaces/msg/Time``: seconds and nanoseconds (below 1e9)."""

    sec: int = 0
    nanosec: int = 0

    @classmethod
    def now(cls) -> Stamp:
        """The wall clock now, as ROS 2 stamps messages."""
        ns = time.time_ns()
        return cls(ns // 1_000_000_000, ns % 1_000_000_000)


# ---------------------------------------------------------------- std_msgs/msg/String


def _string(text: str) -> bytes:
    w = _cdr.Writer()
    w.string(text)
    return _cdr.HEADER + bytes(w.buf)


def string_len(text: str) -> int:
    """The length of ``text`` as a ``std_msgs/msg/String`` message, header included."""
    return _cdr.HEADER_BYTES + 4 + len(text.encode()) + 1


def publish_string(publisher: Publisher, text: str) -> None:
    """Publishes ``text`` as a ``std_msgs/msg/String``: one loan of :func:`string_len`
    bytes, written in place. Waits or raises as ``Publisher.loan`` does."""
    message = _string(text)
    with publisher.loan(len(message)) as loan:
        memoryview(loan)[:] = message


def read_string(message: Buffer) -> str:
    """The text of a ``std_msgs/msg/String`` message (a ``Sample``, bytes, any buffer).
    Raises ``InvalidArgument`` if it is not one."""
    with memoryview(message) as view:
        return _cdr.Reader(view.cast("B"), STRING).string()


# ------------------------------------------------------------------------- loans


class MessageLoan:
    """A loan holding a whole message but its pixels or points, which :meth:`as_array`
    views in place. As a context manager, publishes when the block ends (discards if an
    exception leaves it). Views of the loan must be gone before :meth:`publish` (else
    ``BufferError``): write through a temporary (``m.as_array()[:] = frame``) or ``del``
    the view first."""

    def __init__(self, loan: Loan, offset: int, shape: Tuple[int, ...], strides: Tuple[int, ...], dtype: Any) -> None:
        self.loan = loan
        self._layout = (offset, shape, strides, dtype)

    def as_array(self) -> NDArray[Any]:
        """The pixels (height × width × channels, or height × step bytes for an encoding
        this module does not know) or the points (height × width, of the point dtype): a
        writable view of the loan, zero copy."""
        offset, shape, strides, dtype = self._layout
        array: NDArray[Any] = _numpy().ndarray(shape, dtype, memoryview(self.loan), offset, strides)
        return array

    def publish(self) -> None:
        """Publishes the message."""
        self.loan.publish()

    def discard(self) -> None:
        """Gives the loan back unpublished."""
        self.loan.discard()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None:
        self.loan.__exit__(exc_type, exc_value, traceback)


def _loan(publisher: Publisher, prefix: _cdr.Writer, data_bytes: int, suffix: bytes) -> Tuple[Loan, int]:
    """A loan of the whole message, with ``prefix`` and ``suffix`` written around
    ``data_bytes`` of data left to fill; the loan and the data's offset."""
    head = _cdr.HEADER + bytes(prefix.buf)
    loan = publisher.loan(len(head) + data_bytes + len(suffix))
    with memoryview(loan) as view:
        view[: len(head)] = head
        view[len(head) + data_bytes :] = suffix
    return loan, len(head)


# ---------------------------------------------------------------- sensor_msgs/msg/Image

_SIMPLE_ENCODINGS: Dict[str, Tuple[str, int]] = {
    "mono8": ("u1", 1), "mono16": ("u2", 1), "rgb8": ("u1", 3), "bgr8": ("u1", 3), "rgba8": ("u1", 4),
    "bgra8": ("u1", 4), "rgb16": ("u2", 3), "bgr16": ("u2", 3), "rgba16": ("u2", 4), "bgra16": ("u2", 4),
    "uyvy": ("u1", 2), "yuyv": ("u1", 2), "yuv422": ("u1", 2), "yuv422_yuy2": ("u1", 2),
}  # fmt: skip
_CV_ENCODING = re.compile(r"(8|16|32|64)(U|S|F)C([1-4])")
_CV_KINDS = {"U": "u", "S": "i", "F": "f"}


def pixel_format(encoding: str) -> Optional[Tuple[str, int]]:
    """A ROS image encoding's element type (a numpy type code without byte order, e.g.
    ``"u1"``) and channels per pixel, or None for one this module does not know (then
    an image's pixels are viewed as height × step bytes)."""
    if encoding in _SIMPLE_ENCODINGS:
        return _SIMPLE_ENCODINGS[encoding]
    if encoding.startswith("bayer_"):
        return ("u2", 1) if encoding.endswith("16") else ("u1", 1)
    m = _CV_ENCODING.fullmatch(encoding)
    if m is None or (m[2] == "F" and m[1] in ("8", "16")):
        return None
    return f"{_CV_KINDS[m[2]]}{int(m[1]) // 8}", int(m[3])


def _pixels(height: int, width: int, encoding: str, step: int, big: bool) -> Tuple[Tuple[int, ...], Tuple[int, ...], Any]:
    """The shape, strides and dtype of an image's pixels."""
    fmt = pixel_format(encoding)
    if fmt is None:
        return (height, step), (step, 1), _numpy().dtype("u1")
    dtype = _numpy().dtype((">" if big else "<") + fmt[0])
    return (height, width, fmt[1]), (step, fmt[1] * dtype.itemsize, dtype.itemsize), dtype


def loan_image(
    publisher: Publisher,
    height: int,
    width: int,
    encoding: str,
    *,
    frame_id: str = "",
    stamp: Tuple[int, int] = Stamp(),
    step: Optional[int] = None,
    is_bigendian: bool = False,
) -> MessageLoan:
    """Lends one ``sensor_msgs/msg/Image`` of ``height`` × ``width`` pixels of
    ``encoding`` (e.g. ``rgb8``, ``mono16``, ``32FC1``) with every field written;
    ``as_array()`` is its pixels to fill. ``step`` (bytes per row) defaults to the packed
    row of a known encoding; give it for another encoding. Waits or raises as
    ``Publisher.loan`` does; ``InvalidArgument`` for a step that does not hold a row."""
    fmt = pixel_format(encoding)
    packed = None if fmt is None else width * fmt[1] * int(fmt[0][1:])
    step = packed if step is None else step
    if step is None or (packed is not None and step < packed):
        need = "give step=" if step is None else f"give step >= {packed}"
        raise InvalidArgument(f"an image of encoding {encoding!r} and width {width} needs its bytes per row: {need}")
    w = _cdr.Writer()
    w.header(stamp, frame_id)
    for value in (height, width):
        w.u32(value)
    w.string(encoding)
    w.u8(int(is_bigendian))
    w.u32(step)
    w.u32(height * step)
    loan, offset = _loan(publisher, w, height * step, b"")
    return MessageLoan(loan, offset, *_pixels(height, width, encoding, step, is_bigendian))


@dataclass(frozen=True)
class Image:
    """A received ``sensor_msgs/msg/Image``: its fields, and ``pixels``, a read-only view
    of the sample (height × width × channels, or height × step bytes for an encoding this
    module does not know) that pins it while it lives."""

    stamp: Stamp
    frame_id: str
    height: int
    width: int
    encoding: str
    is_bigendian: bool
    step: int
    pixels: NDArray[Any]


def read_image(sample: Buffer) -> Image:
    """Reads a ``sensor_msgs/msg/Image`` (a ``Sample``, bytes, any buffer): its fields,
    and its pixels as a read-only view, zero copy. Raises ``InvalidArgument`` if it is not
    one, or its pixels do not fill its rows."""
    with memoryview(sample) as view:
        r = _cdr.Reader(view.cast("B"), IMAGE)
        sec, nanosec, frame_id = r.header()
        height, width, encoding, big, step = r.u32(), r.u32(), r.string(), r.u8() != 0, r.u32()
        offset, size = r.sequence(1)
    shape, strides, dtype = _pixels(height, width, encoding, step, big)
    if size < height * step or step < (strides[1] * width if len(shape) == 3 else 0):
        r.fail(f"{size} bytes of pixels do not hold {height} rows of {width} {encoding} pixels in {step} bytes each")
    pixels: NDArray[Any] = _numpy().ndarray(shape, dtype, memoryview(sample), offset, strides)
    return Image(Stamp(sec, nanosec), frame_id, height, width, encoding, big, step, pixels)


# --------------------------------------------------------- sensor_msgs/msg/PointCloud2

INT8, UINT8, INT16, UINT16, INT32, UINT32, FLOAT32, FLOAT64 = range(1, 9)
_POINT_TYPES = {INT8: "i1", UINT8: "u1", INT16: "i2", UINT16: "u2", INT32: "i4", UINT32: "u4", FLOAT32: "f4", FLOAT64: "f8"}
_POINT_CODES = {v: k for k, v in _POINT_TYPES.items()}


@dataclass(frozen=True)
class PointField:
    """``sensor_msgs/msg/PointField``: a field's name, its offset in the point in bytes,
    its type (:data:`INT8` … :data:`FLOAT64`, 1 to 8) and its count of elements."""

    name: str
    offset: int
    datatype: int
    count: int = 1


def point_fields(dtype: DTypeLike) -> List[PointField]:
    """The point fields of a structured numpy dtype of little-endian numbers (each field
    one number, or a 1-D array of them), e.g. ``numpy.dtype([("x", "<f4"), ("y", "<f4"),
    ("z", "<f4"), ("intensity", "<f4")])``. Raises ``InvalidArgument`` for another dtype."""
    dt = _numpy().dtype(dtype)
    if dt.names is None:
        raise InvalidArgument(f"{dt} is not a structured dtype; give one field per point field, e.g. [('x', '<f4')]")
    fields = []
    for name in dt.names:
        field, offset = dt.fields[name][:2]
        base, shape = field.subdtype if field.subdtype else (field, ())
        code = _POINT_CODES.get(base.newbyteorder("<").str[1:]) if base.byteorder != ">" else None
        if code is None or len(shape) > 1:
            raise InvalidArgument(f"field {name!r} is {field}: give little-endian int8..int32, uint8..uint32, f4 or f8")
        fields.append(PointField(name, offset, code, math.prod(shape)))
    return fields


def point_dtype(fields: Sequence[PointField], point_step: int, is_bigendian: bool = False) -> np.dtype[Any]:
    """The structured numpy dtype of points with ``fields``, ``point_step`` bytes each.
    Raises ``InvalidArgument`` for an unknown type or a field outside the point."""
    order = ">" if is_bigendian else "<"
    formats = []
    for f in fields:
        if f.datatype not in _POINT_TYPES:
            raise InvalidArgument(f"point field {f.name!r} has datatype {f.datatype}; ROS 2 knows 1 (INT8) to 8 (FLOAT64)")
        base = order + _POINT_TYPES[f.datatype]
        formats.append(base if f.count == 1 else (base, (f.count,)))
    spec = {"names": [f.name for f in fields], "formats": formats, "offsets": [f.offset for f in fields]}
    try:
        dt: np.dtype[Any] = _numpy().dtype({**spec, "itemsize": point_step})
    except (ValueError, TypeError) as e:
        raise InvalidArgument(f"the point fields {list(fields)} do not fit points of {point_step} bytes: {e}") from None
    return dt


def loan_point_cloud(
    publisher: Publisher,
    dtype: DTypeLike,
    width: int,
    height: int = 1,
    *,
    frame_id: str = "",
    stamp: Tuple[int, int] = Stamp(),
    is_dense: bool = True,
) -> MessageLoan:
    """Lends one ``sensor_msgs/msg/PointCloud2`` of ``height`` rows of ``width`` points
    (height 1: an unordered cloud), each point one element of the structured ``dtype``
    (see :func:`point_fields`), with every field written; ``as_array()`` is its points to
    fill (height × width). Waits or raises as ``Publisher.loan`` does."""
    fields = point_fields(dtype)
    point_step = _numpy().dtype(dtype).itemsize
    w = _cdr.Writer()
    w.header(stamp, frame_id)
    for value in (height, width, len(fields)):
        w.u32(value)
    for f in fields:
        w.string(f.name)
        w.u32(f.offset)
        w.u8(f.datatype)
        w.u32(f.count)
    w.u8(0)
    w.u32(point_step)
    w.u32(width * point_step)
    w.u32(height * width * point_step)
    loan, offset = _loan(publisher, w, height * width * point_step, bytes([int(is_dense)]))
    layout = ((height, width), (width * point_step, point_step), point_dtype(fields, point_step))
    return MessageLoan(loan, offset, *layout)


@dataclass(frozen=True)
class PointCloud2:
    """A received ``sensor_msgs/msg/PointCloud2``: its fields, and ``points``, a
    read-only structured view of the sample (height × width, one field per point field)
    that pins it while it lives."""

    stamp: Stamp
    frame_id: str
    height: int
    width: int
    fields: List[PointField]
    is_bigendian: bool
    point_step: int
    row_step: int
    is_dense: bool
    points: NDArray[Any]


def read_point_cloud(sample: Buffer) -> PointCloud2:
    """Reads a ``sensor_msgs/msg/PointCloud2`` (a ``Sample``, bytes, any buffer): its
    fields, and its points as a read-only structured view, zero copy. Raises
    ``InvalidArgument`` if it is not one, or its points do not fill its rows."""
    with memoryview(sample) as view:
        r = _cdr.Reader(view.cast("B"), POINT_CLOUD2)
        sec, nanosec, frame_id = r.header()
        height, width = r.u32(), r.u32()
        fields = [PointField(r.string(), r.u32(), r.u8(), r.u32()) for _ in range(r.u32())]
        big, point_step, row_step = r.u8() != 0, r.u32(), r.u32()
        offset, size = r.sequence(1)
        dense = r.u8() != 0
    if row_step < width * point_step or size < height * row_step:
        r.fail(f"{size} bytes of points do not hold {height} rows of {width} points of {point_step} bytes")
    dt = point_dtype(fields, point_step, big)
    points: NDArray[Any] = _numpy().ndarray((height, width), dt, memoryview(sample), offset, (row_step, point_step))
    return PointCloud2(Stamp(sec, nanosec), frame_id, height, width, fields, big, point_step, row_step, dense, points)
