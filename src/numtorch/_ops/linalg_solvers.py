"""``torch.linalg`` solvers and factorizations built on the LU, triangular and symmetric-indefinite
kernels: ``lu_factor``/``lu_factor_ex``/``lu``/``lu_solve``, ``solve_triangular``, ``solve_ex``,
``ldl_factor``/``ldl_factor_ex``/``ldl_solve``, and the compositions ``cond``, ``tensorinv``,
``tensorsolve``, ``vander``.

The LU kernel and its backward are ``_ops/linalg_legacy.py``'s (shared with ``torch.lu``);
triangular solves are ``TriangularSolveBackward0``'s; LDL runs LAPACK's ``?sytrf``/``?hetrf`` through
SciPy (no derivative, as in PyTorch). Gradients of the compositions come from their ops.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op
from . import linalg as _la
from .creation import ones_like
from .cumulative import cumprod
from .linalg_legacy import LinalgLuFactorExBackward0, TriangularSolveBackward0, lu_unpack
from .linalg_norms import matrix_norm
from .matmul import _aname, matmul
from .rearrange import cat


__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "solve_triangular", "solve_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "cond", "tensorinv", "tensorsolve", "vander"]

LuFactorResult = _la._result("linalg_lu_factor", "LU pivots")
LuFactorExResult = _la._result("linalg_lu_factor_ex", "LU pivots info")
LuResult = _la._result("linalg_lu", "P L U")
SolveExResult = _la._result("linalg_solve_ex", "result info")
LdlFactorResult = _la._result("linalg_ldl_factor", "LD pivots")
LdlFactorExResult = _la._result("linalg_ldl_factor_ex", "LD pivots info")

_LU_MSG = ("U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. If you still want to "
           "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


# ---------------------------------------------------------------------------------------------- LU
def lu_factor_ex(A: Tensor, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: ``A = P L U`` packed in ``LU`` ``(*, m, n)``, LAPACK's 1-based int32
    ``pivots`` ``(*, min(m, n))``, ``info`` (0, or the 1-based index of the first zero of ``U``'s diagonal).
    Differentiable in ``A`` (square, wide and tall; twice, and in forward mode)."""
    _la._check(A, "torch.linalg.lu_factor_ex")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu_t, piv, info = LinalgLuFactorExBackward0.apply(A)
    if check_errors:
        _raise_zero_pivot(info, "torch.linalg.lu_factor_ex")
    return LuFactorExResult(lu_t, piv, info)


def _raise_zero_pivot(info, fn):
    bad = np.flatnonzero(info._data.reshape(-1) > 0)
    if bad.size:
        b = int(bad[0])
        i = int(info._data.reshape(-1)[b])
        prefix = f"(Batch element {b}): " if info._data.ndim else ""
        raise _la.LinAlgError(f"{fn}: {prefix}" + _LU_MSG.format(i=i))


def lu_factor(A: Tensor, *, pivot=True, out=None):
    """``(LU, pivots)`` of ``torch.linalg.lu_factor``; raises ``LinAlgError`` (a RuntimeError) for a singular
    matrix, naming the zero of ``U``'s diagonal (and the batch element)."""
    _la._check(A, "torch.linalg.lu_factor")
    lu_t, piv, info = lu_factor_ex(A, pivot=pivot)
    _raise_zero_pivot(info, "torch.linalg.lu_factor")
    return LuFactorResult(lu_t, piv)


