"""Fold an eval-mode BatchNorm into the Conv or Linear layer before it (mirrors ``torch.nn.utils.fusion``).

In eval mode BatchNorm is the affine map ``y = (x - mean) * w / sqrt(var + eps) + b`` per channel, so
it can be absorbed into the preceding layer's weight (scaled per output channel) and bias.
"""
from __future__ import annotations

import copy

from ..._ops.creation import ones_like, zeros_like
from ..._ops.unary import rsqrt
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _check_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` (eval mode) computing ``bn(conv(x))`` for ``bn`` in eval mode; ``transpose`` for
    ConvTranspose layers (output channels on dim 1 of the weight).

    Raises AssertionError when either is in training mode or ``bn`` keeps no running statistics.
    """
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps,
                                                    bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose: bool = False):
    """``(weight, bias)`` Parameters of the fused convolution (missing ``conv_b``/``bn_w``/``bn_b`` count
    as zeros/ones/zeros); they keep the convolution's dtypes and ``requires_grad``."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    var_rsqrt = rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (len(conv_w.shape) - 2)
    fused_w = (conv_w * (bn_w * var_rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * var_rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` (eval mode) computing ``bn(linear(x))`` for ``bn`` in eval mode.

    Raises AssertionError when either is in training mode, ``bn`` keeps no running statistics, or its
    ``num_features`` is neither ``linear.out_features`` nor 1.
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """``(weight, bias)`` Parameters of the fused linear layer (a missing ``linear_b`` counts as zeros)."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
