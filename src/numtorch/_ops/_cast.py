"""Casting machinery: the differentiable dtype cast and PyTorch's same-kind rule for writes.

``cast`` is the one place a tensor changes dtype inside a graph (``ToCopyBackward0``, gradients
flow back in the input's own dtype); ``_can_cast`` is the category check that ``out=`` and in-place
writes apply (float into int, int into bool, complex into real are refused); ``checked_scalar`` is c10's
``checked_convert`` of a Python scalar argument (``alpha``/``beta``) to a tensor's C type.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._backend import meta
from .._tensor import Tensor
from ..autograd.function import Op

__all__ = ["cast", "ToCopyBackward0", "checked_scalar"]


class ToCopyBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    def forward(self, a, dtype, to_meta=False):
        self.src = a.dtype
        return meta(a.shape, np.dtype(dtype)) if to_meta else a.astype(dtype)  # to_meta: x.to("meta")

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



_C_TYPE = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
           "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>", "bool": "bool"}


def checked_scalar(value, np_dtype):
    """A Python number ``value`` (``alpha=``, ``beta=``...) converted to a tensor's dtype as c10's checked
    conversion does: floats truncate toward zero into integer dtypes, a negative int wraps into an
    unsigned one (``-1`` -> 255, two's complement), and a value out of the dtype's range, a NaN into an
    integer dtype, or a complex number with an imaginary part into a real dtype raises PyTorch's
    RuntimeError "value cannot be converted to type T without overflow". Returns a Python number."""
    dt = np.dtype(np_dtype)
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError("int too big to convert")  # PyTorch's argument parser (int64 or uint64 only)
    bad = RuntimeError(f"value cannot be converted to type {_C_TYPE.get(str(dt), str(dt))} without overflow")
    if dt.kind == "c":
        return complex(value)
    if dt.kind == "b":  # any number converts to bool (nonzero: True)
        return bool(value)
    if isinstance(value, (complex, np.complexfloating)):
        if value.imag != 0:
            raise bad
        value = value.real
    if dt.kind == "f":
        value = float(value)
        if not np.isfinite(value) or abs(value) <= float(np.finfo(dt).max):
            return value
        raise bad
    info = np.iinfo(dt)
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        value = int(value)
        low = -int(info.max) if dt.kind == "u" else int(info.min)  # unsigned: negatives wrap
        if not low <= value <= info.max:
            raise bad
        return value % (int(info.max) + 1) if value < 0 and dt.kind == "u" else value
    value = float(value)
    if value != value or not info.min <= value <= info.max:
        raise bad
    return int(value)
