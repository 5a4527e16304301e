"""Sliding-block layers (mirrors ``torch/nn/modules/fold.py``): Fold (col2im) and Unfold (im2col).

Stateless wrappers around ``F.fold``/``F.unfold``; arguments are kept as given (ints print as ints).
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sum sliding blocks back into an image (``torch.nn.Fold``): ``(N, C*kH*kW, L)`` or ``(C*kH*kW, L)`` ->
    ``(N, C, *output_size)`` or ``(C, *output_size)``, overlapping values added.

    Args: ``output_size``, ``kernel_size``, ``dilation=1``, ``padding=0``, ``stride=1`` (ints or pairs).
    RuntimeError when ``L`` is not the number of blocks or dim -2 is not divisible by ``kH*kW``.
    """

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extract sliding blocks (``torch.nn.Unfold``): ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C*kH*kW, L)``
    or ``(C*kH*kW, L)``, blocks in row-major order.

    Args: ``kernel_size``, ``dilation=1``, ``padding=0``, ``stride=1`` (ints or pairs). RuntimeError for
    other ranks or when no block fits.
    """

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")
