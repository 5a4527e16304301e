"""Convolution, padding and fold/unfold ops (ATen's ``convolution``, ``constant_pad_nd``, ``im2col`` ...),
vectorized on NumPy over 1, 2 or 3 spatial dims.

A convolution is ``_im2col`` (one ``sliding_window_view`` copied once to ``(N, C, *kernel, *out)``
columns, see ``_window.py``) and a single batched GEMM (``np.matmul``) with the weight viewed as
``(groups, C_out/groups, C_in/groups * prod(kernel))``. Its backward is ``col2im(W^T @ grad)`` for
the input and ``grad @ cols^T`` for the weight; a transposed convolution runs the same two kernels
the other way round. One ``ConvolutionBackward0`` Op serves every rank, as in ATen; ``conv1d`` to
``conv3d`` only add their weight-rank checks. Public entry points check arguments with PyTorch's
messages; ``nn/functional.py`` exposes them with PyTorch's signatures.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._dtype import from_np
from .._tensor import Tensor, _make
from ..autograd.forward_ad import jvp_linear
from ..autograd.function import Op
from ._cast import cast
from ._window import _as_tensor, _check_tensor, _col2im, _crop, _im2col, _pad_const

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "convolution"]


# ------------------------------------------------------------------------------------------------
# array kernels
# ------------------------------------------------------------------------------------------------
def _conv_forward(x, w, pads, stride, dil, groups):
    """x (N, C, *S), w (O, C/g, *K) -> out (N, O, *out), cols (N, g, C/g*prod(K), L)."""
    n, nd, o = x.shape[0], x.ndim - 2, w.shape[0]
    cols = _im2col(_pad_const(x, pads), w.shape[2:], stride, dil)
    out_sp = cols.shape[2 + nd:]
    cols = cols.reshape(n, groups, x.shape[1] // groups * math.prod(w.shape[2:]), math.prod(out_sp))
    out = np.matmul(w.reshape(groups, o // groups, -1), cols)  # (N, g, O/g, L): one batched GEMM
    return out.reshape((n, o) + out_sp), cols


# The input gradient of a stride-1 convolution uses a "wide" layout: the padded input plane is
# flattened and the output gradient is laid out on the padded grid (its rows keep the padded row
# pitch, zeros in the extra columns), so every kernel offset's contribution is ONE contiguous add at
# a shifted offset of the flat plane, instead of a strided add whose inner loops are a row long.
def _wide_geometry(xshape, ksize, pads, dil):
    """(padded shape, output shape, flat shift per kernel offset, wide length L, slack)."""
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(xshape, pads))
    out = tuple(p - d * (k - 1) for p, d, k in zip(padded, dil, ksize))
    pitch = [math.prod(padded[i + 1:]) for i in range(len(padded))]
    shifts = [sum(ki * d * pt for ki, d, pt in zip(k, dil, pitch)) for k in np.ndindex(*ksize)]
    slack = sum((k - 1) * d * pt for k, d, pt in zip(ksize[1:], dil[1:], pitch[1:]))
    return padded, out, shifts, out[0] * pitch[0], slack


def _input_grad_wide(g, w, xshape, pads, dil, groups):
    """``col2im(W^T @ g)`` for a stride-1 convolution: the gradient w.r.t. its input (N, C, *S)."""
    n, o = g.shape[:2]
    padded, out_sp, shifts, length, slack = _wide_geometry(xshape[2:], w.shape[2:], pads, dil)
    gwide = np.zeros((n, o, out_sp[0]) + padded[1:], g.dtype)
    gwide[(Ellipsis, slice(None)) + tuple(slice(0, s) for s in out_sp[1:])] = g
    gcols = np.matmul(w.reshape(groups, o // groups, -1).swapaxes(-1, -2), gwide.reshape(n, groups, o // groups, length))
    gcols = gcols.reshape(n, xshape[1], len(shifts), length)
    size = math.prod(padded)
    dflat = np.zeros((n, xshape[1], size + slack), g.dtype)
    for i, sh in enumerate(shifts):
        dflat[..., sh:sh + length] += gcols[:, :, i]
    return _crop(dflat[..., :size].reshape(xshape[:2] + padded), pads)


def _conv_transpose_forward(x, w, pads, stride, dil, groups, out_pad):
    """x (N, Cin, *S), w (Cin, Cout/g, *K) -> out (N, Cout, *out), the input and weight as matrices."""
    n, cin, sp, ksize = x.shape[0], x.shape[1], x.shape[2:], w.shape[2:]
    cout = w.shape[1] * groups
    xm = x.reshape(n, groups, cin // groups, math.prod(sp))
    wm = w.reshape(groups, cin // groups, -1)
    cols = np.matmul(wm.swapaxes(-1, -2), xm)  # (N, g, Cout/g*prod(K), L)
    full = tuple((s - 1) * st + d * (k - 1) + 1 + op for s, st, d, k, op in zip(sp, stride, dil, ksize, out_pad))
    y = _col2im(cols.reshape((n, cout) + ksize + sp), (n, cout) + full, ksize, stride, dil)
    return _crop(y, pads), xm, wm


# ------------------------------------------------------------------------------------------------
# convolution
# ------------------------------------------------------------------------------------------------
class ConvolutionBackward0(Op):
    """``convolution(input, weight, bias)`` for 1-d/2-d/3-d, direct or transposed (one Op, like ATen)."""
    _vmap = "conv"  # batching rule kind (func/_batching_rules.py)

    _saves = (0, 1)
    _graph_recompute = True  # under create_graph the gradients are convolutions of the boxed x, w and g

    def forward(self, x, w, b, *, stride, pads, dilation, groups, transposed, output_padding):
        self.unbatched = x.ndim == w.ndim - 1
        if self.unbatched:
            x = x[None]
        self.conf = (pads, stride, dilation, groups)
        self.transposed, self.xshape, self.wshape = transposed, x.shape, w.shape
        if transposed:
            out, xm, wm = _conv_transpose_forward(x, w, pads, stride, dilation, groups, output_padding)
            self.saved = (xm, wm)
        else:
            out, cols = _conv_forward(x, w, pads, stride, dilation, groups)
            self.saved = (cols, w)
        if b is not None:
            out += b.reshape((-1,) + (1,) * (out.ndim - 2))
        return out[0] if self.unbatched else out

    def jvp(self, tx, tw, tb):  # forward AD (autograd/forward_ad.py): bilinear in (x, w), plus the bias
        x, w, _ = self.fw_inputs
        out = None
        for a, b in ((tx, w), (x, tw)):
            if a is not None and b is not None and (a is tx or tw is not None):
                term = type(self).apply(a, b, None, **self.fw_kwargs)
                out = term if out is None else out + term
        if tb is not None:
            tbb = tb.reshape((-1,) + (1,) * (w.ndim - 2))
            out = tbb.expand(*self.fw_out._data.shape) if out is None else out + tbb
        return out

    def backward(self, g):
        if g.dtype.kind == "c":  # bilinear, so PyTorch's complex gradients are conj(backward(conj(g)))
            return tuple(None if r is None else r.conj() for r in self._backward(g.conj()))
        return self._backward(g)

    def _backward(self, g):
        if self.unbatched:
            g = g[None]
        gb = g.sum(axis=(0,) + tuple(range(2, g.ndim))) if self._edges[2] is not None else None
        if self._graph:
            gx, gw = self._graph_backward(g)
        else:
            gx, gw = (self._backward_t if self.transposed else self._backward_direct)(g)
        if gx is not None and self.unbatched:
            gx = gx[0]
        return gx, gw, gb

    def _backward_direct(self, g):
        pads, stride, dil, groups = self.conf
        cols, w = self.saved
        n, o = g.shape[:2]
        gm = g.reshape(n, groups, o // groups, math.prod(g.shape[2:]))
        gx = gw = None
        if self._edges[0] is not None and all(st == 1 for st in stride):
            gx = _input_grad_wide(g, w, self.xshape, pads, dil, groups)
        elif self._edges[0] is not None:
            gcols = np.matmul(w.reshape(groups, o // groups, -1).swapaxes(-1, -2), gm)
            padded = self.xshape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(self.xshape[2:], pads))
            gcols = gcols.reshape(self.xshape[:2] + self.wshape[2:] + g.shape[2:])
            gx = _crop(_col2im(gcols, padded, self.wshape[2:], stride, dil), pads)
        if self._edges[1] is not None:
            gw = np.matmul(gm, cols.swapaxes(-1, -2)).sum(axis=0).reshape(self.wshape)
        return gx, gw

    def _backward_t(self, g):
        pads, stride, dil, groups = self.conf
        xm, wm = self.saved
        n = g.shape[0]
        gcols = _im2col(_pad_const(g, pads), self.wshape[2:], stride, dil, self.xshape[2:])
        gcols = gcols.reshape(n, groups, wm.shape[-1], xm.shape[-1])
        gx = np.matmul(wm, gcols).reshape(self.xshape) if self._edges[0] is not None else None
        gw = (np.matmul(xm, gcols.swapaxes(-1, -2)).sum(axis=0).reshape(self.wshape)
              if self._edges[1] is not None else None)
        return gx, gw


    def _graph_backward(self, g):
        """The input and weight gradients as convolutions of Tensors (create_graph=True): differentiable."""
        pads, stride, dil, groups = self.conf
        x, w = (_as_tensor(a) for a in self._graph_args[:2])
        if self.unbatched:
            x = x[None]
        g, e = _as_tensor(g), self._edges
        gx = gw = None
        if self.transposed:  # y = conv_transpose(x, w): dx = conv(g, w), dw = the weight gradient of conv(g) by x
            if e[0] is not None:
                gx = ConvolutionBackward0.apply(g, w, None, stride=stride, pads=pads, dilation=dil, groups=groups,
                                                transposed=False, output_padding=(0,) * len(stride))
            if e[1] is not None:
                gw = _graph_weight_grad(g, x, self.wshape, pads, stride, dil, groups)
        else:
            if e[0] is not None:
                gx = _graph_input_grad(g, w, self.xshape, pads, stride, dil, groups)
            if e[1] is not None:
                gw = _graph_weight_grad(x, g, self.wshape, pads, stride, dil, groups)
        return gx, gw


def _graph_input_grad(g, w, xshape, pads, stride, dil, groups):
    """``d conv(x, w) / dx`` applied to ``g``: a transposed convolution of Tensors, cropped/padded to ``xshape``."""
    los, his, ops = [], [], []
    for xs, gs, (lo, _), st, d, k in zip(xshape[2:], g.shape[2:], pads, stride, dil, w.shape[2:]):
        full = (gs - 1) * st + d * (k - 1) + 1
        los.append(lo)
        his.append(max(0, full - lo - xs))
        ops.append(max(0, xs + lo - full))  # input positions no window reached get zero gradient
    return ConvolutionBackward0.apply(g, w, None, stride=stride, pads=tuple(zip(los, his)), dilation=dil,
                                      groups=groups, transposed=True, output_padding=tuple(ops))


def _graph_weight_grad(x, g, wshape, pads, stride, dil, groups):
    """``d conv(x, w) / dw`` applied to ``g`` ((O, C/groups, *K)): a convolution of ``x`` by ``g`` with the
    batch as channels (stride and dilation swapped), one group per convolution group."""
    n, c, nd = x.shape[0], x.shape[1], len(stride)
    cg, sp = c // groups, tuple(x.shape[2:])
    xt = x.reshape((n, groups, cg) + sp).permute((2, 1, 0) + tuple(range(3, 3 + nd))).reshape((cg, groups * n) + sp)
    gt = g.transpose(0, 1)  # (O, N, *L)
    out = ConvolutionBackward0.apply(xt, gt, None, stride=dil, pads=pads, dilation=stride, groups=groups,
                                     transposed=False, output_padding=(0,) * nd)  # (C/groups, O, *K')
    out = out[(slice(None), slice(None)) + tuple(slice(0, k) for k in wshape[2:])]
    return out.transpose(0, 1).reshape(wshape)


def _ntuple(v, n, name):
    """An int or a 1-/n-sequence as an n-tuple (PyTorch's message for another length)."""
    if isinstance(v, (list, tuple)):
        v = tuple(int(i) for i in v)
        if len(v) == 1:
            return v * n
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match "
                               f"the convolution dimensions, but got {name}={list(v)}")
        return v
    return (int(v),) * n


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution``: the N-d (direct or transposed) convolution every ``conv*`` function calls.

    ``input`` (N, C_in, *S) or unbatched (C_in, *S); ``weight`` (C_out, C_in/groups, *K), or
    (C_in, C_out/groups, *K) when ``transposed``; ``bias`` (C_out,) or None. ``padding`` is an int,
    a tuple, "valid" or "same" (direct only; stride 1; an odd total pads one more on the right).
    Raises RuntimeError with PyTorch's messages for wrong ranks, channel counts, group divisibility,
    dtypes, non-positive stride/dilation/groups, negative padding and kernels larger than the input.
    """
    fn = f"conv{'_transpose' if transposed else ''}{getattr(weight, 'ndim', 4) - 2}d"
    _check_tensor(input, fn)
    _check_tensor(weight, fn, "weight")
    nd = weight.ndim - 2
    x, w = input._data, weight._data
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fn}, but got input "
                           f"of size: {list(x.shape)}")
    xs = x.shape if x.ndim == nd + 2 else (1,) + x.shape
    stride, dilation = _ntuple(stride, nd, "stride"), _ntuple(dilation, nd, "dilation")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if not transposed and w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(w.shape)} instead")
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{list(w.shape)}] instead")
    want = w.shape[0] if transposed else w.shape[1] * groups
    if xs[1] != want:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {given}, weight of size {list(w.shape)}, expected input{list(xs)} to have "
                           f"{want} channels, but got {xs[1]} channels instead")
    empty = not transposed and (xs[0] == 0 or xs[1] == 0)  # PyTorch keeps these from its kernels
    if not empty and x.size:  # an empty spatial input is refused below
        if x.dtype.kind == "b" and 0 not in w.shape[2:]:  # (a kernel of size 0 is refused below)
            raise NotImplementedError(f"\"slow_conv{'_transpose' if transposed else ''}{max(nd, 2)}d_cpu\" not "
                                      f"implemented for 'Bool'")
        if x.dtype != w.dtype:
            raise RuntimeError(f"Input type ({from_np(x.dtype)._tensor_type}) and weight type "
                               f"({from_np(w.dtype)._tensor_type}) should be the same or input should be a MKLDNN "
                               f"tensor and weight is a dense tensor")
    cout = w.shape[1] * groups if transposed else w.shape[0]
    if bias is not None:
        _check_tensor(bias, fn, "bias")
        if bias._data.shape != (cout,):
            given = "transposed=1, weight" if transposed else "weight"
            raise RuntimeError(f"Given {given} of size {list(w.shape)}, expected bias to be 1-dimensional with "
                               f"{cout} elements, but got bias of size {list(bias._data.shape)} instead")
        if bias._data.dtype != x.dtype:
            raise RuntimeError(f"Input type ({from_np(x.dtype)._cpp_name}) and bias type "
                               f"({from_np(bias._data.dtype)._cpp_name}) should be the same")
    span = tuple(d * (k - 1) + 1 for d, k in zip(dilation, w.shape[2:]))
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same" and not transposed:
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = tuple(((sp - 1) // 2, sp - 1 - (sp - 1) // 2) for sp in span)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = tuple((p, p) for p in _ntuple(padding, nd, "padding"))
    if any(lo < 0 for lo, _ in pads):
        raise RuntimeError("negative padding is not supported")
    if transposed:
        out_pad = _ntuple(output_padding, nd, "output_padding")
        if any(op >= s and op >= d for op, s, d in zip(out_pad, stride, dilation)):
            lift = (0,) if nd == 1 else ()  # PyTorch reports 1-d as 2-d with a height of 1
            names = ("depth", "height", "width")[-max(nd, 2):]
            parts = [f"output_padding_{n}: {v}" for n, v in zip(names, lift + out_pad)]
            parts += [f"stride_{n}: {v}" for n, v in zip(names, tuple(i + 1 for i in lift) + stride)]
            parts += [f"dilation_{n}: {v}" for n, v in zip(names, tuple(i + 1 for i in lift) + dilation)]
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                               + " ".join(parts))
        out_sp = [(s - 1) * st - 2 * p + sp + op for s, st, (p, _), sp, op in zip(xs[2:], stride, pads, span, out_pad)]
        if any(o <= 0 for o in out_sp):
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, xs[2:]))}). Calculated output "
                               f"size per channel: ({' x '.join(map(str, out_sp))}). Output size is too small")
    else:
        out_pad = (0,) * nd
        padded = [s + lo + hi for s, (lo, hi) in zip(xs[2:], pads)]
        if any(p < k for p, k in zip(padded, span)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, span))}). Kernel size can't be greater than actual "
                               f"input size")
        if empty or x.size == 0 or 0 in w.shape[2:]:
            return _conv_without_kernel(input, weight, bias, xs, pads, stride, dilation, groups, empty)
    return ConvolutionBackward0.apply(input, weight, bias, stride=stride, pads=pads, dilation=dilation,
                                      groups=groups, transposed=transposed, output_padding=out_pad)


def _conv_without_kernel(input, weight, bias, xs, pads, stride, dilation, groups, empty):
    """The direct convolutions PyTorch answers before its kernels: an empty batch gives ``(0, C_out, *out)``
    and no input channels ``(N, 0, *out)``, in the promoted dtype of input and weight (any dtypes);
    RuntimeError for other empty inputs and for kernels with a zero size."""
    x, w = input._data, weight._data
    if not empty:
        if x.size == 0:
            shape = list(xs[:2]) + [1] * (len(xs) == 3) + list(xs[2:])  # PyTorch reports 1-d as 2-d
            raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {shape}")
        k = (1,) * (w.ndim == 3) + w.shape[2:]
        names = ("depth", "height", "width")[-len(k):]
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           " ".join(f"kernel_{n}: {v}" for n, v in zip(names, k)))
    if xs[1] and w.size == 0:  # PyTorch scales the empty batch by the first weight element
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    dt = _dtype.promote_types(from_np(x.dtype), from_np(w.dtype))
    if dt.np.kind not in "fcV":  # no integer convolution in NumPy's matmul path, nothing to compute anyway
        shape = [(s + lo + hi - d * (k - 1) - 1) // st + 1
                 for s, (lo, hi), d, k, st in zip(xs[2:], pads, dilation, w.shape[2:], stride)]
        out = np.zeros([xs[0], 0 if xs[1] == 0 else w.shape[0]] + shape, dt.np)
        return _make(out if x.ndim == len(xs) else out[0])
    out = ConvolutionBackward0.apply(cast(input, dt), cast(weight, dt), bias, stride=stride, pads=pads,
                                     dilation=dilation, groups=groups, transposed=False,
                                     output_padding=(0,) * (len(xs) - 2))
    if xs[1] == 0 and w.shape[0]:
        out = out[:, :0] if x.ndim == len(xs) else out[:0]
    return out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d cross-correlation (``torch.nn.functional.conv1d``): input (N, C_in, L) or (C_in, L), weight
    (C_out, C_in/groups, kL) -> (N, C_out, L_out). See ``convolution`` for arguments and errors."""
    if isinstance(weight, Tensor) and weight.ndim != 3:
        raise RuntimeError(f"conv1d: expected a 3-D weight (C_out, C_in/groups, kL), but got weight of size "
                           f"{list(weight.shape)}")
    return convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation (``torch.nn.functional.conv2d``): input (N, C_in, H, W) or (C_in, H, W), weight
    (C_out, C_in/groups, kH, kW) -> (N, C_out, H_out, W_out), ``H_out = (H + 2p - d(kH-1) - 1) // s + 1``.
    ``padding`` may be "same"/"valid". See ``convolution`` for the errors raised."""
    if isinstance(weight, Tensor) and weight.ndim != 4:
        raise RuntimeError(f"conv2d: expected a 4-D weight (C_out, C_in/groups, kH, kW), but got weight of size "
                           f"{list(weight.shape)}")
    return convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-d transposed convolution (``torch.nn.functional.conv_transpose1d``): input (N, C_in, L), weight
    (C_in, C_out/groups, kL) -> (N, C_out, (L-1)s - 2p + d(kL-1) + output_padding + 1)."""
    if isinstance(weight, Tensor) and weight.ndim != 3:
        raise RuntimeError(f"conv_transpose1d: expected a 3-D weight, but got weight of size {list(weight.shape)}")
    _no_str_padding(padding, "conv_transpose1d")
    return convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-d transposed convolution (``torch.nn.functional.conv_transpose2d``), the gradient of ``conv2d`` with
    respect to its input: input (N, C_in, H, W), weight (C_in, C_out/groups, kH, kW) -> (N, C_out, H_out,
    W_out), ``H_out = (H-1)s - 2p + d(kH-1) + output_padding + 1``; ``output_padding`` must be smaller than
    the stride or the dilation."""
    if isinstance(weight, Tensor) and weight.ndim != 4:
        raise RuntimeError(f"conv_transpose2d: expected a 4-D weight, but got weight of size {list(weight.shape)}")
    _no_str_padding(padding, "conv_transpose2d")
    return convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d cross-correlation (``torch.nn.functional.conv3d``, ``torch.conv3d``).

    input (N, C_in, D, H, W) or unbatched (C_in, D, H, W); weight (C_out, C_in/groups, kD, kH, kW);
    bias (C_out,) or None -> (N, C_out, D_out, H_out, W_out) with
    ``D_out = (D + 2p - d(kD-1) - 1) // s + 1`` (H, W alike). ``stride``, ``padding`` and ``dilation``
    are ints or 3-tuples; ``padding`` may be "valid" or "same" (stride 1 only). Same dtype as the input.

    Raises RuntimeError for a weight that is not 5-D, an input that is not 4-D/5-D, a channel count
    that does not match ``weight.shape[1] * groups``, groups not dividing C_out, mixed dtypes, and a
    kernel larger than the padded input (PyTorch's messages; see ``conv.convolution``).
    """
    if isinstance(weight, Tensor) and weight.ndim != 5:
        raise RuntimeError(f"conv3d: expected a 5-D weight (C_out, C_in/groups, kD, kH, kW), but got weight of "
                           f"size {list(weight.shape)}")
    _check_dtypes(input, weight)
    return convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-d transposed convolution (``torch.nn.functional.conv_transpose3d``), the gradient of ``conv3d``
    with respect to its input.

    input (N, C_in, D, H, W) or (C_in, D, H, W); weight (C_in, C_out/groups, kD, kH, kW) ->
    (N, C_out, D_out, H_out, W_out), ``D_out = (D-1)s - 2p + d(kD-1) + output_padding + 1`` (H, W alike).
    ``output_padding`` must be smaller than the stride or the dilation.

    Raises TypeError for a string ``padding``; RuntimeError for a weight that is not 5-D, an input
    whose channels differ from ``weight.shape[0]``, a too large ``output_padding`` or an empty output.
    """
    if isinstance(weight, Tensor) and weight.ndim != 5:
        raise RuntimeError(f"conv_transpose3d: expected a 5-D weight, but got weight of size {list(weight.shape)}")
    _no_str_padding(padding, "conv_transpose3d")
    _check_dtypes(input, weight)
    return convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)


def _check_dtypes(input, weight):
    """PyTorch's 3-d kernels report an input/weight dtype mismatch in their own words."""
    if isinstance(input, Tensor) and isinstance(weight, Tensor) and input._data.dtype != weight._data.dtype:
        a, b = (from_np(t._data.dtype)._aten_name for t in (input, weight))
        raise RuntimeError(f"expected scalar type {a} but found {b}")


