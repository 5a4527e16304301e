"""``numtorch.nn.functional`` (mirrors ``torch.nn.functional``): the functional form of every layer.

The math lives in the op families of ``numtorch/_ops/`` (``nn_ops.py``: activations, softmax, dropout,
linear, attention; ``embedding.py``, ``conv.py``, ``pooling.py``, ``resample.py``, ``norm_ops.py``,
``distance.py``, ``losses.py``); this module is the public API with PyTorch's signatures and argument
checking. Sections follow those families; functions that need no checking here are re-exported as they
are (F.conv2d is torch.conv2d in PyTorch too).
"""
from __future__ import annotations

import math as _math
import numbers as _numbers
import warnings as _warnings

import numpy as _np

from .. import _dtype, _generator
from .._dtype import from_np as _from_np
from .._ops import distance as _D
from .._ops import embedding as _E
from .._ops import losses as _L
from .._ops import dropout as _DO, nn_ops as _N
from .._ops import norm_ops as _Nm
from .._ops import pooling as _pool
from .._ops import _cast, _inplace, _loss_args as _LA, activation_dtypes as _AD, pointwise as _P, unary as _U
from .._ops._util import prep2 as _prep2, wrap_dim as _wrap_dim
from .._ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                         conv_transpose3d, fold, pad, unfold)
from .._ops.distance import cosine_embedding_loss, pdist, triplet_margin_loss  # noqa: F401
from .._ops.embedding import embedding_bag  # noqa: F401
from .._ops.losses import _reduction
from .._ops.margin_losses import (hinge_embedding_loss, multi_margin_loss,  # noqa: F401
                                  multilabel_margin_loss, multilabel_soft_margin_loss)
from .._ops.nn_ops import gumbel_softmax, linear  # noqa: F401
from .._ops.norm_ops import local_response_norm  # noqa: F401
from .._ops.ctc_loss import ctc_loss  # noqa: F401
from .._ops.distance import triplet_margin_with_distance_loss  # noqa: F401
from .._ops.fractional_pooling import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: F401
                                       fractional_max_pool3d, fractional_max_pool3d_with_indices)
from .._ops.linear_cross_entropy import linear_logits as _linear_logits
from .._ops.lp_pooling import lp_pool1d, lp_pool2d, lp_pool3d  # noqa: F401
from .._ops.pooling import (adaptive_avg_pool3d, adaptive_max_pool3d,  # noqa: F401
                            adaptive_max_pool3d_with_indices, avg_pool3d, max_pool3d, max_pool3d_with_indices)
from .._ops.reduction import mean as _mean, sum as _sum
from .._ops.resample import (channel_shuffle, interpolate, pixel_shuffle, pixel_unshuffle,  # noqa: F401
                              upsample, upsample_bilinear, upsample_nearest)
from .._ops.grid_sample import affine_grid, grid_sample  # noqa: F401
from .._ops.gaussian_nll import gaussian_nll_loss  # noqa: F401
from .._ops.attention import multi_head_attention_forward  # noqa: F401
from .._ops.sorting import one_hot  # noqa: F401
from .._tensor import Tensor, _make
from ..autograd.function import save_indices as _save_indices
from ..autograd.grad_mode import no_grad as _no_grad



# ---- activations -----------------------------------------------------------------------------
def _act(input, inplace, fn):
    """``fn(input)``, or written into ``input`` (autograd-aware) when ``inplace``."""
    return _inplace.inplace(input, fn) if inplace else fn(input)


def _floats(input, kernel):
    _N.require_float(input, kernel)
    return input


def _as_float(*ts):
    """Integer/bool tensors as the default float dtype (PyTorch's losses and ``softsign`` promote them)."""
    dt = _dtype.get_default_dtype()
    return tuple(t.to(dt) if isinstance(t, Tensor) and t._data.dtype.kind in "biu" else t for t in ts)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x if x > threshold else value`` (``F.threshold``)."""
    return _act(input, inplace, lambda x: _N.ThresholdBackward0.apply(_AD.no_bool(x, "threshold"), threshold=threshold,
                                                                      value=value))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return globals()["threshold"](input, threshold, value, inplace=True)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)`` (``F.relu``); backward node ``ReluBackward0``."""
    return _act(input, inplace, _U.relu)


