"""Randomized low-rank decompositions (``torch.svd_lowrank``, ``torch.pca_lowrank``; Halko, Martinsson and
Tropp 2009, algorithms 4.4 and 5.1).

A random Gaussian ``(n, q)`` matrix ``R`` (drawn from the global generator, so a seed gives PyTorch's
``R``) is multiplied into ``A``; ``niter`` power iterations with QR re-orthonormalisation give an
orthonormal basis ``Q`` of ``A``'s dominant column space; the SVD of the small ``Q^H A`` lifted by ``Q``
approximates ``A``'s. Everything is built from numtorch ops (matmul, ``linalg.qr``, ``linalg.svd``), so it
is differentiable through them. Dense tensors only.
"""
from __future__ import annotations

from .. import _dtype
from .._tensor import Tensor
from . import linalg as _LA, matmul as _M
from .sampling import randn

__all__ = ["svd_lowrank", "pca_lowrank"]


def _basis(A: Tensor, q: int, niter: int, M):
    """``Q`` with ``q`` orthonormal columns such that ``Q Q^H (A - M)`` approximates ``A - M``."""
    dtype = A.dtype if A.dtype.is_floating_point or A.is_complex() else _dtype.float32
    R = randn(A.shape[-1], q, dtype=dtype)
    X = _M.matmul(A, R)
    if M is not None:
        X = X - _M.matmul(M, R)
    Q = _LA.qr(X).Q
    for _ in range(niter):
        X = _M.matmul(A.mH, Q)
        if M is not None:
            X = X - _M.matmul(M.mH, Q)
        Q = _LA.qr(X).Q
        X = _M.matmul(A, Q)
        if M is not None:
            X = X - _M.matmul(M, Q)
        Q = _LA.qr(X).Q
    return Q


def _svd_lowrank(A: Tensor, q, niter, M):
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:  # work on the tall form
        A = A.mH
        M = None if M is None else M.mH
    Q = _basis(A, q, niter, M)
    B = _M.matmul(Q.mH, A)
    if M is not None:
        B = B - _M.matmul(Q.mH, M)
    U, S, Vh = _LA.svd(B, full_matrices=False)
    U, V = Q.matmul(U), Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A: Tensor, q=6, niter=2, M=None):
    """``torch.svd_lowrank``: ``(U, S, V)`` with ``A - M ≈ U diag(S) V^H`` for ``A`` of shape ``(*, m, n)``:
    ``U`` ``(*, m, q)``, ``S`` ``(*, q)``, ``V`` ``(*, n, q)``. ``q`` (default 6) is a slightly overestimated
    rank, ``niter`` (default 2) the number of subspace iterations, ``M`` (broadcast to ``A``) a mean to
    subtract. Random: seed the generator for repeatable results."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A: Tensor, q=None, center: bool = True, niter: int = 2):
    """``torch.pca_lowrank``: ``svd_lowrank`` of ``A`` (``(*, m, n)``: m samples of n features) after
    subtracting the column means when ``center``. ``q`` defaults to ``min(6, m, n)``. ValueError for ``q``
    outside ``[0, min(m, n)]`` or a negative ``niter``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)
