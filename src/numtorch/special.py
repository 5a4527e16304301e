"""``torch.special``: the special functions under their SciPy-style names.

Each name is the numtorch function PyTorch's ``torch.special`` aliases (``gammaln`` is ``lgamma``,
``expit`` is ``sigmoid``, ``psi`` is ``digamma``...), so values, dtypes and gradients are those ops'.
"""
from __future__ import annotations

from ._ops import special as _sp
from ._ops.unary import exp2, expm1, log1p, round, sigmoid as expit  # noqa: A004
from ._ops.reduction import logsumexp
from ._ops.special import (airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, digamma, erfc, erfcx, i0e, i1, i1e,
                           lgamma as gammaln, log_ndtr, logit, modified_bessel_i0, modified_bessel_i1,
                           modified_bessel_k0, modified_bessel_k1, ndtri, scaled_modified_bessel_k0,
                           scaled_modified_bessel_k1, spherical_bessel_j0, xlog1py, xlogy, zeta)
from ._ops.unary import erf, erfinv
from ._tensor import Tensor

__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "xlogy", "xlog1py", "expit", "logit", "erf",
           "erfc", "erfcx", "erfinv", "log1p", "expm1", "exp2", "logsumexp", "softmax", "log_softmax", "round",
           "ndtr", "ndtri", "log_ndtr", "entr", "sinc", "i0", "i0e", "i1", "i1e", "zeta", "gammainc", "gammaincc",
           "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "airy_ai"]

psi = digamma


# The names shared with torch.* check their arguments here first, so errors name ``special_*`` as PyTorch's.
def polygamma(n: int, input: Tensor, *, out=None) -> Tensor:
    """``torch.special.polygamma(n, input)``: ``torch.polygamma``."""
    _sp._need_int(n, "special_polygamma", "n", 1)
    _sp._need_tensor(input, "special_polygamma", "input", 2)
    return _sp.polygamma(n, input, out=out)


def multigammaln(input: Tensor, p: int, *, out=None) -> Tensor:
    """``torch.special.multigammaln(input, p)``: ``torch.mvlgamma``, the log multivariate gamma function."""
    _sp._need_tensor(input, "special_multigammaln")
    _sp._need_int(p, "special_multigammaln", "p", 2)
    return _sp.mvlgamma(input, p, out=out)


def i0(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.i0``: ``torch.i0``, the modified Bessel function of the first kind, order 0."""
    _sp._need_tensor(input, "special_i0")
    return _sp.i0(input, out=out)


def sinc(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.sinc``: ``torch.sinc``, the normalized sinc ``sin(pi x) / (pi x)``."""
    _sp._need_tensor(input, "special_sinc")
    return _sp.sinc(input, out=out)


def gammainc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``torch.special.gammainc(a, x)``: ``torch.igamma``, the regularised lower incomplete gamma ``P(a, x)``."""
    _sp._need_tensor(input, "special_gammainc")
    _sp._need_tensor(other, "special_gammainc", "other", 2)
    return _sp.igamma(input, other, out=out)


def gammaincc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``torch.special.gammaincc(a, x)``: ``torch.igammac``, the regularised upper incomplete gamma ``Q(a, x)``."""
    _sp._need_tensor(input, "special_gammaincc")
    _sp._need_tensor(other, "special_gammaincc", "other", 2)
    return _sp.igammac(input, other, out=out)


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