def _no_str_padding(padding, fn):
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be tuple of ints, not str")


# ------------------------------------------------------------------------------------------------
# unfold / fold (im2col / col2im)
# ------------------------------------------------------------------------------------------------
class Im2ColBackward0(Op):
    """``unfold``: (N, C, H, W) -> (N, C*kH*kW, L) sliding blocks (unbatched (C, H, W) -> (C*kH*kW, L))."""

    def forward(self, x, *, kernel_size, dilation, padding, stride):
        self.unbatched = x.ndim == 3
        xb = x[None] if self.unbatched else x
        self.conf = (xb.shape, kernel_size, dilation, padding, stride)
        pads = tuple((p, p) for p in padding)
        cols = _im2col(_pad_const(xb, pads), kernel_size, stride, dilation)
        self.out_sp = cols.shape[4:]
        out = cols.reshape(xb.shape[0], xb.shape[1] * math.prod(kernel_size), math.prod(self.out_sp))
        return out[0] if self.unbatched else out

    def backward(self, g):
        shape, ksize, dil, padding, stride = self.conf
        g = g[None] if self.unbatched else g
        if self._graph:  # fold, the adjoint, on Tensors
            gx = Col2ImBackward0.apply(_as_tensor(g), output_size=shape[2:], kernel_size=ksize, dilation=dil,
                                       padding=padding, stride=stride, blocks=self.out_sp)
            return gx[0] if self.unbatched else gx
        pads = tuple((p, p) for p in padding)
        padded = shape[:2] + tuple(s + 2 * p for s, p in zip(shape[2:], padding))
        gx = _crop(_col2im(g.reshape(shape[:2] + ksize + self.out_sp), padded, ksize, stride, dil), pads)
        return gx[0] if self.unbatched else gx


