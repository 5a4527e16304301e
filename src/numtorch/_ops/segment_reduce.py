"""``torch.segment_reduce`` (``torch._segment_reduce``): reduce consecutive segments of ``data`` along ``axis``.

The segments are given by ``lengths`` (``(*lead, S)``, ``lead`` = the dims before ``axis``) or ``offsets``
(``(*lead, S + 1)``, cumulative). Each output element ``out[..., s, ...]`` reduces the segment's elements
together with ``initial`` when given ("sum" adds it, "mean" adds it then divides by the segment length,
"max"/"min"/"prod" include it); an empty segment gives ``initial``, else the reduction's identity (0 for
sum, 1 for prod, -inf/inf for max/min) and NaN for mean.

Vectorized: each position along ``axis`` gets its segment id (positions past the last segment, allowed
with ``unsafe=True``, go to a discarded bucket) and one ``ufunc.at`` reduces all segments at once. The
backward follows PyTorch's: max/min give the gradient to the elements equal to the result (a positive
gradient shared among ties, as PyTorch's kernel does), prod
divides the result by the element (with the zero cases handled exactly), mean divides by the length.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from ._util import wrap_dim

__all__ = ["segment_reduce", "_segment_reduce"]

_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}
_IDENTITY = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}


class SegmentReduceBackward0(Op):
    """``out[p, s, t] = reduce(data[p, d, t] for d in segment s of row p)`` on ``(P, D, T)`` data."""

    def forward(self, x, *, reduce, lengths, initial, out_shape):
        P, S = lengths.shape
        D = x.shape[1]
        ends = np.cumsum(lengths, 1)
        seg = (np.arange(D)[None, None, :] >= ends[:, :, None]).sum(1)  # (P, D); S = past the last segment
        rows = np.broadcast_to(np.arange(P)[:, None], seg.shape)
        acc = np.full((P, S + 1, x.shape[2]), _IDENTITY[reduce], x.dtype)
        _UFUNC[reduce].at(acc, (rows, seg), x)
        acc, count = acc[:, :S], lengths[:, :, None].astype(x.dtype)
        if initial is not None:
            acc = _UFUNC[reduce](acc, np.asarray(initial, x.dtype))
        empty = lengths[:, :, None] == 0
        if reduce == "mean":
            acc = np.where(empty, np.nan if initial is None else initial, acc / np.where(empty, 1, count))
        self.rows, self.seg, self.count, self.reduce, self.initial = rows, seg, count, reduce, initial
        self.saved = (x, acc)
        self.out_shape = out_shape
        return acc.astype(x.dtype, copy=False).reshape(out_shape)

    def backward(self, g):
        x, out = self.saved
        P, S, T = out.shape
        g = np.concatenate([g.reshape(P, S, T), np.zeros((P, 1, T), g.dtype)], 1)  # the discarded bucket: 0
        out = np.concatenate([out, np.zeros((P, 1, T), out.dtype)], 1)
        at = (self.rows, self.seg)
        ge, oe = g[at], out[at]  # each element's segment gradient and result: (P, D, T)
        if self.reduce == "sum":
            return ge
        if self.reduce == "mean":
            count = np.concatenate([self.count, np.ones((P, 1, 1), self.count.dtype)], 1)
            return ge / np.maximum(count, 1)[at]
        if self.reduce in ("max", "min"):
            # every element equal to the result (or NaN) takes the gradient; PyTorch's kernel then divides it
            # by the number of ties only where it is positive, and numtorch keeps that rule
            hit = ((x == oe) | np.isnan(x)) & (self.seg[..., None] < S)
            ties = np.zeros((P, S + 1, T), x.dtype)
            np.add.at(ties, at, hit.astype(x.dtype))
            gi = np.where(hit, ge, 0)
            return np.where(gi > 0, gi / np.maximum(ties[at], 1), gi)
        # prod: d out / d x = product of the segment's other elements (and initial)
        zero = x == 0
        zeros = np.zeros((P, S + 1, T), np.int64)
        np.add.at(zeros, at, zero.astype(np.int64))
        nonzero_prod = np.ones((P, S + 1, T), x.dtype) * (1 if self.initial is None else self.initial)
        np.multiply.at(nonzero_prod, at, np.where(zero, 1, x))
        zc = zeros[at]
        return np.where(zero, np.where(zc == 1, ge * nonzero_prod[at], 0),
                        np.where(zc == 0, ge * oe / np.where(zero, 1, x), 0))


def segment_reduce(data: Tensor, reduce: str, *, lengths=None, indices=None, offsets=None, axis: int = 0,
                   unsafe: bool = False, initial=None) -> Tensor:
    """``torch.segment_reduce``: ``reduce`` ("sum", "mean", "prod", "max", "min") over the segments ``lengths``
    (or ``offsets``) give along ``axis``; output shape ``data.shape`` with ``axis`` of size S. RuntimeError
    for lengths not summing to the axis size (unless ``unsafe``), negative lengths, an unknown reduction;
    NotImplementedError for integer data (PyTorch's CPU kernel is floating-point only)."""
    if reduce not in _UFUNC:
        raise RuntimeError(f"reduce argument must be either sum, prod, max, min or mean, got {reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if (lengths is None) == (offsets is None):
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    x = data._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for '{data.dtype._aten_name}'")
    axis = wrap_dim(axis, x.ndim)
    given, kind = (lengths, "lengths") if lengths is not None else (offsets, "offsets")
    if given._data.dtype not in (np.int32, np.int64, np.bool_):  # PyTorch's kernels take int32/int64 only
        raise NotImplementedError(f"\"_segment_reduce_{kind}_cpu_kernel1\" not implemented for "
                                  f"'{given.dtype._aten_name}'")
    lens = np.asarray(lengths._data if lengths is not None else np.diff(offsets._data, axis=-1), np.int64)
    if lens.shape[:-1] != x.shape[:axis]:
        raise RuntimeError("segment_reduce(): Expected lengths (or offsets) to have the data's leading dims before "
                           "axis")
    if (lens < 0).any():
        raise RuntimeError("lengths contains negative value!")
    total = lens.sum(-1)
    if not unsafe and (total != x.shape[axis]).any():
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")
    if (total > x.shape[axis]).any():
        raise RuntimeError("segment_reduce(): lengths sum to more than the data's size along axis")
    P, S = int(np.prod(x.shape[:axis])), lens.shape[-1]
    out_shape = x.shape[:axis] + (S,) + x.shape[axis + 1:]
    x3 = data.reshape(P, x.shape[axis], int(np.prod(x.shape[axis + 1:])))
    return SegmentReduceBackward0.apply(x3, reduce=reduce, lengths=lens.reshape(P, S), initial=initial,
                                        out_shape=out_shape)


_segment_reduce = segment_reduce
