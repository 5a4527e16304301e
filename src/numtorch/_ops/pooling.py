"""Pooling ops over 1, 2 or 3 spatial dims: max, average, adaptive, power-average (LP) pooling and max
unpooling, vectorized on NumPy.

Every Op is N-d and registered under ATen's per-rank node names. Max pooling reads the kernel windows
of the padded input as one ``sliding_window_view`` (``_window.py``; one copy to ``(prod(k), N, C,
*out)`` and a running max) and its backward scatters through the argmax's flat per-plane indices
(the indices PyTorch returns); average pooling sums one strided slice per kernel offset. Adaptive
average pooling is separable: per spatial axis a small ``(out, in)`` matrix, and backward multiplies
by its transpose. LP pooling follows PyTorch's Python definition op by op. Entry points check
arguments with PyTorch's messages (the 3-d ones in ATen's own order and words, ``pool3d_shape_check``);
``nn/functional.py`` exposes them with PyTorch's signatures.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .._dtype import from_np
from .._tensor import Tensor, _make
from ..autograd.forward_ad import jvp_linear
from ..autograd.function import Op
from . import pointwise as _P, unary as _U
from ._window import _along_axes, _as_tensor, _check_tensor, _crop, _offset_slices, _pad_const, _windows
from .conv import _graph_input_grad
from .scatter import scatter_add

__all__: list = []  # torch.max_pool3d etc. are not exposed at top level (nor are the 2-d ones)


# ------------------------------------------------------------------------------------------------
# pooling
# ------------------------------------------------------------------------------------------------
def _lowest(dtype):
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min if dtype.kind in "iu" else False


def _pool_out_size(s, k, st, p, d, ceil_mode):
    o = (s + 2 * p - d * (k - 1) - 1 + (st - 1 if ceil_mode else 0)) // st + 1
    if ceil_mode and (o - 1) * st >= s + p:  # the last window must start inside the input or left padding
        o -= 1
    return o


def _pool_pads(sp, ksize, stride, padding, dil, out_sp):
    """(lo, hi) pads so that every window of ``out_sp`` fits (ceil mode may need more on the right)."""
    return tuple((p, max((o - 1) * st + d * (k - 1) + 1 - s - p, 0))
                 for s, k, st, p, d, o in zip(sp, ksize, stride, padding, dil, out_sp))


def _scatter_planes(g, flat, plane_shape, unique):
    """Adjoint of gathering ``flat`` per-plane indices: sum ``g`` (N, C, ...) into (N, C, *plane_shape)."""
    nc, size = g.shape[0] * g.shape[1], math.prod(plane_shape)
    g2, f2 = g.reshape(nc, math.prod(g.shape[2:])), flat.reshape(nc, math.prod(g.shape[2:]))
    if unique:  # no two outputs read the same element: a plain scatter
        out = np.zeros((nc, size), g.dtype)
        np.put_along_axis(out, f2, g2, axis=1)
    else:
        idx = (f2 + (np.arange(nc) * size)[:, None]).ravel()
        out = np.bincount(idx, weights=g2.ravel(), minlength=nc * size).astype(g.dtype, copy=False)
    return out.reshape(g.shape[:2] + tuple(plane_shape))


def _graph_scatter_planes(g, flat, plane_shape):
    """``_scatter_planes`` on Tensors (create_graph=True): a ``scatter_add`` into zero planes, differentiable in g."""
    g = _as_tensor(g)
    lead = tuple(g.shape[:2])
    planes = math.prod(lead)
    z = _make(np.zeros((planes, math.prod(plane_shape)), g._data.dtype))
    idx = _make(np.ascontiguousarray(flat, np.int64).reshape(planes, -1))
    return scatter_add(z, 1, idx, g.reshape(planes, -1)).reshape(lead + tuple(plane_shape))


class _MaxPool(Op):
    """Max pooling over the trailing ``len(kernel_size)`` dims; outputs (values[, flat per-plane indices]).

    The kernel windows are copied once, kernel offset first, to ``(prod(k), N, C, *out)``; then one
    contiguous pass per offset keeps a running maximum and the offset it came from, replaced where a
    later offset is larger or NaN, so ties keep the first offset in window order and NaN propagates,
    as PyTorch's kernel does. Without padding the backward writes each offset's share of the
    gradient through strided views; with padding it scatters through the flat indices.
    """
    _vmap = "fold"  # batching rule kind (func/_batching_rules.py)

    _nondiff_outputs = (1,)

    def forward(self, x, *, kernel_size, stride, padding, dilation, out_sp, return_indices):
        nd = len(kernel_size)
        self.unbatched = x.ndim == nd + 1
        xb = x[None] if self.unbatched else x
        sp = xb.shape[2:]
        pads = _pool_pads(sp, kernel_size, stride, padding, dilation, out_sp)
        win = _windows(_pad_const(xb, pads, _lowest(x.dtype)), kernel_size, stride, dilation)
        win = win[(slice(None), slice(None)) + tuple(slice(0, o) for o in out_sp)]
        kk = math.prod(kernel_size)
        cols = np.ascontiguousarray(win.transpose(tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2 + nd))))
        cols = cols.reshape((kk,) + win.shape[:2 + nd])  # one copy: (prod(k), N, C, *out)
        best = cols[0].copy()
        karg = np.zeros(best.shape, np.uint8 if kk < 256 else np.int32)
        isfloat = x.dtype.kind in "fcV"
        for i in range(1, kk):
            v = cols[i]
            upd = v > best
            if isfloat:
                upd |= np.isnan(v)  # NaN wins, as in PyTorch
            np.maximum(best, v, out=best)
            # karg = i where upd: integer arithmetic is much faster than a masked write
            karg += upd.view(np.uint8).astype(karg.dtype, copy=False) * (karg.dtype.type(i) - karg)
        del cols
        self.conf = (xb.shape, kernel_size, stride, dilation, out_sp)
        self.unique = all(st >= (k - 1) * d + 1 for st, k, d in zip(stride, kernel_size, dilation))
        self.padded = any(lo or hi for lo, hi in pads)
        out = best[0] if self.unbatched else best
        if not (return_indices or self.padded):
            self.saved = karg
            return out
        # flat index in the unpadded plane; clamped for windows whose max is in the padding (all -inf):
        # PyTorch then points at the window's first element inside the input, as the clamp does
        flat = np.zeros(karg.shape, np.int64)
        for i, ki in enumerate(np.unravel_index(karg, kernel_size)):
            pos = np.arange(out_sp[i]).reshape((-1,) + (1,) * (nd - 1 - i)) * stride[i] - padding[i]
            flat = flat * sp[i] + np.clip(pos + ki * dilation[i], 0, sp[i] - 1)
        self.saved, self.sp = (flat if self.padded else karg), sp
        if not return_indices:
            return out
        return out, (flat[0] if self.unbatched else flat)

    def backward(self, g, *_):
        g = g[None] if self.unbatched else g
        if self._graph:  # a scatter of the gradient through the argmax positions, on Tensors
            gx = _graph_scatter_planes(g, self.saved if self.padded else self._flat(),
                                       self.sp if self.padded else self.conf[0][2:])
            return gx[0] if self.unbatched else gx
        if self.padded or np.isnan(g).any():  # scatter through the flat indices (NaN stays where it belongs)
            flat = self.saved if self.padded else self._flat()
            gx = _scatter_planes(g, flat, self.sp if self.padded else self.conf[0][2:], self.unique)
            return gx[0] if self.unbatched else gx
        shape, ksize, stride, dil, out_sp = self.conf
        karg = self.saved
        gx = np.zeros(shape, g.dtype)
        for i, k in enumerate(np.ndindex(*ksize)):
            dst = gx[_offset_slices(k, stride, dil, out_sp)]
            if self.unique:  # windows do not overlap: each input element receives from one output
                np.multiply(g, karg == i, out=dst)
            else:
                dst += g * (karg == i)
        return gx[0] if self.unbatched else gx

    def jvp(self, t):  # forward AD (autograd/forward_ad.py): the tangent at each window's maximum
        kw = dict(self.fw_kwargs, return_indices=True)
        idx = type(self).apply(_make(self.fw_inputs[0]._data), **kw)[1]
        nd = len(kw["kernel_size"])
        lead = tuple(t.shape[:-nd])
        out = t.reshape(lead + (-1,)).gather(-1, idx.reshape(lead + (-1,))).reshape(tuple(idx.shape))
        return (out, None) if self.fw_kwargs["return_indices"] else out

    def _flat(self):
        """Flat per-plane indices from the saved window offsets (unpadded case)."""
        shape, ksize, stride, dil, out_sp = self.conf
        flat = np.zeros(self.saved.shape, np.int64)
        for i, ki in enumerate(np.unravel_index(self.saved, ksize)):
            pos = np.arange(out_sp[i]).reshape((-1,) + (1,) * (len(ksize) - 1 - i)) * stride[i]
            flat = flat * shape[2 + i] + pos + ki * dil[i]
        return flat


class MaxPool1DWithIndicesBackward0(_MaxPool):
    pass


class MaxPool2DWithIndicesBackward0(_MaxPool):
    pass


class MaxPool3DWithIndicesBackward0(_MaxPool):
    pass


class _AvgPool(Op):
    """Average pooling: window sums by one strided add per kernel offset, divided per output position."""
    _vmap = "fold"  # batching rule kind (func/_batching_rules.py)

    _graph_constants = ("saved",)  # the divisors

    def forward(self, x, *, kernel_size, stride, padding, out_sp, ceil_mode, count_include_pad, divisor_override):
        nd = len(kernel_size)
        self.unbatched = x.ndim == nd + 1
        xb = x[None] if self.unbatched else x
        sp = xb.shape[2:]
        pads = _pool_pads(sp, kernel_size, stride, padding, (1,) * nd, out_sp)
        xp = _pad_const(xb, pads)
        offsets = list(np.ndindex(*kernel_size))
        acc = xp[_offset_slices(offsets[0], stride, (1,) * nd, out_sp)].copy()
        for k in offsets[1:]:
            acc += xp[_offset_slices(k, stride, (1,) * nd, out_sp)]
        if divisor_override:
            div = np.asarray(divisor_override, acc.dtype if acc.dtype.kind == "f" else np.float64)
        else:  # separable: the divisor is an outer product of per-dim window lengths
            div = np.ones((), np.int64)
            for s, k, st, p, o in zip(sp, kernel_size, stride, padding, out_sp):
                start = np.arange(o) * st - p
                end = np.minimum(start + k, s + p)
                if not count_include_pad:
                    start, end = np.maximum(start, 0), np.minimum(end, s)
                div = np.multiply.outer(div, end - start)
            div = div.astype(acc.dtype if acc.dtype.kind == "f" else np.float64)
        self.saved = div
        self.conf = (xp.shape, pads, kernel_size, stride, out_sp)
        out = acc / div if acc.dtype.kind == "f" else np.trunc(acc / div).astype(acc.dtype)
        return out[0] if self.unbatched else out

    def backward(self, g):
        g = g[None] if self.unbatched else g
        shape, pads, ksize, stride, out_sp = self.conf
        gi = g / self.saved
        if self._graph:  # a transposed convolution with a ones kernel, one plane at a time, on Tensors
            gi = _as_tensor(gi)
            n, c, nd = gi.shape[0], gi.shape[1], len(ksize)
            xs = tuple(s - lo - hi for s, (lo, hi) in zip(shape[2:], pads))
            ones = _make(np.ones((1, 1) + tuple(ksize), gi._data.dtype))
            dx = _graph_input_grad(gi.reshape((n * c, 1) + tuple(out_sp)), ones, (n * c, 1) + xs, pads, stride,
                                   (1,) * nd, 1).reshape((n, c) + xs)
            return dx[0] if self.unbatched else dx
        dx = np.zeros(shape, g.dtype)
        for k in np.ndindex(*ksize):
            dx[_offset_slices(k, stride, (1,) * len(ksize), out_sp)] += gi
        dx = _crop(dx, pads)
        return dx[0] if self.unbatched else dx


class AvgPool1DBackward0(_AvgPool):
    pass


class AvgPool2DBackward0(_AvgPool):
    pass


class AvgPool3DBackward0(_AvgPool):
    pass


_NUM = {1: "one", 2: "two", 3: "three"}


def _pool_tuple(v, nd, fn, what, default=None):
    """An int or a 1-/nd-tuple as an nd-tuple (``default`` for None or an empty stride)."""
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0 and default is not None):
        return default
    if not isinstance(v, (list, tuple)):
        return (int(v),) * nd
    if len(v) == 1:
        return (int(v[0]),) * nd
    if len(v) != nd:
        forms = {"stride": "either be omitted, a single int,", "dilation": "be either a single int,"}
        raise RuntimeError(f"{fn}: {what} must {forms.get(what, 'either be a single int,')} or a tuple of "
                           f"{_NUM[nd]} ints")
    return tuple(int(i) for i in v)


def _pool_setup(input, nd, fn, kernel_size, stride, padding, dilation, ceil_mode):
    """Validate pooling arguments as PyTorch does; returns (kernel, stride, padding, dilation, out_sp)."""
    _check_tensor(input, fn)
    x = input._data
    if x.ndim not in (nd + 1, nd + 2) or any(s == 0 for s in x.shape[-nd - 1:]):
        if nd == 2:
            raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
        raise RuntimeError(f"{fn}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(x.shape)}")
    k = _pool_tuple(kernel_size, nd, fn, "kernel_size")
    st = _pool_tuple(stride, nd, fn, "stride", default=k)
    pad = _pool_tuple(padding, nd, fn, "padding")
    dil = _pool_tuple(dilation, nd, fn, "dilation")
    if any(i <= 0 for i in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got {k}")
    if any(i == 0 for i in st):
        raise RuntimeError("stride should not be zero")
    if any(i < 0 for i in st):
        raise RuntimeError(f"stride should be greater than zero, but got {st}")
    if any(p < 0 for p in pad):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(pad)}")
    if any(d <= 0 for d in dil):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation: {dil}")
    for p, ki, d in zip(pad, k, dil):
        if p > ((ki - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={ki} and dilation={d}")
    sp = x.shape[-nd:]
    out_sp = tuple(_pool_out_size(*a, ceil_mode) for a in zip(sp, k, st, pad, dil))
    if any(o <= 0 for o in out_sp):
        c = x.shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + sp))}). Calculated output size: "
                           f"({'x'.join(map(str, (c,) + out_sp))}). Output size is too small")
    return k, st, pad, dil, out_sp


def max_pool(input, nd, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """``max_pool{nd}d``: (N, C, *S) or (C, *S) -> max over windows [, int64 flat per-plane argmax indices]."""
    fn = f"max_pool{nd}d"
    k, st, pad, dil, out_sp = _pool_setup(input, nd, fn, kernel_size, stride, padding, dilation, ceil_mode)
    kind = input._data.dtype.kind
    if nd == 1 and not return_indices and kind not in "fV":  # no integer max_pool1d_impl
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{input.dtype._aten_name}'")
    if kind == "b":  # the indexed kernels take integers but not bool
        raise NotImplementedError(f"\"max_pool{nd}d\" not implemented for 'Bool'")
    op = MaxPool2DWithIndicesBackward0 if nd == 2 else MaxPool1DWithIndicesBackward0
    return op.apply(input, kernel_size=k, stride=st, padding=pad, dilation=dil, out_sp=out_sp,
                    return_indices=bool(return_indices))


def avg_pool(input, nd, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
    """``avg_pool{nd}d``: mean over windows; the divisor counts padding iff ``count_include_pad``."""
    fn = f"avg_pool{nd}d"
    k, st, pad, _, out_sp = _pool_setup(input, nd, fn, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input._data.dtype.kind not in "fV" and input._data.dtype != np.int64:  # PyTorch's kernel: floats, Long
        raise NotImplementedError(f"\"avg_pool2d\" not implemented for '{input.dtype._aten_name}'")
    op = AvgPool2DBackward0 if nd == 2 else AvgPool1DBackward0
    return op.apply(input, kernel_size=k, stride=st, padding=pad, out_sp=out_sp, ceil_mode=ceil_mode,
                    count_include_pad=count_include_pad, divisor_override=divisor_override)


# 3-d pooling checks: ATen's order (argument lengths, rank, per-dim output sizes, pool3d_shape_check)
def _avg_tuple(v, what, default=None):
    """avg_pool3d's argument as a 3-tuple; its length messages differ from max_pool3d's."""
    if isinstance(v, (list, tuple)) and len(v) not in (1, 3) and not (what == "stride" and len(v) == 0):
        form = "be omitted, a single int," if what == "stride" else "be a single int,"
        raise RuntimeError(f"avg_pool3d: {what} must {form} or a tuple of three ints")
    return _pool_tuple(v, 3, "avg_pool3d", what, default)


def _half(a):
    """C++ integer division by 2 (rounds toward zero)."""
    return -(-a // 2) if a < 0 else a // 2


def _pool3d_setup(input, k, st, pad, dil, ceil_mode, avg):
    """Rank, output size and ``pool3d_shape_check`` as ATen; returns the output's (D, H, W)."""
    x = input._data
    if x.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    sp = x.shape[-3:]
    out_sp = []
    for s, ki, si, p, d in zip(sp, k, st, pad, dil):  # ATen's pooling_output_shape, dim by dim
        if si == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _half((ki - 1) * d + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={ki} and dilation={d}")
        out_sp.append(_pool_out_size(s, ki, si, p, d, ceil_mode))
    if any(i <= 0 for i in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if any(i <= 0 for i in st):
        raise RuntimeError(f"stride should be greater than zero, but got dT: {st[0]} dH: {st[1]} dW: {st[2]}")
    if any(i <= 0 for i in dil):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dil[0]} dilationH: {dil[1]} "
                           f"dilationW: {dil[2]}")
    for i in range(x.ndim == 5, x.ndim):  # the batch dim alone may be empty
        if x.shape[i] == 0:
            name = "avg_pool3d()" if avg else "max_pool3d_with_indices_out_cpu_template()"
            raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive length, but input "
                               f"has a shape of {list(x.shape)} and non-batch dimension 0 has length zero!")
    if avg and any(s < ki for s, ki in zip(sp, k)):
        raise RuntimeError(f"input image (T: {sp[0]} H: {sp[1]} W: {sp[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if any(p > ki // 2 for p, ki in zip(pad, k)):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: "
                           f"{k[2]} kH: {k[1]} padT: {pad[0]} padW: {pad[2]} padH: {pad[1]}")
    if any(o < 1 for o in out_sp):
        c = x.shape[-4]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + sp))}). Calculated output size: "
                           f"({'x'.join(map(str, [c] + out_sp))}). Output size is too small")
    return tuple(out_sp)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-d max pooling (``torch.nn.functional.max_pool3d``).

    input (N, C, D, H, W) or (C, D, H, W), any real dtype -> same dtype
    (N, C, D_out, H_out, W_out), ``D_out = floor_or_ceil((D + 2p - d(k-1) - 1) / s) + 1`` (H, W alike).
    ``stride`` defaults to ``kernel_size``; padding is -inf and at most half the effective kernel;
    with ``ceil_mode`` the last window must start inside the input or the left padding. With
    ``return_indices`` also returns int64 flat indices into each D*H*W plane (for ``max_unpool3d``).
    Ties go to the first element of a window and NaN propagates, as in PyTorch.

    Raises RuntimeError with PyTorch's messages for arguments that are not an int or a 3-tuple, an
    input that is not 4-D/5-D or has an empty non-batch dim, zero/negative kernel, stride or
    dilation, too much padding and an empty output.
    """
    fn = "max_pool3d"
    _check_tensor(input, fn)
    k = _pool_tuple(kernel_size, 3, fn, "kernel_size")
    st = _pool_tuple(stride, 3, fn, "stride", default=k)
    pad = _pool_tuple(padding, 3, fn, "padding")
    dil = _pool_tuple(dilation, 3, fn, "dilation")
    out_sp = _pool3d_setup(input, k, st, pad, dil, ceil_mode, avg=False)
    return MaxPool3DWithIndicesBackward0.apply(input, kernel_size=k, stride=st, padding=pad, dilation=dil,
                                               out_sp=out_sp, return_indices=bool(return_indices))


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """``max_pool3d`` returning ``(values, int64 indices)`` (``F.max_pool3d_with_indices``)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-d average pooling (``torch.nn.functional.avg_pool3d``).

    input (N, C, D, H, W) or (C, D, H, W) -> (N, C, D_out, H_out, W_out) with max_pool3d's sizes
    (dilation 1). Zero padding counts in the divisor iff ``count_include_pad``; ``divisor_override``
    (non-zero) replaces the divisor. Integer inputs give truncated integer means, as in PyTorch.

    Raises RuntimeError as max_pool3d, plus a zero ``divisor_override`` and a kernel larger than the
    unpadded input ("input image ... smaller than kernel size", as ATen checks).
    """
    fn = "avg_pool3d"
    _check_tensor(input, fn)
    k = _avg_tuple(kernel_size, "kernel_size")
    st = _avg_tuple(stride, "stride", default=k)
    pad = _avg_tuple(padding, "padding")
    if input._data.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out_sp = _pool3d_setup(input, k, st, pad, (1, 1, 1), ceil_mode, avg=True)
    return AvgPool3DBackward0.apply(input, kernel_size=k, stride=st, padding=pad, out_sp=out_sp,
                                    ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                                    divisor_override=divisor_override)


# ------------------------------------------------------------------------------------------------
# adaptive pooling
# ------------------------------------------------------------------------------------------------
def _adaptive_bounds(s, o):
    i = np.arange(o)
    return (i * s) // o, ((i + 1) * s + o - 1) // o  # PyTorch's start_index / end_index


def _adaptive_matrix(s, o, dtype):
    """(o, s) matrix averaging input positions [start_i, end_i) into output i."""
    start, end = _adaptive_bounds(s, o)
    j = np.arange(s)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / np.maximum(end - start, 1)[:, None]).astype(dtype)


class _AdaptiveAvg(Op):
    _vmap = "fold"  # batching rule kind (func/_batching_rules.py)
    _graph_constants = ("mats",)  # the pooling matrices

    def forward(self, x, *, out_sp):
        nd = len(out_sp)
        self.mats = [_adaptive_matrix(s, o, x.dtype) for s, o in zip(x.shape[-nd:], out_sp)]
        return _along_axes(x, self.mats)

    def backward(self, g):
        return _along_axes(g, self.mats, transpose=True)


class AdaptiveAvgPool1DBackward0(_AdaptiveAvg):
    pass


class AdaptiveAvgPool2DBackward0(_AdaptiveAvg):
    pass


class AdaptiveAvgPool3DBackward0(_AdaptiveAvg):
    pass


class _AdaptiveMax(Op):
    """Adaptive max pooling: windows of unequal length are gathered padded with a repeat of their last
    element (which cannot change the max nor, ties going to the first, the argmax)."""
    _vmap = "fold"  # batching rule kind (func/_batching_rules.py)

    _nondiff_outputs = (1,)

    def forward(self, x, *, out_sp, return_indices):
        nd = len(out_sp)
        lead, sp = x.shape[:-nd], x.shape[-nd:]
        self.shape, self.sp = x.shape, sp
        self.unique = all(s % o == 0 for s, o in zip(sp, out_sp) if o)
        if any(o == 0 for o in out_sp):
            out, flat = np.empty(lead + out_sp, x.dtype), np.empty(lead + out_sp, np.int64)
        else:
            index, flat_idx = [], 0
            for i, (s, o) in enumerate(zip(sp, out_sp)):
                start, end = _adaptive_bounds(s, o)
                kmax = int((end - start).max())
                idx = np.minimum(start[:, None] + np.arange(kmax), end[:, None] - 1)  # (o, kmax)
                shape = [1] * (2 * nd)
                shape[2 * i], shape[2 * i + 1] = o, kmax
                idx = idx.reshape(shape)
                index.append(idx)
                flat_idx = flat_idx * s + idx
            perm = tuple(range(0, 2 * nd, 2)) + tuple(range(1, 2 * nd, 2))  # (o1, k1, o2, k2) -> (o.., k..)
            win = x[(Ellipsis,) + tuple(index)]  # (*lead, o1, k1, o2, k2, ...)
            win = win.transpose(tuple(range(len(lead))) + tuple(len(lead) + p for p in perm))
            cols = win.reshape(lead + out_sp + (-1,))
            karg = cols.argmax(axis=-1)
            out = np.take_along_axis(cols, karg[..., None], axis=-1)[..., 0]
            fl = np.broadcast_to(flat_idx, np.broadcast_shapes(*[i.shape for i in index])).transpose(perm)
            fl = fl.reshape(out_sp + (-1,))
            flat = np.take_along_axis(np.broadcast_to(fl, cols.shape), karg[..., None], axis=-1)[..., 0]
        self.saved = flat
        return (out, flat) if return_indices else out

    def backward(self, g, *_):
        nd = len(self.sp)
        g2 = g.reshape((1, math.prod(g.shape[:-nd])) + g.shape[-nd:])
        f2 = self.saved.reshape(g2.shape)
        if self._graph:
            return _graph_scatter_planes(g2, f2, self.sp).reshape(self.shape)
        return _scatter_planes(g2, f2, self.sp, self.unique).reshape(self.shape)


class AdaptiveMaxPool1DBackward0(_AdaptiveMax):
    pass


class AdaptiveMaxPool2DBackward0(_AdaptiveMax):
    pass


class AdaptiveMaxPool3DBackward0(_AdaptiveMax):
    pass


def _adaptive_setup(input, nd, fn, output_size):
    _check_tensor(input, fn)
    x = input._data
    if nd > 1 and isinstance(output_size, (list, tuple)):  # F's _list_with_default comes first
        _with_default(output_size, x.shape)
    if x.ndim not in (nd + 1, nd + 2):
        if nd == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for {fn})")
        got = "got:" if "max" in fn else "got"  # PyTorch's two messages differ by a colon
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but {got} {list(x.shape)}")
    for i in range(x.ndim - nd, x.ndim):
        if x.shape[i] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(x.shape)} with dimension {i} being empty")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            raise RuntimeError(f"{fn}: output_size must be {nd}")
        out = tuple(x.shape[x.ndim - nd + i] if o is None else int(o) for i, o in enumerate(output_size))
    else:
        out = (int(output_size),) * nd
    if any(o < 0 for o in out):
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, out))}}}")
    return out


def adaptive_avg_pool(input, nd, output_size):
    """``adaptive_avg_pool{nd}d``: (N, C, *S) or (C, *S) -> (.., *output_size); ``None`` keeps a dim."""
    fn = f"adaptive_avg_pool{nd}d"
    out = _adaptive_setup(input, nd, fn, output_size)
    if input._data.dtype.kind not in "fcV" and all(o == 1 for o in out):  # PyTorch takes a mean for 1x1
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {input.dtype._aten_name}")
    if input._data.dtype.kind not in "fcV" and input._data.size:  # PyTorch's 1-d pooling runs its 2-d kernel
        raise NotImplementedError(f"\"adaptive_avg_pool{max(nd, 2)}d\" not implemented for '{input.dtype._aten_name}'")
    op = AdaptiveAvgPool2DBackward0 if nd == 2 else AdaptiveAvgPool1DBackward0
    return op.apply(input, out_sp=out)


def adaptive_max_pool(input, nd, output_size, return_indices=False):
    """``adaptive_max_pool{nd}d``: max over PyTorch's adaptive windows [, flat per-plane indices]."""
    fn = f"adaptive_max_pool{nd}d"
    out = _adaptive_setup(input, nd, fn, output_size)
    op = AdaptiveMaxPool2DBackward0 if nd == 2 else AdaptiveMaxPool1DBackward0
    return op.apply(input, out_sp=out, return_indices=bool(return_indices))



