"""Distances and similarities between vectors: ``cosine_similarity``, ``pairwise_distance`` and ``pdist``.

Each is one fused ``Op`` over NumPy arrays, built on the vector p-norm helpers of ``norm_ops.py``
(``_pnorm`` and its gradient). ``cosine_similarity`` and ``pairwise_distance`` broadcast their two
inputs and reduce along one dim; ``pdist`` takes every row pair ``i < j`` of one ``(N, M)`` input and
follows ATen's per-``p`` backward formulas (an ``inf`` norm gives every tied maximum the full
gradient, unlike ``torch.norm``'s). All three are also ``torch.*`` functions.
"""
from __future__ import annotations

import numpy as np

from .._dtype import from_np, get_default_dtype
from .._tensor import Tensor
from ..autograd.function import Op
from ._util import unbroadcast, wrap_dim
from ._window import _check_tensor
from .norm_ops import _pnorm, _pnorm_grad

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


# ------------------------------------------------------------------------------------------------
# cosine similarity and pairwise distance along a dim
# ------------------------------------------------------------------------------------------------
def _clamp_ratio(r, n, eps):
    """``clamped / raw`` norm (0 where the raw norm is 0), or None when no norm was clamped.

    PyTorch clamps the norms in place under no_grad, so its backward differentiates the unclamped
    norm: where a norm is clamped the gradient uses ``x / |x|`` (``u * ratio``), not ``x / eps``.
    """
    if (r >= eps).all():
        return None
    return np.where(r > 0, n / np.where(r > 0, r, 1), 0)


class CosineSimilarityBackward(Op):
    """``sum(x1/|x1| * x2/|x2|)`` along ``dim`` (norms clamped to ``eps``), inputs broadcast."""

    _saves = (0, 1)

    def forward(self, a, b, dim, eps):
        self.sa, self.sb, self.dim = a.shape, b.shape, dim
        a, b = np.broadcast_arrays(a, b)
        am, bm = np.moveaxis(a, dim, -1), np.moveaxis(b, dim, -1)
        ra, rb = _pnorm(am, 2, -1), _pnorm(bm, 2, -1)
        na = np.maximum(ra, eps).astype(a.dtype, copy=False)
        nb = np.maximum(rb, eps).astype(a.dtype, copy=False)
        u, v = am / na, bm / nb
        cos = np.einsum("...i,...i->...", u, v)
        self.saved = (u, v, na, nb, cos, _clamp_ratio(ra, na, eps), _clamp_ratio(rb, nb, eps))
        return cos

    def backward(self, g):
        u, v, na, nb, cos, ka, kb = self.saved
        gk = (g * np.ones_like(cos))[..., None]
        c = cos[..., None]
        ga = gb = None
        if self._edges[0] is not None:
            ua = u if ka is None else (u * ka).astype(u.dtype, copy=False)
            ga = unbroadcast(np.moveaxis(gk * (v - c * ua) / na, -1, self.dim), self.sa)
        if self._edges[1] is not None:
            vb = v if kb is None else (v * kb).astype(v.dtype, copy=False)
            gb = unbroadcast(np.moveaxis(gk * (u - c * vb) / nb, -1, self.dim), self.sb)
        return ga, gb