class Col2ImBackward0(Op):
    """``fold``: (N, C*kH*kW, L) -> (N, C, *output_size), summing overlapping blocks (adjoint of unfold)."""

    def forward(self, cols, *, output_size, kernel_size, dilation, padding, stride, blocks):
        self.unbatched = cols.ndim == 2
        cb = cols[None] if self.unbatched else cols
        n, c = cb.shape[0], cb.shape[1] // math.prod(kernel_size)
        self.conf = (cb.shape, kernel_size, dilation, padding, stride, blocks)
        padded = (n, c) + tuple(s + 2 * p for s, p in zip(output_size, padding))
        out = _col2im(cb.reshape((n, c) + kernel_size + blocks), padded, kernel_size, stride, dilation)
        out = _crop(out, tuple((p, p) for p in padding))
        return out[0] if self.unbatched else out

    def backward(self, g):
        shape, ksize, dil, padding, stride, blocks = self.conf
        g = g[None] if self.unbatched else g
        if self._graph:  # unfold, the adjoint, on Tensors
            cols = Im2ColBackward0.apply(_as_tensor(g), kernel_size=ksize, dilation=dil, padding=padding, stride=stride)
            return cols[0] if self.unbatched else cols
        cols = _im2col(_pad_const(g, tuple((p, p) for p in padding)), ksize, stride, dil, blocks)
        cols = cols.reshape(shape)
        return cols[0] if self.unbatched else cols