def _with_default(output_size, shape):
    """F's ``_list_with_default``: ``None`` entries keep the input's size; ValueError for too few dims."""
    if not isinstance(output_size, (list, tuple)):
        return (int(output_size),) * 3
    if len(shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    tail = shape[len(shape) - len(output_size):]
    return tuple(d if o is None else int(o) for o, d in zip(output_size, tail))


def _nonempty(x, fn):
    for i in range(1, x.ndim):
        if x.shape[i] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {list(x.shape)} with dimension {i} being empty")


def _no_int(x, fn):
    if x.dtype.kind not in "fc":
        name = from_np(x.dtype)._aten_name  # PyTorch's name: 'Long', 'Int', ...
        raise NotImplementedError(f"\"{fn}_cpu\" not implemented for '{name}'")


def adaptive_avg_pool3d(input, output_size):
    """3-d adaptive average pooling (``torch.nn.functional.adaptive_avg_pool3d``).

    input (N, C, D, H, W) or (C, D, H, W), floating -> (.., oD, oH, oW); output position i averages
    input positions ``[floor(i*S/o), ceil((i+1)*S/o))`` per dim. ``output_size`` is an int or a
    3-tuple whose ``None`` entries keep the input size; an output of (1, 1, 1) is ``mean`` over the
    last three dims (its node is ``MeanBackward1``, as in PyTorch).

    Raises ValueError for a tuple longer than the input's dims minus one; RuntimeError for a tuple of
    another length, negative sizes, a rank other than 4/5 or an empty non-batch dim;
    NotImplementedError for integer input.
    """
    fn = "adaptive_avg_pool3d"
    _check_tensor(input, fn)
    x = input._data
    out = _with_default(output_size, x.shape)
    if len(out) != 3:
        raise RuntimeError(f"{fn}: output_size must be 3")
    if any(o < 0 for o in out):
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{out[0]}, {out[1]},{out[2]}}}")
    if out == (1, 1, 1):
        return input.mean(dim=(-1, -2, -3), keepdim=True)
    _nonempty(x, fn)
    if x.ndim not in (4, 5):
        raise RuntimeError(f"{fn}(): Expected 4D or 5D tensor, but got {list(x.shape)}")
    _no_int(x, fn)
    return AdaptiveAvgPool3DBackward0.apply(input, out_sp=out)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-d adaptive max pooling (``torch.nn.functional.adaptive_max_pool3d``).

    input (N, C, D, H, W) or (C, D, H, W), floating -> (.., oD, oH, oW) maxima over the adaptive
    windows of ``adaptive_avg_pool3d`` [, int64 flat indices into each D*H*W plane]. ``None`` in
    ``output_size`` keeps that input size.

    Raises ValueError for a tuple longer than the input's dims minus one; RuntimeError for a rank
    other than 4/5, an empty non-batch dim, a tuple of another length or negative sizes;
    NotImplementedError for integer input.
    """
    fn = "adaptive_max_pool3d"
    _check_tensor(input, fn)
    x = input._data
    out = _with_default(output_size, x.shape)
    if x.ndim not in (4, 5):
        raise RuntimeError(f"{fn}(): Expected 4D or 5D tensor, but got: {list(x.shape)}")
    _nonempty(x, fn)
    if len(out) != 3:
        raise RuntimeError(f"{fn}(): internal error: output_size.size() must be 3")
    if any(o < 0 for o in out):
        bad = next(o for o in out if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(x.shape[:-3] + out)}")
    _no_int(x, fn)
    return AdaptiveMaxPool3DBackward0.apply(input, out_sp=out, return_indices=bool(return_indices))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool3d`` returning ``(values, int64 indices)`` (``F.adaptive_max_pool3d_with_indices``)."""
    return adaptive_max_pool3d(input, output_size, True)


