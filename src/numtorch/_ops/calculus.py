"""Finite differences and trapezoid-rule integrals: ``diff``, ``gradient``, ``trapezoid`` (alias ``trapz``).

Both are composites of differentiable ops, as in PyTorch, so autograd comes for free. The running
integral ``cumulative_trapezoid`` lives with the other scans in ``cumulative.py`` and shares
``_trap_terms`` from here.
"""
from __future__ import annotations

import numpy as np

from .._dtype import get_default_dtype
from .._tensor import Tensor
from ._util import wrap_dim
from .creation import zeros
from .logic import logical_xor
from .rearrange import cat

__all__ = ["diff", "trapezoid", "trapz", "gradient"]


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along ``dim`` (``torch.diff``), after concatenating ``prepend`` /
    ``append``; bool inputs use logical xor. RuntimeError for a 0-d input or negative n."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.dim())
    for t in (prepend, append):
        if t is not None and t.dim() and t.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:  # no difference taken: a copy of input, prepend and append ignored (as PyTorch)
        return input.clone()
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


# ------------------------------------------------------------------------------------------------
# gradient: central differences inside, one-sided at the edges
# ------------------------------------------------------------------------------------------------
def _gradient_dims(input, dim):
    if dim is None:
        return list(range(input.dim()))
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [wrap_dim(d, input.dim()) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError("torch.gradient expected each dim to appear only once")
    return dims


def _gradient_spacing(spacing, dims):
    """One spacing per dim: a number (uniform step) or a 1-D tensor of coordinates."""
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        return [s.item() if isinstance(s, Tensor) and s.dim() == 0 else s for s in spacing]
    if isinstance(spacing, Tensor):
        spacing = spacing.item()
    return [spacing] * len(dims)


def _gradient_along(f, d, h, edge_order):
    n = f.shape[d]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")

    def at(start, length):
        return f.narrow(d, start, length)

    if isinstance(h, Tensor):  # coordinates: the second-order formula for uneven steps, as NumPy
        if h.dim() != 1 or h.shape[0] != n:
            raise RuntimeError("torch.gradient expected each tensor to be on the same device and its size to match "
                               "the size of the corresponding dim")
        dx = diff(h).to(f.dtype)
        shape = [1] * f.dim()

        def bcast(v):
            shape[d] = v.shape[0]
            return v.reshape(shape)
        h1, h2 = dx[:-1], dx[1:]
        a, b, c = -h2 / (h1 * (h1 + h2)), (h2 - h1) / (h1 * h2), h1 / (h2 * (h1 + h2))
        inner = bcast(a) * at(0, n - 2) + bcast(b) * at(1, n - 2) + bcast(c) * at(2, n - 2)
        if edge_order == 1:
            first = (at(1, 1) - at(0, 1)) / dx[0]
            last = (at(n - 1, 1) - at(n - 2, 1)) / dx[-1]
        else:
            p, q = dx[0], dx[1]
            first = (-(2 * p + q) / (p * (p + q)) * at(0, 1) + (p + q) / (p * q) * at(1, 1) - p / (q * (p + q)) * at(2, 1))
            p, q = dx[-2], dx[-1]
            last = (q / (p * (p + q)) * at(n - 3, 1) - (p + q) / (p * q) * at(n - 2, 1)
                    + (2 * q + p) / (q * (p + q)) * at(n - 1, 1))
    else:
        inner = (at(2, n - 2) - at(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first, last = (at(1, 1) - at(0, 1)) / h, (at(n - 1, 1) - at(n - 2, 1)) / h
        else:
            first = (-1.5 * at(0, 1) + 2 * at(1, 1) - 0.5 * at(2, 1)) / h
            last = (0.5 * at(n - 3, 1) - 2 * at(n - 2, 1) + 1.5 * at(n - 1, 1)) / h
    return cat([first, inner, last], d)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order=1) -> tuple:
    """Estimates of the derivative of ``input`` along each dim in ``dim`` (default all), one tensor per
    dim (``torch.gradient``): central differences inside, one-sided differences of order ``edge_order``
    (1 or 2) at the ends. ``spacing`` is a number (the step, for all dims), a list of numbers (one step per
    dim) or a list of 1-D coordinate tensors. Integer inputs give the default float dtype. RuntimeError for
    a dim shorter than ``edge_order + 1`` or a bad ``edge_order``."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _gradient_dims(input, dim)
    steps = _gradient_spacing(1 if spacing is None else spacing, dims)
    f = input if input.dtype.is_floating_point or input.is_complex() else input.to(get_default_dtype())
    return tuple(_gradient_along(f, d, h, edge_order) for d, h in zip(dims, steps))