# ------------------------------------------------------------------------------------------------
# padding
# ------------------------------------------------------------------------------------------------
def _split_pads(pads):
    """(lo, hi) pairs -> the negative parts as crops and the positive parts as pads."""
    crop = tuple((max(-lo, 0), max(-hi, 0)) for lo, hi in pads)
    grow = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
    return crop, grow


def _uncrop(g, shape, crop):
    """Adjoint of cropping: ``g`` embedded in zeros of ``shape``."""
    if not any(lo or hi for lo, hi in crop):
        return g
    out = np.zeros(shape, g.dtype)
    out[(Ellipsis,) + tuple(slice(lo, s - hi) for s, (lo, hi) in zip(shape[-len(crop):], crop))] = g
    return out


class ConstantPadNdBackward0(Op):
    """``pad(mode="constant")``: ``pads`` are ``(lo, hi)`` pairs for the trailing axes; negative values crop."""
    _vmap = ("free", 0)  # batching rule kind (func/_batching_rules.py)

    def jvp(self, t):  # forward AD: the tangent padded with zeros (the fill value is a constant)
        return ConstantPadNdBackward0.apply(t, pads=self.fw_kwargs["pads"], value=0)

    def forward(self, x, *, pads, value):
        self.shape, self.pads = x.shape, pads
        self.crop, self.grow = _split_pads(pads)
        return _pad_const(_crop(x, self.crop), self.grow, value)

    def backward(self, g):
        if self._graph:  # the adjoint, on Tensors: zero-pad by the negated pads (crop what grew, regrow what was cropped)
            return ConstantPadNdBackward0.apply(_as_tensor(g), pads=tuple((-lo, -hi) for lo, hi in self.pads), value=0)
        return _uncrop(_crop(g, self.grow), self.shape, self.crop)


