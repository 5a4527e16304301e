"""Resampling and shuffling ops: ``interpolate`` (``upsample_*``), ``pixel_shuffle``/``pixel_unshuffle``
and ``channel_shuffle``, vectorized on NumPy.

Linear and nearest resampling are separable: per spatial axis one gather (nearest) or two weighted
gathers (linear), with source indices and weights computed in ATen's precision; the backward
multiplies by each axis's ``(out, in)`` resampling matrix transposed. The shuffles are fixed
permutations (one reshape-transpose copy) whose backward is the inverse permutation. Entry points
check arguments with PyTorch's messages; ``nn/functional.py`` re-exports them and ``channel_shuffle``
is also ``torch.channel_shuffle``.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.function import Op
from ._window import _along, _check_tensor
from .pooling import adaptive_avg_pool, adaptive_avg_pool3d
from .resample_weights import resample_by_matrices, resample_uint8

__all__ = ["channel_shuffle"]


# ------------------------------------------------------------------------------------------------
# interpolate
# ------------------------------------------------------------------------------------------------
def _nearest_plan(n_in, n_out, scale, exact):
    """Source index of every output position, computed in float32 as ATen does."""
    if n_out == n_in and not exact:
        return np.arange(n_out)
    if n_out == 2 * n_in and not exact:
        return np.arange(n_out) >> 1
    sc = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
    dst = np.arange(n_out, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0))
    return np.minimum(np.floor(dst * sc).astype(np.int64), n_in - 1)


def _linear_plan(n_in, n_out, scale, align_corners, dt):
    """(i0, i1, lambda0, lambda1) per output position, in the input's float type as ATen does."""
    dt = np.dtype(dt).type
    if align_corners:
        sc = dt(n_in - 1) / dt(n_out - 1) if n_out > 1 else dt(0)
        src = np.arange(n_out, dtype=dt) * sc
    else:
        sc = dt(1.0 / scale) if scale else dt(n_in) / dt(n_out)
        src = np.maximum(sc * (np.arange(n_out, dtype=dt) + dt(0.5)) - dt(0.5), dt(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    l1 = np.clip(src - i0.astype(dt), dt(0), dt(1))
    return i0, i1, dt(1) - l1, l1


class _Resample(Op):
    """Separable resampling: per spatial axis a gather (nearest) or two weighted gathers (linear)."""
    _vmap = ("free", 0)  # batching rule kind (func/_batching_rules.py): trailing axes only

    _graph_constants = ("plans",)  # source indices and interpolation weights

    def forward(self, x, *, plans):
        nd = len(plans)
        self.plans, self.in_sp = plans, x.shape[-nd:]
        for i in reversed(range(nd)):  # last axis first, as ATen's inner loop
            ax, p = x.ndim - nd + i, plans[i]
            if len(p) == 1:
                x = np.take(x, p[0], axis=ax)
            else:
                i0, i1, l0, l1 = p
                sh = (-1,) + (1,) * (nd - 1 - i)
                x = np.take(x, i0, axis=ax) * l0.reshape(sh) + np.take(x, i1, axis=ax) * l1.reshape(sh)
        return x

    def backward(self, g):
        nd = len(self.plans)
        for i in range(nd):
            p, n_in = self.plans[i], self.in_sp[i]
            m = np.zeros((len(p[0]), n_in), g.dtype)  # the (out, in) resampling matrix of this axis
            rows = np.arange(len(p[0]))
            if len(p) == 1:
                m[rows, p[0]] = 1
            else:
                np.add.at(m, (rows, p[0]), p[2])
                np.add.at(m, (rows, p[1]), p[3])
            g = _along(g, m.T, g.ndim - nd + i)
        return g


class UpsampleNearest1DBackward0(_Resample):
    pass


class UpsampleNearest2DBackward0(_Resample):
    pass


class UpsampleNearest3DBackward0(_Resample):
    pass


class UpsampleLinear1DBackward0(_Resample):
    pass


class UpsampleBilinear2DBackward0(_Resample):
    pass


class UpsampleTrilinear3DBackward0(_Resample):
    pass


_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """``F.interpolate`` for 3-D/4-D/5-D input (N, C, *S): modes "nearest", "nearest-exact", "linear"
    (3-D), "bilinear" (4-D), "bicubic" (4-D), "trilinear" (5-D) and "area" (adaptive average pooling);
    ``antialias=True`` with "bilinear"/"bicubic" (4-D, floating point; ``resample_weights.py``).

    Output size is ``size`` or ``floor(S * scale_factor)``; a given ``scale_factor`` is also the scale
    used for source coordinates unless ``recompute_scale_factor``. Raises ValueError for both/neither of
    size and scale_factor, mismatched lengths or ``align_corners`` with a non-interpolating mode;
    NotImplementedError for unknown modes and ``antialias`` with other modes.
    """
    _check_tensor(input, "interpolate")
    x = input._data
    nd = x.ndim - 2
    modes = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    if mode not in modes or nd not in (1, 2, 3):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out_sp = tuple(int(s) for s in size) if isinstance(size, (list, tuple)) else (int(size),) * nd
        if len(out_sp) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(x.shape[2:])} and output size of {size}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             f"format.")
        scales = (None,) * nd
    elif scale_factor is not None:
        scales = tuple(float(s) for s in scale_factor) if isinstance(scale_factor, (list, tuple)) \
            else (float(scale_factor),) * nd
        if len(scales) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(x.shape[2:])} and scale_factor of shape "
                             f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             f"scale_factor in (s1, s2, ...,sK) format.")
        out_sp = tuple(int(math.floor(s * f)) for s, f in zip(x.shape[2:], scales))
        if recompute_scale_factor:
            scales = (None,) * nd
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode in _LINEAR and _LINEAR[mode] != nd:
        raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs {_LINEAR[mode] + 2}D input")
    if mode == "area":  # adaptive average pooling, with its own checks
        return adaptive_avg_pool(input, nd, out_sp) if nd < 3 else adaptive_avg_pool3d(input, out_sp)
    if any(o <= 0 for o in out_sp) or any(s <= 0 for s in x.shape[2:]):
        names = "DHW"[3 - nd:] if nd <= 3 else [f"d{i}" for i in range(nd)]
        ins = ", ".join(f"{n}: {s}" for n, s in zip(names, x.shape[2:]))
        outs = ", ".join(f"{n}: {s}" for n, s in zip(names, out_sp))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) and output ({outs})")
    if x.size == 0 and 0 in x.shape[1:]:
        raise RuntimeError(f"Non-empty {x.ndim}D data tensor expected but got a tensor with sizes {list(x.shape)}")
    if mode in ("nearest", "nearest-exact") and x.dtype.kind not in "fV" and x.dtype != np.uint8:
        kernel = "upsample_nearest2d_channels_last" if nd == 2 else "compute_indices_weights_nearest"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._aten_name}'")
    if antialias and (mode not in ("bilinear", "bicubic") or nd != 2):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if antialias or mode == "bicubic":
        if nd != 2:
            raise NotImplementedError(f"Got {x.ndim}D input, but bicubic mode needs 4D input")
        if x.dtype == np.uint8:  # images: PyTorch's fixed-point kernel (not differentiable)
            return _make(resample_uint8(x, out_sp, scales, align_corners, mode, antialias))
        if x.dtype.kind != "f":
            kernel = "upsample_bicubic2d_aa" if mode == "bicubic" else "upsample_bilinear2d_aa"
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._aten_name}'")
        return resample_by_matrices(input, out_sp, scales, align_corners, mode, antialias)
    if mode in _LINEAR:
        if x.dtype == np.uint8 and nd == 2:
            return _make(resample_uint8(x, out_sp, scales, align_corners, mode, antialias))
        if x.dtype.kind != "f":
            kernel = "compute_indices_weights_linear" if nd == 1 else f"upsample_{mode}{nd}d_channels_last"
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._aten_name}'")
        plans = tuple(_linear_plan(s, o, sc, align_corners, x.dtype) for s, o, sc in zip(x.shape[2:], out_sp, scales))
        op = (UpsampleLinear1DBackward0, UpsampleBilinear2DBackward0, UpsampleTrilinear3DBackward0)[nd - 1]
    else:
        plans = tuple((_nearest_plan(s, o, sc, mode == "nearest-exact"),)
                      for s, o, sc in zip(x.shape[2:], out_sp, scales))
        op = (UpsampleNearest1DBackward0, UpsampleNearest2DBackward0, UpsampleNearest3DBackward0)[nd - 1]
    return op.apply(input, plans=plans)


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """``F.upsample`` (deprecated, warns): ``interpolate(input, size, scale_factor, mode, align_corners)``."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``F.upsample_nearest`` (deprecated, warns): ``interpolate(..., mode="nearest")``."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``F.upsample_bilinear`` (deprecated, warns): ``interpolate(..., mode="bilinear", align_corners=True)``."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _upsample_bilinear2d_aa(input, output_size, align_corners, scales_h=None, scales_w=None, *,
                            scale_factors=None):
    """``torch.ops.aten._upsample_bilinear2d_aa`` (``interpolate(mode="bilinear", antialias=True)``'s kernel):
    ``output_size`` (or, when None, ``floor(size * scale_factors)``); ``scales_h``/``scales_w`` (or
    ``scale_factors``) are the scales for source coordinates, else ``in / out``."""
    x = input._data
    if isinstance(scales_h, (list, tuple)):  # the ".vec" overload called positionally
        scale_factors, scales_h = scales_h, None
    if output_size is None:
        if scale_factors is None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        scales = tuple(float(f) for f in scale_factors)
        output_size = tuple(int(math.floor(s * f)) for s, f in zip(x.shape[2:], scales))
    else:
        scales = tuple(scale_factors) if scale_factors is not None else (scales_h, scales_w)
    if x.dtype == np.uint8:  # PyTorch's fixed-point kernel, as interpolate(..., antialias=True) on uint8
        return _make(resample_uint8(x, tuple(int(o) for o in output_size), scales, bool(align_corners), "bilinear",
                                    True))
    if x.dtype.kind != "f":
        raise NotImplementedError(f"numtorch: antialiased bilinear resampling of {input.dtype._aten_name} tensors "
                                  f"is not implemented")
    return resample_by_matrices(input, tuple(int(o) for o in output_size), scales, bool(align_corners), "bilinear",
                                True)


# ------------------------------------------------------------------------------------------------
# pixel shuffle
# ------------------------------------------------------------------------------------------------
def _shuffle(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    n = len(lead)
    y = y.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))  # (.., C, H, r, W, r)
    return y.reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def _unshuffle(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    n = len(lead)
    y = y.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))  # (.., C, r, r, H/r, W/r)
    return y.reshape(tuple(lead) + (c * r * r, h // r, w // r))


class PixelShuffleBackward0(Op):
    """``pixel_shuffle``: a fixed permutation; backward is the inverse one (``pixel_unshuffle``)."""
    _vmap = ("free", 0)  # batching rule kind (func/_batching_rules.py): trailing (C, H, W) only

    _there, _back = staticmethod(_shuffle), staticmethod(_unshuffle)

    def forward(self, x, *, r):
        self.r = r
        return self._there(x, r)

    def backward(self, g):
        return self._back(g, self.r)


class PixelUnshuffleBackward0(PixelShuffleBackward0):
    _there, _back = staticmethod(_unshuffle), staticmethod(_shuffle)


def _shuffle_args(input, fn, factor, what):
    """The array and the positive factor of ``pixel_(un)shuffle``, checked with PyTorch's messages."""
    _check_tensor(input, fn)
    x, r = input._data, int(factor)
    if x.ndim < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input with "
                           f"{x.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{fn} expects a positive {what}, but got {r}")
    return x, r


