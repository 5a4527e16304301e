"""Scans along one dim: running sums and products (``cumsum``, ``cumprod`` and their in-place
forms), running extremes with their indices (``cummax``, ``cummin``), ``logcumsumexp`` and the
running trapezoid integral ``cumulative_trapezoid``.

Each differentiable scan is an ``Op`` named after PyTorch's backward node; ``cumulative_trapezoid``
is a composite of differentiable ops. ``dim`` is one int (negative counts from the end); NumPy's
``axis=`` spelling is accepted by ``cumsum``/``cumprod`` as by PyTorch's argument parser.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from ..autograd.function import Op
from .calculus import _trap_terms
from .pointwise import _out, cast
from ._inplace import inplace
from .reduction import _dim1, _np_aliases, _return_type, return_types

__all__ = """cumsum cumprod cummax cummin logcumsumexp cumulative_trapezoid""".split()

_return_type("cummax", "values indices")
_return_type("cummin", "values indices")


# ------------------------------------------------------------------------------------------------
# cumsum, cumprod
# ------------------------------------------------------------------------------------------------
def _rev_cumsum(x, axis):
    return np.flip(np.cumsum(np.flip(x, axis), axis), axis)


class CumsumBackward0(Op):
    _vmap = ("along", "axis")  # batching rule kind (func/_batching_rules_nn.py)

    def forward(self, a, axis):
        self.axis = axis
        # (a 0-d input is its own running sum)
        return np.cumsum(a, axis=axis, dtype=a.dtype) if a.ndim else a.copy()

    def backward(self, g):
        return _rev_cumsum(g, self.axis) if g.ndim else g


class CumprodBackward0(Op):
    _vmap = ("along", "axis")  # batching rule kind (func/_batching_rules_nn.py)
    _saves = (0, "out")

    def forward(self, a, axis):
        self.axis = axis
        out = np.cumprod(a, axis=axis, dtype=a.dtype) if a.ndim else a.copy()
        self.saved = (a, out)
        return out

    def backward(self, g):
        a, out = self.saved
        if a.dtype.kind == "c":  # holomorphic: PyTorch's gradient is grad * conj(d out / d a)
            a, out = a.conj(), out.conj()
        ax = self.axis
        if a.ndim == 0:
            return g
        zero = a == 0
        if getattr(self, "_graph", False) and zero.any():
            return self._graph_backward(g, a, ax)
        if not zero.any():
            return _rev_cumsum(g * out, ax) / a
        # With zeros, d out_j / d a_k for k before the first zero is out_j / a_k as usual; for the first
        # zero z it is the cumprod with a_z replaced by 1; positions after z get nothing.
        seen = np.cumsum(zero, axis=ax)
        first = zero & (seen == 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            before = _rev_cumsum(g * out, ax) / np.where(zero, 1, a)
        at_zero = np.sum(g * np.cumprod(np.where(first, 1, a), axis=ax) * (seen >= 1), axis=ax, keepdims=True)
        return np.where(seen == 0, before, np.where(first, at_zero, 0)).astype(a.dtype, copy=False)


    @staticmethod
    def _graph_backward(g, a, ax):
        # create_graph with zeros: grad_k = sum_{j>=k} g_j prod_{i<=j, i!=k} a_i, with every a_i kept
        # (the first-order formula drops terms that vanish at the point but not their derivatives)
        n = a.shape[ax]
        am, gm = np.moveaxis(a, ax, -1), np.moveaxis(g, ax, -1)
        eye = np.eye(n, dtype=bool)
        c = np.cumprod(np.where(eye, 1, np.expand_dims(am, -2)), axis=-1)  # [..., k, j]
        grad = (c * np.triu(np.ones((n, n), dtype=a.dtype)) * np.expand_dims(gm, -2)).sum(axis=-1)
        return np.moveaxis(grad, -1, ax)


def _cumulative(op, name, input, dim, dtype, out):
    if dtype is not None:
        input = cast(input, dtype)
    elif input._data.dtype.kind in "biu":
        input = cast(input, _dtype.int64)
    axis = _dim1(dim, input._data.ndim, name)
    return _out(op.apply(input, axis=axis), out)


@_np_aliases
def cumsum(input, dim, *, dtype=None, out=None):
    """Running sum along ``dim`` (``torch.cumsum``); bool/int inputs give int64 unless ``dtype``."""
    return _cumulative(CumsumBackward0, "cumsum", input, dim, dtype, out)


@_np_aliases
def cumprod(input, dim, *, dtype=None, out=None):
    """Running product along ``dim`` (``torch.cumprod``); the gradient is exact with zeros."""
    return _cumulative(CumprodBackward0, "cumprod", input, dim, dtype, out)


def cumsum_(input, dim, *, dtype=None):
    """In-place ``cumsum`` (``Tensor.cumsum_``)."""
    return inplace(input, cumsum, dim, dtype=dtype)


def cumprod_(input, dim, *, dtype=None):
    """In-place ``cumprod`` (``Tensor.cumprod_``)."""
    return inplace(input, cumprod, dim, dtype=dtype)


# ------------------------------------------------------------------------------------------------
# cummax, cummin
# ------------------------------------------------------------------------------------------------
class CummaxBackward0(Op):
    """Running max and its index (the last among ties; NaN propagates); backward scatter-adds."""
    _vmap = ("along", "axis")  # batching rule kind (func/_batching_rules_nn.py)

    _nondiff_outputs = (1,)
    _ufunc = np.maximum
    _graph = False

    def forward(self, a, axis):
        self.shape = a.shape
        if a.ndim == 0:
            self.idx = np.zeros((), np.int64)
            return a.copy(), self.idx
        vals = self._ufunc.accumulate(a, axis=axis)
        hit = a == vals
        if a.dtype.kind in "fV":
            hit |= np.isnan(a)
        pos = np.arange(a.shape[axis]).reshape((-1,) + (1,) * (a.ndim - 1 - axis))
        self.idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=axis).astype(np.int64, copy=False)
        self.axis = axis
        return vals, self.idx

    def backward(self, g, gi=None):
        if g.ndim == 0:
            return g
        if self._graph:  # create_graph: the scatter-add as a sum against a constant one-hot mask
            ii = np.moveaxis(self.idx, self.axis, -1)
            hit = (ii[..., None] == np.arange(ii.shape[-1])).astype(g.dtype)  # [..., j, k]: idx_j == k
            gx = (np.expand_dims(np.moveaxis(g, self.axis, -1), -1) * hit).sum(axis=-2)
            return np.moveaxis(gx, -1, self.axis)
        gx = np.zeros(self.shape, g.dtype)
        ax = np.moveaxis(gx, self.axis, -1)
        ii = np.moveaxis(self.idx, self.axis, -1)
        gg = np.moveaxis(g, self.axis, -1)
        rows = np.arange(ax.size // max(ax.shape[-1], 1)).reshape(ax.shape[:-1] + (1,)) if ax.size else 0
        flat = ax.reshape(-1, ax.shape[-1]) if ax.size else ax
        if ax.size:
            np.add.at(flat, (rows.reshape(-1, 1), ii.reshape(-1, ii.shape[-1])), gg.reshape(-1, gg.shape[-1]))
            gx = np.moveaxis(flat.reshape(ax.shape), -1, self.axis)
        return gx


class CumminBackward0(CummaxBackward0):
    _ufunc = np.minimum


def _cumext(op, name, input, dim):
    a = input._data
    axis = _dim1(dim, a.ndim, name)
    vals, idx = op.apply(input, axis=axis)
    return getattr(return_types, name)(vals, idx)


def cummax(input, dim):
    """Running maximum along ``dim`` (``torch.cummax``): ``return_types.cummax(values, indices)``;
    the index is the last among ties, NaN propagates. The gradient goes to the indices."""
    return _cumext(CummaxBackward0, "cummax", input, dim)


def cummin(input, dim):
    """Running minimum along ``dim`` (``torch.cummin``); see ``cummax``."""
    return _cumext(CumminBackward0, "cummin", input, dim)


# ------------------------------------------------------------------------------------------------
# logcumsumexp
# ------------------------------------------------------------------------------------------------
class LogcumsumexpBackward0(Op):
    _vmap = ("along", "axis")  # batching rule kind (func/_batching_rules_nn.py)
    _saves = (0, "out")
    _graph = False
    _graph_constants = ("shift",)  # any finite per-slice shift gives the same gradient

    def forward(self, a, axis):
        self.axis = axis
        out = np.logaddexp.accumulate(a, axis=axis) if a.ndim else a.copy()
        self.saved = (a, out)
        if a.ndim:
            last = np.take(out, [-1], axis=axis) if a.shape[axis] else np.zeros(())  # (an empty dim: no shift)
            self.shift = np.where(np.isfinite(last), last, 0)
        return out

    def backward(self, g):
        a, out = self.saved
        if a.ndim == 0:
            return g
        ax = self.axis
        if self._graph:
            # create_graph: exp(a_k - c) * sum_{j>=k} g_j exp(c - out_j), c the slice's last (largest) out;
            # the shift keeps both factors finite unless out spans more than the dtype's exponent range
            c = self.shift
            return np.exp(a - c) * _rev_cumsum(g * np.exp(c - out), ax)
        # grad_k = sum_{j>=k} g_j exp(a_k - out_j), summed in log space for positive and negative g
        with np.errstate(divide="ignore", invalid="ignore"):
            lp = np.where(g > 0, np.log(np.abs(g)) - out, -np.inf)
            ln = np.where(g < 0, np.log(np.abs(g)) - out, -np.inf)
            rp = np.flip(np.logaddexp.accumulate(np.flip(lp, ax), axis=ax), ax)
            rn = np.flip(np.logaddexp.accumulate(np.flip(ln, ax), axis=ax), ax)
            return (np.exp(a + rp) - np.exp(a + rn)).astype(a.dtype, copy=False)


def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input), dim))`` computed stably (``torch.logcumsumexp``); ints promote to float."""
    if input._data.dtype.kind in "biu":
        input = cast(input, _dtype.get_default_dtype())
    axis = _dim1(dim, input._data.ndim, "logcumsumexp")
    return _out(LogcumsumexpBackward0.apply(input, axis=axis), out)


# ------------------------------------------------------------------------------------------------
# cumulative_trapezoid
# ------------------------------------------------------------------------------------------------
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoid integral along ``dim`` (``torch.cumulative_trapezoid``); one fewer element."""
    d, terms = _trap_terms("cumulative_trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:
        return y
    return cumsum(terms, d)
