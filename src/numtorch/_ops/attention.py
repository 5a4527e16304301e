"""Multi-head attention (``F.multi_head_attention_forward``, the computation of ``nn.MultiheadAttention``),
in PyTorch's sequence-first layout and order of operations:

1. project ``query``/``key``/``value`` (one packed ``(3E, E)`` weight, or three separate ones);
2. append ``bias_k``/``bias_v`` as one more key/value position, and optionally a zero position;
3. split the embedding into ``num_heads`` heads: ``(N * num_heads, L, E / num_heads)``;
4. ``softmax(q k^T / sqrt(head_dim) + mask)`` (masks: bool = blocked, float = added), dropout on those
   weights in training, times ``v``; heads concatenated and projected by ``out_proj``.

With ``need_weights=False`` step 4 is ``scaled_dot_product_attention`` (the weights are not formed).
Bad shapes raise PyTorch's AssertionError/RuntimeError.
"""
from __future__ import annotations

import math
import warnings

from .._dtype import bool as _bool
from .._tensor import Tensor
from . import creation as _C, matmul as _M, rearrange as _RA
from .conv import pad
from .dropout import dropout
from .nn_ops import linear, scaled_dot_product_attention, softmax

__all__ = ["multi_head_attention_forward"]


def canonical_mask(mask, name, other, other_name, dtype):
    """A bool mask (True = blocked) as an additive float mask of ``dtype`` (-inf where blocked)."""
    if mask is None:
        return None
    float_mask = mask.dtype.is_floating_point
    if not float_mask and mask.dtype != _bool:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and mask.dtype != other.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      f"instead.", stacklevel=3)
    return mask if float_mask else _C.zeros_like(mask, dtype=dtype).masked_fill_(mask, float("-inf"))


def check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """PyTorch's rank checks (AssertionError); returns whether the input is batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         f"tensor")


def _project(query, key, value, use_separate, w, b, wq, wk, wv):
    """The q, k, v projections; self-attention with the packed weight takes one GEMM for all three."""
    if not use_separate:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if w is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if query is key and key is value:
            return linear(query, w, b).chunk(3, dim=-1)
        ws = w.chunk(3)
    else:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        for name, p in (("q", wq), ("k", wk), ("v", wv)):
            if p is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        ws = (wq, wk, wv)
    bs = (None, None, None) if b is None else b.chunk(3)
    return tuple(linear(x, wi, bi) for x, wi, bi in zip((query, key, value), ws, bs))


def _heads(t, static, n, hd, name):
    """``(len, N, E)`` -> ``(N * heads, len, head_dim)``, or the given ``static_k``/``static_v``."""
    if static is None:
        return t.reshape(t.shape[0], n, hd).transpose(0, 1)
    if static.size(0) != n:
        raise AssertionError(f"expecting {name}.size(0) of {n}, but got {static.size(0)}")
    if static.size(2) != hd:
        raise AssertionError(f"expecting {name}.size(2) of {hd}, but got {static.size(2)}")
    return static


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """``F.multi_head_attention_forward``: query ``(L, N, E)`` (or unbatched ``(L, E)``), key/value ``(S, N, *)``;
    ``attn_mask`` ``(L, S)`` or ``(N * num_heads, L, S)``, ``key_padding_mask`` ``(N, S)`` (bool = blocked or
    additive float). Returns ``(attn_output (L, N, E), attn_weights)``: weights ``(N, L, S)`` averaged over heads,
    ``(N, num_heads, L, S)`` if not ``average_attn_weights``, None if not ``need_weights``."""
    is_batched = check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention makes the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        is_causal = is_causal and key_padding_mask is None
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _project(query, key, value, use_separate_proj_weight, in_proj_weight, in_proj_bias, q_proj_weight,
                       k_proj_weight, v_proj_weight)
    src_len = key.shape[0]
    if attn_mask is not None:
        want = (tgt_len, src_len) if attn_mask.dim() == 2 else (bsz * num_heads, tgt_len, src_len)
        if attn_mask.dim() not in (2, 3):
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.dim()}D attn_mask is {attn_mask.shape}, but should be "
                               f"{want}.")
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.dim() == 2 else attn_mask
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError(f"bias cannot be added to static {'key' if static_k is not None else 'value'}.")
        k = _RA.cat([k, bias_k.reshape(1, 1, embed_dim).expand(1, bsz, embed_dim)])
        v = _RA.cat([v, bias_v.reshape(1, 1, embed_dim).expand(1, bsz, embed_dim)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k is set but bias_v is None" if bias_k is not None else
                             "bias_v is set but bias_k is None")
    n = bsz * num_heads
    q = q.reshape(tgt_len, n, head_dim).transpose(0, 1)
    k, v = _heads(k, static_k, n, head_dim, "static_k"), _heads(v, static_v, n, head_dim, "static_v")
    if add_zero_attn:
        k = _RA.cat([k, _C.zeros((n, 1, head_dim), dtype=k.dtype)], dim=1)
        v = _RA.cat([v, _C.zeros((n, 1, head_dim), dtype=v.dtype)], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for i, want in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                                     f"{key_padding_mask.shape[i]}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(n, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        scaled = q * math.sqrt(1.0 / float(head_dim))
        kt = k.transpose(-2, -1)
        weights = _M.bmm(scaled, kt) if attn_mask is None else _M.baddbmm(attn_mask, scaled, kt)
        weights = softmax(weights, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _M.bmm(weights, v)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
    else:
        if attn_mask is not None:
            attn_mask = attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 and attn_mask.dim() == 3 else \
                attn_mask.reshape(bsz, num_heads, -1, src_len)
        out = scaled_dot_product_attention(q.reshape(bsz, num_heads, tgt_len, head_dim),
                                           k.reshape(bsz, num_heads, src_len, head_dim),
                                           v.reshape(bsz, num_heads, src_len, head_dim), attn_mask, dropout_p,
                                           is_causal)
        out = out.permute(2, 0, 1, 3)
        weights = None
    out = linear(out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim) if need_weights else
                 out.reshape(tgt_len * bsz, embed_dim), out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights
