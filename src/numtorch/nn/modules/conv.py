"""Convolution layers (mirrors ``torch/nn/modules/conv.py``): Conv1d/2d/3d, ConvTranspose1d/2d/3d and their
Lazy variants (``in_channels`` taken from the first input).

``_ConvNd`` holds what every convolution shares: argument checks, the weight and bias, PyTorch's
default initialization and the printed form. The math is ``F.conv*`` (im2col + one GEMM).
"""
from __future__ import annotations

import math

from ..._ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """Shared state of convolutions: sizes are tuples with one entry per spatial dim.

    Weight layout: ``(out_channels, in_channels // groups, *kernel_size)``, or for transposed
    convolutions ``(in_channels, out_channels // groups, *kernel_size)``. ValueError for bad
    ``groups``, an unknown padding string or mode, and ``padding="same"`` with a stride.
    """

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for non-zero padding modes: last dim first, (left, right) per dim
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(reversed(dilation), reversed(kernel_size))):
                    total = d * (k - 1)
                    pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = list(_reverse_repeat_tuple(padding, 2))
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Kaiming-uniform weight (``a=sqrt(5)``), bias ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"

    def _conv_forward(self, input, weight, bias, conv, zero):
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(input, weight, bias, self.stride, zero, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-d cross-correlation over ``(N, C_in, L)`` or ``(C_in, L)`` (``torch.nn.Conv1d``).

    ``L_out = floor((L + 2 padding - dilation (kernel_size - 1) - 1) / stride + 1)``. ``padding`` may be an
    int, a 1-tuple, "valid" or "same"; ``padding_mode`` is "zeros", "reflect", "replicate" or "circular".
    Weight ``(out_channels, in_channels / groups, kernel_size)``.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride),
                         padding if isinstance(padding, str) else _single(padding), _single(dilation), False,
                         _single(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias, F.conv1d, _single(0))


class Conv2d(_ConvNd):
    """2-d cross-correlation over ``(N, C_in, H, W)`` or ``(C_in, H, W)`` (``torch.nn.Conv2d``).

    ``H_out = floor((H + 2 padding[0] - dilation[0] (kernel_size[0] - 1) - 1) / stride[0] + 1)`` (W alike).
    Arguments as ``Conv1d``, each an int or a pair. Weight ``(out_channels, in_channels / groups, kH, kW)``.

    >>> nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2))(torch.randn(20, 16, 50, 100)).shape
    torch.Size([20, 33, 28, 100])
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         padding if isinstance(padding, str) else _pair(padding), _pair(dilation), False,
                         _pair(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias, F.conv2d, _pair(0))


class _ConvTransposeNd(_ConvNd):
    """Transposed convolutions: only "zeros" padding; ``output_size`` in ``forward`` picks ``output_padding``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        """``output_padding`` that makes the output ``output_size`` (given with or without the N, C dims).

        ValueError when ``output_size`` has the wrong length or a size outside the reachable range
        ``[min, min + stride - 1]``.
        """
        if output_size is None:
            return _single(self.output_padding)
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {non_spatial + num_spatial_dims} elements (got {len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dil = dilation[d] if dilation is not None else 1
            size = (input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d] + dil * (kernel_size[d] - 1) + 1
            min_sizes.append(size)
            max_sizes.append(size + stride[d] - 1)
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {input.size()[non_spatial:]})")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def _transpose_forward(self, input, output_size, num_spatial_dims, conv):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {self.__class__.__name__}")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              num_spatial_dims, self.dilation)
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (the gradient of ``Conv1d`` w.r.t. its input; ``torch.nn.ConvTranspose1d``).

    ``L_out = (L - 1) stride - 2 padding + dilation (kernel_size - 1) + output_padding + 1``.
    Weight ``(in_channels, out_channels / groups, kernel_size)``.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), _single(padding),
                         _single(dilation), True, _single(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        return self._transpose_forward(input, output_size, 1, F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (``torch.nn.ConvTranspose2d``), e.g. for learned upsampling.

    ``H_out = (H - 1) stride[0] - 2 padding[0] + dilation[0] (kH - 1) + output_padding[0] + 1`` (W alike);
    ``forward(input, output_size)`` may request a size instead of ``output_padding``.
    Weight ``(in_channels, out_channels / groups, kH, kW)``.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), _pair(padding),
                         _pair(dilation), True, _pair(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        return self._transpose_forward(input, output_size, 2, F.conv_transpose2d)


class Conv3d(_ConvNd):
    """3-d cross-correlation over ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` (``torch.nn.Conv3d``).

    ``D_out = floor((D + 2 padding[0] - dilation[0] (kernel_size[0] - 1) - 1) / stride[0] + 1)`` (H, W alike).
    Arguments as ``Conv1d``, each an int or a triple. Weight ``(out_channels, in_channels / groups, kD, kH, kW)``.

    >>> nn.Conv3d(4, 8, 3, padding=1)(torch.randn(2, 4, 8, 16, 16)).shape
    torch.Size([2, 8, 8, 16, 16])
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride),
                         padding if isinstance(padding, str) else _triple(padding), _triple(dilation), False,
                         _triple(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias, F.conv3d, _triple(0))


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution (``torch.nn.ConvTranspose3d``), e.g. for learned volumetric upsampling.

    ``D_out = (D - 1) stride[0] - 2 padding[0] + dilation[0] (kD - 1) + output_padding[0] + 1`` (H, W alike);
    ``forward(input, output_size)`` may request a size instead of ``output_padding``. Only "zeros" padding.
    Weight ``(in_channels, out_channels / groups, kD, kH, kW)``.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride), _triple(padding),
                         _triple(dilation), True, _triple(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        return self._transpose_forward(input, output_size, 3, F.conv_transpose3d)


# ---------------------------------------------------------------------------------------------- lazy variants
class _LazyConvXdMixin(LazyModuleMixin):
    """``in_channels`` from the first input (dim 1 batched, dim 0 unbatched), then a plain convolution."""

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        unbatched = self._num_spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def _lazy_placeholders(self, bias, device, dtype, out_channels) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


def _lazy_conv(base, dims):
    """The Lazy class of convolution ``base`` (``dims`` spatial dims): same arguments, minus ``in_channels``."""
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._register_lazy_hooks()
        self._lazy_placeholders(bias, device, dtype, out_channels)

    def __init_transposed__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                            bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                      device, dtype)
        self._register_lazy_hooks()
        self._lazy_placeholders(bias, device, dtype, out_channels)

    transposed = issubclass(base, _ConvTransposeNd)
    name = "Lazy" + base.__name__
    doc = (f"``{base.__name__}`` whose ``in_channels`` is read from the first input (``torch.nn.{name}``); it then "
           f"becomes a ``{base.__name__}``, initialised as one.")
    return type(name, (_LazyConvXdMixin, base), {
        "__init__": __init_transposed__ if transposed else __init__, "__doc__": doc, "cls_to_become": base,
        "_num_spatial_dims": dims, "__module__": __name__, "__qualname__": name})


LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 3)
