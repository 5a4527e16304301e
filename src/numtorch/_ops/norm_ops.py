"""Normalization kernels: layer, batch, group, instance and RMS norm; ``normalize`` (with the vector
p-norm helpers ``distance.py`` shares) and local response norm.

Each is one fused ``Op``: the forward makes the normalized ``xhat`` once (saved for backward with
the reciprocal std), and the backward is the closed form
``dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))`` over the normalized axes.
``local_response_norm`` follows PyTorch's Python definition op by op (square, pad, average pool, ...).
Public functional forms with PyTorch's checks are in ``numtorch/nn/functional.py``.
"""
from __future__ import annotations

import math

import numpy as np

from .._dtype import from_np
from .._tensor import Tensor
from ..autograd.function import Op
from ..autograd.grad_mode import _State
from . import pointwise as _P
from . import shape as _S
from ._cast import cast
from ._util import bump, sum_lastdim
from ._window import _check_tensor
from .conv import pad
from .pooling import avg_pool

def check_param_dtypes(dt, *params):
    """PyTorch's CPU norm kernels take parameters (weight, bias, running stats) of the input's dtype
    ``dt`` only, or float32 ones for a 16-bit input; RuntimeError in PyTorch's words otherwise."""
    ps = [p._data.dtype for p in params if p is not None]
    if not ps or all(d == dt for d in ps):
        return
    if dt.itemsize == 2 and dt.kind in "fV" and ps[0] == np.float32:  # PyTorch's mixed-type kernels
        if all(d == np.float32 for d in ps):
            return
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if ps[0] != dt:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype." if ps[0] == np.float32 else
                           "mixed dtype (CPU): expect parameter to have scalar type of Float")
    other = next(d for d in ps if d != dt)
    raise RuntimeError(f"expected scalar type {from_np(dt)._aten_name} but found {from_np(other)._aten_name}")


def _in_float32(op, input, *tensors, **options):
    """Run ``op`` in float32 for 16-bit inputs and round the result back, as PyTorch computes norms."""
    d = input._data.dtype
    if d.itemsize != 2 or d.kind not in "fV":  # float16 / bfloat16 only
        return op.apply(input, *tensors, **options)
    up = [None if t is None else cast(t, np.float32) for t in (input, *tensors)]
    return cast(op.apply(*up, **options), input._data.dtype)

__all__ = ["layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm"]


# ------------------------------------------------------------------------------------------------
# row-wise helpers on (M, K) arrays: normalize each row
# ------------------------------------------------------------------------------------------------
def _row_normalize(x2, eps):
    """``(xhat, rstd)`` for each row of ``x2``: ``xhat = (x - mean) * rstd`` (biased variance)."""
    k = x2.shape[1]
    mean = sum_lastdim(x2)  # row sums as BLAS products: much faster than NumPy's short-row reductions
    mean /= k
    xhat = x2 - mean
    var = _rowdot(xhat, xhat)
    var /= k
    var += eps
    rstd = np.sqrt(var, out=var)
    rstd = np.divide(1, rstd, out=rstd).astype(x2.dtype, copy=False)
    xhat *= rstd
    return xhat, rstd


def _rowdot(a, b):
    """``(a * b).sum(1, keepdims=True)`` for (M, K) arrays: one batched BLAS dot for float32/float64."""
    if a.dtype.kind == "f" and a.dtype.itemsize >= 4:
        return np.matmul(a[:, None, :], b[:, :, None]).reshape(-1, 1)
    return np.einsum("ij,ij->i", a, b)[:, None]


def _row_backward(gxhat, xhat, rstd):
    """Input gradient of row normalization from the gradient w.r.t. ``xhat``."""
    k = xhat.shape[1]
    a = sum_lastdim(gxhat)
    a /= k
    b = (_rowdot(gxhat, xhat) / k).astype(xhat.dtype, copy=False)
    gx = gxhat - a
    gx -= xhat * b
    gx *= rstd
    return gx


