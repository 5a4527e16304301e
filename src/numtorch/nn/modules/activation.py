"""Activation layers and MultiheadAttention (mirrors ``torch/nn/modules/activation.py``).

Each activation is a stateless module whose ``forward`` is one ``F.*`` call; ``inplace=True``
(where PyTorch offers it) overwrites the input. PReLU owns a learnable slope and
MultiheadAttention its projections.
"""
from __future__ import annotations

import warnings

from ..._ops.creation import empty
from ..._ops.unary import sigmoid as _sigmoid, tanh as _tanh
from .. import functional as F
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
           "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
           "Softshrink", "MultiheadAttention", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d",
           "LogSoftmax"]


class _Inplace(Module):
    """An activation whose only option is ``inplace``; prints ``inplace=True`` when set."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    """``x if x > threshold else value`` (``torch.nn.Threshold``)."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{', inplace=True' if self.inplace else ''}"


class ReLU(_Inplace):
    """``max(0, x)`` (``torch.nn.ReLU``)."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """Randomized leaky ReLU (``torch.nn.RReLU``): slopes drawn from ``U(lower, upper)`` in training, their
    mean in eval."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{', inplace=True' if self.inplace else ''}"


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)`` (``torch.nn.Hardtanh``); AssertionError unless ``max_val > min_val``.
    ``min_value``/``max_value`` are deprecated spellings (FutureWarning)."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False, min_value=None,
                 max_value=None) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{', inplace=True' if self.inplace else ''}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)`` (``torch.nn.ReLU6``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` (``torch.nn.Sigmoid``)."""

    def forward(self, input):
        return _sigmoid(input)


class Tanh(Module):
    """``tanh(x)`` (``torch.nn.Tanh``)."""

    def forward(self, input):
        return _tanh(input)


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6`` (``torch.nn.Hardsigmoid``)."""

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)

    extra_repr = Module.extra_repr  # PyTorch prints no options for it


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6`` (``torch.nn.Hardswish``)."""

    def forward(self, input):
        return F.hardswish(input, self.inplace)

    extra_repr = Module.extra_repr


class SiLU(_Inplace):
    """``x * sigmoid(x)``, a.k.a. swish (``torch.nn.SiLU``)."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    """``x * tanh(softplus(x))`` (``torch.nn.Mish``)."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class SELU(_Inplace):
    """Scaled ELU with the self-normalizing constants (``torch.nn.SELU``)."""

    def forward(self, input):
        return F.selu(input, self.inplace)


class _AlphaInplace(Module):
    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{', inplace=True' if self.inplace else ''}"


class ELU(_AlphaInplace):
    """``x if x > 0 else alpha (exp(x) - 1)`` (``torch.nn.ELU``)."""

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)


class CELU(_AlphaInplace):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))`` (``torch.nn.CELU``)."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GLU(Module):
    """Gated linear unit ``a * sigmoid(b)`` of the halves of ``dim`` (``torch.nn.GLU``)."""

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """``x * Phi(x)`` (``torch.nn.GELU``); ``approximate="tanh"`` uses the tanh approximation."""

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class _Shrink(Module):
    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """``x if |x| > lambd else 0`` (``torch.nn.Hardshrink``)."""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0 (``torch.nn.Softshrink``)."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    """``x if x > 0 else negative_slope * x`` (``torch.nn.LeakyReLU``)."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{', inplace=True' if self.inplace else ''}"


class LogSigmoid(Module):
    """``log(sigmoid(x))``, stable for large ``|x|`` (``torch.nn.LogSigmoid``)."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold`` (``torch.nn.Softplus``)."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softsign(Module):
    """``x / (1 + |x|)`` (``torch.nn.Softsign``)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)`` (``torch.nn.Tanhshrink``)."""

    def forward(self, input):
        return F.tanhshrink(input)


class PReLU(Module):
    """``x if x >= 0 else a x`` with learnable ``a`` (``torch.nn.PReLU``): one slope shared (``num_parameters=1``)
    or one per channel (dim 1), initialized to ``init``."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _SoftmaxBase(Module):
    __constants__ = ["dim"]

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """``exp(x) / sum(exp(x))`` along ``dim`` (``torch.nn.Softmax``); ``dim=None`` picks PyTorch's legacy
    implicit dim with a warning."""

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmin(_SoftmaxBase):
    """``softmax(-x)`` along ``dim`` (``torch.nn.Softmin``)."""

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """``log(softmax(x))`` along ``dim``, computed stably (``torch.nn.LogSoftmax``)."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channel dim (-3) of ``(N, C, H, W)`` or ``(C, H, W)``; ValueError for other ranks."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


# ---- multi-head attention -----------------------------------------------------------------------
class MultiheadAttention(Module):
    """Multi-head attention (``torch.nn.MultiheadAttention``): ``concat(head_1..head_h) W_o`` with
    ``head_i = softmax(Q W_q^i (K W_k^i)^T / sqrt(head_dim) + mask) V W_v^i``.

    Args: ``embed_dim``, ``num_heads`` (must divide it), ``dropout`` on the attention weights (training
    only), ``bias``, ``add_bias_kv`` (learned extra key/value), ``add_zero_attn``, ``kdim``/``vdim`` (key
    and value feature sizes; separate ``q/k/v_proj_weight`` then), ``batch_first``, ``device``, ``dtype``.
    Parameters: ``in_proj_weight`` ``(3E, E)`` (Xavier-uniform), ``in_proj_bias`` ``(3E,)`` (zeros),
    ``out_proj`` (a Linear ``E -> E``, bias zeroed).

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)``: query ``(L, N, E)`` (``(N, L, E)`` if batch_first, or
    unbatched ``(L, E)``), key/value ``(S, N, kdim/vdim)``; ``key_padding_mask`` ``(N, S)`` and ``attn_mask``
    ``(L, S)`` or ``(N*num_heads, L, S)`` are bool (True = not allowed to attend) or additive float.
    Returns ``(attn_output, attn_weights)``: weights ``(N, L, S)`` averaged over heads, ``(N, num_heads, L,
    S)`` when not ``average_attn_weights``, or None when not ``need_weights``.
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory_kwargs))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory_kwargs))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory_kwargs))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory_kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory_kwargs)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True, attn_mask=None,
                average_attn_weights: bool = True, is_causal: bool = False):
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:  # F works sequence-first; keep "key is value" (self-attention) true
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        return (out.transpose(1, 0), weights) if self.batch_first and is_batched else (out, weights)
