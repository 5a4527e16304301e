"""Padding layers (mirrors ``torch/nn/modules/padding.py``).

``padding`` is an int (same on every side) or a tuple ``(left, right[, top, bottom[, front, back]])``,
last dim first, exactly as ``F.pad`` takes it; the layer stores it as a tuple of ``2 * dims`` ints.
"""
from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    """``F.pad(input, self.padding, self._mode)``; subclasses set ``_dims`` (spatial dims padded)."""

    __constants__ = ["padding"]
    _mode = "constant"
    _dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(2 * self._dims)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: ``(N, C, W)`` -> ``(N, C, W + left + right)``."""
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``; ``padding`` = ``(left, right, top, bottom)``."""
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``; ``padding`` = ``(left, right, top, bottom, front, back)``."""
    _dims = 3


class _ZeroPadMixin:
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadMixin, ConstantPad1d):
    """Pad the last dim with zeros."""


class ZeroPad2d(_ZeroPadMixin, ConstantPad2d):
    """Pad the last two dims with zeros; ``padding`` = ``(left, right, top, bottom)``."""


class ZeroPad3d(_ZeroPadMixin, ConstantPad3d):
    """Pad the last three dims with zeros."""


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its mirror image (edge not repeated); each pad must be smaller than the dim."""
    _mode, _dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Reflection padding of the last two dims; ``padding`` = ``(left, right, top, bottom)``."""
    _mode, _dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    """Reflection padding of the last three dims."""
    _mode, _dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge values."""
    _mode, _dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Replication padding of the last two dims; ``padding`` = ``(left, right, top, bottom)``."""
    _mode, _dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    """Replication padding of the last three dims."""
    _mode, _dims = "replicate", 3


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        lo, hi = self._dims + 1, self._dims + 2
        if input.dim() not in (lo, hi):
            raise ValueError(f"expected {lo}D or {hi}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dim by wrapping around; ValueError unless the input is 2-D or 3-D."""
    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Circular padding of the last two dims; ValueError unless the input is 3-D or 4-D."""
    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Circular padding of the last three dims; ValueError unless the input is 4-D or 5-D."""
    _dims = 3
