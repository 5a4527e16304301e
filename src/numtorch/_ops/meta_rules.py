"""Shape rules for the ops whose NumPy forward would allocate big intermediates on meta tensors.

``_ops/_meta.py`` runs an op on meta inputs through the Op class's ``_meta_rule(node, *arrays,
**options)`` when it has one, else through its own forward on meta arrays (which allocates what the
forward allocates, transiently). The rules here give the result shapes and dtypes directly for the
ops where that matters: convolution (im2col columns), pooling (window copies), embedding (the rows),
elementwise activations and GELU. Attached at import (``numtorch/__init__.py`` imports this module).
"""
from __future__ import annotations

import numpy as np

from .._backend import meta
from .conv import ConvolutionBackward0
from .embedding import EmbeddingBackward0
from .indexing import MaskedSelectBackward0
from .nn_ops import GeluBackward0, _Activation
from .pooling import _AdaptiveMax, _AvgPool, _MaxPool
from .unary import ReluBackward0

__all__ = []


def _same(node, x, *args, **kwargs):
    """An elementwise op of one tensor: its shape and dtype."""
    return meta(x.shape, x.dtype)


def _conv(node, x, w, b, *, stride, pads, dilation, groups, transposed, output_padding):
    """(N, C, *S) or (C, *S) -> (N, O, *out): PyTorch's output size for direct and transposed convolution."""
    unbatched = x.ndim == w.ndim - 1
    n = () if unbatched else x.shape[:1]
    sp, ks = x.shape[-(w.ndim - 2):] if w.ndim > 2 else (), w.shape[2:]
    if transposed:
        out = tuple((s - 1) * st - lo - hi + d * (k - 1) + op + 1
                    for s, st, (lo, hi), d, k, op in zip(sp, stride, pads, dilation, ks, output_padding))
        o = w.shape[1] * groups
    else:
        out = tuple((s + lo + hi - d * (k - 1) - 1) // st + 1
                    for s, st, (lo, hi), d, k in zip(sp, stride, pads, dilation, ks))
        o = w.shape[0]
    return meta(n + (o,) + out, np.result_type(x.dtype, w.dtype))


def _max_pool(node, x, *, out_sp, return_indices, **_):
    out = meta(x.shape[:x.ndim - len(out_sp)] + tuple(out_sp), x.dtype)
    return (out, meta(out.shape, np.int64)) if return_indices else out


def _avg_pool(node, x, *, out_sp, **_):
    return meta(x.shape[:x.ndim - len(out_sp)] + tuple(out_sp), x.dtype)


def _data_dependent(node, *args, **kwargs):
    """PyTorch's meta kernels raise for ops whose result shape depends on the values."""
    raise NotImplementedError(f"{node.name()} on meta tensors: the shape of the result depends on the tensor's "
                              f"values, which a meta tensor does not have")


def _embedding(node, w, indices, padding_idx, scale_grad_by_freq, sparse=False):
    return meta(indices.shape + w.shape[1:], w.dtype)


_Activation._meta_rule = GeluBackward0._meta_rule = ReluBackward0._meta_rule = _same
ConvolutionBackward0._meta_rule = _conv
_MaxPool._meta_rule = _AdaptiveMax._meta_rule = _max_pool
_AvgPool._meta_rule = _avg_pool
EmbeddingBackward0._meta_rule = _embedding
MaskedSelectBackward0._meta_rule = _data_dependent
