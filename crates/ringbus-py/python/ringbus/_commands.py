"""Commands of queues and services as numpy values: what ``Node.queue``, ``Node.service``
and ``Node.client`` do with their dtypes.

One command is one element of the dtype (a structured dtype for a struct): its size is
``dtype.itemsize`` and its alignment ``dtype.alignment``. Like ``ringbus._arrays``, this
module needs numpy and is imported on the first of those calls, never by ``import ringbus``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Tuple

from ._arrays import _dtype, type_name as _type_name
from .errors import InvalidArgument

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import DTypeLike, NDArray


def command_type(dtype: DTypeLike, type_name: Optional[str]) -> Tuple[np.dtype[Any], str, int, int]:
    """The dtype, the type name (``type_name``, else ``"numpy:"`` + ``str(dtype.descr)``),
    the size and the alignment of one command."""
    dt = _dtype(dtype)
    name = _type_name(dt) if type_name is None else type_name
    return dt, name, dt.itemsize, dt.alignment


def one(command: object, dt: np.dtype[Any]) -> bytes:
    """``command`` (bytes of the dtype's size, or a value of the dtype: a numpy scalar, a
    0-d or 1-element array, or what ``numpy.array(command, dtype)`` takes, such as a tuple
    for a structured dtype) as the bytes of one command."""
    if isinstance(command, (bytes, bytearray, memoryview)):
        data = bytes(command)
        if len(data) != dt.itemsize:
            raise InvalidArgument(f"{len(data)} bytes are not one command of {dt} ({dt.itemsize} bytes)")
        return data
    array = _of_dtype(command, dt)
    if array.size != 1:
        raise InvalidArgument(f"a command is one element of {dt}; got {array.size} (use push_batch for several)")
    return array.tobytes()


def batch(commands: object, dt: np.dtype[Any]) -> NDArray[Any]:
    """``commands`` (a 1-d array of the dtype, or a sequence numpy makes one of) as a
    contiguous 1-d array of the dtype."""
    array = np.ascontiguousarray(_of_dtype(commands, dt))
    if array.ndim != 1:
        raise InvalidArgument(f"a batch is a 1-d array of {dt}; got shape {array.shape}")
    return array


def _of_dtype(value: object, dt: np.dtype[Any]) -> NDArray[Any]:
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype != dt:
        raise InvalidArgument(f"the command's dtype is {value.dtype}, not the queue's {dt}; pass values of {dt}")
    try:
        return np.asarray(value, dtype=dt)
    except (TypeError, ValueError, OverflowError) as e:
        raise InvalidArgument(f"{value!r} is not a command of {dt}: {e}") from e


def scalar(data: bytes, dt: np.dtype[Any]) -> Any:
    """The bytes of one command as a numpy scalar of the dtype (a writable copy)."""
    return np.frombuffer(data, dtype=dt).copy()[0]


def array(data: bytes, count: int, dt: np.dtype[Any]) -> NDArray[Any]:
    """The first ``count`` commands in ``data`` as a 1-d array of the dtype (a copy)."""
    return np.frombuffer(data, dtype=dt, count=count).copy()
