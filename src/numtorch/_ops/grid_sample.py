"""``grid_sample`` (``F.grid_sample``, ATen's ``grid_sampler_2d``): sample a 4-D input at the (x, y)
positions of a grid, with bilinear or nearest interpolation and zeros/border/reflection padding.

A grid value of -1 is the left/top edge of the input and +1 the right/bottom edge (the centres of
the corner pixels with ``align_corners=True``, their outer edges without). Coordinates are mapped to
pixel units, then clipped (border) or reflected (reflection); bilinear mixes the 4 neighbours, and
a neighbour outside the input reads 0. The backward scatters into the input's gradient and gives the
grid's gradient through the interpolation weights (zero for nearest), as ATen does.
"""
from __future__ import annotations

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


def _corners(ix, iy, mode, H, W):
    """[(rows, cols, weight, d weight/d ix, d weight/d iy, in-bounds mask)] for each neighbour."""
    if mode == "nearest":
        x, y = np.rint(ix), np.rint(iy)  # round half to even, as ATen's nearbyint
        zero = np.zeros_like(ix)
        return [(y, x, np.ones_like(ix), zero, zero)]
    x0, y0 = np.floor(ix), np.floor(iy)
    tx, ty = ix - x0, iy - y0
    return [(y0, x0, (1 - tx) * (1 - ty), -(1 - ty), -(1 - tx)), (y0, x0 + 1, tx * (1 - ty), 1 - ty, -tx),
            (y0 + 1, x0, (1 - tx) * ty, -ty, 1 - tx), (y0 + 1, x0 + 1, tx * ty, ty, tx)]


class GridSampler2DBackward0(Op):
    """Bilinear/nearest sampling of (N, C, H, W) at an (N, Ho, Wo, 2) grid."""

    def forward(self, x, grid, *, mode, padding, align_corners):
        N, C, H, W = x.shape
        g64 = grid.astype(np.float64)
        ix, dix = _source(g64[..., 0], W, padding, align_corners)
        iy, diy = _source(g64[..., 1], H, padding, align_corners)
        self.shape, self.dtype, self.dix, self.diy = x.shape, x.dtype, dix, diy
        self.taps = []
        out = np.zeros((N, C) + grid.shape[1:3], np.float64)
        n = np.arange(N).reshape(N, 1, 1)
        for r, c, w, dwx, dwy in _corners(ix, iy, mode, H, W):
            ok = (r >= 0) & (r < H) & (c >= 0) & (c < W)
            ri, ci = np.where(ok, r, 0).astype(np.int64), np.where(ok, c, 0).astype(np.int64)
            v = x[n, :, ri, ci]                         # (N, Ho, Wo, C)
            v = np.where(ok[..., None], v, 0).transpose(0, 3, 1, 2).astype(np.float64)
            out += v * w[:, None]
            self.taps.append((ri, ci, np.where(ok, w, 0), dwx, dwy, v))
        return out.astype(x.dtype)

    def backward(self, g):
        N, C, H, W = self.shape
        g64 = g.astype(np.float64)
        gx = np.zeros((N, H, W, C), np.float64)
        n = np.arange(N).reshape(N, 1, 1)
        gix = np.zeros(g.shape[:1] + g.shape[2:])
        giy = np.zeros_like(gix)
        for ri, ci, w, dwx, dwy, v in self.taps:
            np.add.at(gx, (np.broadcast_to(n, ri.shape), ri, ci), (g64 * w[:, None]).transpose(0, 2, 3, 1))
            gv = (g64 * v).sum(1)
            gix += gv * dwx
            giy += gv * dwy
        ggrid = np.stack([gix * self.dix, giy * self.diy], -1)
        return gx.transpose(0, 3, 1, 2).astype(self.dtype), ggrid.astype(self.dtype)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``F.grid_sample`` for 4-D ``input`` (N, C, H, W) and ``grid`` (N, Ho, Wo, 2) -> (N, C, Ho, Wo).

    Modes "bilinear" and "nearest"; padding "zeros", "border", "reflection"; ``align_corners`` defaults
    to False. Raises ValueError for an unknown mode or padding mode, RuntimeError for mismatched shapes
    or dtypes, NotImplementedError for "bicubic" and 5-D (volumetric) input.
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
    if x.ndim == 5:
        raise NotImplementedError("numtorch: grid_sample for 5-D (volumetric) input is not implemented")
    if mode == "bicubic":
        raise NotImplementedError("numtorch: grid_sample(mode='bicubic') is not implemented")
    if x.ndim != 4 or gr.ndim != 4 or gr.shape[-1] != 2 or gr.shape[0] != x.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same batch size and grid of shape "
                           f"(N, H, W, 2), but got input with sizes {list(x.shape)} and grid with sizes "
                           f"{list(gr.shape)}")
    if x.dtype != gr.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    return GridSampler2DBackward0.apply(input, grid, mode=mode, padding=padding_mode,
                                        align_corners=bool(align_corners))


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
    size = list(size)
    if len(size) in (4, 5):
        nd = len(size) - 2
        if theta.dim() != 3 or theta.shape[-2] != nd or theta.shape[-1] != nd + 1:
            what = "2D affine matrices of shape Nx2x3" if nd == 2 else "3D affine matrices of shape Nx3x4"
            raise ValueError(f"Expected a batch of {what} for size {size}. Got {theta.shape}.")
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