def lu(A: Tensor, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U`` (``torch.linalg.lu``): ``P`` ``(*, m, m)`` a permutation, ``L``
    ``(*, m, k)`` unit lower triangular, ``U`` ``(*, k, n)`` upper triangular, ``k = min(m, n)``.
    Differentiable in ``A`` (square, wide and tall)."""
    _la._check(A, "torch.linalg.lu")
    lu_t, piv, _ = lu_factor_ex(A, pivot=pivot)
    return LuResult(*lu_unpack(lu_t, piv))


def _tri(b, t, upper, transpose=False, unitri=False):
    return TriangularSolveBackward0.apply(b, t, upper=upper, transpose=transpose, unitri=unitri)[0]


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left=True, adjoint=False, out=None) -> Tensor:
    """The solution of ``A X = B`` (``X A = B`` when not ``left``; ``A^H`` instead of ``A`` when ``adjoint``)
    from ``lu_factor``'s ``LU`` ``(*, n, n)`` and ``pivots``; ``B`` ``(*, n, k)`` (``(*, k, n)`` right).
    Differentiable in ``LU`` and ``B``."""
    _la._check(LU, "linalg.lu_solve", square=True, arg="LU")
    if B._data.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = LU.shape[-1]
    rows = B.shape[-2] if left else B.shape[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return lu_solve(LU, pivots, B.mH, left=True, adjoint=not adjoint).mH
    perm, low, up = lu_unpack(LU, pivots)
    if not adjoint:  # A = P L U: X = U^-1 L^-1 P^T B
        y = _tri(matmul(perm.mT, B), low, upper=False, unitri=True)
        return _tri(y, up, upper=True)
    # A^H = U^H L^H P^T: X = P L^-H U^-H B (the adjoints passed as matrices: the triangular solve's
    # forward-AD rule, as PyTorch's, takes its `transpose` flag's tangent untransposed)
    y = _tri(B, up.mH, upper=False)
    y = _tri(y, low.mH, upper=True, unitri=True)
    return matmul(perm, y)


# ---------------------------------------------------------------------------------------------- triangular, solve_ex
def solve_triangular(A: Tensor, B: Tensor, *, upper, left=True, unitriangular=False, out=None) -> Tensor:
    """The solution of ``A X = B`` (``X A = B`` when not ``left``) for triangular ``A`` ``(*, n, n)`` (only
    the ``upper`` or lower triangle read; ones on the diagonal when ``unitriangular``); batch dims
    broadcast; dtypes promote. Differentiable in both."""
    fn = "linalg.solve_triangular"
    for t, name in ((A, "A"), (B, "B")):
        if t._data.ndim < 2:
            raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    n = A.shape[-1]
    if left and B.shape[-2] != n or not left and B.shape[-1] != n:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({A.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    dtype = _dtype.promote_types(A.dtype, B.dtype)
    A, B = A.to(dtype), B.to(dtype)
    _la._check(A, fn, square=True)
    # only the triangle is read, so only its tangent counts (forward AD; torch.triangular_solve differs)
    off = 1 if unitriangular else 0
    A = A.triu(off) if upper else A.tril(-off)
    if left:
        return _tri(B, A, bool(upper), unitri=bool(unitriangular))
    return _tri(B.mT, A, bool(upper), transpose=True, unitri=bool(unitriangular)).mT


def solve_ex(A: Tensor, B: Tensor, *, left=True, check_errors=False, out=None):
    """``(result, info)`` of ``torch.linalg.solve_ex``: ``linalg.solve``'s result and ``info`` 0, or, for a
    singular matrix (unless ``check_errors``, which raises as ``solve``), LAPACK's 1-based zero pivot and
    a NaN result."""
    try:
        x = _la.solve(A, B, left=left)
        return SolveExResult(x, _make(np.zeros(A._data.shape[:-2], np.int32)))
    except _la.LinAlgError:
        if check_errors:
            raise
    infos = np.array(_la._lapack_info(A._data, "getrf"), np.int32).reshape(A._data.shape[:-2])
    good = A._data.copy()
    good[infos > 0] = np.eye(good.shape[-1], dtype=good.dtype)
    x = _la.solve(_make(good), B, left=left).detach()
    x._data[infos > 0] = np.nan
    return SolveExResult(x, _make(infos))


# ---------------------------------------------------------------------------------------------- LDL
class LinalgLdlFactorExBackward0(Op):
    """LAPACK's Bunch-Kaufman ``?sytrf`` (``?hetrf`` when hermitian) on each matrix's lower triangle:
    ``LD`` (lower triangle; upper part zero), 1-based int32 pivots (negative for 2x2 blocks), info."""

    _nondiff_outputs = (1, 2)

    def forward(self, a, hermitian):
        from scipy.linalg import lapack  # SciPy: slow to import, only needed here
        if a.size == 0:  # an empty matrix or batch: nothing to factor
            return a.copy(), np.zeros(a.shape[:-1], np.int32), np.zeros(a.shape[:-2], np.int32)
        name = "hetrf" if hermitian and a.dtype.kind == "c" else "sytrf"
        flat = a.reshape((-1,) + a.shape[-2:])
        fn = lapack.get_lapack_funcs((name,), (flat,))[0]
        ld, piv, info = np.empty_like(flat), np.empty(flat.shape[:2], np.int32), np.empty(len(flat), np.int32)
        for i, m in enumerate(flat):
            ld[i], piv[i], info[i] = fn(np.array(m, order="F"), lower=1)[:3]
        ld = np.tril(ld)
        return ld.reshape(a.shape), piv.reshape(a.shape[:-1]), info.reshape(a.shape[:-2])

    def backward(self, *grads):
        raise NotImplementedError("the derivative for 'linalg_ldl_factor_ex' is not implemented.")


def ldl_factor_ex(A: Tensor, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the LDL^T (LDL^H when ``hermitian``) factorization of symmetric ``A``
    ``(*, n, n)`` in LAPACK's compact form (only the lower triangle of ``A`` is read). Not differentiable."""
    _la._check(A, "torch.linalg.ldl_factor_ex", square=True)
    ld, piv, info = LinalgLdlFactorExBackward0.apply(A, hermitian=bool(hermitian))
    if check_errors and (info._data > 0).any():
        raise _la.LinAlgError(f"torch.linalg.ldl_factor_ex: The factorization could not be completed because the "
                              f"input is singular (info = {int(info._data.max())}).")
    return LdlFactorExResult(ld, piv, info)


def ldl_factor(A: Tensor, *, hermitian=False, out=None):
    """``(LD, pivots)`` of ``ldl_factor_ex``; raises ``LinAlgError`` when a diagonal block is singular."""
    ld, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    if (info._data > 0).any():
        raise _la.LinAlgError("torch.linalg.ldl_factor: The factorization could not be completed because the input "
                              f"is singular (info = {int(info._data.max())}).")
    return LdlFactorResult(ld, piv)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian=False, out=None) -> Tensor:
    """The solution of ``A X = B`` from ``ldl_factor``'s ``LD`` and ``pivots`` (LAPACK ``?sytrs``/``?hetrs``);
    ``B`` ``(*, n, k)``. Not differentiable."""
    from scipy.linalg import lapack  # SciPy: slow to import, only needed here
    _la._check(LD, "torch.linalg.ldl_solve", square=True, arg="LD")
    if B._data.ndim < 2 or B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"torch.linalg.ldl_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({LD.shape[-2]}x{LD.shape[-1]} and {'x'.join(map(str, B.shape[-2:]))})")
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected pivots to be integers. Got {_aname(pivots._data)}")
    batch = np.broadcast_shapes(LD.shape[:-2], B.shape[:-2])
    nb = int(np.prod(batch))  # an explicit batch size: the matrices may be empty
    ld = np.broadcast_to(LD._data, batch + LD.shape[-2:]).reshape((nb,) + LD.shape[-2:])
    piv = np.broadcast_to(pivots._data, batch + pivots.shape[-1:]).reshape(nb, pivots.shape[-1])
    b = np.broadcast_to(B._data, batch + B.shape[-2:]).reshape((nb,) + B.shape[-2:])
    name = "hetrs" if hermitian and ld.dtype.kind == "c" else "sytrs"
    fn = lapack.get_lapack_funcs((name,), (ld,))[0]
    x = np.stack([fn(l_, p_, np.array(b_, order="F"), lower=1)[0] for l_, p_, b_ in zip(ld, piv, b)]) if b.size \
        else np.zeros(b.shape, b.dtype)
    return _make(x.reshape(batch + B.shape[-2:]))