def _graph_row_normalize(x2, eps):
    """``_row_normalize`` with operations a graph backward's boxes support (create_graph=True)."""
    xc = x2 - x2.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt((xc * xc).mean(axis=1, keepdims=True) + eps)
    return xc * rstd, rstd


def _graph_row_backward(gxhat, xhat, rstd):
    """``_row_backward`` with operations a graph backward's boxes support (create_graph=True)."""
    a = gxhat.mean(axis=1, keepdims=True)
    b = (gxhat * xhat).mean(axis=1, keepdims=True)
    return (gxhat - a - xhat * b) * rstd



def _saved_rows(node):
    """``(xhat, rstd, weight, row_backward)`` of a node normalising rows (layer and group norm): the
    cached arrays, or under create_graph rebuilt from the boxed input (``_graph_args``)."""
    xhat, rstd, w = node.saved
    if not node._graph:
        return xhat, rstd, w, _row_backward
    x, w = node._graph_args[0], node._graph_args[1]
    xhat, rstd = _graph_row_normalize(x.reshape(xhat.shape), node.eps)
    return xhat, rstd, None if w is None else w.reshape(-1), _graph_row_backward

class NativeLayerNormBackward0(Op):
    """Normalize over the trailing ``k`` dims, then ``* weight + bias`` (both of the normalized shape)."""
    _vmap = "layer_norm"  # batching rule kind (func/_batching_rules_nn.py)

    _saves = (0, 1)
    _graph_recompute = True  # xhat and rstd are rebuilt from the boxed input under create_graph

    def forward(self, x, w, b, k, eps):
        shape = x.shape
        n = math.prod(shape[len(shape) - k:]) if k else 1
        if x.size:
            xhat, rstd = _row_normalize(x.reshape(-1, n), eps)
        else:  # no rows, or rows of no elements: nothing to normalize (and -1 cannot be inferred)
            xhat = np.zeros((math.prod(shape[:len(shape) - k]), n), x.dtype)
            rstd = np.zeros((xhat.shape[0], 1), x.dtype)
        self.saved = (xhat, rstd, None if w is None else w.reshape(-1))
        self.shape, self.wshape, self.eps = shape, None if w is None else w.shape, eps
        out = xhat if w is None else xhat * w.reshape(-1)
        if b is not None:
            out = out + b.reshape(-1) if out is xhat else np.add(out, b.reshape(-1), out=out)
        return out.reshape(shape) if out is not xhat else out.reshape(shape).copy()

    def backward(self, g):
        xhat, rstd, w, row_backward = _saved_rows(self)
        g2 = g.reshape(xhat.shape)
        e = self._edges
        gx = gw = gb = None
        if e[0] is not None and not xhat.size:  # nothing was normalized
            gx = np.zeros(self.shape, xhat.dtype)
        elif e[0] is not None:
            gx = row_backward(g2 * w if w is not None else g2, xhat, rstd).reshape(self.shape)
        if e[1] is not None:
            gw = (g2 * xhat).sum(axis=0).reshape(self.wshape) if self._graph else \
                np.einsum("ij,ij->j", g2, xhat).reshape(self.wshape)
        if e[2] is not None:
            gb = g2.sum(0).reshape(self.wshape if self.wshape is not None else -1)
        return gx, gw, gb


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    """``torch.layer_norm``: normalize over the trailing ``normalized_shape`` dims (biased variance).

    RuntimeError when the input's trailing dims or the weight/bias shapes differ from ``normalized_shape``.
    """
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)
    shape = input._data.shape
    k = len(ns)
    if k == 0 or shape[len(shape) - k:] != ns or k > len(shape):
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape [*, "
                           f"{', '.join(map(str, ns))}], but got input of size{list(shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and p._data.shape != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(p._data.shape)} and normalized_shape = {list(ns)}")
    dt = input._data.dtype
    if (weight is not None and weight._data.dtype != dt) or (bias is not None and bias._data.dtype != dt):
        check_param_dtypes(dt, weight, bias)
    if dt.kind not in "fcV":
        raise NotImplementedError(f'"LayerNormKernelImpl" not implemented for \'{from_np(dt)._aten_name}\'')
    return _in_float32(NativeLayerNormBackward0, input, weight, bias, k=k, eps=eps)


