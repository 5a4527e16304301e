"""PyTorch's native (ATen) forms of the norms, which return the statistics their backward saves:
``torch.native_batch_norm``, ``torch._native_batch_norm_legit``, ``aten._batch_norm_with_update``,
``torch.native_layer_norm`` and ``torch.native_group_norm``.

The normalized output is the public kernel's (``norm_ops.batch_norm`` & co., one fused Op each); the
statistics beside it are computed again from the input, as PyTorch's kernels report them:

* batch norm: ``save_mean`` and ``save_invstd = 1 / sqrt(var + eps)`` (biased variance) per channel in
  training, empty tensors of shape ``(0,)`` in evaluation; neither requires grad.
* layer norm: ``mean`` and ``rstd`` of shape ``(*batch, 1, ..., 1)``; neither requires grad.
* group norm: ``mean`` and ``rstd`` of shape ``(N, group)``; these are differentiable in PyTorch
  (its backward takes their gradients), so here they are numtorch ops on the input.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from . import reduction as _R, shape as _S, unary as _U
from .norm_ops import batch_norm, group_norm, layer_norm

__all__ = ["native_batch_norm", "_native_batch_norm_legit", "native_layer_norm", "native_group_norm"]


def _empty(like: np.ndarray, dtype=None) -> Tensor:
    return _make(np.empty((0,), dtype or like.dtype))


def _batch_stats(x: np.ndarray, eps: float):
    """Per-channel batch mean and ``1 / sqrt(biased var + eps)`` of an ``(N, C, *)`` array."""
    axes = (0, *range(2, x.ndim))
    mean = x.mean(axes)
    var = x.var(axes)
    return _make(mean), _make((1 / np.sqrt(var + eps)).astype(x.dtype, copy=False))


def native_batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum: float,
                      eps: float):
    """``torch.native_batch_norm``: ``(out, save_mean, save_invstd)``; ``out`` is ``torch.batch_norm``'s (the
    running statistics are updated in training); the saved statistics are per channel in training and
    empty ``(0,)`` tensors in evaluation."""
    out = batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    x = input._data
    if training:
        return (out, *_batch_stats(x, eps))
    return out, _empty(x), _empty(x)


def _native_batch_norm_legit(input: Tensor, weight, bias, *args):
    """``torch._native_batch_norm_legit``: ``native_batch_norm`` with the running statistics, or without
    them (``(input, weight, bias, training, momentum, eps)``: batch statistics always)."""
    if len(args) == 3:
        training, momentum, eps = args
        return native_batch_norm(input, weight, bias, None, None, training, momentum, eps)
    return native_batch_norm(input, weight, bias, *args)


def _batch_norm_with_update(input: Tensor, weight, bias, running_mean, running_var, momentum: float, eps: float):
    """``torch.ops.aten._batch_norm_with_update``: training batch norm updating the running statistics;
    ``(out, save_mean, save_invstd, reserve)`` with an empty uint8 ``reserve`` (a cuDNN workspace)."""
    res = native_batch_norm(input, weight, bias, running_mean, running_var, True, momentum, eps)
    return (*res, _empty(input._data, np.uint8))


def native_layer_norm(input: Tensor, normalized_shape, weight, bias, eps: float):
    """``torch.native_layer_norm``: ``(out, mean, rstd)``, the statistics of shape ``(*batch, 1, ..., 1)``."""
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    x = input._data
    k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    axes = tuple(range(x.ndim - k, x.ndim))
    if x.size:
        mean = x.mean(axes, keepdims=True)
        rstd = (1 / np.sqrt(x.var(axes, keepdims=True) + eps)).astype(x.dtype, copy=False)
    else:
        shape = x.shape[:x.ndim - k] + (1,) * k
        mean, rstd = np.zeros(shape, x.dtype), np.zeros(shape, x.dtype)
    return out, _make(mean), _make(rstd)


def native_group_norm(input: Tensor, weight, bias, N: int, C: int, HxW: int, group: int, eps: float):
    """``torch.native_group_norm``: ``(out, mean, rstd)`` for an input of ``N * C * HxW`` elements; the
    statistics, of shape ``(N, group)``, are differentiable."""
    out = group_norm(input, group, weight, bias, eps)
    rows = _S.reshape(input, (N, group, C // group * HxW))
    mean = _R.mean(rows, -1)
    var = _R.var(rows, -1, correction=0)
    return out, mean, _U.rsqrt(var + eps)