def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit ``a * sigmoid(b)`` of the two halves of ``input`` along ``dim`` (``F.glu``).

    RuntimeError for a 0-d input or an odd size along ``dim``.
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.dim() if dim < 0 else dim
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    return _N.GluBackward0.apply(_floats(input, "glu_cpu"), dim=d)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)`` with zero gradient outside (``F.hardtanh``)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input._data.dtype.kind in "biu":  # integers stay integers (PyTorch clamps in the input's dtype)
        return _act(input, inplace, lambda x: _AD.integer_hardtanh(x, min_val, max_val))
    return _act(input, inplace, lambda x: _N.HardtanhBackward0.apply(x, lo=min_val, hi=max_val))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)`` (``F.relu6``)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x if x > 0 else alpha * (exp(x) - 1)`` (``F.elu``)."""
    _floats(input, "elu")
    return _act(input, inplace, lambda x: _N.EluBackward0.apply(x, alpha=float(alpha), scale=1.0, input_scale=1.0))


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Scaled ELU with the self-normalizing constants (``F.selu``)."""
    return _act(input, inplace, _N.selu)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``F.celu``)."""
    return _act(input, inplace, lambda x: _N.celu(x, alpha))


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x if x > 0 else negative_slope * x`` (``F.leaky_relu``)."""
    _floats(input, "leaky_relu_cpu")
    return _act(input, inplace, lambda x: _N.LeakyReluBackward0.apply(x, slope=negative_slope))


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Leaky ReLU with learnable slopes, one per channel (dim 1) or shared (``F.prelu``)."""
    return _N.prelu(input, weight)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU (``F.rrelu``): slopes uniform in ``[lower, upper]`` when training, else their mean.
    RuntimeError for ``lower > upper``."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    _floats(input, "rrelu_with_noise_cpu")
    if training:
        # PyTorch draws one float64 uniform per non-positive element, in order (``rrelu_with_noise``)
        x = input._data
        slope = _np.ones(x.shape, x.dtype)
        neg = x <= 0
        op = _np.float64 if x.dtype == _np.float64 else _np.float32  # bounds are cast to the op-math type first
        slope[neg] = _generator.uniform(_generator.default_engine, int(neg.sum()), _np.float64, float(op(lower)),
                                        float(op(upper)), fused=False)
    else:
        slope = (lower + upper) / 2
    return _act(input, inplace, lambda x: _N.LeakyReluBackward0.apply(x, slope=slope))


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, stable for large ``|x|`` (``F.logsigmoid``)."""
    return _N.LogSigmoidBackward0.apply(_floats(input, "log_sigmoid_forward"))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` (exact, via erf) or its tanh approximation (``F.gelu``); fused ``GeluBackward0``.

    RuntimeError for an ``approximate`` other than "none"/"tanh"; NotImplementedError for integer input.
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _N.GeluBackward0.apply(_floats(input, "GeluKernelImpl"), approximate=approximate)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x if |x| > lambd else 0`` (``F.hardshrink``)."""
    return _N.hardshrink(input, lambd)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)`` (``F.tanhshrink``)."""
    return _N.TanhshrinkBackward0.apply(_floats(*_as_float(_AD.no_bool(input, "tanhshrink")), "tanh"))


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)`` (``F.softsign``)."""
    return _N.SoftsignBackward0.apply(_floats(*_as_float(_AD.no_bool(input, "softsign")), "softsign"))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold`` (``F.softplus``)."""
    return _N.SoftplusBackward0.apply(_floats(input, "softplus_cpu"), beta=beta, threshold=threshold)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0 (``F.softshrink``)."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _N.SoftshrinkBackward0.apply(_floats(input, "softshrink_cpu"), lambd=lambd)


def tanh(input: Tensor) -> Tensor:
    """``torch.tanh`` (``F.tanh``)."""
    return _U.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    """``torch.sigmoid`` (``F.sigmoid``)."""
    return _U.sigmoid(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6`` (``F.hardsigmoid``)."""
    return _act(_floats(input, "hardsigmoid_cpu"), inplace, _N.HardsigmoidBackward0.apply)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (``F.silu``)."""
    return _act(_floats(input, "silu_cpu"), inplace, _N.SiluBackward0.apply)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))`` (``F.mish``)."""
    return _act(_floats(input, "mish_cpu"), inplace, _N.MishBackward0.apply)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6`` (``F.hardswish``)."""
    return _act(_floats(input, "hardswish_cpu"), inplace, _N.HardswishBackward0.apply)


# ---- softmax family --------------------------------------------------------------------------
def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    _warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                   f"as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (``F.softmax``), fused and stable.

    ``dim=None`` picks PyTorch's legacy implicit dim with a UserWarning; ``dtype`` casts first.
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _N.softmax(input, dim, dtype)


def softmin(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-x)`` along ``dim`` (``F.softmin``)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return _N.softmax(_U.neg(input), dim, dtype)  # negated in the input's dtype, then cast (as PyTorch)


def log_softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim`` (``F.log_softmax``), fused and stable."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _N.log_softmax(input, dim, dtype)


# ---- dropout ---------------------------------------------------------------------------------
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero elements with probability ``p``, scale the rest by ``1/(1-p)`` (``F.dropout``).

    Identity when not ``training``. Draws from the default generator (``manual_seed``). ValueError for
    ``p`` outside ``[0, 1]``.
    """
    _check_p(p)
    return _DO.dropout(input, p, training, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps SELU's self-normalizing mean and variance (``F.alpha_dropout``)."""
    _check_p(p)
    return _DO.alpha_dropout(input, p, training, inplace)


def _channel_dropout(input, p, training, inplace, batched):
    _check_p(p)
    if not training or p == 0:
        return input
    x = input._data
    shape = (x.shape[:2] if batched else x.shape[:1]) + (1,) * (x.ndim - (2 if batched else 1))
    return _DO._apply_mask(input, _DO._batched_option(*_DO._mask(input, shape, p)), inplace)  # (per sample in vmap)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` input (``F.dropout1d``); RuntimeError for other ranks."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           f"dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           f"channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, input.dim() == 3)


