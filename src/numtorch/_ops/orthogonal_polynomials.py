"""The classical orthogonal polynomials of ``torch.special``: Chebyshev of the four kinds (and their
shifted forms on [0, 1]), Hermite (physicists' ``H`` and probabilists' ``He``), Laguerre and Legendre,
each evaluated as ``f(input, n)`` with ``input`` and ``n`` broadcast together.

Every family satisfies a three-term recurrence ``P[k+1] = (a_k x + b_k) P[k] - c_k P[k-1]`` from
``P[0] = 1`` and its own ``P[1]``; the kernel runs it up to the largest degree asked for, keeping each
element's value at its own degree. ``n`` is truncated to an integer; a negative degree gives 0, as in
PyTorch. Integer inputs give the default float dtype. Not differentiable (as in PyTorch).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ._out import _out

__all__ = """chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w
shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w hermite_polynomial_h hermite_polynomial_he laguerre_polynomial_l
legendre_polynomial_p""".split()


def _recurrence(x, n, first, step):
    """``P[n](x)`` elementwise: ``P[0] = 1``, ``P[1] = first(x)``, ``P[k+1] = step(k, x, P[k], P[k-1])``."""
    out = np.where(n == 0, 1.0, 0.0) * np.ones_like(x)
    top = int(n.max()) if n.size else 0
    if top >= 1:
        prev, cur = np.ones_like(x), first(x)
        out = np.where(n == 1, cur, out)
        for k in range(1, top):
            prev, cur = cur, step(k, x, cur, prev)
            out = np.where(n == k + 1, cur, out)
    return out


def _chebyshev(first):
    return lambda x, n: _recurrence(x, n, first, lambda k, x, p, q: 2 * x * p - q)


_T, _U = _chebyshev(lambda x: x), _chebyshev(lambda x: 2 * x)
_V, _W = _chebyshev(lambda x: 2 * x - 1), _chebyshev(lambda x: 2 * x + 1)
_KERNELS = {
    "chebyshev_polynomial_t": _T, "chebyshev_polynomial_u": _U,
    "chebyshev_polynomial_v": _V, "chebyshev_polynomial_w": _W,
    "shifted_chebyshev_polynomial_t": lambda x, n: _T(2 * x - 1, n),
    "shifted_chebyshev_polynomial_u": lambda x, n: _U(2 * x - 1, n),
    "shifted_chebyshev_polynomial_v": lambda x, n: _V(2 * x - 1, n),
    "shifted_chebyshev_polynomial_w": lambda x, n: _W(2 * x - 1, n),
    "hermite_polynomial_h": lambda x, n: _recurrence(x, n, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q),
    "hermite_polynomial_he": lambda x, n: _recurrence(x, n, lambda x: x, lambda k, x, p, q: x * p - k * q),
    "laguerre_polynomial_l": lambda x, n: _recurrence(x, n, lambda x: 1 - x,
                                                      lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
    "legendre_polynomial_p": lambda x, n: _recurrence(x, n, lambda x: x,
                                                      lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}


def _polynomial(name):
    kernel = _KERNELS[name]

    def op(input, n, *, out=None):
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(n).__name__}), but expected at least one Tensor")
        rt = _dtype.result_type(input, n)
        if not (rt.is_floating_point or rt.is_complex):
            rt = _dtype.get_default_dtype()
        if rt.is_complex:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{rt._aten_name}'")
        # .astype, not np.asarray: a vmap stand-in must raise when read, never convert silently
        x = input._data.astype(np.float64) if isinstance(input, Tensor) else np.asarray(input, np.float64)
        deg = n._data.astype(np.float64) if isinstance(n, Tensor) else np.asarray(n, np.float64)
        deg = np.trunc(np.nan_to_num(deg, nan=-1.0)).astype(np.int64)
        x, deg = np.broadcast_arrays(x, deg)
        res = np.where(deg < 0, 0.0, kernel(x, np.maximum(deg, 0)))
        return _out(_make(np.asarray(res, _dtype.to_np(rt))), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"``torch.special.{name}(input, n)``: the polynomial of degree ``n`` (truncated to an integer; "
                  f"negative gives 0) at ``input``, broadcast together; float result, not differentiable.")
    return op


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial("hermite_polynomial_h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p")
