"""Casting machinery: the differentiable dtype cast and PyTorch's same-kind rule for writes.

``cast`` is the one place a tensor changes dtype inside a graph (``ToCopyBackward0``, gradients
flow back in the input's own dtype); ``_can_cast`` is the category check that ``out=`` and in-place
writes apply (float into int, int into bool, complex into real are refused).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._backend import meta
from .._tensor import Tensor
from ..autograd.function import Op

__all__ = ["cast", "ToCopyBackward0"]


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

