"""Casting machinery: the differentiable dtype cast and PyTorch's same-kind rule for writes.

``cast`` is the one place a tensor changes dtype inside a graph (``ToCopyBackward0``, gradients
flow back in the input's own dtype); ``_can_cast`` is the category check that ``out=`` and in-place
writes apply (float into int, int into bool, complex into real are refused).
"""
from __future__ import annotations

import math
import numpy as np

from .. import _dtype
from .._backend import meta
from .._tensor import Tensor
from ..autograd.function import Op

__all__ = ["cast", "check_scalar_fits", "ToCopyBackward0"]


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



_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}
_C_TYPES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
            "int32": "int"}


def check_scalar_fits(value, np_dtype) -> None:
    """PyTorch's RuntimeError (c10's ``checked_convert``) when the number ``value`` can't be stored in
    ``np_dtype`` without overflow: a complex with an imaginary part into a real dtype, a finite number past
    a float dtype's range, an infinite, NaN or out-of-range number into an integer dtype (for unsigned,
    down to minus its maximum: those wrap)."""
    kind, name = np_dtype.kind, np_dtype.name
    if kind in "cb" or isinstance(value, bool):
        return
    bad = isinstance(value, complex) and value.imag != 0
    v = value.real if isinstance(value, complex) else value
    if not bad and kind in "fV":
        bad = name in _FLOAT_MAX and math.isfinite(v) and abs(v) > _FLOAT_MAX[name]
    elif not bad:
        lo, hi = (-(2 ** (8 * np_dtype.itemsize) - 1), 2 ** (8 * np_dtype.itemsize) - 1) if kind == "u" else \
            (-2 ** (8 * np_dtype.itemsize - 1), 2 ** (8 * np_dtype.itemsize - 1) - 1)
        bad = not (math.isfinite(v) and lo <= v <= hi)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES.get(name, name + '_t')} without overflow")
