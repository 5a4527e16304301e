"""The pre-``torch.linalg`` conventions of top-level linear algebra (``torch.det``, ``torch.svd``,
``torch.lu``, ``torch.triangular_solve``, ...), built on ``linalg.py``.

Most are thin wrappers over ``linalg.py`` (so gradients come from its ``Op``s) that apply the older
API's conventions: ``svd`` returns ``V`` (not ``Vh``), ``qr`` takes ``some``, ``triangular_solve`` takes
``(b, A)`` with ``upper=True`` and returns a copy of ``A``, ``lu`` returns packed factors with int32
pivots, ``chain_matmul`` takes the matrices as separate arguments. What ``linalg.py`` lacks (LU,
triangular and Cholesky solves, Cholesky inverse) are ``Op`` subclasses named after PyTorch's
backward nodes. Everything is batched over leading dims; the only Python loops run over the ``n``
columns of a factorization, vectorized over the batch. Several of these warn once that they are
deprecated, as PyTorch does.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.function import Op
from . import determinants as _det, linalg as _la
from ._util import unbroadcast
from .linalg import matrix_exp  # torch.matrix_exp is torch.linalg.matrix_exp
from .logic import eq
from .matmul import _aname, _cname, matmul
from .pointwise import add, where
from .rearrange import tril, triu
from .unary import log

__all__ = ["det", "logdet", "slogdet", "inverse", "pinverse", "matrix_power", "matrix_exp", "cholesky", "svd",
           "qr", "lu", "lu_unpack", "lu_solve", "triangular_solve", "cholesky_solve", "cholesky_inverse",
           "chain_matmul"]

_mT, _mH = _la._mT, _la._mH
SlogdetResult = _la._result("slogdet", "sign logabsdet")
SvdResult = _la._result("svd", "U S V")
QrResult = _la._result("qr", "Q R")
TriangularSolveResult = _la._result("triangular_solve", "solution cloned_coefficient")
LuUnpackResult = _la._result("lu_unpack", "P L U")
LuWithInfoResult = _la._result("_lu_with_info", "LU pivots info")

_WARNED = set()


def _warn_once(key, msg):
    """PyTorch's TORCH_WARN_ONCE deprecation warnings: one UserWarning per process."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(msg, UserWarning, stacklevel=3)


# ------------------------------------------------------------------------------------------------
# determinants, inverses, powers (wrappers)
# ------------------------------------------------------------------------------------------------
def det(input: Tensor) -> Tensor:
    """``torch.det``: alias of ``torch.linalg.det`` (``(*, n, n)`` -> ``(*)``)."""
    return _det.det(input)


def slogdet(input: Tensor):
    """``torch.slogdet``: ``(sign, logabsdet)`` as ``torch.return_types.slogdet``."""
    return SlogdetResult(*_det.slogdet(input))


def logdet(input: Tensor) -> Tensor:
    """``torch.logdet``: natural log of the determinant of each ``(*, n, n)`` matrix -> ``(*)``.

    Built as PyTorch builds it on ``linalg.slogdet``: real ``A`` gives ``where(sign == -1, nan,
    logabsdet)`` (nan for a negative determinant, whose gradient is then zero; -inf for a singular
    matrix), complex ``A`` gives ``log(sign) + logabsdet``. RuntimeError for non-float/non-square input.
    """
    _la._check(input, "logdet", square=True)
    sign, logabs = _det.slogdet(input)
    if input._data.dtype.kind == "c":
        return add(log(sign), logabs)
    return where(eq(sign, -1.0), _make(np.array(np.nan, logabs._data.dtype)), logabs)


def inverse(input: Tensor, *, out=None) -> Tensor:
    """``torch.inverse``: alias of ``torch.linalg.inv`` (LinAlgError when singular)."""
    return _la.inv(input)


