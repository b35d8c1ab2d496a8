"""pyarrow arrays made from numpy buffers, without importing pandas.

``pyarrow.array()`` asks its pandas shim whether its argument is a pandas object, and that
imports pandas (a quarter of a second) on the first call, even for a numpy array. A run writes
its records and aggregates with pyarrow and needs no pandas, so its columns are built here from
their buffers (``pyarrow.Array.from_buffers``): number and bool columns from contiguous numpy arrays,
string columns from their UTF-8 bytes and offsets. The Arrow data, and so the parquet files, are
the same as ``pyarrow.array`` makes (tests/test_startup.py compares them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

_SIZES = (8, 16, 32, 64)
_NUMBER_TYPES = (*(f"int{n}" for n in _SIZES), *(f"uint{n}" for n in _SIZES), "float32", "float64")


def column(values, dtype: str | None = None) -> pa.Array:
    """An Arrow array (no nulls) of the 1-D integer, float or bool array or sequence
    ``values``, of numpy type ``dtype`` (default: ``values``' own; a Python int out of its
    range raises OverflowError)."""
    import pyarrow as pa

    a = np.asarray(values, dtype=dtype) if dtype else np.asarray(values)
    if a.ndim != 1 or a.dtype.name not in (*_NUMBER_TYPES, "bool"):
        raise TypeError(f"a column must be 1-D numbers or bools, not {a.dtype} {a.shape}")
    if a.dtype == np.bool_:  # (Arrow packs bools into bits, the first in the lowest)
        bits = np.packbits(a, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(a), [None, pa.py_buffer(bits)])
    a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
    return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [None, pa.py_buffer(a)])


def strings(values: Sequence[str]) -> pa.Array:
    """An Arrow string array (no nulls) of the Python strings ``values``."""
    import pyarrow as pa

    data = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in data], out=offsets[1:])
    if offsets[-1] >= 2**31:
        raise ValueError("a string column over 2 GiB")
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(data))]
    return pa.Array.from_buffers(pa.string(), len(data), buffers)
