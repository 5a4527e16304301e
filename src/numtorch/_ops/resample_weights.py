"""Interpolation written as one ``(out, in)`` weight matrix per spatial axis: bicubic, and the
antialiased bilinear/bicubic modes of ``interpolate(..., antialias=True)``.

Each output position is a weighted sum of a few input positions along each axis, so an axis's
resampling is a matrix; the forward multiplies by each axis's matrix, the backward by its transpose.
The weights follow ATen's CPU kernels (``UpSampleKernel.cpp``):

* bicubic: source coordinate ``scale * (i + 0.5) - 0.5`` (``scale * i`` with ``align_corners``), Keys'
  cubic convolution with ``A = -0.75`` over the 4 nearest inputs, indices clamped at the borders;
* antialiased (PIL's algorithm, used when downsampling images): output ``i`` is centred at
  ``scale * (i + 0.5)``; the filter (triangle for bilinear, cubic with ``a = -0.5`` for bicubic) is
  stretched by ``scale`` when ``scale > 1`` and its weights are normalised to sum to 1.

Weights are computed in float64 and cast to the input's dtype; results agree with PyTorch's to float
rounding. uint8 images (bilinear, bicubic, antialiased or not, 4-D) take PyTorch's fixed-point path,
PIL-SIMD's algorithm: each axis's weights are scaled to int16 with as many fraction bits as the largest
weight allows, and the width then the height pass each round to uint8 (``(sum + half) >> bits``,
clamped to 0..255); bilinear weights come from the antialiasing formula at scale 1 (taps past an edge
dropped, the rest renormalised), bicubic ones are the float path's (taps past an edge read the edge).
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ._window import _along_axes


def _scale(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _keys_cubic(x, a):
    """Keys' cubic convolution kernel at distances ``x`` (any sign)."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def bicubic_matrix(n_in, n_out, scale, align_corners):
    """The (n_out, n_in) matrix of ATen's ``upsample_bicubic2d`` along one axis."""
    sc = _scale(n_in, n_out, align_corners, scale)
    i = np.arange(n_out, dtype=np.float64)
    src = sc * i if align_corners else sc * (i + 0.5) - 0.5
    base = np.floor(src)
    t = src - base
    m = np.zeros((n_out, n_in))
    for k in range(-1, 3):  # the 4 taps, at distances t - k; indices past an edge read the edge
        np.add.at(m, (np.arange(n_out), np.clip(base.astype(np.int64) + k, 0, n_in - 1)), _keys_cubic(t - k, -0.75))
    return m


def antialias_matrix(n_in, n_out, scale, align_corners, mode, antialias=True):
    """The (n_out, n_in) matrix of ATen's antialiased ``_upsample_{bilinear,bicubic}2d_aa`` along one axis
    (``antialias=False``: the same formula at scale 1, its uint8 bilinear kernel's weights)."""
    sc = _scale(n_in, n_out, align_corners, scale)
    half = 1.0 if mode == "bilinear" else 2.0  # the filter's support at scale 1
    stretch = antialias and sc >= 1.0
    support, invscale = (half * sc, 1.0 / sc) if stretch else (half, 1.0)
    width = int(np.ceil(support)) * 2 + 1 if antialias else int(2 * half)  # taps at most
    delta = 0.5 if align_corners and not antialias else 0.0
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        center = sc * (i + 0.5 - delta)
        lo = max(int(center - support + 0.5 + delta), 0)
        hi = lo + min(max(min(int(center + support + 0.5 + delta), n_in) - lo, 0), width)
        x = (np.arange(lo, hi) - center + 0.5 - delta) * invscale
        w = np.maximum(1.0 - np.abs(x), 0.0) if mode == "bilinear" else _keys_cubic(x, -0.5)
        total = w.sum()
        m[i, lo:hi] = w / total if total != 0 else w
    return m


def _fixed_point(m):
    """``m`` as int16-range integers with ``bits`` fraction bits (as many as the largest weight allows,
    at most 22), rounded half away from zero: ``(weights, bits)``."""
    bits, top = 0, m.max()
    while bits < 22 and int(0.5 + top * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    v = m * (1 << bits)
    return np.trunc(v + np.where(v < 0, -0.5, 0.5)).astype(np.int64), bits


def _fixed_point_pass(x, m, axis):
    """One axis of a uint8 image resampled by weights ``m`` in fixed point, rounded to uint8."""
    q, bits = _fixed_point(m)
    y = np.moveaxis(x, axis, -1).astype(np.int64) @ q.T + (1 << (bits - 1))
    return np.moveaxis(np.clip(y >> bits, 0, 255).astype(np.uint8), -1, axis)


def resample_uint8(x, out_sp, scales, align_corners, mode, antialias):
    """``interpolate`` of a uint8 ``(N, C, H, W)`` array (bilinear or bicubic) as PyTorch's fixed-point
    kernel computes it: the width pass, then the height pass, each skipped when its size is kept."""
    out = x
    for axis in (3, 2):
        n_in, n_out, sc = x.shape[axis], out_sp[axis - 2], scales[axis - 2]
        if n_in != n_out:
            if mode == "bicubic" and not antialias:
                m = bicubic_matrix(n_in, n_out, sc, align_corners)
            else:
                m = antialias_matrix(n_in, n_out, sc, align_corners, mode, antialias)
            out = _fixed_point_pass(out, m, axis)
    return x.copy() if out is x else out


class _Matrices(Op):
    """Resample along the last ``len(mats)`` axes, multiplying each by its (out, in) matrix."""

    _graph_constants = ("mats",)

    def forward(self, x, *, mats):
        self.mats = tuple(m.astype(x.dtype) for m in mats)
        return _along_axes(x, self.mats)

    def backward(self, g):
        return _along_axes(g, self.mats, transpose=True)


class UpsampleBicubic2DBackward0(_Matrices):
    pass


class UpsampleBilinear2DAaBackward0(_Matrices):
    pass


class UpsampleBicubic2DAaBackward0(_Matrices):
    pass


def resample_by_matrices(input, out_sp, scales, align_corners, mode, antialias):
    """``interpolate`` for mode "bicubic" (4-D) and for ``antialias=True`` ("bilinear"/"bicubic", 4-D)."""
    x = input._data
    if antialias:
        mats = tuple(antialias_matrix(s, o, sc, align_corners, mode) for s, o, sc in zip(x.shape[2:], out_sp, scales))
        op = UpsampleBilinear2DAaBackward0 if mode == "bilinear" else UpsampleBicubic2DAaBackward0
    else:
        mats = tuple(bicubic_matrix(s, o, sc, align_corners) for s, o, sc in zip(x.shape[2:], out_sp, scales))
        op = UpsampleBicubic2DBackward0
    return op.apply(input, mats=mats)
