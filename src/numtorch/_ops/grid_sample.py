"""``grid_sample`` (``F.grid_sample``, ATen's ``grid_sampler_2d``/``grid_sampler_3d``): sample a 4-D (5-D)
input at the (x, y[, z]) positions of a grid, with bilinear (trilinear) or nearest interpolation and
zeros/border/reflection padding, or bicubic (4-D: 16 taps with ATen's cubic convolution weights, A = -0.75,
each tap's pixel mapped by the padding mode).

A grid value of -1 is the left/top edge of the input and +1 the right/bottom edge (the centres of
the corner pixels with ``align_corners=True``, their outer edges without). Coordinates are mapped to
pixel units, then clipped (border) or reflected (reflection); bilinear mixes the 4 (8) neighbours, and
a neighbour outside the input reads 0. The backward scatters into the input's gradient and gives the
grid's gradient through the interpolation weights (zero for nearest), as ATen does.
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from .._dtype import from_np as _from_np
from .._tensor import Tensor, _make
from ..autograd.function import Op
from . import creation as _lin, matmul as _mm
from ._window import _check_tensor

__all__ = ["grid_sample", "affine_grid_generator"]

_MODES = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def _reflect(x, lo2, hi2):
    """Reflect ``x`` into [lo2/2, hi2/2]; returns the value and d(value)/dx (+1 or -1)."""
    if lo2 == hi2:
        return np.zeros_like(x), np.zeros_like(x)
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    d = x - lo
    sign = np.where(d < 0, -1.0, 1.0)
    d = np.abs(d)
    extra, flips = np.fmod(d, span), np.floor(d / span)
    even = flips % 2 == 0
    return np.where(even, extra + lo, span - extra + lo), np.where(even, sign, -sign)


def _source(coord, size, padding, align_corners):
    """Grid coordinates -> pixel coordinates and their derivative, with the padding mode applied."""
    if align_corners:
        x, dx = (coord + 1) / 2 * (size - 1), np.full_like(coord, (size - 1) / 2)
    else:
        x, dx = ((coord + 1) * size - 1) / 2, np.full_like(coord, size / 2)
    if padding == "reflection":
        x, s = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        dx = dx * s
    if padding != "zeros":
        inside = (x > 0) & (x < size - 1)
        x, dx = np.clip(x, 0, size - 1), np.where(inside, dx, 0.0)
    return x, dx


def _corners(src, mode):
    """[(indices per spatial axis, weight, d weight / d coordinate per axis)] of each neighbour; ``src`` lists
    the pixel coordinates per spatial axis (outermost first)."""
    if mode == "nearest":
        zero = np.zeros_like(src[0])
        return [([np.rint(c) for c in src], np.ones_like(src[0]), [zero] * len(src))]  # rint: ATen's nearbyint
    lo = [np.floor(c) for c in src]
    t = [c - f for c, f in zip(src, lo)]
    taps = []
    for corner in itertools.product((0, 1), repeat=len(src)):
        f = [tj if cj else 1 - tj for cj, tj in zip(corner, t)]  # the weight's factor per axis
        df = [1.0 if cj else -1.0 for cj in corner]
        w = math.prod(f)
        dw = [df[a] * math.prod(f[:a] + f[a + 1:]) for a in range(len(src))]
        taps.append(([l + cj for l, cj in zip(lo, corner)], w, dw))
    return taps


_A = -0.75  # the cubic convolution constant ATen uses


def _cubic(t):
    """Weights of the taps at offsets -1, 0, 1, 2 from ``floor(x)`` (``t = x - floor(x)``) and their d/dt."""
    def c1(x):
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def c2(x):
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

    def d1(x):
        return (3 * (_A + 2) * x - 2 * (_A + 3)) * x

    def d2(x):
        return (3 * _A * x - 10 * _A) * x + 8 * _A
    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)], [d2(t + 1), d1(t), -d1(1 - t), -d2(2 - t)]


def _bicubic_taps(src, sizes, padding, align_corners):
    """The 16 taps of bicubic sampling in ``_corners``' form: each tap's pixel is mapped into the input by the
    padding mode (ATen's ``get_value_bounded``); the weights depend on the unpadded coordinate only."""
    lo = [np.floor(c) for c in src]
    ws = [_cubic(c - f) for c, f in zip(src, lo)]
    taps = []
    for offs in itertools.product(range(4), repeat=len(src)):
        idx = []
        for f, o, size in zip(lo, offs, sizes):
            c = f + (o - 1)
            if padding == "reflection":
                c = _reflect(c, 0, 2 * (size - 1))[0] if align_corners else _reflect(c, -1, 2 * size - 1)[0]
            idx.append(c if padding == "zeros" else np.clip(c, 0, size - 1))
        f = [w[0][o] for w, o in zip(ws, offs)]
        dw = [ws[a][1][offs[a]] * math.prod(f[:a] + f[a + 1:]) for a in range(len(src))]
        taps.append((idx, math.prod(f), dw))
    return taps


class GridSampler2DBackward0(Op):
    """Bilinear/nearest/bicubic sampling of (N, C, *S) at an (N, *So, len(S)) grid (grid's last dim: x, y[, z], i.e.
    the spatial axes innermost first)."""

    def forward(self, x, grid, *, mode, padding, align_corners):
        N, C, sp = x.shape[0], x.shape[1], x.shape[2:]
        nd = len(sp)
        g64 = grid.astype(np.float64)
        pad = "zeros" if mode == "bicubic" else padding  # bicubic pads each tap, not the coordinate
        src, dsrc = zip(*(_source(g64[..., nd - 1 - a], sp[a], pad, align_corners) for a in range(nd)))
        self.shape, self.dtype, self.dsrc = x.shape, x.dtype, dsrc
        taps = _bicubic_taps(src, sp, padding, align_corners) if mode == "bicubic" else _corners(src, mode)
        self.taps = []
        out = np.zeros((N, C) + grid.shape[1:-1], np.float64)
        n = np.arange(N).reshape((N,) + (1,) * nd)
        xl = np.moveaxis(x, 1, -1)  # (N, *S, C)
        for idx, w, dw in taps:
            ok = np.logical_and.reduce([(i >= 0) & (i < size) for i, size in zip(idx, sp)])
            ii = tuple(np.where(ok, i, 0).astype(np.int64) for i in idx)
            v = np.where(ok[..., None], xl[(n, *ii)], 0)                 # (N, *So, C)
            v = np.moveaxis(v, -1, 1).astype(np.float64)
            out += v * w[:, None]
            self.taps.append((ii, np.where(ok, w, 0), dw, v))
        return out.astype(x.dtype)

    def backward(self, g):
        N, C, sp = self.shape[0], self.shape[1], self.shape[2:]
        nd = len(sp)
        g64 = g.astype(np.float64)
        gx = np.zeros((N, *sp, C), np.float64)
        n = np.arange(N).reshape((N,) + (1,) * nd)
        gsrc = [np.zeros(g.shape[:1] + g.shape[2:]) for _ in range(nd)]
        for ii, w, dw, v in self.taps:
            np.add.at(gx, (np.broadcast_to(n, ii[0].shape), *ii), np.moveaxis(g64 * w[:, None], 1, -1))
            gv = (g64 * v).sum(1)
            for a in range(nd):
                gsrc[a] += gv * dw[a]
        ggrid = np.stack([gsrc[a] * self.dsrc[a] for a in reversed(range(nd))], -1)
        return np.moveaxis(gx, -1, 1).astype(self.dtype), ggrid.astype(self.dtype)


class GridSampler3DBackward0(GridSampler2DBackward0):
    """Trilinear/nearest sampling of a 5-D input."""


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``F.grid_sample`` for 4-D ``input`` (N, C, H, W) and ``grid`` (N, Ho, Wo, 2) -> (N, C, Ho, Wo), or 5-D
    ``input`` (N, C, D, H, W) and ``grid`` (N, Do, Ho, Wo, 3) -> (N, C, Do, Ho, Wo) (volumetric).

    Modes "bilinear" (trilinear for 5-D), "nearest" and "bicubic" (4-D only); padding "zeros", "border",
    "reflection"; ``align_corners`` defaults to False. Raises ValueError for an unknown mode or padding mode,
    RuntimeError for mismatched shapes or dtypes or a 5-D bicubic.
    """
    _check_tensor(input, "grid_sample")
    _check_tensor(grid, "grid_sample")
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _PADDING:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", UserWarning, stacklevel=2)
    x, gr = input._data, grid._data
    nd = x.ndim - 2
    # ATen's checks in its order: batch size, grid's last dim, then the 2-D (4-D input) or 3-D kernel's rank
    sizes = f"input with sizes {list(x.shape)} and grid with sizes {list(gr.shape)}"
    if x.ndim and gr.ndim and gr.shape[0] != x.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if gr.ndim and gr.shape[-1] != x.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {x.ndim - 2} in last dimension, but got grid "
                           f"with sizes {list(gr.shape)}")
    if nd not in (2, 3) or gr.ndim != x.ndim:
        raise RuntimeError(f"grid_sampler(): expected {4 if x.ndim == 4 else 5}D input and grid with same number of "
                           f"dimensions, but got {sizes}")
    if x.dtype != gr.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    for d in range(2, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(x.shape)} with dimension {d} being empty")
    if mode == "bicubic" and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    op = GridSampler2DBackward0 if nd == 2 else GridSampler3DBackward0
    return op.apply(input, grid, mode=mode, padding=padding_mode, align_corners=bool(align_corners))


def _linspace_from_neg_one(n: int, align_corners: bool, dtype) -> np.ndarray:
    """ATen's grid coordinates: ``linspace(-1, 1, n)`` (scaled by ``(n - 1) / n`` without ``align_corners``)."""
    if n <= 1:
        return np.zeros(1, dtype)
    r = _lin.linspace(-1, 1, n, dtype=_from_np(np.dtype(dtype)))._data
    return r if align_corners else r * dtype.type(n - 1) / dtype.type(n)


def affine_grid_generator(theta: Tensor, size, align_corners: bool) -> Tensor:
    """``torch.affine_grid_generator``: the sampling grid ``(N, *spatial, nd)`` of the affine maps ``theta``
    ``(N, nd, nd + 1)``: each output position's normalised coordinates ``(x, y[, z], 1)`` times ``theta^T``
    (a batched matmul, so gradients reach ``theta``)."""
    dtype = theta._data.dtype
    n, spatial = size[0], list(size[2:])
    nd = len(spatial)
    base = np.empty([n] + spatial + [nd + 1], dtype)
    for axis, extent in enumerate(reversed(spatial)):  # x runs along the last dim, then y, then z
        coords = _linspace_from_neg_one(extent, align_corners, dtype)
        base[..., axis] = coords.reshape([extent] + [1] * axis)
    base[..., nd] = 1
    grid = _mm.bmm(_make(base.reshape(n, -1, nd + 1)), theta.transpose(1, 2))
    return grid.reshape(n, *spatial, nd)


def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """``F.affine_grid``: the ``grid_sample`` grid ``(N, H, W, 2)`` (``(N, D, H, W, 3)``) of 2-d affine maps
    ``theta`` ``(N, 2, 3)`` for ``size = (N, C, H, W)`` (3-d: ``(N, 3, 4)``, ``(N, C, D, H, W)``).
    ``align_corners=None`` warns and means False, as in PyTorch.

    Raises ValueError for a non-float theta, a theta of the wrong shape or a non-positive size;
    NotImplementedError for sizes of other lengths.
    """
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    given, size = size, list(size)  # messages print the size as passed (a tuple or torch.Size)
    if len(size) in (4, 5):
        nd = len(size) - 2
        if theta.dim() != 3 or theta.shape[-2] != nd or theta.shape[-1] != nd + 1:
            what = "2D affine matrices of shape Nx2x3" if nd == 2 else "3D affine matrices of shape Nx3x4"
            raise ValueError(f"Expected a batch of {what} for size {given}. Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
