"""Pooling layers (mirrors ``torch/nn/modules/pooling.py``): max, average, adaptive, unpooling, power-average.

Stateless wrappers around ``F.*pool*``; they keep their arguments as given (MaxPool2d's
``kernel_size=2`` prints as ``2``), except AvgPool1d and MaxUnpool, which store tuples, as PyTorch.
"""
from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxUnpool1d", "MaxUnpool2d", "LPPool1d", "LPPool2d",
           "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool3d", "LPPool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling over ``(N, C, L)`` or ``(C, L)``; ``stride`` defaults to ``kernel_size``; returns
    ``(values, indices)`` when ``return_indices`` (``torch.nn.MaxPool1d``)."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` (``torch.nn.MaxPool2d``).

    ``H_out = floor_or_ceil((H + 2 padding - dilation (kernel - 1) - 1) / stride) + 1``.
    """

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _MaxUnpoolNd(Module):
    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of ``MaxPool1d``: ``forward(input, indices, output_size=None)``."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of ``MaxPool2d``: ``forward(input, indices, output_size=None)``."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of ``MaxPool3d``: ``forward(input, indices, output_size=None)``."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _triple(kernel_size)
        self.stride = _triple(stride if stride is not None else kernel_size)
        self.padding = _triple(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-d average pooling over ``(N, C, L)`` or ``(C, L)`` (``torch.nn.AvgPool1d``); zero padding counts in
    the divisor iff ``count_include_pad``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """2-d average pooling over ``(N, C, H, W)`` or ``(C, H, W)`` (``torch.nn.AvgPool2d``);
    ``divisor_override`` replaces the window size as divisor."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max over adaptive windows so that the output length is ``output_size`` (``torch.nn.AdaptiveMaxPool1d``)."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max over adaptive windows to an ``(oH, oW)`` output; ``None`` keeps that input size."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mean over adaptive windows so that the output length is ``output_size`` (``torch.nn.AdaptiveAvgPool1d``)."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Mean over adaptive windows to an ``(oH, oW)`` output (``torch.nn.AdaptiveAvgPool2d``); ``None`` keeps
    that input size; ``AdaptiveAvgPool2d(1)`` is global average pooling."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride  # None stays None (the functional then strides by kernel_size)
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling ``(sum_window x^p)^(1/p)`` over ``(N, C, L)`` or ``(C, L)`` (``torch.nn.LPPool1d``).

    Args: ``norm_type`` (p; inf is max pooling of ``|x|``), ``kernel_size`` (int), ``stride=None`` (the
    kernel size), ``ceil_mode=False``. No padding.
    """

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling ``(sum_window x^p)^(1/p)`` over ``(N, C, H, W)`` or ``(C, H, W)``
    (``torch.nn.LPPool2d``); ``kernel_size``/``stride`` are ints or pairs; otherwise as LPPool1d."""

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (``torch.nn.LPPool3d``);
    ``kernel_size``/``stride`` are ints or triples; otherwise as LPPool1d."""

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


# ---- 3-d pooling ----
class MaxPool3d(_MaxPoolNd):
    """3-d max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (``torch.nn.MaxPool3d``).

    ``D_out = floor_or_ceil((D + 2 padding - dilation (kernel - 1) - 1) / stride) + 1`` (H, W alike);
    returns ``(values, indices)`` when ``return_indices`` (flat indices into each D*H*W plane).
    """

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(_AvgPoolNd):
    """3-d average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (``torch.nn.AvgPool3d``); zero padding
    counts in the divisor iff ``count_include_pad``; ``divisor_override`` replaces the window size as divisor."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mean over adaptive windows to an ``(oD, oH, oW)`` output (``torch.nn.AdaptiveAvgPool3d``); ``None`` keeps
    that input size; ``AdaptiveAvgPool3d(1)`` is global average pooling."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max over adaptive windows to an ``(oD, oH, oW)`` output (``torch.nn.AdaptiveMaxPool3d``); ``None`` keeps
    that input size; returns ``(values, indices)`` when ``return_indices``."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling: windows of ``kernel_size`` at pseudo-random fractional strides chosen to
    reach ``output_size`` (or ``output_ratio`` of the input size); ``_random_samples`` fixes the draws."""
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        tup = _pair if self._nd == 2 else _triple
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{self._nd}d requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` (``torch.nn.FractionalMaxPool2d``)."""
    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (``torch.nn.FractionalMaxPool3d``)."""
    _nd = 3
