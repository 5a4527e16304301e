"""Pooling, unpooling, resampling (``interpolate``) and pixel shuffle ops, vectorized on NumPy.

Kin of ``conv.py``, whose window helpers they share: max pooling reads the kernel windows of the padded
input as one ``sliding_window_view`` (one copy to ``(N, C, *out, prod(k))``, one ``argmax``) and its
backward scatters through the argmax's flat per-plane indices (the indices PyTorch returns); average
pooling sums one strided slice per kernel offset. Adaptive average pooling and linear/nearest
resampling are separable: per spatial axis a small ``(out, in)`` matrix (or two gathers), and
backward multiplies by its transpose. Entry points check arguments with PyTorch's messages;
``nn/functional.py`` exposes them with PyTorch's signatures.
"""
from __future__ import annotations

import math

import numpy as np

from ..autograd.function import Op
from .conv import _check_tensor, _crop, _offset_slices, _pad_const, _windows

__all__: list = []
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


class _MaxPool(Op):
    """Max pooling over the trailing ``len(kernel_size)`` dims; outputs (values[, flat per-plane indices]).

    The kernel windows are copied once, kernel offset first, to ``(prod(k), N, C, *out)``; then one
    contiguous pass per offset keeps a running maximum and the offset it came from, replaced where a
    later offset is larger or NaN, so ties keep the first offset in window order and NaN propagates,
    as PyTorch's kernel does. Without padding the backward writes each offset's share of the
    gradient through strided views; with padding it scatters through the flat indices.
    """

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


class _AvgPool(Op):
    """Average pooling: window sums by one strided add per kernel offset, divided per output position."""

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
        dx = np.zeros(shape, g.dtype)
        for k in np.ndindex(*ksize):
            dx[_offset_slices(k, stride, (1,) * len(ksize), out_sp)] += gi
        dx = _crop(dx, pads)
        return dx[0] if self.unbatched else dx


class AvgPool1DBackward0(_AvgPool):
    pass


class AvgPool2DBackward0(_AvgPool):
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
    op = AvgPool2DBackward0 if nd == 2 else AvgPool1DBackward0
    return op.apply(input, kernel_size=k, stride=st, padding=pad, out_sp=out_sp, ceil_mode=ceil_mode,
                    count_include_pad=count_include_pad, divisor_override=divisor_override)


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


def _along(x, m, axis):
    """Apply matrix ``m`` (out, in) along ``axis`` of ``x`` (one matmul)."""
    if axis == x.ndim - 1:
        return np.matmul(x, m.T)
    return np.moveaxis(np.matmul(np.moveaxis(x, axis, -1), m.T), -1, axis)


class _AdaptiveAvg(Op):
    def forward(self, x, *, out_sp):
        nd = len(out_sp)
        self.mats = [_adaptive_matrix(s, o, x.dtype) for s, o in zip(x.shape[-nd:], out_sp)]
        for i in reversed(range(nd)):
            x = _along(x, self.mats[i], x.ndim - nd + i)
        return x

    def backward(self, g):
        nd = len(self.mats)
        for i in range(nd):
            g = _along(g, self.mats[i].T, g.ndim - nd + i)
        return g


class AdaptiveAvgPool1DBackward0(_AdaptiveAvg):
    pass


class AdaptiveAvgPool2DBackward0(_AdaptiveAvg):
    pass


class _AdaptiveMax(Op):
    """Adaptive max pooling: windows of unequal length are gathered padded with a repeat of their last
    element (which cannot change the max nor, ties going to the first, the argmax)."""

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
        return _scatter_planes(g2, f2, self.sp, self.unique).reshape(self.shape)


class AdaptiveMaxPool1DBackward0(_AdaptiveMax):
    pass


class AdaptiveMaxPool2DBackward0(_AdaptiveMax):
    pass


def _adaptive_setup(input, nd, fn, output_size):
    _check_tensor(input, fn)
    x = input._data
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
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"\"{fn}\" not implemented for '{input.dtype}'")
    op = AdaptiveAvgPool2DBackward0 if nd == 2 else AdaptiveAvgPool1DBackward0
    return op.apply(input, out_sp=out)


