"""Layers that PyTorch defines in terms of other ops: local response norm, power-average (LP) pooling,
``pdist`` and channel shuffle.

``local_response_norm`` and ``lp_pool1d``/``lp_pool2d`` follow PyTorch's Python definitions op by op
(square, pad, average pool, ...), so their autograd and dtype rules are those of the ops they are
built from; only LP pooling's last steps ``(window * sign(s) * relu(|s|)) ** (1/p)`` are one Op, whose
backward gives a zero window sum a zero gradient as PyTorch's does (its relu backward masks
``pow``'s infinite slope there). ``pdist`` and ``channel_shuffle`` are one ``Op`` each, named after
PyTorch's backward nodes; ``pdist``'s backward follows ATen's per-``p`` formulas (an ``inf`` norm
gives every tied maximum the full gradient, unlike ``torch.norm``'s).

``nn/functional.py`` re-exports all five; ``pdist`` and ``channel_shuffle`` are also ``torch.*`` functions.
"""
from __future__ import annotations

import numbers

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from . import conv as _conv
from . import pointwise as _P
from . import unary as _U
from . import pooling as _pool
from . import shape as _S
from .norm_ops import _pnorm

__all__ = ["local_response_norm", "lp_pool1d", "lp_pool2d", "pdist", "channel_shuffle"]


def _check_input(t, fn):
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")


