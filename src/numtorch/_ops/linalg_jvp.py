"""Forward-AD rules (``jvp``) of the matrix decompositions whose tangent PyTorch defines by its own forward
formula, which the generic fallback (the tangent derived from the backward, ``autograd/forward_ad.py``)
does not reproduce: the backward of these ops reads only one triangle of ``A`` (or symmetrizes its
gradient), while PyTorch's forward formula uses the whole tangent ``dA`` as given.

Each rule is attached to its Op class at import (``jvp`` attribute), written with differentiable
numtorch ops so tangents can be differentiated again. Formulas (``dA`` the input tangent):

* Cholesky ``A = L L^H``: ``X = L^-1 dA L^-H``, ``dL = L (tril(X) - diag(X) / 2)`` (``upper``: ``dL^H``).
* ``eigh`` ``A = V diag(w) V^H``: ``dP = V^H dA V``, ``dw = diag(dP)`` (its real part),
  ``dV = V (dP / E)`` with ``E_ij = w_j - w_i`` and a zero diagonal.
* ``triangular_solve`` ``op(A) X = B``: ``dX = op(A)^-1 (dB - dA X)`` and the cloned coefficient's
  tangent ``dA`` (PyTorch uses ``dA`` itself, not its triangle nor its transpose).
* LU ``A = P L U`` (``m x n``, ``k = min(m, n)``): with ``P^T dA`` split as ``L``/``U``,
  ``X = L1^-1 (P^T dA)_11 U1^-1``, ``dL1 = L1 tril(X, -1)``, ``dU1 = triu(X) U1``; a wide matrix adds
  ``dU2 = L1^-1 ((P^T dA)_12 - dL1 U2)``, a tall one ``dL2 = ((P^T dA)_21 - L2 dU1) U1^-1``; the packed
  tangent is ``dL + dU``.
* QR ``A = Q R`` (``m >= n``): ``C = Q^H dA R^-1``, ``S = triu(C + C^H)`` with its diagonal halved,
  ``dR = S R``, ``dQ = dA R^-1 - Q S``; a wide ``A = [X | Y]`` (``R = [U | V]``) takes ``dQ``, ``dU``
  from ``X`` and ``dV = Q^H (dY - dQ V)``.
"""
from __future__ import annotations

from .._tensor import Tensor
from .creation import eye, zeros_like
from .linalg import LinalgCholeskyExBackward0, LinalgEighBackward0, LinalgQrBackward0
from .linalg_legacy import LinalgLuFactorExBackward0, TriangularSolveBackward0, lu_unpack
from .rearrange import cat, diag_embed

__all__ = []


def _solve(a: Tensor, b: Tensor, upper: bool, unit=False) -> Tensor:
    """``a^-1 b`` for triangular ``a`` (only that triangle read)."""
    return TriangularSolveBackward0.apply(b, a, upper=upper, transpose=False, unitri=unit)[0]


def _solve_right(b: Tensor, a: Tensor, upper: bool) -> Tensor:
    """``b a^-1`` for triangular ``a``: ``(a^-T b^T)^T``."""
    return TriangularSolveBackward0.apply(b.mT, a, upper=upper, transpose=True, unitri=False)[0].mT


def _cholesky_jvp(self, da):
    out, upper = self.fw_out, self.fw_kwargs["upper"]
    low = out.mH if upper else out
    x = _solve(low, da, upper=False)
    x = _solve(low, x.mH, upper=False).mH  # L^-1 dA L^-H
    x = x.tril() - diag_embed(x.diagonal(0, -2, -1)) * 0.5
    dl = low @ x
    return dl.mH if upper else dl


def _eigh_jvp(self, da):
    out = self.fw_out
    w, v = out if type(out) is tuple else (out, None)
    if v is None:  # eigenvalues only (never under forward AD: eigvalsh then asks for the vectors)
        raise NotImplementedError("numtorch: forward AD of linalg.eigvalsh without its eigenvectors")
    dp = v.mH @ da @ v
    dw = dp.diagonal(0, -2, -1)
    if dw.is_complex():
        dw = dw.real
    n = w.shape[-1]
    i = eye(n, dtype=w.dtype)
    gaps = w.unsqueeze(-2) - w.unsqueeze(-1) + i  # E_ij = w_j - w_i; ones on the diagonal, zeroed below
    return dw, v @ (dp / gaps * (1 - i))


def _triangular_solve_jvp(self, db, da):
    b, a = self.fw_inputs
    x = self.fw_out[0]
    rhs = db if db is not None else zeros_like(b)
    if da is not None:
        rhs = rhs - da @ x
    dx = TriangularSolveBackward0.apply(rhs, a, **self.fw_kwargs)[0]
    return dx, da


def _lu_jvp(self, da):
    lu, piv = self.fw_out[0], self.fw_out[1]
    m, n = lu.shape[-2:]
    k = min(m, n)
    p, low, up = lu_unpack(lu, piv)
    pda = p.mT @ da
    l1, u1 = low[..., :k, :k], up[..., :k, :k]
    x = _solve_right(_solve(l1, pda[..., :k, :k], upper=False, unit=True), u1, upper=True)
    dl1 = l1 @ x.tril(-1)
    du1 = x.triu() @ u1
    d = dl1 + du1
    if m < n:
        d = cat([d, _solve(l1, pda[..., :, k:] - dl1 @ up[..., :, k:], upper=False, unit=True)], -1)
    elif m > n:
        d = cat([d, _solve_right(pda[..., k:, :] - low[..., k:, :] @ du1, u1, upper=True)], -2)
    return d, None, None


def _qr_square_tall(q, r, da):
    da_rinv = _solve_right(da, r, upper=True)
    c = q.mH @ da_rinv
    c = c + c.mH
    s = c.triu() - diag_embed(c.diagonal(0, -2, -1)) * 0.5
    return da_rinv - q @ s, s @ r


def _qr_jvp(self, da):
    q, r = self.fw_out
    mode = self.fw_kwargs["mode"]
    m, n = da.shape[-2:]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                           "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if m >= n:
        return _qr_square_tall(q, r, da)
    dq, du = _qr_square_tall(q, r[..., :m], da[..., :m])
    return dq, cat([du, q.mH @ (da[..., m:] - dq @ r[..., m:])], -1)


LinalgCholeskyExBackward0.jvp = _cholesky_jvp
LinalgQrBackward0.jvp = _qr_jvp
LinalgEighBackward0.jvp = _eigh_jvp
TriangularSolveBackward0.jvp = _triangular_solve_jvp
LinalgLuFactorExBackward0.jvp = _lu_jvp
