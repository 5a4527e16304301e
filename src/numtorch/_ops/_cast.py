"""Casting machinery: the differentiable dtype cast and PyTorch's same-kind rule for writes.

``cast`` is the one place a tensor changes dtype inside a graph (``ToCopyBackward0``, gradients
flow back in the input's own dtype); ``_can_cast`` is the category check that ``out=`` and in-place
writes apply (float into int, int into bool, complex into real are refused); ``checked_scalar`` is c10's
``checked_convert`` of a Python scalar argument (``alpha``/``beta``) to a tensor's C type.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Op

__all__ = ["cast", "ToCopyBackward0"]


class ToCopyBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    def forward(self, a, dtype):
        self.src = a.dtype
        return a.astype(dtype)

    def backward(self, g):
        if g.dtype.kind == "c" and self.src.kind != "c":
            g = g.real  # real -> complex cast: the real input gets the real part
        return g.astype(self.src)


def cast(t: Tensor, dtype) -> Tensor:
    """``t`` converted to ``dtype`` (differentiable between floating types); ``t`` itself if equal."""
    npd = _dtype.to_np(dtype)
    if t._data.dtype == npd:
        return t
    return ToCopyBackward0.apply(t, dtype=npd)


def _can_cast(src, dst):
    """Whether NumPy dtype ``src`` may be written into ``dst``: bool < integer < floating < complex."""
    cat = lambda d: 0 if d.kind == "b" else 1 if d.kind in "iu" else 3 if d.kind == "c" else 2  # noqa: E731
    return cat(src) <= cat(dst)


def _aten(np_dtype) -> str:
    """PyTorch's ScalarType name of a NumPy dtype ("Float", "Long"); the NumPy name if it has none."""
    try:
        return _dtype.from_np(np_dtype)._aten_name
    except TypeError:
        return str(np_dtype)



_CTYPES = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t",
           "float16": "float", "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}  # half and bfloat16 scalars are held as float


def checked_scalar(value, np_dtype):
    """A Python number as PyTorch's kernels of ``np_dtype`` take it (c10's ``checked_convert``): integer
    tensors truncate a float toward zero, and a value outside the C type's range (NaN, inf, a non-zero
    imaginary part for real types) raises RuntimeError "value cannot be converted to type ... without
    overflow". Non-numbers are returned unchanged."""
    d = np.dtype(np_dtype)
    if not isinstance(value, (int, float, complex)) or isinstance(value, bool) or d.name not in _CTYPES:
        return value
    if isinstance(value, int):
        if not -2 ** 63 <= value < 2 ** 64:
            raise OverflowError("int too big to convert")  # PyTorch's argument parser (int64 or uint64 only)
        if d.kind == "u" and 0 > value >= -np.iinfo(d).max:  # negative ints wrap around in unsigned types
            return value % (np.iinfo(d).max + 1)
    z = complex(value)
    if d.kind in "iu":
        info = np.iinfo(d)
        ok = z.imag == 0 and info.min <= z.real <= info.max
    else:
        big = np.finfo(np.float64 if d in (np.float64, np.complex128) else np.float32).max
        ok = (z.imag == 0 or d.kind == "c") and all(not np.isfinite(v) or abs(v) <= big for v in (z.real, z.imag))
    if not ok:
        raise RuntimeError(f"value cannot be converted to type {_CTYPES[d.name]} without overflow")
    return int(z.real) if d.kind in "iu" and isinstance(value, (float, complex)) else \
        (z.real if d.kind != "c" and isinstance(value, complex) else value)
