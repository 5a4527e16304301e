"""Distances and similarities between vectors: ``cosine_similarity``, ``pairwise_distance``, ``pdist``
and ``cdist``.

Each is one fused ``Op`` over NumPy arrays, built on the vector p-norm helpers of ``norm_ops.py``
(``_pnorm`` and its gradient). ``cosine_similarity`` and ``pairwise_distance`` broadcast their two
inputs and reduce along one dim; ``pdist`` takes every row pair ``i < j`` of one ``(N, M)`` input and
follows ATen's per-``p`` backward formulas (an ``inf`` norm gives every tied maximum the full
gradient, unlike ``torch.norm``'s). ``cdist`` gives the p-norm distance between every row of ``x1``
and every row of ``x2``: ``CdistBackward0`` computes the distances directly; for p=2 on large inputs
``cdist`` composes the matmul expansion ``|a|^2 - 2ab + |b|^2`` from differentiable ops, as PyTorch
does. All four are also ``torch.*`` functions. The losses built on them, ``cosine_embedding_loss`` and
``triplet_margin_loss``, close the file.
"""
from __future__ import annotations

import math

import numpy as np

from .._dtype import from_np, get_default_dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op
from ._util import unbroadcast, wrap_dim
from ._window import _check_tensor
from .creation import ones_like
from .losses import _reduction
from .matmul import matmul
from .norm_ops import _pnorm, _pnorm_grad
from .pointwise import add, cast, minimum, mul, sub
from .rearrange import cat
from .reduction import norm as _norm
from .reduction import _tname, mean as _mean, sum as _sum
from .unary import clamp, clamp_min

__all__ = ["cosine_similarity", "pairwise_distance", "pdist", "cdist", "dist"]


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

    _graph_recompute = True  # the unit vectors and norms are rebuilt from the boxed inputs under create_graph

    def backward(self, g):
        u, v, na, nb, cos, ka, kb = self.saved
        if self._graph:
            shape = np.broadcast_shapes(self.sa, self.sb)
            am, bm = (np.moveaxis(np.broadcast_to(t, shape), self.dim, -1) for t in self._graph_args[:2])
            (na, ra), (nb, rb) = _graph_norm(am, na, ka), _graph_norm(bm, nb, kb)
            u, v = am / na, bm / nb
            cos = (u * v).sum(axis=-1)
            ua, vb = am / ra, bm / rb
        else:
            ua = u if ka is None else (u * ka).astype(u.dtype, copy=False)
            vb = v if kb is None else (v * kb).astype(v.dtype, copy=False)
        gk = (g * np.ones_like(cos))[..., None]
        c = cos[..., None]
        ga = gb = None
        if self._edges[0] is not None:
            ga = unbroadcast(np.moveaxis(gk * (v - c * ua) / na, -1, self.dim), self.sa)
        if self._edges[1] is not None:
            gb = unbroadcast(np.moveaxis(gk * (u - c * vb) / nb, -1, self.dim), self.sb)
        return ga, gb


def _graph_norm(xm, n, k):
    """Under create_graph: the 2-norm of the last axis of box ``xm`` as (clamped, raw) boxes. PyTorch
    clamps the norm to eps in place under no_grad, so the clamped norm has the value ``n`` (the
    forward's) and the derivative of the raw norm, which is 0 for a zero row (its norm backward
    masks ``x / |x|`` there). ``k`` is the forward's clamp ratio (None: nothing was clamped).
    The raw norm is returned with 1 added on zero rows, so ``x / raw`` is 0 there; its derivative
    there is NaN (the square root's at 0), as PyTorch's."""
    sq = (xm * xm).sum(axis=-1, keepdims=True)
    if k is None:
        r = np.sqrt(sq)
        return r, r
    zr = (k == 0).astype(n.dtype)  # rows of zeros
    raw = np.sqrt(sq)
    raw_value = np.where(k > 0, n / np.where(k > 0, k, 1), 0)
    return raw + (n - raw_value), raw + zr


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
    dim = wrap_dim(dim, nd)
    if nd == 0:  # two numbers over their only (implicit) dim: a 0-d result, as PyTorch's
        x1, x2 = x1.reshape(1), x2.reshape(1)
    return CosineSimilarityBackward.apply(x1, x2, dim=dim, eps=eps)


