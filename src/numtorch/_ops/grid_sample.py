"""``grid_sample`` (``F.grid_sample``, ATen's ``grid_sampler_2d``/``grid_sampler_3d``): sample a 4-D
(5-D) input at the (x, y) ((x, y, z)) positions of a grid, with bilinear (trilinear for 5-D),
nearest or (4-D only) bicubic interpolation and zeros/border/reflection padding.

A grid value of -1 is the left/top edge of the input and +1 the right/bottom edge (the centres of
the corner pixels with ``align_corners=True``, their outer edges without). Coordinates are mapped to
pixel units; for bilinear and nearest the mapped coordinate is clipped (border) or reflected
(reflection), for bicubic (as ATen) each of the 4x4 neighbours' indices is. Bilinear mixes the
2 (x 2 x 2) neighbours, bicubic the 4x4 with Keys' cubic convolution (A = -0.75); a neighbour
outside the input reads 0. Every mode is a weighted sum over "taps" (a neighbour's indices and its
weight, the product of per-dim weights). The backward scatters into the input's gradient and gives
the grid's gradient through the interpolation weights (zero for nearest), as ATen does.
"""
from __future__ import annotations

import functools
import itertools
import operator
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
_A = -0.75  # the cubic convolution constant of PyTorch's bicubic kernels


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


def _unnormalize(coord, size, align_corners):
    """Grid coordinates -> pixel coordinates, and their (constant) derivative."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), np.full_like(coord, (size - 1) / 2)
    return ((coord + 1) * size - 1) / 2, np.full_like(coord, size / 2)


def _pad(x, size, padding, align_corners):
    """Pixel coordinates with the padding mode applied, and d(result)/dx (0 where clipped)."""
    dx = np.ones_like(x)
    if padding == "reflection":
        x, dx = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
    if padding != "zeros":
        inside = (x > 0) & (x < size - 1)
        x, dx = np.clip(x, 0, size - 1), np.where(inside, dx, 0.0)
    return x, dx


def _cubic(t):
    """Keys' cubic weights of the 4 neighbours at offsets -1, 0, 1, 2 from ``floor``, and d/dt."""
    def near(d):  # |d| <= 1
        return ((_A + 2) * d - (_A + 3)) * d * d + 1, (3 * (_A + 2) * d - 2 * (_A + 3)) * d

    def far(d):  # 1 < |d| < 2
        return ((_A * d - 5 * _A) * d + 8 * _A) * d - 4 * _A, (3 * _A * d - 10 * _A) * d + 8 * _A

    (w0, d0), (w1, d1), (w2, d2), (w3, d3) = far(t + 1), near(t), near(1 - t), far(2 - t)
    return [(w0, d0), (w1, d1), (w2, -d2), (w3, -d3)]


def _taps_1d(coord, size, mode, padding, align_corners):
    """One spatial dim's neighbours: [(index, weight, d weight / d coord)], the derivative through the
    coordinate mapping included."""
    i, di = _unnormalize(coord, size, align_corners)
    if mode == "bicubic":  # the padding moves each neighbour's index, not the sampling point
        i0 = np.floor(i)
        return [(_pad(i0 + k - 1, size, padding, align_corners)[0], w, dw * di)
                for k, (w, dw) in enumerate(_cubic(i - i0))]
    i, dp = _pad(i, size, padding, align_corners)
    if mode == "nearest":
        return [(np.rint(i), np.ones_like(i), np.zeros_like(i))]  # round half to even, as ATen's nearbyint
    i0, d = np.floor(i), di * dp
    t = i - i0
    return [(i0, 1 - t, -d), (i0 + 1, t, d)]