def pinverse(input: Tensor, rcond=1e-15) -> Tensor:
    """``torch.pinverse``: Moore-Penrose pseudo-inverse ``(*, n, m)``; singular values at or below
    ``rcond * s_max`` are dropped (``torch.linalg.pinv(input, rtol=rcond)``)."""
    return _la.pinv(input, rtol=rcond)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """``torch.matrix_power``: alias of ``torch.linalg.matrix_power``."""
    return _la.matrix_power(input, n)


# ------------------------------------------------------------------------------------------------
# Cholesky, SVD, QR with the old signatures
# ------------------------------------------------------------------------------------------------
def cholesky(input: Tensor, upper=False, *, out=None) -> Tensor:
    """``torch.cholesky`` (deprecated): lower factor ``L`` (``U = L^T`` if ``upper``) of each SPD
    matrix; LinAlgError naming the first non-positive leading minor."""
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed "
               "in a future PyTorch release.")
    _la._check(input, "cholesky", square=True)
    try:
        return _la.cholesky(input, upper=upper)
    except _la.LinAlgError as e:
        raise _la.LinAlgError(str(e).replace("linalg.cholesky:", "cholesky:", 1)) from None


def svd(input: Tensor, some=True, compute_uv=True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) V^T`` (V, not Vh). ``some`` gives the
    reduced U ``(*, m, k)``, V ``(*, n, k)``; otherwise full. Without ``compute_uv`` U and V are
    zero matrices ``(*, m, m)`` and ``(*, n, n)`` and only S is differentiable."""
    _la._check(input, "linalg.svd")
    if not compute_uv:
        a = input._data
        s = _la.svdvals(input)
        zu = _make(np.zeros(a.shape[:-2] + (a.shape[-2], a.shape[-2]), a.dtype))
        zv = _make(np.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-1]), a.dtype))
        return SvdResult(zu, s, zv)
    u, s, vh = _la.svd(input, full_matrices=not some)
    return SvdResult(u, s, vh.mT)


def qr(input: Tensor, some=True, *, out=None):
    """``torch.qr`` (deprecated): ``linalg.qr(input, 'reduced' if some else 'complete')`` as
    ``torch.return_types.qr``."""
    _warn_once("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
               "PyTorch release.")
    return QrResult(*_la.qr(input, "reduced" if some else "complete"))


# ------------------------------------------------------------------------------------------------
# LU
# ------------------------------------------------------------------------------------------------
def _lu_np(a):
    """Partial-pivoting LU of each matrix (LAPACK getrf semantics): packed LU, 1-based int32 pivots and
    info (first zero pivot, 1-based, or 0). Loops over the min(m, n) columns, vectorized over batch."""
    shape = a.shape
    m, n = shape[-2:]
    k = min(m, n)
    lu = a.reshape((int(np.prod(shape[:-2])), m, n)).copy()  # an explicit batch: m or n may be 0
    nb = lu.shape[0]
    bi = np.arange(nb)
    piv = np.empty((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    # LAPACK's pivot search (i?amax) compares |Re| + |Im| for complex entries, not the modulus
    size = (lambda c: np.abs(c.real) + np.abs(c.imag)) if lu.dtype.kind == "c" else np.abs
    for j in range(k):
        p = j + np.argmax(size(lu[:, j:, j]), axis=-1)
        piv[:, j] = p + 1
        row = lu[bi, p].copy()
        lu[bi, p] = lu[:, j]
        lu[:, j] = row
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        col = lu[:, j + 1:, j] / np.where(zero, 1, pivot)[:, None]
        lu[:, j + 1:, j] = col
        lu[:, j + 1:, j + 1:] -= col[:, :, None] * lu[:, j, None, j + 1:]
    return lu.reshape(shape), piv.reshape(shape[:-2] + (k,)), info.reshape(shape[:-2])


def _perm_matrix(piv, m, dtype):
    """``P`` with ``A = P L U`` from LAPACK pivots ``(*, k)`` (sequential row swaps)."""
    batch = piv.shape[:-1]
    pv = piv.reshape(int(np.prod(batch)), piv.shape[-1]).astype(np.int64) - 1
    nb = pv.shape[0]
    bi = np.arange(nb)
    perm = np.broadcast_to(np.arange(m), (nb, m)).copy()
    for j in range(pv.shape[1]):
        pj = pv[:, j]
        tmp = perm[bi, pj].copy()
        perm[bi, pj] = perm[:, j]
        perm[:, j] = tmp
    p = np.zeros((nb, m, m), dtype)
    p[bi[:, None], perm, np.arange(m)[None, :]] = 1  # P[perm[i], i] = 1
    return p.reshape(batch + (m, m))


class LinalgLuFactorExBackward0(Op):
    """``A = P L U`` (``m x n``, ``k = min(m, n)``; ``gL``/``gU`` the strictly-lower/upper parts of the
    packed gradient). With ``L1``/``U1`` the leading ``k x k`` blocks,
    ``Phi = tril(L1^H gL1 - [wide] gU2 U2^H, -1) + triu(gU1 U1^H - [tall] L2^H gL2)`` and
    ``X = L1^-H Phi U1^-H``: square ``dA = P X``; wide (``U = [U1 | U2]``) ``dA = P [X | L1^-H gU2]``;
    tall (``L = [L1; L2]``) ``dA = P [X; gL2 U1^-H]`` (PyTorch's ``linalg_lu_backward``, derived from
    ``P^T dA = dL U + L dU``)."""

    _saves = ("out",)
    _nondiff_outputs = (1, 2)
    _graph_recompute = True  # the packed factors come from _graph_outputs

    def forward(self, a):
        lu, piv, info = _lu_np(a)
        self.saved = (lu, piv)
        return lu, piv, info

    def backward(self, g, _gp=None, _gi=None):
        lu, piv = self.saved
        m, n = lu.shape[-2:]
        k = min(m, n)
        if self._graph:
            lu = self._graph_outputs(lu)[0]
        low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)  # (*, m, k), unit diagonal
        up = np.triu(lu[..., :k, :])  # (*, k, n)
        l1, u1 = low[..., :k, :], up[..., :, :k]
        phi_l = _la._mH(l1) @ np.tril(g[..., :k, :k], -1)
        phi_u = np.triu(g[..., :k, :k]) @ _la._mH(u1)
        if m < n:
            phi_l = phi_l - g[..., :, k:] @ _la._mH(up[..., :, k:])
        elif m > n:
            phi_u = phi_u - _la._mH(low[..., k:, :]) @ g[..., k:, :]
        phi = np.tril(phi_l, -1) + np.triu(phi_u)
        x = np.linalg.solve(_la._mH(l1), phi)  # L1^-H Phi
        x = _la._mH(np.linalg.solve(u1, _la._mH(x)))  # ... U1^-H
        if m < n:
            x = np.concatenate([x, np.linalg.solve(_la._mH(l1), g[..., :, k:])], -1)
        elif m > n:
            x = np.concatenate([x, _la._mH(np.linalg.solve(u1, _la._mH(g[..., k:, :])))], -2)
        return _perm_matrix(piv, m, lu.dtype) @ x


def lu(A: Tensor, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated): ``(LU, pivots)`` (plus ``infos`` if ``get_infos``) -- the packed
    factors ``(*, m, n)`` of ``A = P L U`` and 1-based int32 pivots ``(*, min(m, n))``. Singular input
    is not an error (info > 0). Only ``pivot=True`` is supported on CPU, as in PyTorch."""
    _warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
               "and will be removed in a future PyTorch release.")
    _la._check(A, "torch.lu_factor")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu_t, piv, info = LinalgLuFactorExBackward0.apply(A)
    return LuWithInfoResult(lu_t, piv, info) if get_infos else (lu_t, piv)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack``: ``(P, L, U)`` from packed LU ``(*, m, n)`` and pivots ``(*, k)``; L
    ``(*, m, k)`` unit lower, U ``(*, k, n)`` upper, P ``(*, m, m)``. Differentiable in ``LU_data``.
    Skipped parts are empty tensors."""
    a = LU_data._data
    if a.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    m, n = a.shape[-2:]
    k = min(m, n)
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                           "dtype. Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    if LU_pivots._data.shape[-1] != k:
        raise RuntimeError(f"torch.lu_unpack: Expected LU_pivots.size(-1) == min(LU.size(-1), LU.size(-2)), "
                           f"but got {LU_pivots._data.shape[-1]} != {k}")
    empty = _make(np.zeros((0,), a.dtype))
    low = up = perm = empty
    if unpack_data:
        low = tril(LU_data[..., :, :k], -1) + _make(np.eye(m, k, dtype=a.dtype))
        up = triu(LU_data[..., :k, :])
    if unpack_pivots:
        perm = _make(_perm_matrix(LU_pivots._data, m, a.dtype))
    return LuUnpackResult(perm, low, up)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """``torch.lu_solve``: solves ``A X = b`` from ``torch.lu``'s factors; ``b`` ``(*, n, k)``, batch
    dims broadcast. Differentiable in ``b`` and ``LU_data`` (two triangular solves)."""
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed "
               "in a future PyTorch release.")
    if not isinstance(b, Tensor):
        raise TypeError(f"lu_solve(): argument 'input' (position 1) must be Tensor, not {type(b).__name__}")
    _la._check(LU_data, "linalg.lu_solve", square=True, arg="LU")
    if b._data.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if b._data.shape[-2] != LU_data._data.shape[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({LU_data._data.shape[-2]}x{LU_data._data.shape[-1]} and "
                           f"{b._data.shape[-2]}x{b._data.shape[-1]})")
    perm, low, up = lu_unpack(LU_data, LU_pivots)
    y = matmul(perm.mT, b)
    y = TriangularSolveBackward0.apply(y, low, upper=False, transpose=False, unitri=True)[0]
    return TriangularSolveBackward0.apply(y, up, upper=True, transpose=False, unitri=False)[0]


# ------------------------------------------------------------------------------------------------
# triangular and Cholesky solves
# ------------------------------------------------------------------------------------------------
def _tri_solve(t, b, upper):
    """``t^-1 b`` for triangular ``t`` (broadcast batches). LAPACK-backed ``solve``; a singular ``t``
    falls back to substitution giving inf/nan like trtrs."""
    shape = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = np.broadcast_to(t, shape + t.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    if t.shape[-1] == 0:
        return np.zeros(b.shape, b.dtype)
    try:
        return np.linalg.solve(t, b)
    except np.linalg.LinAlgError:
        pass
    n = t.shape[-1]
    x = np.zeros(b.shape, b.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            rest = slice(i + 1, n) if upper else slice(0, i)
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, rest], x[..., rest, :])
            x[..., i, :] = acc / t[..., i, i, None]
    return x


class TriangularSolveBackward0(Op):
    """``X = op(A)^-1 B`` with ``A`` triangular: ``dB = op(A)^-T G``, ``dA`` the triangle of
    ``-dB X^T`` (transposed when ``transpose``), plus the gradient of the cloned coefficient."""

    _saves = ("out",)
    _graph_recompute = True

    def forward(self, b, a, upper, transpose, unitri):
        self.shapes = (b.shape, a.shape)
        self.opts = (upper, transpose, unitri)
        t = np.triu(a) if upper else np.tril(a)
        if unitri:
            t = t.copy()
            np.einsum("...ii->...i", t)[...] = 1
        if transpose:
            t = _mT(t)
        x = _tri_solve(t, b, upper != transpose)
        self.saved = (t, x)
        self.outs = (x, a.copy())  # the graph backward rebuilds t from the clone of A (output 1)
        return self.outs

    def backward(self, gx, gm):
        t, x = self.saved
        upper, transpose, unitri = self.opts
        if self._graph:
            x, m = self._graph_outputs(*self.outs)
            n = t.shape[-1]
            t = np.triu(m, int(unitri)) if upper else np.tril(m, -int(unitri))
            if unitri:
                t = t + np.eye(n, dtype=t.dtype)
            if transpose:
                t = _mT(t)
        if gx.dtype.kind == "c":  # holomorphic: dB = op(A)^-H G, dA from -dB X^H
            t, x = t.conj(), x.conj()
        if self._graph:
            gb = np.linalg.solve(_mT(t), np.broadcast_to(gx, np.broadcast_shapes(t.shape[:-2], gx.shape[:-2])
                                                          + gx.shape[-2:]))
        else:
            gb = _tri_solve(_mT(t), gx, upper == transpose)
        ga = -(gb @ _mT(x))
        if transpose:
            ga = _mT(ga)
        off = 1 if unitri else 0
        ga = np.triu(ga, off) if upper else np.tril(ga, -off)
        ga = unbroadcast(ga, self.shapes[1]) + gm
        return unbroadcast(gb, self.shapes[0]), ga


def _check_pair(b, A, fn):
    for t, nm in ((b, "self"), (A, "A")):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{nm}' must be Tensor, not {type(t).__name__}")
    if b._data.ndim < 2 or A._data.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {'B' if b._data.ndim < 2 else 'A'} must have at least "
                           f"2 dimensions.")
    if b._data.dtype != A._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_aname(b._data)} and A of type {_aname(A._data)} instead.")
    _la._check(A, fn, square=True)
    if A._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is {A._data.shape[-1]} by "
                           f"{A._data.shape[-1]} but each b matrix is {b._data.shape[-2]} by {b._data.shape[-1]}")


def triangular_solve(b: Tensor, A: Tensor, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve`` (deprecated): solves ``op(A) X = b`` for triangular ``A`` ``(*, n, n)``
    (``upper=True`` by default, only that triangle read; ``op`` transposes if ``transpose``; diagonal
    taken as ones if ``unitriangular``), ``b`` ``(*, n, k)``, batch dims broadcast. Returns
    ``(solution, cloned_coefficient)``. A zero diagonal gives inf/nan, not an error."""
    _warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of "
               "torch.linalg.solve_triangularand will be removed in a future PyTorch release.")
    _check_pair(b, A, "triangular_solve")
    x, m = TriangularSolveBackward0.apply(b, A, upper=bool(upper), transpose=bool(transpose),
                                          unitri=bool(unitriangular))
    if m._data.shape != np.broadcast_shapes(b._data.shape[:-2], A._data.shape[:-2]) + A._data.shape[-2:]:
        m = m.expand(*(x._data.shape[:-2] + A._data.shape[-2:])).clone()
    return TriangularSolveResult(x, m)


