"""Dropout kernels: ``dropout``, ``feature_dropout`` (whole channels), ``alpha_dropout`` and
``feature_alpha_dropout`` (for SELU nets).

The keep mask is drawn as PyTorch draws it (``bernoulli_(1 - p)`` on an empty tensor laid out like the
input, then scaled by ``1/(1-p)``), so a seed gives PyTorch's masks; the node multiplies by that
constant mask (``NativeDropoutBackward0``).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _generator as _G
from .._backend import MetaArray, meta
from .._tensor import Tensor, _make
from ..autograd import function as _function
from ..autograd.function import Op
from ..autograd.grad_mode import _State, no_grad
from ._inplace import copy_, inplace as _inplace
from ._util import bump
from .pointwise import add
from .sampling import _is_dense, _vmap_empty, bernoulli_

__all__ = ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"]


# ================================================================================================
# dropout
# ================================================================================================
class NativeDropoutBackward0(Op):
    """``x * mask`` with a precomputed, already scaled mask (broadcastable to ``x``)."""
    _vmap = "dropout"  # batching rule kind (func/_batching_rules_nn.py)

    _graph_constants = ("saved",)  # the scaled keep mask

    def forward(self, x, mask):
        self.saved = mask
        return x * mask

    def backward(self, g):
        return g * self.saved


def _keep_mask(shape, p, dtype, like=None):
    """Dropout noise as PyTorch makes it: ``bernoulli_(1 - p)`` on an empty tensor of ``dtype`` (laid out like
    ``like`` when given), then divided by ``1 - p`` in that dtype: ``1/(1-p)`` where kept, 0 where dropped."""
    q = 1.0 - p
    if q <= 0:  # p == 1: zeros, without drawing (as PyTorch)
        return np.zeros(shape, dtype)
    # torch.empty_like keeps a dense input's layout, and the mask is drawn in memory order
    noise = _make(np.empty_like(like) if like is not None and _is_dense(like) else np.empty(shape, dtype))
    mask = bernoulli_(noise, q)._data
    if mask.dtype.itemsize == 2:  # float16/bfloat16: divided in float32 by the unrounded 1 - p, then rounded
        return (mask.astype(np.float32) / np.float32(q)).astype(mask.dtype)
    np.divide(mask, mask.dtype.type(q), out=mask)
    return mask


def _mask(input, shape, p, like=None):
    """The scaled keep mask of ``shape`` for ``input`` and the vmap levels it is batched at: outside vmap
    (or shared by the batch: randomness="same", unbatched input) an array and (); inside vmap, the physical
    mask of a batched empty tensor filled per sample of the "different" levels (func/_vmap.py)."""
    dt = input._data.dtype
    if type(input._data) is MetaArray:  # a meta tensor: a meta mask, nothing drawn (docs/meta.md)
        return meta(shape, dt), ()
    if _G.vmap_random_levels is None:
        return _keep_mask(shape, p, dt, like), ()
    empty = _vmap_empty(input, dt, shape)
    src = getattr(empty._data, "_src", None)
    if src is None:
        return _keep_mask(shape, p, dt), ()
    phys, levels = src
    q = 1.0 - p
    if q <= 0:
        return np.zeros(phys._data.shape, dt), levels
    m = bernoulli_(empty, q)._phys._data
    if m.dtype.itemsize == 2:  # as _keep_mask
        return (m.astype(np.float32) / np.float32(q)).astype(m.dtype), levels
    np.divide(m, m.dtype.type(q), out=m)
    return m, levels


def _batched_option(arr, levels):
    """A physical array as an Op option under vmap: the stand-in ``_data`` of the batched tensor over it, which
    the vmap dispatcher turns back into the batched tensor (func/_batched.py)."""
    return _function.vmap_wrap(_make(arr), levels)._data if levels else arr


def _apply_mask(input, mask, inplace):
    if inplace:
        if not (_State.enabled and input._rg or _State.fw or _State.vmap):  # fw: forward AD
            with no_grad():
                np.multiply(input._data, mask, out=input._data, casting="unsafe")
            bump(input)
            return input
        return _inplace(input, lambda s: NativeDropoutBackward0.apply(s, mask=mask))
    return NativeDropoutBackward0.apply(input, mask=mask)


def dropout(input: Tensor, p: float = 0.5, train: bool = True, inplace: bool = False) -> Tensor:
    """``torch.dropout``: zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    Identity when ``train`` is False or ``p == 0``. Uses the default generator (``manual_seed``).
    """
    if not train or p == 0 or input._data.size == 0:
        return input
    return _apply_mask(input, _batched_option(*_mask(input, input._data.shape, p, input._data)), inplace)


def feature_dropout(input: Tensor, p: float = 0.5, train: bool = True, inplace: bool = False) -> Tensor:
    """Channel-wise dropout: one draw per ``(N, C)`` entry of an ``(N, C, *)`` input, broadcast over the rest."""
    if not train or p == 0 or input._data.size == 0:
        return input
    shape = input._data.shape[:2] + (1,) * (input._data.ndim - 2)
    return _apply_mask(input, _batched_option(*_mask(input, shape, p)), inplace)


_ALPHA = 1.7580993408473766  # -SELU's negative saturation value (alpha * scale)


def alpha_dropout(input: Tensor, p: float = 0.5, train: bool = False, inplace: bool = False) -> Tensor:
    """``torch.alpha_dropout``: dropout for SELU nets keeping zero mean and unit variance.

    Dropped elements take SELU's saturation value; the result is ``a * x' + b`` as in PyTorch.
    """
    return _alpha_dropout(input, p, train, inplace, input._data.shape)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, train: bool = False, inplace: bool = False) -> Tensor:
    """``torch.feature_alpha_dropout``: alpha dropout of whole channels of an ``(N, C, *)`` input."""
    x = input._data
    return _alpha_dropout(input, p, train, inplace, x.shape[:2] + (1,) * (x.ndim - 2))


def _alpha_dropout(input, p, train, inplace, mask_shape):
    if not train or p == 0 or input._data.size == 0:
        return input
    dt = input._data.dtype
    like = input._data if mask_shape == input._data.shape else None
    mask, levels = _mask(input, mask_shape, p, like) if p < 1 else (np.zeros(mask_shape, dt), ())
    keep = (mask > 0).astype(dt)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p)) if p < 1 else 0.0
    shift = ((keep - 1) * (_ALPHA * a) + _ALPHA * a * p).astype(dt, copy=False)
    shift = _function.vmap_wrap(_make(shift), levels) if levels else _make(shift)
    out = add(NativeDropoutBackward0.apply(input, mask=_batched_option(keep * a, levels)), shift)
    if inplace:
        return copy_(input, out)
    return out
