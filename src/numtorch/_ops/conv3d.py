"""3-d convolution and transposed convolution (``torch.nn.functional.conv3d`` / ``conv_transpose3d``).

The kernels of ``conv.py`` are already N-d: ``convolution`` checks the arguments and calls the one
``ConvolutionBackward0`` Op (named like ATen's node for every rank), whose forward is one
``sliding_window_view`` copied to ``(N, C, kD, kH, kW, oD, oH, oW)`` columns and one batched GEMM, and
whose backward is the same GEMM transposed plus a ``col2im`` (``kD * kH * kW`` vectorized adds). This
module only adds the 3-d entry points with their weight-rank checks, so the 1-d/2-d paths stay as
they are. It also re-exports the 3-d pooling functionals of ``pooling3d.py``, so that
``nn/functional.py`` reaches the whole 3-d family through one import.
"""
from __future__ import annotations

from .._tensor import Tensor
from .conv import _TYPE_NAMES, _no_str_padding, convolution
from .pooling3d import (  # noqa: F401
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool3d,
    max_pool3d,
    max_pool3d_with_indices,
)

__all__ = ["conv3d", "conv_transpose3d"]


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d cross-correlation (``torch.nn.functional.conv3d``, ``torch.conv3d``).

    input (N, C_in, D, H, W) or unbatched (C_in, D, H, W); weight (C_out, C_in/groups, kD, kH, kW);
    bias (C_out,) or None -> (N, C_out, D_out, H_out, W_out) with
    ``D_out = (D + 2p - d(kD-1) - 1) // s + 1`` (H, W alike). ``stride``, ``padding`` and ``dilation``
    are ints or 3-tuples; ``padding`` may be "valid" or "same" (stride 1 only). Same dtype as the input.

    Raises RuntimeError for a weight that is not 5-D, an input that is not 4-D/5-D, a channel count
    that does not match ``weight.shape[1] * groups``, groups not dividing C_out, mixed dtypes, and a
    kernel larger than the padded input (PyTorch's messages; see ``conv.convolution``).
    """
    if isinstance(weight, Tensor) and weight.ndim != 5:
        raise RuntimeError(f"conv3d: expected a 5-D weight (C_out, C_in/groups, kD, kH, kW), but got weight of "
                           f"size {list(weight.shape)}")
    _check_dtypes(input, weight)
    return convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-d transposed convolution (``torch.nn.functional.conv_transpose3d``), the gradient of ``conv3d``
    with respect to its input.

    input (N, C_in, D, H, W) or (C_in, D, H, W); weight (C_in, C_out/groups, kD, kH, kW) ->
    (N, C_out, D_out, H_out, W_out), ``D_out = (D-1)s - 2p + d(kD-1) + output_padding + 1`` (H, W alike).
    ``output_padding`` must be smaller than the stride or the dilation.

    Raises TypeError for a string ``padding``; RuntimeError for a weight that is not 5-D, an input
    whose channels differ from ``weight.shape[0]``, a too large ``output_padding`` or an empty output.
    """
    if isinstance(weight, Tensor) and weight.ndim != 5:
        raise RuntimeError(f"conv_transpose3d: expected a 5-D weight, but got weight of size {list(weight.shape)}")
    _no_str_padding(padding, "conv_transpose3d")
    _check_dtypes(input, weight)
    return convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)


def _check_dtypes(input, weight):
    """PyTorch's 3-d kernels report an input/weight dtype mismatch in their own words."""
    if isinstance(input, Tensor) and isinstance(weight, Tensor) and input._data.dtype != weight._data.dtype:
        a, b = (_TYPE_NAMES.get(t._data.dtype.name, t._data.dtype.name) for t in (input, weight))
        raise RuntimeError(f"expected scalar type {a} but found {b}")
