"""Distances between sets of points: ``cdist``, the p-norm distance between every row of ``x1`` and
every row of ``x2``.

``CdistBackward0`` computes the distances directly; for p=2 on large inputs ``cdist`` composes the
matmul expansion ``|a|^2 - 2ab + |b|^2`` from differentiable ops, as PyTorch does.
"""
from __future__ import annotations

import math

import numpy as np

from ..autograd.function import Op
from ._util import unbroadcast
from .creation import ones_like
from .linalg import matmul
from .rearrange import cat
from .reduction import _tname

__all__ = ["cdist"]


class CdistBackward0(Op):
    """p-norm distances between the rows of ``x1`` (B, P, M) and ``x2`` (B, R, M); direct formula."""

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