class RmsNormBackward0(Op):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``k`` dims."""

    _saves = (0, 1)
    _graph_recompute = True  # xhat and rrms are rebuilt from the boxed input under create_graph

    def forward(self, x, w, k, eps):
        shape = x.shape
        n = int(np.prod(shape[len(shape) - k:]))
        x2 = x.reshape(-1, n)
        rrms = (1 / np.sqrt(np.einsum("ij,ij->i", x2, x2) / n + eps)).astype(x.dtype, copy=False)[:, None]
        xhat = x2 * rrms
        self.saved = (xhat, rrms, None if w is None else w.reshape(-1))
        self.shape, self.wshape, self.eps = shape, None if w is None else w.shape, eps
        return (xhat if w is None else xhat * w.reshape(-1)).reshape(shape)

    def backward(self, g):
        xhat, rrms, w = self.saved
        if self._graph:
            x, w = self._graph_args[0], self._graph_args[1]
            x2 = x.reshape(xhat.shape)
            rrms = 1 / np.sqrt((x2 * x2).mean(axis=1, keepdims=True) + self.eps)
            xhat, w = x2 * rrms, None if w is None else w.reshape(-1)
        g2 = g.reshape(xhat.shape)
        gx = gw = None
        if self._edges[0] is not None:
            gxhat = g2 * w if w is not None else g2
            if self._graph:
                b = (gxhat * xhat).mean(axis=1, keepdims=True)
            else:
                b = (np.einsum("ij,ij->i", gxhat, xhat) / xhat.shape[1]).astype(xhat.dtype, copy=False)[:, None]
            gx = ((gxhat - xhat * b) * rrms).reshape(self.shape)
        if len(self._edges) > 1 and self._edges[1] is not None:
            gw = (g2 * xhat).sum(axis=0).reshape(self.wshape) if self._graph else \
                np.einsum("ij,ij->j", g2, xhat).reshape(self.wshape)
        return gx, gw


def rms_norm(input: Tensor, normalized_shape, weight=None, eps=None) -> Tensor:
    """``torch.rms_norm``: ``x / sqrt(mean(x^2) + eps) * weight`` over the trailing dims.

    ``eps=None`` uses the dtype's machine epsilon, as PyTorch. RuntimeError on shape mismatch.
    """
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)
    shape = input._data.shape
    k = len(ns)
    if k == 0 or k > len(shape) or shape[len(shape) - k:] != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape [*, "
                           f"{', '.join(map(str, ns))}], but got input of size{list(shape)}")
    if weight is not None and weight._data.shape != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight._data.shape)} and normalized_shape = {list(ns)}")
    if eps is None:
        d = input._data.dtype  # 16-bit floats compute in float32, and so take float32's epsilon (as PyTorch)
        eps = float(np.finfo(np.float32 if d.itemsize == 2 and d.kind in "fV" else d).eps)
    return _in_float32(RmsNormBackward0, input, weight, k=k, eps=eps)


# ------------------------------------------------------------------------------------------------
# batch norm: statistics per channel (dim 1) over batch and spatial dims
# ------------------------------------------------------------------------------------------------
def _channel_view(x):
    """``x`` as ``(N, C)`` or ``(N, C, L)`` plus the axes to reduce and the per-channel broadcast shape."""
    if x.ndim == 2:
        return x, (0,), (1, x.shape[1])
    x3 = x.reshape(x.shape[0], x.shape[1], int(np.prod(x.shape[2:])))  # not -1: size-0 inputs
    return x3, (0, 2), (1, x.shape[1], 1)


class NativeBatchNormBackward0(Op):
    """Batch norm with batch statistics (training) or given running statistics (evaluation).

    In training the caller passes ``centered = x - mean`` and the biased ``var`` (it also needs them
    for the running statistics), so the forward only scales ``centered`` in place into ``xhat``.
    """

    _vmap = "batch_norm"  # batching rule kind (func/_batching_rules_nn.py)
    _saves = (0, 1)
    _graph_recompute = True  # xhat/rstd (training) and the scale are rebuilt from the boxes under create_graph

    def forward(self, x, w, b, centered, mean, var, training, eps):
        _, axes, ps = _channel_view(x)
        self.shape, self.axes, self.ps, self.training, self.eps = x.shape, axes, ps, training, eps
        rstd = (1 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
        if training:
            xhat = centered
            xhat *= rstd.reshape(ps)
            self.saved = (xhat, rstd, w)
            out = xhat * w.reshape(ps) if w is not None else xhat.copy()
        else:
            xv = _channel_view(x)[0]
            scale = rstd if w is None else w * rstd
            self.saved = (xv, rstd, w, mean, scale)
            out = (xv - mean.reshape(ps).astype(x.dtype, copy=False)) * scale.reshape(ps)
        if b is not None:
            out += b.reshape(ps)
        return out.reshape(x.shape)

    def backward(self, g):
        e = self._edges
        gv = g.reshape(g.shape[0], g.shape[1], -1) if g.ndim > 2 else g
        axes, ps = self.axes, self.ps
        gx = gw = gb = None
        gsum = gv.sum(axes)
        if self._graph:
            return self._graph_backward(gv, gsum)
        if self.training:
            xhat, rstd, w = self.saved
            n = xhat.size // xhat.shape[1]
            gdot = _channel_dot(gv, xhat)
            if e[0] is not None:
                k = rstd if w is None else w * rstd
                gx = gv - (gsum / n).reshape(ps)
                gx -= xhat * (gdot / n).reshape(ps)
                gx *= k.reshape(ps)
                gx = gx.reshape(self.shape)
            if len(e) > 1 and e[1] is not None:
                gw = gdot
        else:
            xv, rstd, w, mean, scale = self.saved
            if e[0] is not None:
                gx = (gv * scale.reshape(ps)).reshape(self.shape)
            if len(e) > 1 and e[1] is not None:
                gw = ((_channel_dot(gv, xv) - gsum * mean) * rstd).astype(xv.dtype, copy=False)
        if len(e) > 2 and e[2] is not None:
            gb = gsum
        return gx, gw, gb

    def _graph_backward(self, gv, gsum):
        """``backward`` on boxes (create_graph=True): the statistics are recomputed from the boxed input."""
        e, axes, ps = self._edges, self.axes, self.ps
        x, w = self._graph_args[0], self._graph_args[1]
        xv = x.reshape(gv.shape)
        gx = gw = gb = None
        if self.training:
            n = xv.size // xv.shape[1]
            xc = xv - xv.mean(axis=axes, keepdims=True)
            rstd = 1 / np.sqrt((xc * xc).mean(axis=axes, keepdims=True) + self.eps)
            xhat = xc * rstd
            gdot = (gv * xhat).sum(axis=axes)
            if e[0] is not None:
                k = rstd if w is None else w.reshape(ps) * rstd
                gx = ((gv - (gsum / n).reshape(ps) - xhat * (gdot / n).reshape(ps)) * k).reshape(self.shape)
            if len(e) > 1 and e[1] is not None:
                gw = gdot
        else:
            _, rstd, _, mean, _ = self.saved  # the running statistics: constants
            if e[0] is not None:
                scale = rstd if w is None else w * rstd
                gx = (gv * scale.reshape(ps)).reshape(self.shape)
            if len(e) > 1 and e[1] is not None:
                gw = (gv * (xv - mean.reshape(ps))).sum(axis=axes) * rstd
        if len(e) > 2 and e[2] is not None:
            gb = gsum
        return gx, gw, gb


def _channel_dot(a, b):
    """Per-channel ``sum(a * b)`` over all but dim 1 of ``(N, C)`` or ``(N, C, L)`` arrays."""
    return np.einsum("ncl,ncl->c", a, b) if a.ndim == 3 else np.einsum("nc,nc->c", a, b)


# set by func/_batching_rules_nn.py: F.batch_norm in training / F.instance_norm's running statistics with
# batched tensors under vmap (statistics per sample)
vmap_train_batch_norm = vmap_instance_stats = None


def _batched(*tensors):
    """Whether a tensor is batched under vmap (its ``_data`` is a stand-in that knows its physical tensor)."""
    return any(t is not None and getattr(t._data, "_src", None) is not None for t in tensors)


def _update_running(buf: Tensor, new, momentum):
    d = buf._data
    d *= 1 - momentum
    d += (momentum * new).astype(d.dtype, copy=False)
    bump(buf)


def batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum: float,
               eps: float, cudnn_enabled: bool = True) -> Tensor:
    """``torch.batch_norm``: per-channel (dim 1) normalization of an ``(N, C, *)`` input.

    In training, normalizes with the batch's biased variance and updates ``running_mean``/``running_var``
    in place (``(1 - momentum) * old + momentum * new``, unbiased variance); in evaluation uses them.
    RuntimeError for parameter sizes other than ``C``; ValueError for one value per channel in training.
    """
    x = input._data
    if training and not x.ndim:  # PyTorch's batch-size check reads size[0]
        raise IndexError("tuple index out of range")
    if training and x.shape[0] * math.prod(x.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    if x.size == 0:
        return _empty_batch_norm(input, weight, bias)
    c = x.shape[1] if x.ndim > 1 else 0  # PyTorch reads the channel count of a 0-d/1-d input as 0
    params = (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var))
    for name, p in params:
        if p is not None and p._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {p._data.size}")
    if x.ndim == 0:
        raise RuntimeError("batch_norm: expected an input of at least 2 dims (N, C, *), but got a 0-d tensor")
    if x.ndim == 1 and training:  # PyTorch reads the channel dim in training before the dtype check
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if x.dtype.kind not in "fcV":
        raise NotImplementedError(f'"batch_norm" not implemented for \'{input.dtype._aten_name}\'')
    given = [p for _, p in params if p is not None]
    check_param_dtypes(x.dtype, *given[:1])  # the first parameter's dtype is checked early, the rest late
    if x.ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    check_param_dtypes(x.dtype, *given)
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in "
                               f"evaluation mode")
        return NativeBatchNormBackward0.apply(input, weight, bias, centered=None, mean=running_mean._data,
                                              var=running_var._data, training=False, eps=eps)
    if _State.vmap and _batched(input, running_mean, running_var):  # per-sample statistics (func/)
        return vmap_train_batch_norm(input, weight, bias, running_mean, running_var, momentum, eps)
    n = x.size // c
    xv, axes, ps = _channel_view(x)
    mean = xv.mean(axes)
    centered = xv - mean.reshape(ps)
    var = _channel_dot(centered, centered) / n
    if running_mean is not None:
        _update_running(running_mean, mean, momentum)
    if running_var is not None:
        _update_running(running_var, var * (n / (n - 1)), momentum)
    return NativeBatchNormBackward0.apply(input, weight, bias, centered=centered, mean=mean, var=var,
                                          training=True, eps=eps)


def _empty_batch_norm(input, weight, bias):
    """PyTorch keeps an empty input away from its kernels (any dtype, no parameter checks): a copy of it,
    times ``weight[0]`` and plus ``bias[0]`` when given, so that the graph still reaches them."""
    out = _S.clone(input)
    if weight is not None:
        out = _P.mul(out, weight[0])
    return out if bias is None else _P.add(out, bias[0])


# ------------------------------------------------------------------------------------------------
# group and instance norm: statistics per (sample, group of channels)
# ------------------------------------------------------------------------------------------------
class NativeGroupNormBackward0(Op):
    """Normalize each ``(n, group)`` block of an ``(N, C, *)`` input, then per-channel affine."""
    _vmap = "group_norm"  # batching rule kind (func/_batching_rules_nn.py)

    _saves = (0, 1)
    _graph_recompute = True  # xhat and rstd are rebuilt from the boxed input under create_graph

    def forward(self, x, w, b, groups, eps):
        n, c = x.shape[0], x.shape[1]
        self.sp = sp = int(np.prod(x.shape[2:]))  # (explicit sizes: -1 cannot be solved for an empty input)
        xhat, rstd = _row_normalize(x.reshape(n * groups, c // groups * sp), eps)
        self.shape, self.groups, self.eps = x.shape, groups, eps
        self.saved = (xhat, rstd, w)
        if w is None and b is None:
            return xhat.reshape(x.shape)
        out = xhat.reshape(n, c, sp)
        out = out * w[:, None] if w is not None else out.copy()
        if b is not None:
            out += b[:, None]
        return out.reshape(x.shape)

    def backward(self, g):
        xhat, rstd, w, row_backward = _saved_rows(self)
        n, c = self.shape[0], self.shape[1]
        g3 = g.reshape(n, c, self.sp)
        e = self._edges
        gx = gw = gb = None
        if e[0] is not None:
            gxhat = g3 * w.reshape(c, 1) if w is not None else g3
            gx = row_backward(gxhat.reshape(xhat.shape), xhat, rstd).reshape(self.shape)
        if len(e) > 1 and e[1] is not None:
            gw = np.einsum("ncl,ncl->c", g3, xhat.reshape(n, c, self.sp))
        if len(e) > 2 and e[2] is not None:
            gb = g3.sum((0, 2))
        return gx, gw, gb


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    """``torch.group_norm``: normalize each sample over groups of ``C // num_groups`` channels.

    RuntimeError when ``C`` is not divisible by ``num_groups`` or weight/bias are not of size ``C``.
    """
    shape = input._data.shape
    if len(shape) < 2 or shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(shape)} and num_groups={num_groups}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and p._data.shape != (shape[1],):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(p._data.shape)} and input of shape {list(shape)}")
    return _in_float32(NativeGroupNormBackward0, input, weight, bias, groups=int(num_groups), eps=eps)


def instance_norm(input: Tensor, weight=None, bias=None, running_mean=None, running_var=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5,
                  cudnn_enabled: bool = True) -> Tensor:
    """``torch.instance_norm``: normalize each ``(n, c)`` slice over its spatial dims.

    With ``use_input_stats`` the running statistics (if given) are updated with the batch average of
    the per-instance mean and unbiased variance; otherwise they are used as in evaluation batch norm.
    """
    shape = input._data.shape
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = (shape[0], shape[1]) if len(shape) > 1 else (1, 0)
    # PyTorch runs batch norm on the (1, N*C, *) view with each per-channel tensor repeated N times
    for name, p in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if p is not None and p._data.size != c:
            raise RuntimeError(f"{name} should contain {n * c} elements not {n * p._data.size}")
    if not use_input_stats:
        return batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)
    if (running_mean is not None or running_var is not None) and _State.vmap and \
            _batched(input, running_mean, running_var):  # each sample's statistics into its own (func/)
        vmap_instance_stats(input, running_mean, running_var, momentum)
    elif running_mean is not None or running_var is not None:
        x3 = input._data.reshape(shape[0], shape[1], -1)
        m = x3.shape[2]
        if running_mean is not None:
            _update_running(running_mean, x3.mean(2).mean(0), momentum)
        if running_var is not None:
            _update_running(running_var, x3.var(2, ddof=1 if m > 1 else 0).mean(0), momentum)
    return _in_float32(NativeGroupNormBackward0, input, weight, bias, groups=shape[1], eps=eps)


# ------------------------------------------------------------------------------------------------
# vector norms along a dim: normalize (cosine_similarity, pairwise_distance and pdist in distance.py)
# ------------------------------------------------------------------------------------------------
def _pnorm(x, p, axis, keepdims=True):
    if p == 2 and x.dtype.kind == "c":  # sqrt(sum |x|^2), a real norm
        return np.sqrt((x * np.conj(x)).real.sum(axis, keepdims=keepdims))
    if p == 2:
        return np.sqrt(np.einsum("...i,...i->...", x, x)[..., None] if axis == -1 and keepdims
                       else (x * x).sum(axis, keepdims=keepdims))
    if p == np.inf:
        return np.abs(x).max(axis, keepdims=keepdims)
    if p == -np.inf:
        return np.abs(x).min(axis, keepdims=keepdims)
    if p == 1:
        return np.abs(x).sum(axis, keepdims=keepdims)
    if p == 0:  # the count of nonzeros, as torch.norm
        return (x != 0).sum(axis, keepdims=keepdims).astype(x.dtype)
    return (np.abs(x) ** p).sum(axis, keepdims=keepdims) ** (1.0 / p)


def _pnorm_grad(x, n, p):
    """``d||x||_p / dx`` given the (keepdims) norm ``n``; zero where the norm is zero."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:
            d = x / n
        elif p == 0:  # piecewise constant: zero gradient
            d = np.zeros_like(x)
        elif p == 1:
            d = np.sign(x)
        elif p == np.inf or p == -np.inf:
            a = np.abs(x)
            d = np.sign(x) * (a == n)
            d = d / np.maximum((a == n).sum(-1, keepdims=True), 1)
        else:
            d = np.sign(x) * np.abs(x) ** (p - 1) / n ** (p - 1)
    return np.where(n == 0, 0, d).astype(x.dtype, copy=False)