def _warn_rank(fn, nd, spatial):
    """PyTorch's deprecation warning for a ``dropout{spatial}d`` input of an unexpected rank ``nd``."""
    _warnings.warn(f"{fn}: Received a {nd}-D input to {fn}, which is deprecated and will result in an error in a "
                   f"future release. To retain the behavior and silence this warning, please use dropout instead. "
                   f"Note that {fn} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                   f"dimensions, a channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or "
                   f"{spatial + 2}D inputs).", stacklevel=3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` input (``F.dropout2d``), with PyTorch's warnings for other ranks."""
    _check_p(p)
    nd = input.dim()
    if nd not in (3, 4):
        _warn_rank("dropout2d", nd, 2)
    if nd == 3:
        _warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                       "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                       "This behavior will change in a future release to interpret the input as one without a "
                       "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                       "please switch to using dropout1d instead.", stacklevel=2)
    return _channel_dropout(input, p, training, inplace, nd >= 2)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input (``F.dropout3d``)."""
    _check_p(p)
    nd = input.dim()
    if nd not in (4, 5):
        _warn_rank("dropout3d", nd, 3)
    return _channel_dropout(input, p, training, inplace, nd == 5)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels of ``(N, C, *)`` input (``F.feature_alpha_dropout``)."""
    _check_p(p)
    return _DO.feature_alpha_dropout(input, p, training, inplace)


# ---- linear, bilinear (linear: _ops/nn_ops.py) -----------------------------------------------
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias=None) -> Tensor:
    """``y = x1^T A x2 + b`` (``F.bilinear``); weight ``(out, in1, in2)``."""
    return _N.bilinear(input1, input2, weight, bias)


# ---- embedding (one_hot: _ops/sorting.py) ----------------------------------------------------
def embedding(input: Tensor, weight: Tensor, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` ``(V, D)`` at integer ``input`` (any shape) -> ``input.shape + (D,)`` (``F.embedding``).

    ``padding_idx`` (may be negative) gets no gradient; ``max_norm`` renormalizes the used rows of
    ``weight`` in place first; ``scale_grad_by_freq`` divides gradients by index counts in the batch.
    ``sparse=True`` makes ``weight``'s gradient a sparse COO tensor, as PyTorch's. AssertionError for ``padding_idx`` out of range,
    IndexError for indices out of range, RuntimeError for non-integer indices.
    """
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with _no_grad():
            _E.embedding_renorm_(weight, input, max_norm, norm_type)
    return _E.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# ---- convolution, padding, fold/unfold: _ops/conv.py, re-exported above ---------------------


# ---- pooling ---------------------------------------------------------------------------------
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-d max pooling over (N, C, L) or (C, L); ``stride`` defaults to ``kernel_size``; padding is -inf and
    at most half the dilated kernel. With ``return_indices`` also returns int64 indices into L."""
    return _pool.max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-d max pooling over (N, C, H, W) or (C, H, W) (``F.max_pool2d``): out size
    ``floor_or_ceil((H + 2p - d(k-1) - 1) / s) + 1``; ``return_indices`` adds int64 flat indices ``h*W + w``
    per plane (for ``max_unpool2d``). RuntimeError for bad sizes, as PyTorch."""
    return _pool.max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """``max_pool1d`` returning ``(values, indices)``."""
    return _pool.max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """``max_pool2d`` returning ``(values, indices)``."""
    return _pool.max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling over (N, C, L) or (C, L); zero padding counts in the divisor iff
    ``count_include_pad``."""
    return _pool.avg_pool(input, 1, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-d average pooling over (N, C, H, W) or (C, H, W) (``F.avg_pool2d``); ``divisor_override`` replaces
    the window size as divisor (RuntimeError if 0)."""
    return _pool.avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool1d(input, output_size):
    """(N, C, L) or (C, L) -> (.., output_size): the mean of PyTorch's adaptive windows
    ``[floor(i*L/o), ceil((i+1)*L/o))``."""
    return _pool.adaptive_avg_pool(input, 1, output_size)


def adaptive_avg_pool2d(input, output_size):
    """(N, C, H, W) or (C, H, W) -> (.., oH, oW) adaptive average pooling; ``None`` in ``output_size`` keeps
    that input size."""
    return _pool.adaptive_avg_pool(input, 2, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """(N, C, L) or (C, L) -> (.., output_size) adaptive max pooling [, int64 indices into L]."""
    return _pool.adaptive_max_pool(input, 1, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """(N, C, H, W) or (C, H, W) -> (.., oH, oW) adaptive max pooling [, int64 flat per-plane indices]."""
    return _pool.adaptive_max_pool(input, 2, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool1d`` returning ``(values, indices)``."""
    return _pool.adaptive_max_pool(input, 1, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool2d`` returning ``(values, indices)``."""
    return _pool.adaptive_max_pool(input, 2, output_size, True)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of ``max_pool1d``: values placed at ``indices`` in zeros of length
    ``(L-1)*stride - 2*padding + kernel_size`` (or ``output_size``)."""
    return _pool.max_unpool(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of ``max_pool2d`` (``F.max_unpool2d``): values placed at their flat per-plane
    ``indices``, zeros elsewhere. ValueError for an ``output_size`` out of range."""
    return _pool.max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of ``max_pool3d`` (``F.max_unpool3d``) over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""
    return _pool.max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)


# ---- resampling (interpolate, pixel/channel shuffle): _ops/resample.py, re-exported above ---


# ---- normalization ---------------------------------------------------------------------------
def batch_norm(input: Tensor, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Per-channel normalization of ``(N, C, *)`` input (``F.batch_norm``), fused ``NativeBatchNormBackward0``.

    Training uses batch statistics (biased variance) and updates the running buffers in place with
    ``momentum`` (unbiased variance); evaluation uses the running statistics.
    """
    return _Nm.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def instance_norm(input: Tensor, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each ``(n, c)`` slice of ``(N, C, *)`` over its spatial dims (``F.instance_norm``)."""
    if use_input_stats and input.dim() >= 2:
        spatial = _math.prod(input.shape[2:])
        if spatial == 1:  # (PyTorch's check: an empty input or spatial size passes)
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    return _Nm.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps)


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalize over the trailing ``normalized_shape`` dims (``F.layer_norm``), fused ``NativeLayerNormBackward0``."""
    return _Nm.layer_norm(input, normalized_shape, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape, weight=None, eps=None) -> Tensor:
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing dims (``F.rms_norm``)."""
    return _Nm.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalize each sample over groups of channels (``F.group_norm``)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    return _Nm.group_norm(input, num_groups, weight, bias, eps)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """``x / max(||x||_p, eps)`` along ``dim`` (``F.normalize``)."""
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_from_np(input._data.dtype)._aten_name}")
    if input.dim() == 0:  # a 0-d tensor is normalized as a 1-element vector (dim 0 / -1)
        _wrap_dim(dim, 0)
        res = _Nm.NormalizeBackward.apply(input.reshape(1), p=float(p), dim=0, eps=eps).reshape(())
    else:
        res = _Nm.NormalizeBackward.apply(input, p=float(p), dim=_wrap_dim(dim, input.dim()), eps=eps)
    return res if out is None else _inplace.copy_(out, res)


# ---- distance --------------------------------------------------------------------------------
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine similarity along ``dim`` with broadcasting (``F.cosine_similarity``)."""
    return _D.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dim (``F.pairwise_distance``)."""
    return _D.pairwise_distance(x1, x2, p, eps, keepdim)


# ---- losses (cosine_embedding_loss, triplet_margin_loss: _ops/distance.py) -------------------
def _size_warning(input, target):
    if input.shape != target.shape:
        _warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                       f"This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                       f"same size.", stacklevel=3)


def _pair(input, target, kernel=None):
    """Promote input/target to one dtype and check they broadcast (RuntimeError otherwise); ``kernel``:
    the loss's refusals of integer operands (``_loss_args.integral_inputs``)."""
    _LA.integral_inputs(kernel, input, target)
    x, y = _prep2(input, target)
    try:
        _np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({list(input.shape)}) must match the size of tensor b "
                           f"({list(target.shape)}): they do not broadcast") from None
    return x, y


def _weight_arr(weight, input):
    if weight is None:
        return None
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    return weight._data


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight=None) -> Tensor:
    """Mean squared error ``(x - y)^2`` reduced (``F.mse_loss``); UserWarning when shapes differ.

    With ``weight`` (input's shape), "mean" divides by ``weight.sum()``.
    """
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _LA.pair(input, target)
    if x._data.dtype.kind not in "fcV":
        raise NotImplementedError(f'"mse_cpu" not implemented for \'{x.dtype._aten_name}\'')
    return _L.MseLossBackward0.apply(x, y, reduction=reduction, weight=_weight_arr(weight, input), wsum=True)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight=None) -> Tensor:
    """Mean absolute error ``|x - y|`` reduced (``F.l1_loss``); UserWarning when shapes differ.

    Integer tensors give an integer loss ("none"; int64 for "sum"; RuntimeError for "mean"); RuntimeError
    for bool tensors, as PyTorch's subtraction.
    """
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _LA.pair(input, target)
    _LA.no_bool_subtraction(input, target)
    if x._data.dtype.kind not in "fcV":
        return _LA.integer_l1(x, y, reduction)
    return _L.L1LossBackward0.apply(x, y, reduction=reduction, weight=_weight_arr(weight, input), wsum=True)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` if ``|d| < beta`` else ``|d| - 0.5 beta`` (``F.smooth_l1_loss``)."""
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, y = _LA.pair(input, target, "smooth_l1")
    return _L.SmoothL1LossBackward0.apply(x, y, reduction=reduction, beta=float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight=None) -> Tensor:
    """``0.5 d^2`` if ``|d| < delta`` else ``delta (|d| - 0.5 delta)`` (``F.huber_loss``)."""
    _size_warning(input, target)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, y = _pair(input, target, "huber")
    return _L.HuberLossBackward0.apply(x, y, reduction=reduction, delta=float(delta),
                                      weight=_weight_arr(weight, input))


def binary_cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``-w (y log x + (1-y) log(1-x))`` for probabilities ``x`` (``F.binary_cross_entropy``); logs clamped at -100.

    ValueError when target and input sizes differ; RuntimeError for values outside ``[0, 1]`` or
    different dtypes; NotImplementedError for integer tensors.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    w = _LA.bce(input, target, weight)
    return _L.BinaryCrossEntropyBackward0.apply(input, target, w, reduction=reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None) -> Tensor:
    """Sigmoid + binary cross entropy in one stable kernel (``F.binary_cross_entropy_with_logits``).

    ``pos_weight`` (broadcast along the last, class dim) weights positive examples. ValueError when
    target and input sizes differ.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    x, y = _pair(input, target, "bce_logits")
    return _L.BinaryCrossEntropyWithLogitsBackward0.apply(x, y, weight, pos_weight, reduction=reduction)


def cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits ``(N, C, *)`` or ``(C,)`` (``F.cross_entropy``), fused log-softmax + NLL.

    ``target``: class indices ``(N, *)`` (int64/uint8; ``ignore_index`` rows contribute nothing, and
    a weighted "mean" divides by the summed weights of the other rows) or class probabilities with
    the input's shape. IndexError for a target out of range; ValueError/RuntimeError for shape errors.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    x = input._data
    if x.shape == target._data.shape:  # class probabilities
        _LA.probability_targets(input, target, weight, ignore_index)
        if x.size == 0:  # in the dtype of log_softmax(input) * target
            x = _cast.cast(input, _dtype.promote_types(input.dtype, target.dtype))
            return _LA.empty_class_loss(x, reduction)
        x, y = _prep2(input, target)
        c = input.shape[1] if input.dim() > 1 else input.shape[0]
        w = None if weight is None else weight._data.reshape(c).astype(x._data.dtype, copy=False)
        return _L.CrossEntropyProbsBackward0.apply(x, y, weight=w, smoothing=float(label_smoothing),
                                                   reduction=reduction)
    if x.ndim == 0:  # PyTorch's log_softmax over the class dim 1
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if x.size and x.dtype.kind not in "fV":
        _N.require_float(input, "log_softmax_lastdim_kernel_impl" if x.ndim <= 2 else "log_softmax_kernel_impl")
    t, w, c = _LA.class_targets(input, target, weight)
    _LA.check_bounds(t, c, ignore_index)
    return _save_indices(_L.CrossEntropyLossBackward0.apply(input, target=t, weight=w, ignore_index=ignore_index,
                                                            smoothing=float(label_smoothing), reduction=reduction),
                         target)  # PyTorch saves the target: changing it in place before backward raises


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias=None, weight=None,
                         reduction: str = "mean", ignore_index=None, label_smoothing: float = 0.0,
                         options=None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)`` (``F.linear_cross_entropy``); shapes
    and checks in ``_ops/linear_cross_entropy.py``. ``options`` (PyTorch's chunking) is accepted: numtorch
    always computes the reference path, which gives the same values."""
    logits, ignore_index = _linear_logits(input, linear_weight, target, linear_bias, ignore_index)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of log-probabilities ``(N, C, *)`` at class-index targets (``F.nll_loss``)."""
    reduction = _reduction(size_average, reduce, reduction)
    t, w, c = _LA.class_targets(input, target, weight)
    _LA.check_bounds(t, c, ignore_index)
    return _save_indices(_L.NllLossBackward0.apply(input, target=t, weight=w, ignore_index=ignore_index,
                                                   reduction=reduction), target)


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Pointwise KL divergence ``y (log y - x)`` with ``x`` log-probabilities (``F.kl_div``).

    ``reduction="batchmean"`` divides the sum by the batch size (the true KL); "mean" warns as PyTorch.
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, "mean")
    elif reduction == "mean":
        _warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                       "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                       "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                       stacklevel=2)
    if reduction not in _L.REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    x, y = _pair(input, target, "kl_div")
    batch = input.shape[0] if input.dim() else 1
    return _L.KlDivBackward0.apply(x, y, reduction=reduction, batch=batch, log_target=bool(log_target))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """Poisson negative log-likelihood (``F.poisson_nll_loss``): ``exp(x) - y x`` for log inputs."""
    reduction = _reduction(size_average, reduce, reduction)
    _LA.integral_inputs("poisson", input, target)
    x, y = _pair(*_as_float(input, target))
    return _L.PoissonNllLossBackward.apply(x, y, reduction=reduction, log_input=bool(log_input), full=bool(full),
                                           eps=eps)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, -y (x1 - x2) + margin)`` (``F.margin_ranking_loss``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if not (input1.dim() == input2.dim() == target.dim()):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    if target._data.dtype.kind in "biu" and input1._data.dtype.kind == "f":  # labels do not promote the result
        target = target.to(input1.dtype)
    if input1._data.dtype.kind in "biu":  # PyTorch's formula in the integer dtype (wrapping), then float
        loss = (-target * (input1 - input2) + float(margin)).clamp_min(0)
        return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss
    return _L.MarginRankingLossBackward.apply(input1, input2, target, reduction=reduction, margin=float(margin))


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-y x))`` (``F.soft_margin_loss``)."""
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _pair(input, target, "soft_margin")
    return _L.SoftMarginLossBackward0.apply(x, y, reduction=reduction)


# ---- attention -------------------------------------------------------------------------------
scaled_dot_product_attention = _N.scaled_dot_product_attention