# ------------------------------------------------------------------------------------------------
# local response normalization
# ------------------------------------------------------------------------------------------------
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``F.local_response_norm``: ``x / (k + alpha * mean(x^2 over `size` neighbouring channels))^beta``.

    ``input`` is ``(N, C, *)`` with at least 3 dims; the channel window for channel ``c`` is
    ``[c - size // 2, c + (size - 1) // 2]``, zero-padded at the ends, and the mean always divides by
    ``size`` (PyTorch pads the squares and average-pools them). An empty input is returned as is.
    ValueError for fewer than 3 dims; RuntimeError (from the pooling) for ``size < 1``.
    """
    _check_input(input, "local_response_norm")
    dim = input._data.ndim
    if dim < 3:  # PyTorch's message, its odd spacing included
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input._data.size == 0:
        return input
    sizes = input._data.shape
    # PyTorch pools (N, 1, C, L) with a (size, 1) window for 3-d inputs and (N, 1, C, H, rest) with a
    # (size, 1, 1) one otherwise; both are a window along C alone, so one 2-d pooling covers every rank
    div = _S.reshape(_P.mul(input, input), (sizes[0], 1, sizes[1], -1))
    div = _conv.pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = _pool.avg_pool(div, 2, (size, 1), stride=1)
    div = _S.reshape(div, sizes)
    div = _P.pow(_P.add(_P.mul(div, alpha), k), beta)
    return _P.div(input, div)


# ------------------------------------------------------------------------------------------------
# power-average pooling
# ------------------------------------------------------------------------------------------------
class PowBackward0(Op):
    """LP pooling's tail ``(window * sign(s) * relu(|s|)) ** inv_p`` for the float window averages ``s``.

    Named after the last node of PyTorch's op chain. Its gradient is that chain's: ``g * inv_p *
    t ** (inv_p - 1) * window`` with ``t`` the base, and exactly 0 where ``s == 0`` (PyTorch's relu
    backward masks the infinite slope of ``pow`` there); NaN where ``t < 0`` and ``inv_p`` is fractional.
    """

    def forward(self, s, window, inv_p):
        t = np.sign(s) * np.abs(s)  # s itself, with -0.0 and NaN treated as PyTorch's chain does
        t *= window
        self.saved = (s, t)
        self.window, self.inv_p = window, inv_p
        with np.errstate(divide="ignore", invalid="ignore"):  # NaN for negative bases, as PyTorch
            return t ** inv_p

    def backward(self, g):
        s, t = self.saved
        with np.errstate(divide="ignore", invalid="ignore"):
            gs = g * (self.inv_p * t ** (self.inv_p - 1))
        gs *= self.window
        gs[s == 0] = 0
        return gs, None, None


def _lp_pool(input, nd, norm_type, kernel_size, stride, ceil_mode, window):
    """``(sum over each window of x^p)^(1/p)`` as PyTorch computes it: ``avg_pool(x^p) * window`` with
    ``sign(s) * relu(|s|)`` in between (so a zero sum gets a zero gradient); ``p = +-inf`` is a max pool
    of ``|x|`` (of ``-|x|``, negated)."""
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return _pool.max_pool(_U.abs(input), nd, kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return _U.neg(_pool.max_pool(_U.neg(_U.abs(input)), nd, kernel_size, stride, 0, 1, ceil_mode))
    out = _pool.avg_pool(_P.pow(input, norm_type), nd, kernel_size, stride, 0, ceil_mode)
    if not isinstance(window, numbers.Number):  # lp_pool1d multiplies by kernel_size itself
        raise TypeError(f"mul(): argument 'other' (position 1) must be Tensor, not {type(window).__name__}")
    if out._data.dtype.kind in "fV":
        return PowBackward0.apply(out, window, 1.0 / norm_type)
    # integer windows (PyTorch's truncating average pool): the op chain itself, no gradient involved
    out = _P.mul(_P.mul(_U.sign(out), _U.relu(_U.abs(out))), window)
    return _P.pow(out, 1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``F.lp_pool1d``: power-average pooling of ``(N, C, L)`` or ``(C, L)``; ``(sum_window x^p)^(1/p)``.

    ``kernel_size`` is an int (a tuple raises TypeError, as in PyTorch); ``stride`` defaults to it; no
    padding. ``p = 1`` is sum pooling, ``p = inf`` max pooling of ``|x|``. Windows whose sum of ``x^p``
    is negative (odd ``p``) give NaN, as in PyTorch. RuntimeError for bad pooling arguments or ranks.
    """
    _check_input(input, "lp_pool1d")
    return _lp_pool(input, 1, norm_type, kernel_size, stride, ceil_mode, kernel_size)


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``F.lp_pool2d``: power-average pooling of ``(N, C, H, W)`` or ``(C, H, W)`` over ``kernel_size``
    (int or pair) windows; ``stride`` defaults to ``kernel_size``; no padding. ValueError for a kernel
    that is not one or two ints; RuntimeError for bad pooling arguments or ranks."""
    _check_input(input, "lp_pool2d")
    kw, kh = tuple(kernel_size) if isinstance(kernel_size, (list, tuple)) else (kernel_size, kernel_size)
    return _lp_pool(input, 2, norm_type, kernel_size, stride, ceil_mode, kw * kh)


# ------------------------------------------------------------------------------------------------
# pdist: distances between all pairs of rows
# ------------------------------------------------------------------------------------------------
class PdistBackward0(Op):
    """``||x[i] - x[j]||_p`` for every row pair ``i < j`` of an ``(N, M)`` array, in row-major pair order."""

    _saves = (0, "out")

    def forward(self, x, p):
        n, m = x.shape
        i, j = np.triu_indices(n, 1)
        diff = x[i] - x[j]
        if m == 0:  # empty rows: all distances are 0 (a max over nothing would fail)
            dist = np.zeros(len(i), x.dtype)
        else:
            dist = _pnorm(diff, p, -1, keepdims=False).astype(x.dtype, copy=False)
        self.saved = (diff, dist, i, j)
        self.p, self.n = p, n
        return dist

    def backward(self, g):
        diff, dist, i, j = self.saved
        p, n, m = self.p, self.n, diff.shape[1]
        gk, dk = g[:, None], dist[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 0:
                gd = np.zeros_like(diff)
            elif p == 1:
                gd = np.sign(diff) * gk
            elif p == 2:
                gd = diff * (gk / dk)
            elif p == np.inf:  # each coordinate reaching the max gets the whole gradient (ATen's rule)
                gd = np.sign(diff) * (np.abs(diff) == dk) * gk
            else:  # sign * |d|^(p-1) / dist^(p-1); a zero coordinate gets 0 (not 0 * inf when p < 1)
                gd = np.sign(diff) * np.abs(diff) ** (p - 1) * (gk / dk ** (p - 1))
                gd[diff == 0] = 0
            gd[np.broadcast_to(dk == 0, gd.shape)] = 0  # no gradient through a zero distance
        gd = gd.astype(diff.dtype, copy=False)
        # each pair adds +gd to row i and -gd to row j: two weighted counts over (row, column) slots
        cols = np.arange(m)
        gx = np.bincount((i[:, None] * m + cols).ravel(), gd.ravel(), minlength=n * m)
        gx -= np.bincount((j[:, None] * m + cols).ravel(), gd.ravel(), minlength=n * m)
        return gx.reshape(n, m).astype(diff.dtype, copy=False)


_HALF_NAMES = {"float16": "Half", "bfloat16": "BFloat16"}


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """``torch.pdist``: the ``p``-norm distances between all row pairs ``i < j`` of an ``(N, M)`` input,
    as a 1-d tensor of ``N * (N - 1) / 2`` values in the order of ``torch.triu_indices(N, N, 1)``.

    RuntimeError for a non-2-d or non-float input or negative ``p``; NotImplementedError for 16-bit floats
    (as PyTorch on CPU); TypeError for a non-Tensor.
    """
    _check_input(input, "pdist")
    x = input._data
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if x.dtype.kind not in "fV":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if x.dtype.itemsize == 2:
        raise NotImplementedError(f"\"pdist\" not implemented for '{_HALF_NAMES.get(x.dtype.name, x.dtype.name)}'")
    return PdistBackward0.apply(input, p=float(p))


# ------------------------------------------------------------------------------------------------
# channel shuffle
# ------------------------------------------------------------------------------------------------
def _shuffle(x, groups):
    """``(N, C, *)``: channel ``g * (C / groups) + i`` moves to ``i * groups + g``."""
    n, c = x.shape[:2]
    src = x.reshape(n, groups, c // groups, *x.shape[2:]).swapaxes(1, 2)
    out = np.empty(src.shape, x.dtype)  # always a new array (with 1 or C groups a reshape could alias x)
    out[...] = src
    return out.reshape(x.shape)


class ChannelShuffleBackward0(Op):
    """Channel shuffle: a fixed permutation of dim 1; backward is the inverse (shuffle by ``C / groups``)."""

    def forward(self, x, groups):
        self.groups = groups
        return _shuffle(x, groups)

    def backward(self, g):
        c = g.shape[1]
        return _shuffle(g, c // self.groups) if c else g.copy()


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.channel_shuffle``: split the ``C`` channels of an ``(N, C, *)`` input into ``groups`` groups
    and interleave them (``(N, groups, C/groups, *)`` transposed to ``(N, C/groups, groups, *)``).

    TypeError for a non-int ``groups``; RuntimeError for fewer than 3 dims, ``groups <= 0`` or ``C`` not
    divisible by ``groups``. Any dtype; the result is a new tensor.
    """
    _check_input(input, "channel_shuffle")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise TypeError(f"channel_shuffle(): argument 'groups' (position 2) must be int, not {type(groups).__name__}")
    x = input._data
    if x.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if x.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {x.shape[1]} channels and "
                           f"{groups} groups.")
    return ChannelShuffleBackward0.apply(input, groups=int(groups))
