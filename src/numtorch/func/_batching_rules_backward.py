"""Batching rules the backward under vmap needs (``_batched_backward.py``).

``BACKWARD_RULES`` maps a node class to ``rule(node, grads, levels, graph)``: the node's backward for
gradients batched at ``levels`` (batched tensors, or plain ones shared by the batch), one result per
input edge, ``graph`` saying whether the results must be differentiable (create_graph). They serve
nodes whose own formula cannot run on a batched gradient: basic indexing and slicing write the
gradient into a zero array (``_ops/_util.placed``), which a boxed gradient cannot be written into;
``cat`` splits it with ``np.split`` (and a linear backward's array map under create_graph).

``constant_gradient`` is the forward batching rule of ``graph_backward.ConstantGradient`` (a
gradient computed from constants under create_graph).
"""
from __future__ import annotations

import numpy as np

from .._ops._util import placed
from .._ops.indexing import _BasicIndex
from .._ops.rearrange import CatBackward0
from .._ops.slicing import SelectBackward0, SliceBackward0
from .._tensor import _make
from ..autograd.graph_backward import ConstantGradient
from ._batched import RULES, align, batch_shape, unwrap_physical, wrap

__all__ = ["BACKWARD_RULES"]


def _placed_rule(key_attr):
    """The gradient of ``a[key]`` (``key``: the node attribute ``key_attr``): zeros of the input's
    shape with the gradient written at ``key``, for the whole batch at once (one full slice per batch
    dim in front of the key). With ``graph``, a differentiable write (``CopySlices``) into zeros."""
    def rule(node, grads, levels, graph):
        p = align(grads[0], levels)
        key = getattr(node, key_attr)
        key = (slice(None),) * len(levels) + (key if type(key) is tuple else (key,))
        shape = batch_shape(levels) + tuple(node.shape)
        if graph:
            out = _make(np.zeros(shape, p._data.dtype))
            out[key] = p
        else:
            out = _make(placed(shape, key, p._data))
        return (wrap(out, levels),) + (None,) * (len(node._edges) - 1)
    return rule


def _cat_rule(node, grads, levels, graph):
    """The gradient of ``cat``: the pieces of the gradient along the (physical) cat dim; zeros for the
    1-d empty inputs ``cat`` skips."""
    p = align(grads[0], levels)
    dim = len(levels) + node.dim
    res, start = [], 0
    for i, (shape, dtype) in enumerate(node.meta):
        if i in node.parts:
            res.append(wrap(p.narrow(dim, start, shape[node.dim]), levels))
            start += shape[node.dim]
        else:
            res.append(_make(np.zeros(shape, dtype)))
    return tuple(res)


BACKWARD_RULES = {_BasicIndex: _placed_rule("key"), SliceBackward0: _placed_rule("idx"),
                  SelectBackward0: _placed_rule("idx"), CatBackward0: _cat_rule}


def constant_gradient(cls, args, kwargs, levels):
    """``ConstantGradient(value, *linked)``: the value aligned to the levels, the linked Tensors (only
    their graph matters) as their physical tensors."""
    return wrap(cls.apply(align(args[0], levels), *[unwrap_physical(a) for a in args[1:]]), levels)


ConstantGradient._vmap = "constant_gradient"
RULES["constant_gradient"] = constant_gradient
