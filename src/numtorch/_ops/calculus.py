"""Finite differences and trapezoid-rule integrals: ``diff``, ``trapezoid`` (alias ``trapz``).

Both are composites of differentiable ops, as in PyTorch, so autograd comes for free. The running
integral ``cumulative_trapezoid`` lives with the other scans in ``cumulative.py`` and shares
``_trap_terms`` from here.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._util import wrap_dim
from .creation import zeros
from .logic import logical_xor
from .rearrange import cat

__all__ = ["diff", "trapezoid", "trapz"]


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along ``dim`` (``torch.diff``), after concatenating ``prepend`` /
    ``append``; bool inputs use logical xor. RuntimeError for a 0-d input or negative n."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.dim())
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        parts = [t if t.dim() else t.expand(*input.shape[:dim], 1, *input.shape[dim + 1:]) for t in parts]
        input = cat(parts, dim)
    for _ in range(n):
        size = input.shape[dim]
        if size == 0:
            break
        hi, lo = input.narrow(dim, 1, size - 1), input.narrow(dim, 0, size - 1)
        input = logical_xor(hi, lo) if input._data.dtype == np.bool_ else hi - lo
    return input


# ------------------------------------------------------------------------------------------------
# trapezoid
# ------------------------------------------------------------------------------------------------
def _trap_terms(name, y, x, dx, dim):
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: x and dx")
    d = wrap_dim(dim, y.dim())
    n = y.shape[d]
    mid = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) if n else y
    if isinstance(x, Tensor):
        if x.dim() == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
            dxs = diff(x).reshape(-1, *([1] * (y.dim() - d - 1)))
        else:
            dxs = diff(x, dim=dim)
        return d, mid * dxs / 2
    step = 1 if x is None and dx is None else (x if x is not None else dx)
    return d, mid * (step / 2)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Trapezoid-rule integral of ``y`` along ``dim`` (``torch.trapezoid``) with sample points ``x``
    (a tensor, 1-D or broadcastable) or constant spacing ``x``/``dx`` (default 1)."""
    d, terms = _trap_terms("trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:
        return zeros(*y.shape[:d], *y.shape[d + 1:], dtype=y.dtype) if y._data.dtype.kind == "f" else \
            y.sum(d)
    return terms.sum(d)


trapz = trapezoid