class NormalizeBackward(Op):
    """``x / max(||x||_p, eps)`` along ``dim``."""

    _saves = (0,)

    def forward(self, x, p, dim, eps):
        xm = np.moveaxis(x, dim, -1)
        n = _pnorm(xm, p, -1)
        d = np.maximum(n, eps).astype(x.dtype, copy=False)
        self.saved, self.n, self.d, self.p, self.dim, self.eps = xm, n, d, p, dim, eps
        return np.moveaxis(xm / d, -1, dim)

    _graph_recompute = True  # the norm is rebuilt from the boxed input under create_graph

    def backward(self, g):
        xm, n, d = self.saved, self.n, self.d
        if self._graph:
            xm = np.moveaxis(self._graph_args[0], self.dim, -1)
            n = _pnorm(xm, self.p, -1)
            d = np.where(n >= self.eps, n, self.eps)  # clamp_min: the gradient passes where n >= eps
        gm = np.moveaxis(g, self.dim, -1)
        gx = gm / d
        dot = np.einsum("...i,...i->...", gm, xm.conj() if xm.dtype.kind == "c" else xm)[..., None]
        dot = dot.real if xm.dtype.kind == "c" else dot  # complex: only Re(<g, x>) flows through the real norm
        gx -= (n >= self.eps) * (dot / (d * d)) * _pnorm_grad(xm, n, self.p)
        return np.moveaxis(gx, -1, self.dim)