class CholeskySolveBackward0(Op):
    """``X = (L L^H)^-1 B``: ``dB = (L L^H)^-1 G``; ``dL = -(C L)`` (``-(U C)`` if upper) with
    ``C = dB X^H + X dB^H`` -- PyTorch's full-matrix formula (``^H`` the conjugate transpose, ``^T`` for real)."""

    _saves = (1, "out")
    _graph_recompute = True  # the triangle of u, from the boxed input

    def forward(self, b, u, upper):
        self.upper, self.shapes = upper, (b.shape, u.shape)
        low = _mH(np.triu(u)) if upper else np.tril(u)
        x = _tri_solve(_mH(low), _tri_solve(low, b, False), True)
        self.saved = (low, u, x)
        return x

    def backward(self, g):
        low, u, x = self.saved
        if self._graph:
            u, x = self._graph_args[1], self._graph_out
            low = _mH(np.triu(u)) if self.upper else np.tril(u)
            gb = np.linalg.solve(_mH(low), np.linalg.solve(low, g))
        else:
            gb = _tri_solve(_mH(low), _tri_solve(low, g, False), True)
        c = gb @ _mH(x)
        c = c + _mH(c)
        gu = -(u @ c) if self.upper else -(c @ u)
        return unbroadcast(gb, self.shapes[0]), unbroadcast(gu, self.shapes[1])