class _EdgePad(Op):
    _vmap = ("free", 0)  # batching rule kind (func/_batching_rules.py)
    """Reflect / replicate / circular padding; backward folds each padded edge back onto its source.

    As in PyTorch, negative pads crop after reflect/replicate padding (a reflection may read cropped
    values) but before circular padding (the wrap uses the cropped tensor).
    """

    mode = None  # NumPy's name for the mode
    crop_first = False
    jvp = jvp_linear  # forward AD: padding is linear (the backward's folds have no double backward)

    def forward(self, x, *, pads):
        self.pads = pads
        crop, self.grow = _split_pads(pads)
        self.steps = (crop, x.shape)  # how to undo the crop
        lead = ((0, 0),) * (x.ndim - len(pads))
        if self.crop_first:
            xc = _crop(x, crop)
            self.base = xc.shape
            return np.pad(xc, lead + self.grow, mode=self.mode)
        self.base = x.shape
        y = np.pad(x, lead + self.grow, mode=self.mode)
        self.steps = (crop, y.shape)
        return _crop(y, crop)

    def backward(self, g):
        if not isinstance(g, np.ndarray):  # create_graph: the fold as an op whose own backward is this pad
            return g.apply_tensor_fn(lambda t: PadFoldBackward0.apply(t, pad=self))
        return self._fold(g)

    def _fold(self, g):
        """The gradient of the input: each padded edge added back onto its source, the crop undone."""
        crop, shape = self.steps
        if not self.crop_first:
            g = _uncrop(g, shape, crop)
        nd = len(self.grow)
        for i, (lo, hi) in enumerate(self.grow):
            ax = g.ndim - nd + i
            n = self.base[ax]
            g = np.moveaxis(g, ax, -1)
            gi = g[..., lo:lo + n].copy()
            left, right = g[..., :lo], g[..., lo + n:]
            if self.mode == "reflect":  # sources lo..1 and n-2..n-1-hi
                gi[..., 1:lo + 1] += np.flip(left, -1)  # np.flip, not [::-1]: boxes (create_graph) flip too
                gi[..., n - 1 - hi:n - 1] += np.flip(right, -1)
            elif self.mode == "edge":
                gi[..., 0] += left.sum(-1)
                gi[..., -1] += right.sum(-1)
            else:  # wrap: sources n-lo..n-1 and 0..hi-1
                gi[..., n - lo:] += left
                gi[..., :hi] += right
            g = np.moveaxis(gi, -1, ax)
        return _uncrop(g, shape, crop) if self.crop_first else g


