"""Window machinery shared by convolution, pooling and resampling: padding, kernel windows, im2col/col2im.

The two kernels everything is built from:

* ``_im2col``: the kernel windows of a padded input as ONE ``sliding_window_view``, copied once into a
  contiguous ``(N, C, *kernel, *out)`` array, so that a convolution is a single batched GEMM.
* ``_col2im``: the adjoint, summing columns back into the padded input with one strided ``+=`` per
  kernel offset (``prod(kernel)`` vectorized adds, never a loop over batch, channels or positions).

All helpers work on ndarrays over any number of trailing spatial axes; ``_check_tensor`` is the
Tensor-argument check of the entry points built on them.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .._tensor import Tensor, _make


def _check_tensor(t, fn, arg="input", position=None):
    """PyTorch's TypeError for a non-Tensor argument (``position`` as the Python-bound ops name it)."""
    if not isinstance(t, Tensor):
        where = f" (position {position})" if position else ""
        raise TypeError(f"{fn}(): argument '{arg}'{where} must be Tensor, not {type(t).__name__}")


def _pad_const(x, pads, value=0):
    """``x`` with its trailing ``len(pads)`` axes padded by ``(lo, hi)`` pairs (non-negative) of ``value``."""
    if not any(lo or hi for lo, hi in pads):
        return x
    nd = len(pads)
    shape = x.shape[:-nd] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[-nd:], pads))
    out = np.zeros(shape, x.dtype) if value == 0 else np.full(shape, value, x.dtype)
    out[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(x.shape[-nd:], pads))] = x
    return out


def _windows(xp, ksize, stride, dil):
    """View ``(..., *out, *ksize)`` of the (dilated, strided) kernel windows over the trailing axes."""
    nd = len(ksize)
    span = tuple((k - 1) * d + 1 for k, d in zip(ksize, dil))
    v = sliding_window_view(xp, span, axis=tuple(range(xp.ndim - nd, xp.ndim)))
    return v[(Ellipsis,) + tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d) for d in dil)]


def _im2col(xp, ksize, stride, dil, out_sp=None):
    """Contiguous columns ``(N, C, *ksize, *out)`` of padded ``xp`` (N, C, *S): one window view, one copy."""
    nd = len(ksize)
    win = _windows(xp, ksize, stride, dil)
    if out_sp is not None:  # keep only the first ``out_sp`` positions
        win = win[(slice(None), slice(None)) + tuple(slice(0, o) for o in out_sp)]
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return np.ascontiguousarray(win.transpose(perm))


def _offset_slices(k, stride, dil, out_sp):
    """Slices of the padded input read by kernel offset ``k`` for every output position."""
    return (Ellipsis,) + tuple(slice(ki * d, ki * d + s * (o - 1) + 1, s)
                               for ki, d, s, o in zip(k, dil, stride, out_sp))


def _col2im(cols, padded_shape, ksize, stride, dil):
    """Adjoint of ``_im2col``: sum columns ``(N, C, *ksize, *out)`` into a zero array of ``padded_shape``."""
    nd = len(ksize)
    out_sp = cols.shape[2 + nd:]
    dx = np.zeros(padded_shape, cols.dtype)
    for k in np.ndindex(*ksize):
        dx[_offset_slices(k, stride, dil, out_sp)] += cols[(slice(None), slice(None)) + k]
    return dx


def _crop(x, pads):
    """Inverse of padding by ``(lo, hi)`` pairs on the trailing axes (a view)."""
    nd = len(pads)
    return x[(Ellipsis,) + tuple(slice(lo, s - hi) for s, (lo, hi) in zip(x.shape[-nd:], pads))]


def _along(x, m, axis):
    """Apply matrix ``m`` (out, in) along ``axis`` of ``x`` (one matmul): separable pooling and resampling."""
    if axis == x.ndim - 1:
        return np.matmul(x, m.T)
    return np.moveaxis(np.matmul(np.moveaxis(x, axis, -1), m.T), -1, axis)


def _along_axes(x, mats, transpose=False):
    """Apply one (out, in) matrix per trailing axis (``mats[i]`` to axis ``-len(mats) + i``), last axis
    first; ``transpose`` applies the transposes in the opposite order (the backward of the same map)."""
    nd = len(mats)
    for i in (range(nd) if transpose else reversed(range(nd))):
        x = _along(x, mats[i].T if transpose else mats[i], x.ndim - nd + i)
    return x


def _as_tensor(a):
    """The Tensor of a graph backward's box (its ``t``; create_graph=True), or a constant array as a Tensor."""
    return a if isinstance(a, Tensor) else a.t if hasattr(a, "t") else _make(np.asarray(a))