def cholesky_solve(input: Tensor, input2: Tensor, upper=False, *, out=None) -> Tensor:
    """``torch.cholesky_solve``: solves ``A X = input`` given the Cholesky factor ``input2`` of ``A``
    (lower, or upper if ``upper``) ``(*, n, n)``; ``input`` ``(*, n, k)``; batch dims broadcast."""
    _check_pair(input, input2, "cholesky_solve")
    return CholeskySolveBackward0.apply(input, input2, upper=bool(upper))


class CholeskyInverseBackward0(Op):
    """``Y = (L L^H)^-1``: ``dL = -(C L)`` (``-(U C)`` if upper) with ``C = Y (G + G^H) Y`` (``^H``: ``^T`` for real)."""

    _saves = (0, "out")

    def forward(self, u, upper):
        self.upper = upper
        low = _mH(np.triu(u)) if upper else np.tril(u)
        linv = _tri_solve(low, np.broadcast_to(np.eye(u.shape[-1], dtype=u.dtype), u.shape), False)
        y = _mH(linv) @ linv
        self.saved = (u, y)
        return y

    def backward(self, g):
        u, y = self.saved
        c = y @ (g + _mH(g)) @ y
        return -(u @ c) if self.upper else -(c @ u)


def cholesky_inverse(L: Tensor, upper=False, *, out=None) -> Tensor:
    """``torch.cholesky_inverse``: ``(L L^T)^-1`` (``(U^T U)^-1`` if ``upper``) for Cholesky factors
    ``(*, n, n)``. RuntimeError for non-float/non-square input."""
    _la._check(L, "cholesky_inverse", square=True)
    return CholeskyInverseBackward0.apply(L, upper=bool(upper))


