"""``torch.special``: the special functions under their SciPy-style names.

Each name is the numtorch function PyTorch's ``torch.special`` aliases (``gammaln`` is ``lgamma``,
``expit`` is ``sigmoid``, ``psi`` is ``digamma``...), so values, dtypes and gradients are those ops'.
"""
from __future__ import annotations

from ._ops.pointwise import exp2, expm1, log1p, round, sigmoid as expit  # noqa: A004
from ._ops.reduction import logsumexp
from ._ops.special import digamma, erfc, lgamma as gammaln, logit, xlogy
from ._ops.unary import erf, erfinv
from ._tensor import Tensor

__all__ = ["gammaln", "digamma", "psi", "xlogy", "expit", "logit", "erf", "erfc", "erfinv", "log1p", "expm1",
           "exp2", "logsumexp", "softmax", "log_softmax", "round", "ndtr", "entr"]

psi = digamma


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``torch.special.softmax``: softmax along ``dim`` (``dim`` is required)."""
    from ._ops.nn_ops import softmax as _softmax
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``torch.special.log_softmax``: log-softmax along ``dim`` (``dim`` is required)."""
    from ._ops.nn_ops import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, ``(1 + erf(x / sqrt(2))) / 2`` (``torch.special.ndtr``)."""
    return erfc(input * -0.7071067811865476) * 0.5


def entr(input: Tensor) -> Tensor:
    """Elementwise entropy term ``-x log x``: 0 at 0, ``-inf`` for negative ``x`` (``torch.special.entr``)."""
    from ._ops.pointwise import where
    from ._ops.creation import full_like
    return where(input > 0, -xlogy(input, input), where(input == 0, full_like(input, 0.0),
                                                        full_like(input, float("-inf"))))
