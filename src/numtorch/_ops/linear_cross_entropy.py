"""The logits of ``F.linear_cross_entropy`` (PyTorch 2.13): ``linear(x, W, b)`` with ``W``
``(C, *out_features, in_features)`` reshaped to K-dimensional logits ``(N, C, *out_features)``, and the
argument checks, in PyTorch's order. ``nn.functional.linear_cross_entropy`` takes their cross entropy
(PyTorch's reference path)."""
from __future__ import annotations

import math

from .._tensor import Tensor
from .nn_ops import linear

__all__: list = []  # reached through nn.functional, as in PyTorch


def linear_logits(input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias=None, ignore_index=None):
    """``(logits, ignore_index)``: ``input`` ``(in_features,)`` or ``(N, in_features)``; ``linear_weight``
    ``(C, *out_features, in_features)``; ``target`` class indices or probabilities for the logits
    ``(N, C, *out_features)``; ``ignore_index=None`` becomes -100 (not allowed with probabilities).

    Raises RuntimeError with PyTorch's messages for wrong ranks or mismatched shapes.
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if out_features:  # one linear layer with C * prod(out_features) outputs, then the K-dim logits
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape(rows, in_features)
        linear_bias = linear_bias.reshape(rows) if linear_bias is not None else None
    return linear(input, linear_weight, linear_bias).reshape(logits_shape), ignore_index