class GridSampler2DBackward0(Op):
    """Bilinear/nearest/bicubic sampling of (N, C, H, W) at an (N, Ho, Wo, 2) grid (and, as
    ``GridSampler3DBackward0``, of (N, C, D, H, W) at an (N, Do, Ho, Wo, 3) grid)."""

    def forward(self, x, grid, *, mode, padding, align_corners):
        N, C, *S = x.shape
        nd = len(S)
        g64 = grid.astype(np.float64)
        # per spatial dim, outermost first (D, H, W); the grid's last component is x, along W
        dims = [_taps_1d(g64[..., nd - 1 - k], S[k], mode, padding, align_corners) for k in range(nd)]
        self.shape, self.dtype, self.nd = x.shape, x.dtype, nd
        self.taps = []
        out = np.zeros((N, C) + grid.shape[1:-1], np.float64)
        n = np.arange(N).reshape((N,) + (1,) * nd)
        for combo in itertools.product(*dims):
            ii, ws, ds = zip(*combo)
            ok = functools.reduce(operator.and_, [(i >= 0) & (i < s) for i, s in zip(ii, S)])
            idx = tuple(np.where(ok, i, 0).astype(np.int64) for i in ii)
            w = functools.reduce(operator.mul, ws)
            dw = [functools.reduce(operator.mul, ws[:k] + (ds[k],) + ws[k + 1:]) for k in range(nd)]
            v = np.moveaxis(np.where(ok[..., None], x[(n, slice(None)) + idx], 0), -1, 1).astype(np.float64)
            out += v * w[:, None]
            self.taps.append((idx, np.where(ok, w, 0), dw, v))
        return out.astype(x.dtype)

    def backward(self, g):
        N, C, *S = self.shape
        nd = self.nd
        g64 = g.astype(np.float64)
        gx = np.zeros((N, *S, C), np.float64)
        n = np.broadcast_to(np.arange(N).reshape((N,) + (1,) * nd), g.shape[:1] + g.shape[2:])
        gi = np.zeros((nd,) + g.shape[:1] + g.shape[2:])  # d out / d grid coordinate, per spatial dim
        for idx, w, dw, v in self.taps:
            np.add.at(gx, (n,) + idx, np.moveaxis(g64 * w[:, None], 1, -1))
            gv = (g64 * v).sum(1)
            for k in range(nd):
                gi[k] += gv * dw[k]
        ggrid = np.stack(gi[::-1], -1)  # x (along W) first
        return np.moveaxis(gx, -1, 1).astype(self.dtype), ggrid.astype(self.dtype)


class GridSampler3DBackward0(GridSampler2DBackward0):
    pass


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``F.grid_sample``: 4-D ``input`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2) -> (N, C, Ho, Wo), or 5-D
    ``input`` (N, C, D, H, W) at ``grid`` (N, Do, Ho, Wo, 3) -> (N, C, Do, Ho, Wo).

    Modes "bilinear" (trilinear for 5-D), "nearest" and "bicubic" (4-D only); padding "zeros",
    "border", "reflection"; ``align_corners`` defaults to False (with PyTorch's warning). Raises
    ValueError for an unknown mode or padding mode, RuntimeError for mismatched shapes or dtypes and
    for bicubic on 5-D input.
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
    _check_shapes(x, gr, input, grid)
    if mode == "bicubic" and x.ndim == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    op = GridSampler2DBackward0 if x.ndim == 4 else GridSampler3DBackward0
    return op.apply(input, grid, mode=mode, padding=padding_mode, align_corners=bool(align_corners))


def _check_shapes(x, gr, input, grid):
    """ATen's ``check_grid_sampler_common`` / ``_2d`` / ``_3d``, then its kernel's dtype check (RuntimeError)."""
    sizes = f"input with sizes {list(x.shape)} and grid with sizes {list(gr.shape)}"
    if gr.ndim and x.ndim and gr.shape[0] != x.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if not gr.ndim or gr.shape[-1] != x.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {x.ndim - 2} in last dimension, but got "
                           f"grid with sizes {list(gr.shape)}")
    for i in range(2, x.ndim):
        if x.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(x.shape)} with dimension {i} being empty")
    nd = 4 if x.ndim == 4 else 5
    if x.ndim != nd or gr.ndim != nd:
        raise RuntimeError(f"grid_sampler(): expected {nd}D input and grid with same number of dimensions, but got "
                           f"{sizes}")
    if x.dtype != gr.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._aten_name} but found {grid.dtype._aten_name}")


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
