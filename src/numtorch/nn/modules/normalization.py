"""Per-sample normalization layers (mirrors ``torch/nn/modules/normalization.py``): LayerNorm, GroupNorm, RMSNorm,
LocalResponseNorm, and the legacy CrossMapLRN2d.

Unlike BatchNorm these normalize each sample on its own, so they behave the same in train and
eval mode and keep no running statistics.
"""
from __future__ import annotations

import numbers

from ..._ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from . import _cross_map_lrn
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _register_affine(module, shape, affine, bias, factory_kwargs):
    """Register the ``weight`` and ``bias`` Parameters of ``shape`` (or None placeholders, as PyTorch)."""
    module.register_parameter("weight", Parameter(empty(shape, **factory_kwargs)) if affine else None)
    module.register_parameter("bias", Parameter(empty(shape, **factory_kwargs)) if affine and bias else None)


def _reset_affine(module):
    """Weight to ones and bias to zeros, where they exist."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the trailing ``normalized_shape`` dims
    (``torch.nn.LayerNorm``); biased variance.

    Args: ``normalized_shape`` (int or shape), ``eps=1e-5``, ``elementwise_affine=True`` (learnable
    ``weight`` of ones and ``bias`` of zeros, both of ``normalized_shape``), ``bias=True``, ``device``, ``dtype``.
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalize ``(N, C, *)`` over groups of ``C / num_groups`` channels per sample (``torch.nn.GroupNorm``),
    then a per-channel affine map (``affine=True``). ValueError when ``num_channels`` is not divisible by
    ``num_groups``."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, (num_channels,), affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` dims (``torch.nn.RMSNorm``);
    ``eps=None`` uses the dtype's machine epsilon."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """``x / (k + alpha / size * sum(x^2 over size neighbouring channels))^beta`` (``torch.nn.LocalResponseNorm``).

    Input ``(N, C, *)`` with at least 3 dims; no parameters. Args: ``size`` (channels in the window),
    ``alpha=1e-4``, ``beta=0.75``, ``k=1.0``. ValueError (at forward) for fewer than 3 dims.
    """

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """The legacy cross-channel LRN of Lua Torch (``torch.nn.CrossMapLRN2d``): ``(N, C, H, W)`` input only
    (ValueError otherwise); its channel window and gradient are the legacy ones (``_cross_map_lrn.py``),
    not ``LocalResponseNorm``'s. Args: ``size``, ``alpha=1e-4``, ``beta=0.75``, ``k=1``."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _cross_map_lrn.CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
