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

from .errors import InvalidArgument

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


def layout(shape: Shape, dtype: DTypeLike) -> Tuple[np.dtype[Any], Tuple[int, ...], int]:
    """The dtype, the shape and the size in bytes of an array (for ``loan_array``)."""
    dt = _dtype(dtype)
    dims = _dims(shape, infer=False)
    return dt, dims, math.prod(dims) * dt.itemsize


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
