"""numpy arrays over loans and samples, without copying: what ``Publisher.loan_array``,
``Loan.as_array`` and ``Sample.as_array`` do.

numpy is optional (``pip install 'ringbus[numpy]'``): this module, which needs it, is
imported on the first of those calls, never by ``import ringbus``. An array is
``numpy.frombuffer`` over the loan's or the sample's buffer, so it holds one buffer export,
and that export pins the memory: while the array (or any view of it) lives, the sample
cannot be released nor the loan published (``BufferError``), and dropping the ``Sample``
object keeps its chunk until the array goes.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, Union

from .errors import InvalidArgument, Mismatch

try:
    import numpy as np
except ImportError:
    raise ModuleNotFoundError(
        "ringbus arrays need numpy, which is not installed: pip install 'ringbus[numpy]' (or numpy)",
        name="numpy",
    ) from None

if TYPE_CHECKING:
    from numpy.typing import DTypeLike, NDArray
    from typing_extensions import Buffer

Shape = Union[int, Sequence[int]]


def _dtype(dtype: DTypeLike) -> np.dtype[Any]:
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise InvalidArgument(f"{dtype!r} is not a numpy dtype; pass one such as numpy.float32 or 'f4'") from e
    if dt.hasobject or dt.itemsize == 0:
        raise InvalidArgument(
            f"dtype {dt} cannot be read from shared memory; pass a dtype of plain data with a fixed size "
            "(numbers, fixed-size strings, records of those)"
        )
    return dt


def _dims(shape: Shape, *, infer: bool) -> Tuple[int, ...]:
    try:
        dims = (operator.index(shape),) if not isinstance(shape, Sequence) else tuple(map(operator.index, shape))
    except TypeError as e:
        raise InvalidArgument(f"shape {shape!r} is not an int or a sequence of ints") from e
    unknown = [d for d in dims if d < 0]
    if unknown and not (infer and unknown == [-1]):
        allowed = "one -1 (inferred) and sizes >= 0" if infer else "sizes >= 0"
        raise InvalidArgument(f"shape {shape!r} is not allowed here; pass {allowed}")
    return dims


def type_name(dt: np.dtype[Any]) -> str:
    """The name Python gives a dtype when none is given: ``"numpy:"`` + ``str(dt.descr)``,
    e.g. ``"numpy:[('', '<u4')]"`` (queues and topics alike)."""
    return f"numpy:{dt.descr}"


def layout(shape: Shape, dtype: DTypeLike) -> Tuple[np.dtype[Any], Tuple[int, ...], int]:
    """The dtype, the shape and the size in bytes of an array (for ``loan_array``)."""
    dt = _dtype(dtype)
    dims = _dims(shape, infer=False)
    return dt, dims, math.prod(dims) * dt.itemsize


def declare(
    dtype: DTypeLike, shape: Optional[Shape], name: Optional[str]
) -> Tuple[np.dtype[Any], Tuple[int, ...], int, int, str]:
    """A topic's payload type from ``Node.topic(payload_dtype=, payload_shape=,
    payload_type_name=)``: every message is one array of ``shape`` (default: one value)
    and ``dtype``. Returns the dtype, the shape, the size and alignment in bytes, and the
    type's name: ``name``, else one made from the dtype and shape that every Python
    process derives alike (programs in other languages give the same name explicitly)."""
    dt, dims, size = layout(() if shape is None else shape, dtype)
    if size == 0:
        raise InvalidArgument(f"payload_shape {shape!r} makes messages of 0 bytes; give every size >= 1")
    if name is None:
        name = type_name(dt) + (str(list(dims)) if dims else "")
    return dt, dims, size, dt.alignment, name


def check_declared(declared: Tuple[np.dtype[Any], Tuple[int, ...]], dtype: Optional[DTypeLike], shape: Optional[Shape]) -> None:
    """Refuses a dtype or shape other than the topic's declared ones (``Mismatch``)."""
    want_dtype, want_shape = declared
    if dtype is not None and _dtype(dtype) != want_dtype:
        raise Mismatch(
            f"this topic's messages are arrays of {want_dtype} (declared with payload_dtype), not {_dtype(dtype)}; "
            "pass the declared dtype, or none"
        )
    if shape is not None and _dims(shape, infer=False) != want_shape:
        raise Mismatch(
            f"this topic's messages are arrays of shape {want_shape} (declared with payload_shape), "
            f"not {tuple(_dims(shape, infer=False))}; pass the declared shape, or none"
        )


def _extent(buffer: Buffer) -> Tuple[int, int]:
    """Size and address of a buffer's bytes (the export is gone once this returns)."""
    flat = np.frombuffer(memoryview(buffer), dtype=np.uint8)
    return int(flat.nbytes), int(flat.ctypes.data)


def view(buffer: Buffer, dtype: DTypeLike, shape: Optional[Shape]) -> NDArray[Any]:
    """``buffer`` as an array of ``dtype`` and ``shape`` (None: one dimension), without a
    copy; read-only if the buffer is. Every check comes before the array is made, so an
    error never leaves a view (and its export) alive in the traceback."""
    dt = _dtype(dtype)
    size, address = _extent(buffer)
    if size % dt.itemsize:
        raise InvalidArgument(
            f"the payload is {size} bytes, not a whole number of {dt} ({dt.itemsize} bytes each); "
            "pass the dtype the publisher wrote"
        )
    count = size // dt.itemsize
    dims = (count,) if shape is None else _dims(shape, infer=True)
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        dims = tuple((count // known if known else -1) if d == -1 else d for d in dims)
    if -1 in dims or math.prod(dims) != count:
        raise InvalidArgument(
            f"shape {shape!r} does not fit the payload: {size} bytes hold {count} elements of {dt}; "
            f"pass a shape whose sizes multiply to {count} (one of them may be -1), or shape=None"
        )
    if size and address % dt.alignment:
        raise InvalidArgument(
            f"the payload at {address:#x} is not aligned to {dt.alignment} bytes as {dt} needs; "
            "read a copy instead: numpy.frombuffer(bytes(sample), dtype)"
        )
    return np.frombuffer(memoryview(buffer), dtype=dt).reshape(dims)
