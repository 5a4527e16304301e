"""3-d pooling: ``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d`` and ``adaptive_max_pool3d``.

The Ops of ``pooling.py`` work over any number of trailing spatial dims, so the 3-d Ops below are
those kernels under PyTorch's 3-d node names: max pooling copies the kernel windows of one
``sliding_window_view`` once and keeps a running max per kernel offset; average pooling sums one
strided slice per kernel offset; adaptive average pooling is three small ``(out, in)`` matrices
applied along D, H and W; adaptive max pooling gathers padded windows and takes one ``argmax``.
What is 3-d here is the argument checking: ATen's 3-d kernels check in their own order with their
own messages (``pool3d_shape_check``), which the entry points reproduce.
"""
from __future__ import annotations

from .conv import _TYPE_NAMES, _check_tensor
from .pooling import (
    _AdaptiveAvg,
    _AdaptiveMax,
    _AvgPool,
    _MaxPool,
    _pool_out_size,
    _pool_tuple,
)

__all__: list = []  # torch.max_pool3d etc. are not exposed at top level (nor are the 2-d ones)


class MaxPool3DWithIndicesBackward0(_MaxPool):
    pass


class AvgPool3DBackward0(_AvgPool):
    pass


class AdaptiveAvgPool3DBackward0(_AdaptiveAvg):
    pass


class AdaptiveMaxPool3DBackward0(_AdaptiveMax):
    pass


# ------------------------------------------------------------------------------------------------
# argument checks (ATen's order: argument lengths, rank, per-dim output sizes, pool3d_shape_check)
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# max / average pooling
# ------------------------------------------------------------------------------------------------
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
        name = _TYPE_NAMES.get(x.dtype.name, x.dtype.name)  # PyTorch's name: 'Long', 'Int', ...
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