def pixel_shuffle(input, upscale_factor):
    """(*, C*r^2, H, W) -> (*, C, H*r, W*r) (``F.pixel_shuffle``); RuntimeError if C is not divisible by r^2."""
    x, r = _shuffle_args(input, "pixel_shuffle", upscale_factor, "upscale_factor")
    if x.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={x.shape[-3]} is not divisible by {r * r}")
    return PixelShuffleBackward0.apply(input, r=r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r^2, H, W) (``F.pixel_unshuffle``); RuntimeError if H or W is not divisible by r."""
    x, r = _shuffle_args(input, "pixel_unshuffle", downscale_factor, "downscale_factor")
    for name, d in (("height", -2), ("width", -1)):
        if x.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({d})={x.shape[d]} is not divisible by {r}")
    return PixelUnshuffleBackward0.apply(input, r=r)


# ------------------------------------------------------------------------------------------------
# channel shuffle
# ------------------------------------------------------------------------------------------------
def _channel_shuffle(x, groups):
    """``(N, C, *)``: channel ``g * (C / groups) + i`` moves to ``i * groups + g``."""
    n, c = x.shape[:2]
    src = x.reshape(n, groups, c // groups, *x.shape[2:]).swapaxes(1, 2)
    out = np.empty(src.shape, x.dtype)  # always a new array (with 1 or C groups a reshape could alias x)
    out[...] = src
    return out.reshape(x.shape)


class ChannelShuffleBackward0(Op):
    """Channel shuffle: a fixed permutation of dim 1; backward is the inverse (shuffle by ``C / groups``)."""

    def forward(self, x, groups):
        self.groups = groups
        return _channel_shuffle(x, groups)

    def backward(self, g):
        c = g.shape[1]
        if self._graph and c:  # the same permutation, on the box (no write into a fresh array)
            k = c // self.groups
            return g.reshape(g.shape[0], k, c // k, *g.shape[2:]).swapaxes(1, 2).reshape(g.shape)
        return _channel_shuffle(g, c // self.groups) if c else g.copy()


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.channel_shuffle``: split the ``C`` channels of an ``(N, C, *)`` input into ``groups`` groups
    and interleave them (``(N, groups, C/groups, *)`` transposed to ``(N, C/groups, groups, *)``).

    TypeError for a non-int ``groups``; RuntimeError for fewer than 3 dims, ``groups <= 0`` or ``C`` not
    divisible by ``groups``. Any dtype; the result is a new tensor.
    """
    _check_tensor(input, "channel_shuffle", position=1)
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise TypeError(f"channel_shuffle(): argument 'groups' (position 2) must be int, not {type(groups).__name__}")
    x = input._data
    if x.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if x.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {x.shape[1]} channels and "
                           f"{groups} groups.")
    return ChannelShuffleBackward0.apply(input, groups=int(groups))
