"""Power-average (LP) pooling (``F.lp_pool1d/2d/3d``): ``(sum over each window of x^p)^(1/p)``, computed
as PyTorch does, through the average pool of ``x^p``."""
from __future__ import annotations

import numbers

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from . import pointwise as _P, unary as _U
from ._window import _check_tensor
from .pooling import avg_pool, max_pool

__all__: list = []  # reached through nn.functional, as in PyTorch

class LpPoolBase(Op):
    """LP pooling's base ``window * sign(s) * relu(|s|)`` for the float window averages ``s``: ``s``
    times the window size, with -0.0 and NaN as PyTorch's op chain gives them. Its gradient is
    ``g * window``, and exactly 0 where ``s == 0`` (PyTorch's relu backward masks there the infinite
    slope of the ``pow`` that follows, which stays a real ``PowBackward0`` node, as in PyTorch).
    """

    _graph_constants = ("mask",)

    def forward(self, s, window):
        t = np.sign(s) * np.abs(s)  # s itself, with -0.0 and NaN treated as PyTorch's chain does
        t *= window
        self.mask, self.window = s == 0, window
        return t

    def backward(self, g):
        gs = g * self.window
        gs[self.mask] = 0
        return gs, None


def _lp_pool(input, nd, norm_type, kernel_size, stride, ceil_mode, window):
    """``(sum over each window of x^p)^(1/p)`` as PyTorch computes it: ``avg_pool(x^p) * window`` with
    ``sign(s) * relu(|s|)`` in between (so a zero sum gets a zero gradient); ``p = +-inf`` is a max pool
    of ``|x|`` (of ``-|x|``, negated)."""
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool(_U.abs(input), nd, kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return _U.neg(max_pool(_U.neg(_U.abs(input)), nd, kernel_size, stride, 0, 1, ceil_mode))
    out = avg_pool(_P.pow(input, norm_type), nd, kernel_size, stride, 0, ceil_mode)
    if not isinstance(window, numbers.Number):  # lp_pool1d multiplies by kernel_size itself
        raise TypeError(f"mul(): argument 'other' (position 1) must be Tensor, not {type(window).__name__}")
    if out._data.dtype.kind in "fV":
        return _P.pow(LpPoolBase.apply(out, window), 1.0 / norm_type)  # NaN for negative bases, as PyTorch
    # integer windows (PyTorch's truncating average pool): the op chain itself, no gradient involved
    out = _P.mul(_P.mul(_U.sign(out), _U.relu(_U.abs(out))), window)
    return _P.pow(out, 1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``F.lp_pool1d``: power-average pooling of ``(N, C, L)`` or ``(C, L)``; ``(sum_window x^p)^(1/p)``.

    ``kernel_size`` is an int (a tuple raises TypeError, as in PyTorch); ``stride`` defaults to it; no
    padding. ``p = 1`` is sum pooling, ``p = inf`` max pooling of ``|x|``. Windows whose sum of ``x^p``
    is negative (odd ``p``) give NaN, as in PyTorch. RuntimeError for bad pooling arguments or ranks.
    """
    _check_tensor(input, "lp_pool1d", position=1)
    return _lp_pool(input, 1, norm_type, kernel_size, stride, ceil_mode, kernel_size)


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``F.lp_pool2d``: power-average pooling of ``(N, C, H, W)`` or ``(C, H, W)`` over ``kernel_size``
    (int or pair) windows; ``stride`` defaults to ``kernel_size``; no padding. ValueError for a kernel
    that is not one or two ints; RuntimeError for bad pooling arguments or ranks."""
    _check_tensor(input, "lp_pool2d", position=1)
    kw, kh = tuple(kernel_size) if isinstance(kernel_size, (list, tuple)) else (kernel_size, kernel_size)
    return _lp_pool(input, 2, norm_type, kernel_size, stride, ceil_mode, kw * kh)


def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``F.lp_pool3d``: power-average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` over ``kernel_size``
    (int or triple) windows; ``stride`` defaults to ``kernel_size``; no padding. Otherwise as lp_pool2d."""
    _check_tensor(input, "lp_pool3d", position=1)
    kd, kw, kh = tuple(kernel_size) if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * 3
    return _lp_pool(input, 3, norm_type, kernel_size, stride, ceil_mode, kd * kw * kh)