# ------------------------------------------------------------------------------------------------
# multi_dot and chain_matmul, its old spelling
# ------------------------------------------------------------------------------------------------
def chain_matmul(*matrices, out=None) -> Tensor:
    """``torch.chain_matmul`` (deprecated, warns once): the product of 2-D matrices in the cheapest
    order (``torch.linalg.multi_dot``); one matrix is returned as a copy."""
    _warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a future PyTorch "
               "release. Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
               "rather than multiple parameters.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if t._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def multi_dot(tensors, *, out=None) -> Tensor:
    """The product of a chain of matrices in the cheapest order (``torch.linalg.multi_dot``); the
    first may be 1-D (a row) and the last 1-D (a column). RuntimeError for fewer than 2 tensors,
    other dims, mixed dtypes or mismatched shapes."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        nd = t._data.ndim
        if (i in (0, len(ts) - 1) and nd not in (1, 2)):
            which = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {nd}D")
        if 0 < i < len(ts) - 1 and nd != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {nd}D")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_cname(ts[0]._data)} and tensor {i} {_cname(t._data)}")
    first_vec, last_vec = ts[0]._data.ndim == 1, ts[-1]._data.ndim == 1
    mats = [ts[0].unsqueeze(0) if first_vec else ts[0]] + ts[1:-1] + [ts[-1].unsqueeze(-1) if last_vec else ts[-1]]
    for i in range(len(mats) - 1):
        if mats[i]._data.shape[1] != mats[i + 1]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(ts[i]._data.shape)} and "
                               f"{list(ts[i + 1]._data.shape)} cannot be multiplied")
    dims = [m._data.shape[0] for m in mats] + [mats[-1]._data.shape[1]]
    result = _chain(mats, _chain_order(dims), 0, len(mats) - 1)
    if first_vec:
        result = result.squeeze(0)
    if last_vec:
        result = result.squeeze(-1)
    return result


def _chain_order(dims):
    """The classic matrix-chain dynamic program: split[i][j] is where to cut the product i..j."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return matmul(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))