def _check_broadcast(sa, sb):
    """PyTorch's RuntimeError naming the first dim where shapes ``sa`` and ``sb`` do not broadcast."""
    n = max(len(sa), len(sb))
    a, b = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i in range(n):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                               f"non-singleton dimension {i}")


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``torch.cosine_similarity``: cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast)."""
    nd = max(x1._data.ndim, x2._data.ndim)
    _check_broadcast(x1._data.shape, x2._data.shape)
    if x1._data.dtype.kind not in "fc" and x2._data.dtype.kind not in "fc":
        common = np.result_type(x1._data.dtype, x2._data.dtype)
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{from_np(common)._aten_name}")
    return CosineSimilarityBackward.apply(x1, x2, dim=wrap_dim(dim, nd), eps=eps)


class PairwiseDistanceBackward(Op):
    """``||x1 - x2 + eps||_p`` along the last dim."""

    _saves = (0, 1)

    def forward(self, a, b, p, eps, keepdim):
        d = a - b
        d += eps
        n = _pnorm(d, p, -1)
        self.saved, self.n, self.p, self.sa, self.sb, self.keepdim = d, n, p, a.shape, b.shape, keepdim
        return n if keepdim else n[..., 0]

    def backward(self, g):
        if self.p == 0:  # PyTorch's norm backward gives no gradient for p=0 (the inputs' .grad stays None)
            return None, None
        gk = g if self.keepdim else g[..., None]
        gd = gk * _pnorm_grad(self.saved, self.n, self.p)
        ga = unbroadcast(gd, self.sa) if self._edges[0] is not None else None
        gb = unbroadcast(-gd, self.sb) if self._edges[1] is not None else None
        return ga, gb


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``torch.pairwise_distance``: the ``p``-norm of ``x1 - x2 + eps`` along the last dim (broadcast).

    Integer inputs give the default float dtype (as ``x1 - x2 + eps`` does); 0-d inputs a 0-d result.
    RuntimeError when the shapes do not broadcast.
    """
    _check_broadcast(x1._data.shape, x2._data.shape)
    if x1._data.dtype.kind not in "fc" and x2._data.dtype.kind not in "fc":
        from .pointwise import cast
        x1, x2 = cast(x1, get_default_dtype().np), cast(x2, get_default_dtype().np)
    if x1._data.ndim == 0 and x2._data.ndim == 0:  # the norm of one number, over its only (implicit) dim
        return PairwiseDistanceBackward.apply(x1.reshape(1), x2.reshape(1), p=float(p), eps=eps, keepdim=False)
    return PairwiseDistanceBackward.apply(x1, x2, p=float(p), eps=eps, keepdim=bool(keepdim))


# ------------------------------------------------------------------------------------------------
# pdist: distances between all pairs of rows
# ------------------------------------------------------------------------------------------------
class PdistBackward0(Op):
    """``||x[i] - x[j]||_p`` for every row pair ``i < j`` of an ``(N, M)`` array, in row-major pair order."""

    _saves = (0, "out")

    def forward(self, x, p):
        n, m = x.shape
        i, j = np.triu_indices(n, 1)
        diff = x[i] - x[j]
        if m == 0:  # empty rows: all distances are 0 (a max over nothing would fail)
            dist = np.zeros(len(i), x.dtype)
        else:
            dist = _pnorm(diff, p, -1, keepdims=False).astype(x.dtype, copy=False)
        self.saved = (diff, dist, i, j)
        self.p, self.n = p, n
        return dist

    def backward(self, g):
        diff, dist, i, j = self.saved
        p, n, m = self.p, self.n, diff.shape[1]
        gk, dk = g[:, None], dist[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 0:
                gd = np.zeros_like(diff)
            elif p == 1:
                gd = np.sign(diff) * gk
            elif p == 2:
                gd = diff * (gk / dk)
            elif p == np.inf:  # each coordinate reaching the max gets the whole gradient (ATen's rule)
                gd = np.sign(diff) * (np.abs(diff) == dk) * gk
            else:  # sign * |d|^(p-1) / dist^(p-1); a zero coordinate gets 0 (not 0 * inf when p < 1)
                gd = np.sign(diff) * np.abs(diff) ** (p - 1) * (gk / dk ** (p - 1))
                gd[diff == 0] = 0
            gd[np.broadcast_to(dk == 0, gd.shape)] = 0  # no gradient through a zero distance
        gd = gd.astype(diff.dtype, copy=False)
        # each pair adds +gd to row i and -gd to row j: two weighted counts over (row, column) slots
        cols = np.arange(m)
        gx = np.bincount((i[:, None] * m + cols).ravel(), gd.ravel(), minlength=n * m)
        gx -= np.bincount((j[:, None] * m + cols).ravel(), gd.ravel(), minlength=n * m)
        return gx.reshape(n, m).astype(diff.dtype, copy=False)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """``torch.pdist``: the ``p``-norm distances between all row pairs ``i < j`` of an ``(N, M)`` input,
    as a 1-d tensor of ``N * (N - 1) / 2`` values in the order of ``torch.triu_indices(N, N, 1)``.

    RuntimeError for a non-2-d or non-float input or negative ``p``; NotImplementedError for 16-bit floats
    (as PyTorch on CPU); TypeError for a non-Tensor.
    """
    _check_tensor(input, "pdist", position=1)
    x = input._data
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if x.dtype.kind not in "fV":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if x.dtype.itemsize == 2:
        raise NotImplementedError(f"\"pdist\" not implemented for '{from_np(x.dtype)._aten_name}'")
    return PdistBackward0.apply(input, p=float(p))