# ---------------------------------------------------------------------------------------------- compositions
def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """The condition number ``||A||_p ||A^-1||_p`` (``torch.linalg.cond``); ``p`` None or 2 (the ratio of
    extreme singular values, any shape), -2, ``'fro'``, ``'nuc'``, inf, -inf, 1, -1 (square matrices;
    singular gives inf). Real result. Differentiable."""
    if p not in (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):
        _la._check(A, "linalg.cond")
        s = _la.svdvals(A)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    _la._check(A, f"linalg.cond(ord={p})", square=True)
    inv, info = _la.inv_ex(A)
    n = matrix_norm(A, p) * matrix_norm(inv, p)
    if (info._data > 0).any():
        n = n.detach().clone()
        n._data[info._data > 0] = np.inf
    return n


def tensorinv(A: Tensor, ind=2, *, out=None) -> Tensor:
    """The inverse of ``A`` seen as a linear map from its last dims to its first ``ind`` dims: shape
    ``A.shape[ind:] + A.shape[:ind]`` (``torch.linalg.tensorinv``). Differentiable."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return _la.inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) == B`` (``torch.linalg.tensorsolve``); ``dims`` are dims of ``A``
    moved to the end first. Result shape ``A.shape[B.ndim:]``. Differentiable."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in dims], *dims)
    rows, cols = math.prod(A.shape[:B.ndim]), math.prod(A.shape[B.ndim:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return _la.solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*A.shape[B.ndim:])


def vander(x: Tensor, N=None) -> Tensor:
    """``torch.linalg.vander``: ``x`` ``(*, n)`` -> ``(*, n, N)`` of increasing powers ``x^0 .. x^(N-1)``
    (``N`` defaults to ``n``), built by a cumulative product as PyTorch does. Differentiable."""
    x = x if x.ndim else x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(x.unsqueeze(-1).expand(*x.shape, n - 1), -1)
    return cat([ones_like(x).unsqueeze(-1), powers], -1)