# ------------------------------------------------------------------------------------------------
# local response normalization
# ------------------------------------------------------------------------------------------------
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``F.local_response_norm``: ``x / (k + alpha * mean(x^2 over `size` neighbouring channels))^beta``.

    ``input`` is ``(N, C, *)`` with at least 3 dims; the channel window for channel ``c`` is
    ``[c - size // 2, c + (size - 1) // 2]``, zero-padded at the ends, and the mean always divides by
    ``size`` (PyTorch pads the squares and average-pools them). An empty input is returned as is.
    ValueError for fewer than 3 dims; RuntimeError (from the pooling) for ``size < 1``.
    """
    _check_tensor(input, "local_response_norm", position=1)
    dim = input._data.ndim
    if dim < 3:  # PyTorch's message, its odd spacing included
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input._data.size == 0:
        return input
    sizes = input._data.shape
    # PyTorch pools (N, 1, C, L) with a (size, 1) window for 3-d inputs and (N, 1, C, H, rest) with a
    # (size, 1, 1) one otherwise; both are a window along C alone, so one 2-d pooling covers every rank
    div = _S.reshape(_P.mul(input, input), (sizes[0], 1, sizes[1], -1))
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool(div, 2, (size, 1), stride=1)
    div = _S.reshape(div, sizes)
    div = _P.pow(_P.add(_P.mul(div, alpha), k), beta)
    return _P.div(input, div)
