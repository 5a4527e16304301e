"""Cross-rank batch normalization behind ``nn.SyncBatchNorm`` (mirrors ``torch/nn/modules/_functions.py``).

Forward: each rank computes its per-channel count, mean and sum of squared deviations; one
``all_gather`` gives every rank all of them, and each combines them into the statistics of the global
batch (Chan et al.'s parallel variance: ``M2 = sum(M2_i + n_i (mean_i - mean)^2)``), so that every
rank normalizes with the same mean and biased variance and updates the running statistics with the
unbiased one, exactly as BatchNorm on the concatenated batch would. Backward: the two per-channel
sums the input gradient needs, ``sum(dy)`` and ``sum(dy (x - mean))``, are all-reduced; the gradients
of ``weight`` and ``bias`` stay local (DistributedDataParallel averages them with the others).

``nn/modules/batchnorm.py`` (layer 6) reaches this file through the hooks it sets there at import.
"""
from __future__ import annotations

import numpy as np

from .._tensor import _make
from ..autograd.function import Function, once_differentiable
from ..nn.modules import batchnorm as _batchnorm
from . import collectives, distributed_c10d

__all__ = ["SyncBatchNormFunction"]


def _axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _per_channel(v, ndim):
    """(C,) -> broadcastable against (N, C, *)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2))


class SyncBatchNormFunction(Function):
    """``(input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size)``
    -> the normalized input; running statistics are updated in place."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size):
        x = input._data
        c = x.shape[1]
        n = x.size // c if c else 0
        if n == 1 and world_size < 2:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {n}")
        x64 = x.astype(np.float64)
        mine = np.zeros(2 * c + 1)
        if x.size:
            mean_i = x64.mean(axis=_axes(x))
            mine[:c] = mean_i
            mine[c:2 * c] = ((x64 - _per_channel(mean_i, x.ndim)) ** 2).sum(axis=_axes(x))
            mine[2 * c] = n
        parts = [_make(np.zeros_like(mine)) for _ in range(world_size)]
        collectives.all_gather(parts, _make(mine), group=process_group)
        rows = np.stack([p._data for p in parts])
        rows = rows[rows[:, 2 * c] >= 1]  # ranks with an empty input take no part
        counts = rows[:, 2 * c]
        total = counts.sum()
        mean = (counts[:, None] * rows[:, :c]).sum(0) / total
        m2 = (rows[:, c:2 * c] + counts[:, None] * (rows[:, :c] - mean) ** 2).sum(0)
        var = m2 / total
        invstd = 1.0 / np.sqrt(var + eps)
        if running_mean is not None:
            rm = running_mean._data
            rm[...] = (1 - momentum) * rm + momentum * mean
            running_mean._vc[0] += 1
        if running_var is not None:
            rv = running_var._data
            unbiased = m2 / (total - 1) if total > 1 else np.full_like(m2, np.inf)
            rv[...] = (1 - momentum) * rv + momentum * unbiased
            running_var._vc[0] += 1
        ctx.stats = (mean, invstd, total)
        ctx.group = process_group
        ctx.save_for_backward(input, weight)
        xhat = (x64 - _per_channel(mean, x.ndim)) * _per_channel(invstd, x.ndim)
        if weight is not None:
            xhat = xhat * _per_channel(weight._data.astype(np.float64), x.ndim)
        if bias is not None:
            xhat = xhat + _per_channel(bias._data.astype(np.float64), x.ndim)
        return _make(xhat.astype(x.dtype))

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        mean, invstd, total = ctx.stats
        x, dy = input._data.astype(np.float64), grad_output._data.astype(np.float64)
        c, nd = x.shape[1], x.ndim
        xmu = x - _per_channel(mean, nd)
        sum_dy = dy.sum(axis=_axes(x)) if x.size else np.zeros(c)
        sum_dy_xmu = (dy * xmu).sum(axis=_axes(x)) if x.size else np.zeros(c)
        gi = gw = gb = None
        if ctx.needs_input_grad[0]:
            both = _make(np.concatenate([sum_dy, sum_dy_xmu]))
            collectives.all_reduce(both, group=ctx.group)
            g_dy, g_dy_xmu = both._data[:c] / total, both._data[c:] / total
            scale = invstd if weight is None else invstd * weight._data.astype(np.float64)
            gi = (dy - _per_channel(g_dy, nd) - xmu * _per_channel(invstd ** 2 * g_dy_xmu, nd)) * _per_channel(scale, nd)
            gi = _make(gi.astype(input._data.dtype))
        if weight is not None and ctx.needs_input_grad[1]:
            gw = _make((sum_dy_xmu * invstd).astype(weight._data.dtype))
        if weight is not None and ctx.needs_input_grad[2]:
            gb = _make(sum_dy.astype(weight._data.dtype))
        return gi, gw, gb, None, None, None, None, None, None


def _world_size(process_group):
    """Ranks to synchronize with: 1 when no process group is initialized (then SyncBatchNorm is BatchNorm)."""
    if not distributed_c10d.is_initialized():
        return 1
    return distributed_c10d.get_world_size(process_group)


_batchnorm.sync_world_size = _world_size  # the hooks nn.SyncBatchNorm calls
_batchnorm.sync_batch_norm = SyncBatchNormFunction.apply
