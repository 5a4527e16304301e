"""``torch.special``: the special functions under their SciPy-style names.

Each name is the numtorch function PyTorch's ``torch.special`` aliases (``gammaln`` is ``lgamma``,
``expit`` is ``sigmoid``, ``psi`` is ``digamma``...), so values, dtypes and gradients are those ops'.
"""
from __future__ import annotations

from ._ops import nn_ops as _nn
from ._ops import special as _sp
from ._ops.unary import exp2, expm1, log1p, round, sigmoid as expit  # noqa: A004
from ._ops.reduction import logsumexp
from ._ops.special import (airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, digamma, entr, erfc, erfcx, i0e, i1,
                           i1e, lgamma as gammaln, log_ndtr, logit, modified_bessel_i0, modified_bessel_i1,
                           modified_bessel_k0, modified_bessel_k1, ndtr, ndtri, scaled_modified_bessel_k0,
                           scaled_modified_bessel_k1, spherical_bessel_j0, xlog1py, xlogy, zeta)
from ._ops.unary import erf, erfinv
from ._ops.orthogonal_polynomials import *  # noqa: F401,F403  (chebyshev_polynomial_t & co.)
from ._ops import orthogonal_polynomials as _orthogonal
from ._tensor import Tensor

__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "xlogy", "xlog1py", "expit", "logit", "erf",
           "erfc", "erfcx", "erfinv", "log1p", "expm1", "exp2", "logsumexp", "softmax", "log_softmax", "round",
           "ndtr", "ndtri", "log_ndtr", "entr", "sinc", "i0", "i0e", "i1", "i1e", "zeta", "gammainc", "gammaincc",
           "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "airy_ai", *_orthogonal.__all__]

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


def _tensors(fname: str, input, other) -> None:
    _sp._need_tensor(input, fname)
    _sp._need_tensor(other, fname, "other", 2)


def gammainc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``torch.special.gammainc(a, x)``: ``torch.igamma``, the regularised lower incomplete gamma ``P(a, x)``."""
    _tensors("special_gammainc", input, other)
    return _sp.igamma(input, other, out=out)


def gammaincc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``torch.special.gammaincc(a, x)``: ``torch.igammac``, the regularised upper incomplete gamma ``Q(a, x)``."""
    _tensors("special_gammaincc", input, other)
    return _sp.igammac(input, other, out=out)


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``torch.special.softmax``: softmax along ``dim`` (``dim`` is required)."""
    return _nn.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``torch.special.log_softmax``: log-softmax along ``dim`` (``dim`` is required)."""
    return _nn.log_softmax(input, dim, dtype=dtype)

