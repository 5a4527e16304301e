"""Special functions (mirrors ``torch.lgamma``, ``torch.digamma``, ``torch.xlogy``, ``torch.erfc``,
``torch.logit`` and their ``torch.special`` names).

Values come from SciPy's special functions; each Op is named after PyTorch's backward node. Integer
and bool inputs promote to the default float dtype, as in PyTorch.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op
from ._util import prep2, unbroadcast
from .pointwise import _out, cast

__all__ = ["lgamma", "digamma", "xlogy", "erfc", "logit"]


def _same(out, like: np.ndarray) -> np.ndarray:
    return np.asarray(out, dtype=like.dtype)


def _floating(t: Tensor) -> Tensor:
    return t if t._data.dtype.kind in "fcV" else cast(t, _dtype.get_default_dtype())


class LgammaBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        return _same(scipy.special.gammaln(a), a)

    def backward(self, g):
        return g * _same(scipy.special.psi(self.saved), self.saved)


class DigammaBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        with np.errstate(divide="ignore", invalid="ignore"):
            out = scipy.special.psi(a)
        return _same(np.where(a == 0, -np.inf, out), a)  # PyTorch: digamma(0) = -inf

    def backward(self, g):
        return g * _same(scipy.special.polygamma(1, self.saved), self.saved)


class ErfcBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        return _same(scipy.special.erfc(a), a)

    def backward(self, g):
        a = self.saved
        return g * _same(-2.0 / math.sqrt(math.pi) * np.exp(-a * a), a)


def _xlogy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, 0, x * np.log(y))
    return np.where(np.isnan(y), np.nan, out)  # PyTorch: nan wherever y is nan, even for x == 0


class XlogyBackward0(Op):
    _saves = (0, 1)

    def forward(self, x, y):
        self.saved = (x, y)
        return _xlogy(x, y).astype(np.result_type(x, y), copy=False)

    def backward(self, g):
        x, y = self.saved
        gx = gy = None
        if self._edges[0] is not None:
            # PyTorch: xlogy(grad, y), zeroed where x == 0 and y <= 0
            gx = np.where((x == 0) & (y <= 0), 0, _xlogy(g, y)).astype(g.dtype)
            gx = unbroadcast(gx, np.shape(x))
        if self._edges[1] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                gy = unbroadcast((g * x / y).astype(g.dtype), np.shape(y))
        return gx, gy


def lgamma(input: Tensor, *, out=None) -> Tensor:
    """``torch.lgamma``: ``log|Gamma(x)|`` elementwise, same shape, float dtype. Backward node
    ``LgammaBackward0`` (gradient ``digamma(x)``)."""
    return _out(LgammaBackward0.apply(_floating(input)), out)


def digamma(input: Tensor, *, out=None) -> Tensor:
    """``torch.digamma`` (``torch.special.psi``): the derivative of ``lgamma``; ``-inf`` at 0, as PyTorch.
    Backward node ``DigammaBackward0`` (gradient ``polygamma(1, x)``)."""
    return _out(DigammaBackward0.apply(_floating(input)), out)


def erfc(input: Tensor, *, out=None) -> Tensor:
    """``torch.erfc``: ``1 - erf(x)`` without cancellation for large ``x``. Backward node ``ErfcBackward0``."""
    return _out(ErfcBackward0.apply(_floating(input)), out)


def xlogy(input, other, *, out=None) -> Tensor:
    """``torch.xlogy``: ``input * log(other)``, 0 where ``input == 0`` (nan where ``other`` is nan); tensors
    or Python numbers, broadcast and promoted as a binary op (integers to the default float)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy(): at least one of 'input' and 'other' must be a Tensor")
    a, b = prep2(input, other)
    ref = a if isinstance(a, Tensor) else b
    if ref._data.dtype.kind not in "fcV":
        fd = _dtype.get_default_dtype()
        a = cast(a, fd) if isinstance(a, Tensor) else float(a)
        b = cast(b, fd) if isinstance(b, Tensor) else float(b)
    if not isinstance(a, Tensor):  # keep the scalar operand out of the graph in the result dtype
        a = _make(np.asarray(a, dtype=b._data.dtype))
    if not isinstance(b, Tensor):
        b = _make(np.asarray(b, dtype=a._data.dtype))
    return _out(XlogyBackward0.apply(a, b), out)


def logit(input: Tensor, eps=None, *, out=None) -> Tensor:
    """``torch.logit``: ``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to ``[eps, 1 - eps]`` (the
    gradient is zero outside that range, as in PyTorch)."""
    from .pointwise import clamp, div, log, sub
    x = _floating(input)
    if eps is not None:
        x = clamp(x, eps, 1 - eps)
    return _out(log(div(x, sub(1, x))), out)