class PadFoldBackward0(Op):
    """A reflect/replicate/circular pad's backward (``_EdgePad._fold``) as an op, so pads have a double
    backward: the fold is linear and its adjoint is the pad itself."""

    jvp = jvp_linear

    def forward(self, g, *, pad):
        self.pad = pad
        return pad._fold(g)

    def backward(self, gg):
        return object.__new__(type(self.pad)).forward(gg, pads=self.pad.pads)


class ReflectionPad1DBackward0(_EdgePad):
    mode = "reflect"


class ReflectionPad2DBackward0(ReflectionPad1DBackward0):
    pass


class ReflectionPad3DBackward0(ReflectionPad1DBackward0):
    pass


class ReplicationPad1DBackward0(_EdgePad):
    mode = "edge"


class ReplicationPad2DBackward0(ReplicationPad1DBackward0):
    pass


class ReplicationPad3DBackward0(ReplicationPad1DBackward0):
    pass


class CircularPadBackward0(_EdgePad):
    mode = "wrap"
    crop_first = True


_EDGE_OPS = {("reflect", 1): ReflectionPad1DBackward0, ("reflect", 2): ReflectionPad2DBackward0,
             ("reflect", 3): ReflectionPad3DBackward0, ("replicate", 1): ReplicationPad1DBackward0,
             ("replicate", 2): ReplicationPad2DBackward0, ("replicate", 3): ReplicationPad3DBackward0}


