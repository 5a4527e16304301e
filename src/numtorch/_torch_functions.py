"""``torch.*`` functions that are another numtorch function under PyTorch's other name.

PyTorch exposes many ops twice: ``torch.relu_(x)`` is ``x.relu_()``, ``torch.max_pool2d`` is
``F.max_pool2d``, ``torch.vmap`` is ``torch.func.vmap``. Programs call either spelling, so numtorch
binds the second name here, to the one implementation, instead of writing the op again. Also the
small predicates and switches of the ``torch`` namespace (``is_signed``, ``typename``, ``can_cast``,
``range``, ``set_warn_always``).
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from . import _dtype
from ._tensor import Tensor
from .func import vmap
from .nn import functional as F
from ._ops._util import guard_tensor_input
from ._ops.creation import arange
from ._ops.dropout import feature_alpha_dropout, feature_dropout
from .linalg import matrix_norm, vector_norm

__all__ = ["vmap", "is_signed", "is_nonzero", "is_same_size", "is_neg", "get_device", "is_inference",
           "typename", "can_cast", "range", "set_warn_always", "is_warn_always_enabled", "set_flush_denormal",
           "frobenius_norm", "nuclear_norm",
           "pixel_shuffle", "pixel_unshuffle", "native_channel_shuffle", "avg_pool1d", "max_pool1d", "max_pool2d",
           "max_pool3d", "max_pool1d_with_indices", "adaptive_avg_pool1d", "adaptive_max_pool1d",
           "rrelu", "rrelu_", "celu_", "selu_", "threshold_", "dropout_", "alpha_dropout_", "feature_dropout_",
           "feature_alpha_dropout_"]

# torch.<name>_(x, ...) is x.<name>_(...): the in-place functions of the torch namespace
_INPLACE = """abs_ acos_ arccos_ arcsin_ arctan_ asin_ atan_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_
    erf_ erfc_ exp2_ exp_ expm1_ fix_ floor_ frac_ i0_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_
    reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ conj_physical_
    detach detach_ index_put_""".split()
for _name in _INPLACE:
    globals()[_name] = getattr(Tensor, _name)
__all__ += _INPLACE
del _name
guard_tensor_input(globals(), _INPLACE)  # torch.abs_(ndarray): PyTorch's TypeError, as every torch.* function


is_signed, is_nonzero, is_same_size, is_neg, get_device, is_inference = (
    Tensor.is_signed, Tensor.is_nonzero, Tensor.is_same_size, Tensor.is_neg, Tensor.get_device, Tensor.is_inference)


def typename(obj, /) -> str:
    """``torch.typename``: ``'torch.FloatTensor'`` for a float32 tensor, else the object's qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = "" if cls.__module__ in ("builtins", "__builtin__", None) else cls.__module__ + "."
    return module + cls.__qualname__


def can_cast(from_, to) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` -> ``to`` (``torch.can_cast``): no float -> int,
    no complex -> non-complex, no non-bool -> bool."""
    for name, d in (("from_", from_), ("to", to)):
        if not isinstance(d, _dtype.dtype):
            raise TypeError(f"can_cast(): argument '{name}' must be torch.dtype, not {type(d).__name__}")
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return not (to == _dtype.bool and from_ != _dtype.bool)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``torch.range`` (deprecated in PyTorch): like ``arange`` but ``end`` INCLUDED; float32 by default
    (the default dtype), even for integer bounds. Warns as PyTorch does."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    # ATen's range checks, in its order (C++ prints the bounds as %g does)
    if float(step) == 0:
        raise RuntimeError("step must be nonzero")
    if not (np.isfinite(float(start)) and np.isfinite(float(end))):
        raise RuntimeError(f"unsupported range: {float(start):g} -> {float(end):g}")
    if (float(end) - float(start)) * float(step) < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = builtins.int(np.floor((float(end) - float(start)) / float(step))) + 1
    dtype = dtype or _dtype.get_default_dtype()
    return arange(count, dtype=_dtype.float64, device=device).mul(step).add(start).to(dtype) \
        .requires_grad_(requires_grad)


_WARN_ALWAYS = [False]


def set_warn_always(b: bool, /) -> None:
    """``torch.set_warn_always``: numtorch keeps the flag (its warn-once warnings use Python's filters)."""
    _WARN_ALWAYS[0] = builtins.bool(b)


def is_warn_always_enabled() -> bool:
    return _WARN_ALWAYS[0]


def set_flush_denormal(mode: bool) -> bool:
    """``torch.set_flush_denormal``: returns False, PyTorch's answer where flushing is unsupported (NumPy
    cannot switch the CPU's denormal mode)."""
    return False


def frobenius_norm(input: Tensor, dim, keepdim=False, *, out=None) -> Tensor:
    """``torch.frobenius_norm`` (deprecated in PyTorch, warns as it does): the 2-norm over ``dim``
    (``torch.linalg.vector_norm(input, 2, dim)``)."""
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    return vector_norm(input, 2, dim, keepdim, out=out)


def nuclear_norm(input: Tensor, dim=(-2, -1), keepdim=False, *, out=None) -> Tensor:
    """``torch.nuclear_norm`` (deprecated in PyTorch, warns as it does): the sum of singular values over the two
    dims (``linalg.matrix_norm(.., 'nuc')``)."""
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    if isinstance(dim, builtins.bool):  # nuclear_norm(input, keepdim) overload
        dim, keepdim = (-2, -1), dim
    return matrix_norm(input, "nuc", dim, keepdim, out=out)


pixel_shuffle, pixel_unshuffle, native_channel_shuffle = F.pixel_shuffle, F.pixel_unshuffle, F.channel_shuffle
avg_pool1d, adaptive_avg_pool1d = F.avg_pool1d, F.adaptive_avg_pool1d
max_pool1d, max_pool2d, max_pool3d = F.max_pool1d, F.max_pool2d, F.max_pool3d


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d_with_indices``: ``(output, indices)``."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: ``(output, indices)`` (the aten form; F's returns the output alone)."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return F.rrelu(input, lower, upper, training, inplace=True)


def celu_(input, alpha=1.0):
    return F.celu(input, alpha, inplace=True)


def selu_(input):
    return F.selu(input, inplace=True)


def threshold_(input, threshold, value):
    return F.threshold(input, threshold, value, inplace=True)


def dropout_(input, p, train):
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_dropout_(input, p, train):
    return feature_dropout(input, p, train, True)


def feature_alpha_dropout_(input, p, train):
    return feature_alpha_dropout(input, p, train, True)
