"""Operations on vectors: the cross product of 3-vectors (``cross``), the outer-product update ``addr``, and
``renorm``, which rescales each slice whose p-norm exceeds a maximum.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._dtype import result_type
from ._cast import checked_scalar
from ._util import wrap_dim
from .creation import ones_like
from .linalg import cross as _linalg_cross
from .matmul import outer
from .pointwise import _out, where
from .reduction import LinalgVectorNormBackward0, _tname

__all__ = ["cross", "renorm", "addr"]


def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along ``dim`` (``torch.cross``); ``dim=None`` picks the first dim
    of size 3 (with PyTorch's deprecation warning). Delegates to ``linalg.cross``."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                      "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
                      "dim will change to agree with that of linalg.cross in a future release.")
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return _linalg_cross(input, other, dim=dim, out=out)


def renorm(input, p, dim, maxnorm, *, out=None):
    """Rescale each slice ``input.select(dim, i)`` whose p-norm exceeds ``maxnorm`` to norm
    ``maxnorm`` (``torch.renorm``; factor ``maxnorm / (norm + 1e-7)``). RuntimeError for p <= 0,
    maxnorm < 0, non-float input, or a 0-d input."""
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError(f"\"renorm\" not implemented for '{_tname(input._data)}'")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    nd = input.dim()
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = wrap_dim(dim, nd)
    axes = tuple(i for i in range(nd) if i != d)
    norm = LinalgVectorNormBackward0.apply(input, ord=float(p), axes=axes, keepdim=True)
    factor = where(norm > maxnorm, maxnorm / (norm + 1e-7), ones_like(norm))
    return _out(input * factor, out)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)`` (``torch.addr``); ``input`` broadcasts to ``(n, m)``.
    With ``beta=0`` the input is ignored (its NaNs too). Bool tensors: ``(beta and input) or (alpha and
    outer)``. RuntimeError for vectors that are not 1-D, float ``alpha``/``beta`` with integer or bool
    tensors, bool ones with other tensors, or values out of the tensors' C type."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    kind = np.result_type(input._data, vec1._data, vec2._data).kind
    for name, v in (("beta", beta), ("alpha", alpha)):  # PyTorch's checks, one scalar after the other
        if kind != "b" and isinstance(v, bool):
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if kind in "iub" and isinstance(v, (float, complex)):
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    if kind != "b":
        dt = np.result_type(input._data, vec1._data, vec2._data)
        beta, alpha = checked_scalar(beta, dt), checked_scalar(alpha, dt)
    prod = outer(vec1, vec2)
    if kind != "b":  # c10's checked conversion into the result dtype (uint8: -300 raises, -1 wraps)
        dt = np.result_type(input._data, vec1._data, vec2._data)
        beta, alpha = checked_scalar(beta, dt), checked_scalar(alpha, dt)
    n, m = prod.shape
    base = input.expand(n, m)
    if kind == "b":
        res = prod & bool(alpha)  # bool tensors: & and | are logical and/or
        res = res | (base & bool(beta)) if beta else res
    else:
        res = prod * alpha if alpha != 1 else prod
        res = (base if beta == 1 else base * beta) + res if beta != 0 else res.to(result_type(input, prod))
    return _out(res, out)