def pad(input, pad, mode="constant", value=None):
    """``F.pad``: ``pad`` = (left, right, top, bottom, ...) from the last dim backwards; negative crops.

    Modes "constant" (``value``, default 0, any number of dims), "reflect", "replicate" and "circular"
    (pad the last 1/2/3 dims of a 2-3/3-4/4-5-D input). Raises RuntimeError for an odd-length or too
    long ``pad``, a reflect pad not smaller than the dim, circular padding wrapping more than once, or a
    ``value`` with a non-constant mode; NotImplementedError for other modes or dim combinations.
    """
    _check_tensor(input, "pad")
    pad = [int(p) for p in pad]
    x = input._data
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {x.ndim}")
    nd = len(pad) // 2
    pads = tuple((pad[2 * i], pad[2 * i + 1]) for i in reversed(range(nd)))  # in axis order
    if mode == "constant":
        for ax, (lo, hi) in zip(range(x.ndim - nd, x.ndim), pads):
            if x.shape[ax] + lo + hi < 0:
                raise RuntimeError(f"The input size {x.shape[ax]}, plus negative padding {lo} and {hi} resulted "
                                   f"in a negative output size, which is invalid. Check dimension {ax} of your "
                                   f"input.")
        if any(x.shape[ax] + min(lo, 0) + min(hi, 0) < 0 for ax, (lo, hi) in zip(range(x.ndim - nd, x.ndim), pads)):
            raise RuntimeError("narrow(): length must be non-negative.")  # PyTorch crops before it pads
        return ConstantPadNdBackward0.apply(input, pads=pads, value=0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if nd not in (1, 2, 3) or x.ndim not in (nd + 1, nd + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {x.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    for ax, (lo, hi) in zip(range(x.ndim - nd, x.ndim), pads):
        s = x.shape[ax]
        if mode == "reflect" and (lo >= s or hi >= s):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({lo}, {hi}) at dimension {ax} of input {list(x.shape)}")
        if mode == "circular" and (lo > s + min(hi, 0) or hi > s + min(lo, 0)):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "circular" and s + min(lo, 0) + min(hi, 0) < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        if mode == "circular" and s + min(lo, 0) + min(hi, 0) <= 0 and (lo > 0 or hi > 0):
            raise RuntimeError(f"input tensor has a dimension {ax} that would be empty after cropping")
        if mode != "circular" and nd == 1 and s + lo + hi <= 0:  # reflect/replicate pad first, then crop
            raise RuntimeError(f"input (W: {s}) is too small. Calculated output W: {s + lo + hi}")
    op = CircularPadBackward0 if mode == "circular" else _EDGE_OPS[(mode, nd)]
    return op.apply(input, pads=pads)




# ------------------------------------------------------------------------------------------------
# unfold / fold entry points
# ------------------------------------------------------------------------------------------------
def _block_args(kernel_size, dilation, padding, stride):
    args = {}
    for name, v, lo in (("kernel", kernel_size, 1), ("dilation", dilation, 1), ("padding", padding, 0),
                        ("stride", stride, 1)):
        t = tuple(int(i) for i in v) if isinstance(v, (list, tuple)) else (int(v),) * 2
        if len(t) != 2:
            raise RuntimeError(f"{name} must be an int or a tuple of two ints, but got {v}")
        if any(i < lo for i in t):
            what = {"kernel": "kernel size should be greater than zero", "dilation": "dilation should be greater "
                    "than zero", "padding": "padding should be non-negative", "stride": "stride should be greater "
                    "than zero"}[name]
            key = "pad" if name == "padding" else name
            raise RuntimeError(f"{what}, but got {key}_height: {t[0]} {key}_width: {t[1]}")
        args[name] = t
    return args["kernel"], args["dilation"], args["padding"], args["stride"]


def _blocks(sp, ksize, dil, padding, stride):
    return tuple((s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, d, p, st in zip(sp, ksize, dil, padding, stride))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """``F.unfold`` (im2col): (N, C, H, W) or (C, H, W) -> (N, C*kH*kW, L) sliding blocks, L blocks in
    row-major order. RuntimeError for other ranks, bad kernel/dilation/padding/stride or no block."""
    _check_tensor(input, "unfold")
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {x.ndim}D)")
    k, d, p, s = _block_args(kernel_size, dilation, padding, stride)
    blocks = _blocks(x.shape[-2:], k, d, p, s)
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[-2:])}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, calculated shape of the array of sliding blocks as {blocks}, but its "
                           f"components must be at least one.")
    return Im2ColBackward0.apply(input, kernel_size=k, dilation=d, padding=p, stride=s)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``F.fold`` (col2im): (N, C*kH*kW, L) or (C*kH*kW, L) -> (N, C, *output_size), summing overlapping
    blocks. RuntimeError when dim 1 is not divisible by kH*kW or L is not the number of blocks."""
    _check_tensor(input, "fold")
    x = input._data
    if x.ndim not in (2, 3) or any(s == 0 for s in x.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(x.shape)}")
    out = tuple(int(i) for i in output_size) if isinstance(output_size, (list, tuple)) else (int(output_size),) * 2
    k, d, p, s = _block_args(kernel_size, dilation, padding, stride)
    c_in, length = x.shape[-2:]
    if c_in % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension {x.ndim - 2} to be divisible by the product of "
                           f"kernel_size, but got input.size({x.ndim - 2})={c_in} and kernel_size={k}.")
    blocks = _blocks(out, k, d, p, s)
    if any(b < 1 for b in blocks) or blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size={out}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension {x.ndim - 1} to match the calculated number of "
                           f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size({x.ndim - 1})={length}.")
    return Col2ImBackward0.apply(input, output_size=out, kernel_size=k, dilation=d, padding=p, stride=s,
                                 blocks=blocks)
