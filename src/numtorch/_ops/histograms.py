"""Histograms with their bin edges: ``torch.histogram`` (one dim) and ``torch.histogramdd`` (the last dim
of the input holds the D coordinates of each point). ``torch.histc``, the edge-less legacy form, lives in
``statistics.py``.

Bins are given as counts (equal bins over ``range``, by default the data's min and max, widened by 0.5 on
each side when they coincide) or as increasing edge tensors. Edges are computed in the input's dtype the
way ``torch.linspace`` does, and each value goes to the bin whose edges enclose it (left edge inclusive;
the last bin also takes its right edge; values outside are dropped), so counts on an edge agree with
PyTorch's. Float32/float64 inputs only; not differentiable.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, _make
from .reduction import _return_type, _tname

__all__ = ["histogram", "histogramdd"]

return_types_histogram = _return_type("histogram", "hist bin_edges")
return_types_histogramdd = _return_type("histogramdd", "hist bin_edges")


def _linspace(lo, hi, steps, dtype):
    """``torch.linspace(lo, hi, steps)`` in ``dtype``: the first half stepped from ``lo``, the rest back from
    ``hi``, so both ends are exact."""
    lo, hi = dtype.type(lo), dtype.type(hi)
    if steps == 1:
        return np.array([lo], dtype)
    step = (hi - lo) / dtype.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    return np.where(i < half, lo + step * i.astype(dtype), hi - step * (steps - 1 - i).astype(dtype)).astype(dtype)


def _edges(name, pts, d, bins, rng, dtype):
    """The bin edges of dimension ``d``: ``bins`` an int count or a 1-D edge tensor."""
    if isinstance(bins, Tensor):
        e = bins._data
        if e.dtype != dtype:
            raise RuntimeError(f"torch.{name}: input tensor and bins tensors should have the same dtype, but got "
                               f"input {_tname(pts)} and bins {_tname(e)}")
        if e.ndim != 1:
            raise RuntimeError(f"torch.{name}: bins tensor should have one dimension, but got {e.ndim} dimensions in "
                               f"the bins tensor for dimension {d}")
        if e.size == 0:
            raise RuntimeError(f"torch.{name}: bins tensor should have at least 1 element, but got {e.size} elements "
                               f"for dimension {d}")
        return e.copy()
    n = int(bins)
    if n <= 0:
        raise RuntimeError(f"torch.{name}(): bins must be > 0, but got {n} for dimension {d}")
    if rng is not None:
        lo, hi = float(rng[2 * d]), float(rng[2 * d + 1])
    elif pts.shape[0]:
        lo, hi = float(pts[:, d].min()), float(pts[:, d].max())
    else:
        lo, hi = 0.0, 1.0
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for dimension {d}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _linspace(lo, hi, n + 1, dtype)


def _bin_counts(pts, edges, weight, density):
    dims = len(edges)
    keep = np.ones(pts.shape[0], bool)
    flat = np.zeros(pts.shape[0], np.int64)
    for d, e in enumerate(edges):
        v = pts[:, d]
        nb = max(e.size - 1, 0)
        keep &= (v >= e[0]) & (v <= e[-1])
        pos = np.minimum(np.searchsorted(e, v, side="right") - 1, nb - 1)
        flat = flat * max(nb, 1) + np.clip(pos, 0, None)
    shape = tuple(max(e.size - 1, 0) for e in edges)
    w = None if weight is None else weight.reshape(-1)[keep]
    hist = np.bincount(flat[keep], weights=w, minlength=int(np.prod(shape))).astype(pts.dtype)
    hist = hist.reshape(shape)
    if density:
        total = hist.sum()
        widths = np.ones(shape, pts.dtype)
        for d, e in enumerate(edges):
            widths = widths * np.diff(e).reshape([-1 if i == d else 1 for i in range(dims)])
        hist = hist / (total * widths)
    return hist.astype(pts.dtype)


def _check(name, input, weight, dims_in_last):
    a = input._data
    if a.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_tname(a)}'")
    if weight is not None:
        want = a.shape[:-1] if dims_in_last else a.shape
        if weight._data.shape != want:
            raise RuntimeError(f"torch.{name}: if weight tensor is provided it should have the same shape as the "
                               f"input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(a.shape)} and weight with shape {list(weight._data.shape)}")
        if weight._data.dtype != a.dtype:
            raise RuntimeError(f"torch.{name}: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({_tname(a)}), and weight({_tname(weight._data)})")
        return weight._data
    return None


def histogram(input: Tensor, bins=100, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """``(hist, bin_edges)`` of the flattened ``input`` (``torch.histogram``): ``bins`` equal bins over
    ``range`` (default: the data's min and max) or the given 1-D edge tensor; ``weight`` (shaped as input)
    weights each value; ``density=True`` normalises to a density. RuntimeError for bins <= 0 or a bad or
    non-finite range; NotImplementedError for non-float input."""
    w = _check("histogram", input, weight, False)
    a = input._data
    pts = a.reshape(-1, 1)
    edges = [_edges("histogram", pts, 0, bins, None if range is None else tuple(range), a.dtype)]
    hist = _bin_counts(pts, edges, w, density)
    res = return_types_histogram(_make(hist), _make(edges[0]))
    if out is not None:
        hist_out, edges_out = out
        hist_out._data, edges_out._data = hist, edges[0]
        return return_types_histogram(hist_out, edges_out)
    return res


def histogramdd(input: Tensor, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """``(hist, bin_edges)`` of the points ``input[..., :]`` (the last dim, of size D, holds the
    coordinates) (``torch.histogramdd``): ``bins`` an int (every dim), D ints or D edge tensors; ``range``
    ``[min0, max0, min1, max1, ...]``; ``hist`` has D dims, ``bin_edges`` is a tuple of D tensors."""
    w = _check("histogramdd", input, weight, True)
    a = input._data
    if a.ndim < 2:
        raise RuntimeError(f"torch.histogramdd: input tensor should have at least 2 dimensions, but got {a.ndim}")
    dims = a.shape[-1]
    pts = a.reshape(-1, dims)
    if isinstance(bins, (int, np.integer)):
        bins = [int(bins)] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges for each of the {dims} "
                           f"dimensions of the input, but got {len(bins)}")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should have {2 * dims} "
                           f"elements, but got {len(range)}")
    edges = [_edges("histogramdd", pts, d, b, None if range is None else tuple(range), a.dtype)
             for d, b in enumerate(bins)]
    hist = _bin_counts(pts, edges, None if w is None else w.reshape(-1), density)
    return return_types_histogramdd(_make(hist), tuple(_make(e) for e in edges))
