"""Determinants behind ``torch.linalg.det`` and ``torch.linalg.slogdet`` (``torch.logdet``, built on
``slogdet`` as PyTorch builds it, is in ``linalg_legacy.py``).

``det``'s gradient is the transposed cofactor matrix, computed by the SVD so that it is right at
singular matrices too; ``slogdet``'s is ``A^-H`` solved by LU, as PyTorch solves it, so a singular
matrix gets PyTorch's infs and nans. Batched over leading dims.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from .linalg import _check, _cz, _mH, _mT, _result

__all__ = ["det", "slogdet"]

SlogdetResult = _result("linalg_slogdet", "sign logabsdet")


def _cofactor_t(a):
    """The transposed cofactor matrix ``d det(A) / dA`` via the SVD, valid for singular A too:
    ``det(U) det(Vh) U diag(prod_{j != i} s_j) Vh`` (for complex A its conjugate, the gradient factor)."""
    if a.shape[-1] == 0:
        return np.zeros_like(a)
    u, s, vh = np.linalg.svd(a)
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    left = np.cumprod(np.concatenate([ones, s[..., :-1]], -1), -1)  # prod of s_j for j < i
    right = np.cumprod(np.concatenate([ones, s[..., :0:-1]], -1), -1)[..., ::-1]  # j > i
    sign = _cz(np.linalg.det(u) * np.linalg.det(vh))  # complex: conj(cofactor) = conj(sign) U D Vh
    return (u * (left * right)[..., None, :]) @ vh * sign[..., None, None]


class LinalgDetBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = (a,)
        return np.asarray(np.linalg.det(a))

    def backward(self, g):
        (a,) = self.saved
        if self._graph and a.shape[-1] <= 1:  # a 1x1 (or empty) det is linear: its gradient does not depend on A
            return g[..., None, None] * np.ones(a.shape, a.dtype)
        if self._graph:  # det(A) A^-T, differentiable (an invertible A); conjugated for complex
            a = _cz(a)
            return (g * np.linalg.det(a))[..., None, None] * _mT(np.linalg.inv(a))
        return np.asarray(g)[..., None, None] * _cofactor_t(a)


def det(A: Tensor, *, out=None) -> Tensor:
    """The determinant of each square matrix in ``A`` ``(*, n, n)`` -> ``(*)`` (``torch.linalg.det``);
    differentiable also at singular matrices. RuntimeError for non-float or non-square input."""
    _check(A, "linalg.det", square=True)
    return LinalgDetBackward0.apply(A)


def _solve_adjoint(a, b):
    """``A^-H B`` as PyTorch's ``linalg.solve(A.mH, B)`` computes it: LU with partial pivoting of
    ``A^H``; a singular matrix gives LAPACK's infs and nans (as PyTorch's) instead of an error."""
    ah = _mH(a)
    try:
        return np.linalg.solve(ah, b)
    except np.linalg.LinAlgError:
        pass
    import warnings  # the singular path only: SciPy's LU warns on an exact zero pivot
    from scipy.linalg import lu_factor, lu_solve  # SciPy: optional, and slow to import
    out = np.empty(np.broadcast_shapes(ah.shape, b.shape), np.result_type(ah, b))
    ah, b = np.broadcast_to(ah, out.shape), np.broadcast_to(b, out.shape)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for i in np.ndindex(out.shape[:-2]):
            out[i] = lu_solve(lu_factor(ah[i], check_finite=False), b[i], check_finite=False)
    return out


class LinalgSlogdetBackward0(Op):
    """``(sign, log|det A|)``. PyTorch's gradient: ``A^-H (g I)`` with ``g = g_logabsdet`` for real
    ``A`` (the sign is piecewise constant) and ``g_logabsdet + i Im(g_sign conj(sign))`` for complex
    ``A``; solved by LU as PyTorch does, so a singular ``A`` gives PyTorch's infs and nans."""

    _saves = (0, "out")
    _graph_recompute = True  # the sign comes from _graph_outputs

    def forward(self, a):
        sign, logabs = np.linalg.slogdet(a)
        sign, logabs = np.asarray(sign), np.asarray(logabs)
        self.saved = (a, sign)
        return sign, logabs

    def _run_backward(self, grads):
        if grads[1] is None and self._out_meta[0][1].kind != "c":  # real sign only: no gradient (PyTorch's)
            return (None,)
        return super()._run_backward(grads)

    def backward(self, gsign, glog):
        a, sign = self.saved
        g = glog
        if a.dtype.kind == "c":
            if self._graph:
                sign = self._graph_outputs(sign, None)[0]
            g = g + 1j * (gsign * _cz(sign)).imag
        if self._graph:  # A^-H, differentiable (an invertible A)
            return g[..., None, None] * _mH(np.linalg.inv(a))
        eye = np.eye(a.shape[-1], dtype=a.dtype)
        return _solve_adjoint(a, np.asarray(g, a.dtype)[..., None, None] * eye)


def slogdet(A: Tensor, *, out=None):
    """``(sign, logabsdet)`` of each square matrix ``(*, n, n)`` -> ``(*)``, ``(*)``
    (``torch.linalg.slogdet``). ``logabsdet`` is real; ``sign`` has ``A``'s dtype (for a complex ``A``
    a unit complex number, differentiable). Gradient ``A^-H`` as PyTorch's (a singular matrix, whose
    result is ``(0, -inf)``, gets PyTorch's inf/nan gradient)."""
    _check(A, "linalg.slogdet", square=True)
    return SlogdetResult(*LinalgSlogdetBackward0.apply(A))