def adaptive_max_pool(input, nd, output_size, return_indices=False):
    """``adaptive_max_pool{nd}d``: max over PyTorch's adaptive windows [, flat per-plane indices]."""
    fn = f"adaptive_max_pool{nd}d"
    out = _adaptive_setup(input, nd, fn, output_size)
    op = AdaptiveMaxPool2DBackward0 if nd == 2 else AdaptiveMaxPool1DBackward0
    return op.apply(input, out_sp=out, return_indices=bool(return_indices))


# ------------------------------------------------------------------------------------------------
# max unpooling
# ------------------------------------------------------------------------------------------------
class _MaxUnpool(Op):
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
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, out_sp))}")
    op = MaxUnpool2DBackward0 if nd == 2 else MaxUnpool1DBackward0
    return op.apply(input, indices=idx, out_sp=out_sp)


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
    (3-D), "bilinear" (4-D), "trilinear" (5-D) and "area" (adaptive average pooling).

    Output size is ``size`` or ``floor(S * scale_factor)``; a given ``scale_factor`` is also the scale
    used for source coordinates unless ``recompute_scale_factor``. Raises ValueError for both/neither of
    size and scale_factor, mismatched lengths or ``align_corners`` with a non-interpolating mode;
    NotImplementedError for "bicubic", ``antialias`` and unknown modes.
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
    if antialias:
        raise NotImplementedError("numtorch: interpolate(antialias=True) is not implemented")
    if mode == "area":
        return adaptive_avg_pool(input, nd, out_sp) if nd < 3 else _not_impl(mode, nd)
    if mode == "bicubic":
        return _not_impl(mode, nd)
    if mode in _LINEAR:
        if _LINEAR[mode] != nd:
            raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs {_LINEAR[mode] + 2}D input")
        if x.dtype.kind != "f":
            raise NotImplementedError(f"\"upsample_{mode}{nd}d\" not implemented for '{input.dtype}'")
        plans = tuple(_linear_plan(s, o, sc, align_corners, x.dtype) for s, o, sc in zip(x.shape[2:], out_sp, scales))
        op = (UpsampleLinear1DBackward0, UpsampleBilinear2DBackward0, UpsampleTrilinear3DBackward0)[nd - 1]
    else:
        plans = tuple((_nearest_plan(s, o, sc, mode == "nearest-exact"),)
                      for s, o, sc in zip(x.shape[2:], out_sp, scales))
        op = (UpsampleNearest1DBackward0, UpsampleNearest2DBackward0, UpsampleNearest3DBackward0)[nd - 1]
    return op.apply(input, plans=plans)


def _not_impl(mode, nd):
    raise NotImplementedError(f"numtorch: interpolate mode '{mode}' is not implemented for {nd + 2}D input")


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
    def forward(self, x, *, r):
        self.r = r
        return _shuffle(x, r)

    def backward(self, g):
        return _unshuffle(g, self.r)


class PixelUnshuffleBackward0(Op):
    def forward(self, x, *, r):
        self.r = r
        return _unshuffle(x, r)

    def backward(self, g):
        return _shuffle(g, self.r)


def pixel_shuffle(input, upscale_factor):
    """(*, C*r^2, H, W) -> (*, C, H*r, W*r) (``F.pixel_shuffle``); RuntimeError if C is not divisible by r^2."""
    _check_tensor(input, "pixel_shuffle")
    x, r = input._data, int(upscale_factor)
    if x.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{x.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if x.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={x.shape[-3]} is not divisible by {r * r}")
    return PixelShuffleBackward0.apply(input, r=r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r^2, H, W) (``F.pixel_unshuffle``); RuntimeError if H or W is not divisible by r."""
    _check_tensor(input, "pixel_unshuffle")
    x, r = input._data, int(downscale_factor)
    if x.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{x.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for name, d in (("height", -2), ("width", -1)):
        if x.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({d})={x.shape[d]} is not divisible by {r}")
    return PixelUnshuffleBackward0.apply(input, r=r)