class PairwiseDistanceBackward(Op):
    """``||x1 - x2 + eps||_p`` along the last dim."""

    _saves = (0, 1)

    def forward(self, a, b, p, eps, keepdim):
        d = a - b
        d += eps
        n = _pnorm(d, p, -1)
        self.saved, self.n, self.p, self.sa, self.sb, self.keepdim = d, n, p, a.shape, b.shape, keepdim
        self.eps = eps
        return n if keepdim else n[..., 0]

    _graph_recompute = True  # d and its norm are rebuilt from the boxed inputs under create_graph

    def backward(self, g):
        if self.p == 0:  # PyTorch's norm backward gives no gradient for p=0 (the inputs' .grad stays None)
            return None, None
        gk = g if self.keepdim else g[..., None]
        if self._graph:  # d and its norm again, from the boxed inputs
            d = self._graph_args[0] - self._graph_args[1] + self.eps
            gd = gk * _pnorm_grad(d, _pnorm(d, self.p, -1), self.p)
        else:
            gd = gk * _pnorm_grad(self.saved, self.n, self.p)
        ga = unbroadcast(gd, self.sa) if self._edges[0] is not None else None
        gb = unbroadcast(-gd, self.sb) if self._edges[1] is not None else None
        return ga, gb


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``torch.pairwise_distance``: the ``p``-norm of ``x1 - x2 + eps`` along the last dim (broadcast).

    Integer inputs give the default float dtype (as ``x1 - x2 + eps`` does: the difference is taken in the
    integer dtype, so uint8 wraps around, and ``+ eps`` promotes); 0-d inputs a 0-d result.
    RuntimeError when the shapes do not broadcast, or for two bool tensors (their ``-``).
    """
    _check_broadcast(x1._data.shape, x2._data.shape)
    if x1._data.dtype.kind not in "fc" and x2._data.dtype.kind not in "fc":
        fdt = get_default_dtype().np
        x1, x2 = cast(sub(x1, x2), fdt), _make(np.zeros((), fdt))
    if x1._data.ndim == 0 and x2._data.ndim == 0:  # the norm of one number, over its only (implicit) dim
        return PairwiseDistanceBackward.apply(x1.reshape(1), x2.reshape(1), p=float(p), eps=eps, keepdim=False)
    return PairwiseDistanceBackward.apply(x1, x2, p=float(p), eps=eps, keepdim=bool(keepdim))


# ------------------------------------------------------------------------------------------------
# pdist: distances between all pairs of rows
# ------------------------------------------------------------------------------------------------
class PdistBackward0(Op):
    """``||x[i] - x[j]||_p`` for every row pair ``i < j`` of an ``(N, M)`` array, in row-major pair order."""

    _graph_error = (NotImplementedError, "the derivative for '_pdist_backward' is not implemented.")
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


# ------------------------------------------------------------------------------------------------
# cdist: every row of x1 against every row of x2
# ------------------------------------------------------------------------------------------------
class CdistBackward0(Op):
    """p-norm distances between the rows of ``x1`` (B, P, M) and ``x2`` (B, R, M); direct formula."""

    _graph_error = (NotImplementedError, "the derivative for '_cdist_backward' is not implemented.")
    _saves = (0, 1, "out")

    def forward(self, x1, x2, p):
        self.p = p
        d = x1[..., :, None, :] - x2[..., None, :, :]
        ad = np.abs(d)
        if p == 0:
            out = np.sum(ad != 0, axis=-1).astype(x1.dtype)
        elif p == 1:
            out = ad.sum(-1)
        elif p == 2:
            out = np.sqrt(np.sum(d * d, axis=-1))
        elif math.isinf(p):
            out = ad.max(-1) if ad.shape[-1] else np.zeros(ad.shape[:-1], x1.dtype)
        else:
            out = np.sum(ad ** p, axis=-1) ** (1.0 / p)
        out = out.astype(x1.dtype, copy=False)
        self.saved = (x1, x2, out)
        return out

    def backward(self, g):
        x1, x2, out = self.saved
        p = self.p
        d = x1[..., :, None, :] - x2[..., None, :, :]
        dist = out[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 0:
                w = np.zeros_like(d)
            elif p == 1:
                w = np.sign(d)
            elif p == 2:
                w = np.where(dist == 0, 0, d / dist)
            elif math.isinf(p):
                w = np.sign(d) * (np.abs(d) == dist)
            else:
                w = np.sign(d) * np.abs(d) ** (p - 1) / dist ** (p - 1)
                w = np.where((dist == 0) | (d == 0), 0, w)
        gd = (g[..., None] * w).astype(x1.dtype, copy=False)
        return unbroadcast(gd.sum(-2), x1.shape), unbroadcast(-gd.sum(-3), x2.shape)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise p-norm distances (``torch.cdist``): ``x1`` (*, P, M), ``x2`` (*, R, M) -> (*, P, R).

    For p=2 the matmul expansion ``|a|^2 - 2ab + |b|^2`` is used when ``compute_mode`` is
    ``use_mm_for_euclid_dist`` or (the default) when P or R exceeds 25, as PyTorch does.
    RuntimeError for non-float inputs, < 2-D inputs, mismatched M, negative p, or a bad mode.
    """
    for nm, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {nm} got: {t._data.ndim}D")
    for nm, t in (("X1", x1), ("X2", x2)):
        if t._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {nm} got: {_tname(t._data)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"X1 and X2 must have the same dtype, X1 got: {_tname(x1._data)} "
                           f"X2 got: {_tname(x2._data)}")
    mode, r1, r2 = modes[compute_mode], x1.shape[-2], x2.shape[-2]
    if p == 2 and x1._data.size and x2._data.size and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        n1 = (x1 * x1).sum(-1, keepdim=True)
        n2 = (x2 * x2).sum(-1, keepdim=True)
        a = cat([x1 * -2, n1, ones_like(n1)], -1)
        b = cat([x2, ones_like(n2), n2], -1)
        return matmul(a, b.mT).clamp_min(1e-30).sqrt()
    return CdistBackward0.apply(x1, x2, p=float(p))