# ------------------------------------------------------------------------------------------------
# max unpooling
# ------------------------------------------------------------------------------------------------
class _MaxUnpool(Op):
    jvp = jvp_linear  # forward AD (autograd/forward_ad.py): linear in x, indices are a keyword
    """Scatter values to their flat per-plane ``indices`` in zero planes of ``out_sp`` (the adjoint of a gather)."""

    def forward(self, x, *, indices, out_sp):
        nd = len(out_sp)
        lead = x.shape[:-nd]
        planes = math.prod(lead)
        self.idx = indices.reshape(planes, -1)
        out = np.zeros((planes, math.prod(out_sp)), x.dtype)
        np.put_along_axis(out, self.idx, x.reshape(planes, -1), axis=1)
        self.xshape = x.shape
        return out.reshape(lead + tuple(out_sp))

    def backward(self, g):
        g2 = g.reshape(self.idx.shape[0], -1)
        return np.take_along_axis(g2, self.idx, axis=1).reshape(self.xshape)


class MaxUnpool1DBackward0(_MaxUnpool):
    pass


class MaxUnpool2DBackward0(_MaxUnpool):
    pass


class MaxUnpool3DBackward0(_MaxUnpool):
    pass


def max_unpool(input, indices, nd, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool{nd}d``: partial inverse of ``max_pool{nd}d`` from its ``return_indices`` output."""
    fn = f"max_unpool{nd}d"
    _check_tensor(input, fn)
    _check_tensor(indices, fn, "indices")
    k = _pool_tuple(kernel_size, nd, fn, "kernel_size")
    st = _pool_tuple(stride, nd, fn, "stride", default=k)
    pad = _pool_tuple(padding, nd, fn, "padding")
    x = input._data
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}: Expected {nd + 1}D or {nd + 2}D tensor, but got {list(x.shape)}")
    if indices._data.shape != x.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(x.shape)}) "
                           f"but got indices tensor with shape: {list(indices._data.shape)}")
    default = tuple((s - 1) * t - 2 * p + ki for s, t, p, ki in zip(x.shape[-nd:], st, pad, k))
    if output_size is None:
        out_sp = default
    else:
        out_sp = tuple(int(o) for o in output_size)[-nd:]
        for d in range(nd):
            lo, hi = default[d] - st[d], default[d] + st[d]
            if not lo < out_sp[d] < hi:
                raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and '
                                 f'{hi})')
    idx = indices._data
    if idx.size and (idx.min() < 0 or idx.max() >= math.prod(out_sp)):
        bad = idx.max() if idx.max() >= math.prod(out_sp) else idx.min()
        sizes = out_sp + (1,) if nd == 1 else out_sp  # ATen unpools 1-d as 2-d with width 1
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, sizes))})")
    op = {1: MaxUnpool1DBackward0, 2: MaxUnpool2DBackward0, 3: MaxUnpool3DBackward0}[nd]
    return op.apply(input, indices=idx, out_sp=out_sp)
