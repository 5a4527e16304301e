"""Activations on integer and bool tensors, as PyTorch treats them: ``hardtanh``/``relu6`` clamp integers in
their own dtype, and ``threshold``, ``softsign`` and ``tanhshrink`` refuse bool tensors with the exception
PyTorch's kernel (or the subtraction inside its formula) raises."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor

__all__ = []

_BOOL_REFUSALS = {
    "threshold": (NotImplementedError, "\"threshold_cpu\" not implemented for 'Bool'"),
    "softsign": (NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'"),  # x / (1 + |x|)
    "tanhshrink": (RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                                 "trying to invert a mask, use the `~` or `logical_not()` operator instead."),
}


def no_bool(input: Tensor, name: str) -> Tensor:
    """``input``, unless it is a bool tensor, which activation ``name`` refuses as PyTorch does."""
    if input._data.dtype == np.bool_:
        kind, msg = _BOOL_REFUSALS[name]
        raise kind(msg)
    return input


def integer_hardtanh(input: Tensor, min_val, max_val) -> Tensor:
    """``hardtanh`` of an integer tensor: clamped in its own dtype (no gradient). RuntimeError for a bool
    tensor, and for negative limits on an unsigned one."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input._data.dtype.kind == "u" and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return input.clamp(min_val, max_val).to(input.dtype)