# ------------------------------------------------------------------------------------------------
# losses built on these distances (F.cosine_embedding_loss, F.triplet_margin_loss)
# ------------------------------------------------------------------------------------------------
def _reduce_t(loss, reduction):
    return _mean(loss) if reduction == "mean" else _sum(loss) if reduction == "sum" else loss


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` for ``y = 1``, ``max(0, cos - margin)`` for ``y = -1`` (``F.cosine_embedding_loss``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1._data.dtype.kind in "biu":  # PyTorch's formula with integer (wrapping) products, then float
        d = input1.dim() - 1
        m = ((input1 * input1).sum(d) + 1e-12) * ((input2 * input2).sum(d) + 1e-12)
        cos = (input1 * input2).sum(d) / m.sqrt()
        loss = (1 - cos) * (target == 1) + (cos - margin).clamp_min(0) * (target == -1)
        return _reduce_t(loss, reduction)
    cos = CosineSimilarityBackward.apply(input1, input2, dim=input1.dim() - 1, eps=1e-12)
    pos = sub(1.0, cos)
    neg = clamp(sub(cos, margin), min=0.0)
    dt = from_np(cos._data.dtype)  # the masks as ops: a batched target under vmap has no readable values
    loss = add(mul(pos, cast(target == 1, dt)), mul(neg, cast(target == -1, dt)))
    return _reduce_t(loss, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with pairwise distances (``F.triplet_margin_loss``).
    ValueError for ``margin <= 0``."""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = clamp(add(sub(d_pos, d_neg), margin), min=0.0)
    return _reduce_t(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """``F.triplet_margin_with_distance_loss``: ``max(d(a, p) - d(a, n) + margin, 0)`` for any distance
    ``distance_function(x, y)`` (default ``pairwise_distance``); with ``swap``, ``d(a, n)`` is replaced by
    ``min(d(a, n), d(p, n))``. Differentiable through the distance.

    Raises ValueError for an unknown reduction or ``margin <= 0``; RuntimeError when the three inputs
    have different numbers of dims.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not a_dim == p_dim == n_dim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    loss = clamp_min(sub(add(dist_pos, margin), dist_neg), 0)  # (margin + d_pos) - d_neg, as PyTorch rounds it
    return _sum(loss) if reduction == "sum" else _mean(loss) if reduction == "mean" else loss


def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The p-norm of ``input - other`` (broadcast) as a 0-d tensor (``torch.dist``); RuntimeError for
    integer inputs, as ``torch.norm``."""
    _check_tensor(input, "dist")
    _check_tensor(other, "dist", "other", 2)
    return _norm(sub(input, other), p)
