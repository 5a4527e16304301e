"""The ``out=`` argument: write an op's result into a caller's tensor, as PyTorch's ``out=`` does, and
PyTorch's checks of that tensor (its dtype, and memory it shares with itself or with the inputs)."""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import byte_bounds

from .._tensor import Tensor
from ._cast import _can_cast
from ._inplace import copy_

__all__ = ["_out", "check_out_dtype", "check_out_overlap", "check_select_out", "is_dense"]

_SELF_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
                 "location. Please clone() the tensor before performing the operation.")
_INPUT_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                  "single memory location. Please clone() the tensor before performing the operation.")


def _out(result, out):
    """Write ``result`` into ``out`` (resized to its shape) and return ``out``. RuntimeError, as PyTorch,
    when the result's dtype category can't be cast to ``out``'s (float into int, int into bool, ...), or
    when ``out`` (not resized) has elements sharing memory (an expanded tensor)."""
    if out is None:
        return result
    if not _can_cast(result._data.dtype, out._data.dtype):
        raise RuntimeError(f"result type {result.dtype._aten_name} can't be cast to the desired output "
                           f"type {out.dtype._aten_name}")
    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, out._data.dtype)
    elif _self_overlaps(out._data):
        raise RuntimeError(_SELF_OVERLAP)
    copy_(out, result)
    return out


def check_out_dtype(out, dtype, what="out tensor") -> None:
    """PyTorch's RuntimeError for an ``out=`` tensor (``out``'s name in the message: ``what``) whose dtype
    is not exactly ``dtype`` (ops that do not cast into ``out``: gather, aminmax, ...)."""
    if out is not None and out.dtype != dtype:
        raise RuntimeError(f"Expected {what} to have dtype {dtype._cpp_name}, but got {out.dtype._cpp_name} instead")


def is_dense(x: np.ndarray) -> bool:
    """True when the elements fill one block of memory without gaps or overlaps (any axis order): PyTorch's
    ``is_non_overlapping_and_dense``."""
    if x.flags.c_contiguous or x.flags.f_contiguous:
        return True
    span = sum((n - 1) * abs(st) for n, st in zip(x.shape, x.strides) if n > 1) + x.itemsize
    return all(st != 0 for n, st in zip(x.shape, x.strides) if n > 1) and span == x.size * x.itemsize


def _self_overlaps(x: np.ndarray) -> bool:
    """PyTorch's ``has_internal_overlap`` answering YES: a stride 0 along a dim of size > 1."""
    return not is_dense(x) and any(st == 0 and n > 1 for n, st in zip(x.shape, x.strides))


def _overlap(x: np.ndarray, y: np.ndarray) -> str | None:
    """PyTorch's ``get_overlap_status`` of two arrays: "full" (the same elements, same strides), "partial"
    (some shared memory), None (none shared, or too hard to tell: a tensor that is not dense)."""
    if not x.size or not y.size or not (is_dense(x) and is_dense(y)):
        return None
    bx, by = byte_bounds(x), byte_bounds(y)
    if bx == by:
        return "full" if x.strides == y.strides else "partial"
    return "partial" if bx[0] < by[1] and by[0] < bx[1] else None


def _resized(x: np.ndarray, shape) -> np.ndarray | None:
    """The memory an ``out=`` array takes once resized to ``shape`` as PyTorch resizes (in its storage from
    its first element, when the storage is big enough; else new memory: None)."""
    if x.shape == tuple(shape):
        return x
    root = x
    while isinstance(root.base, np.ndarray):
        root = root.base
    n = int(np.prod(shape))
    start = (byte_bounds(x)[0] - byte_bounds(root)[0]) // x.itemsize if x.size else 0
    if not root.flags.c_contiguous or not x.size or start + n > root.size:
        return None
    return root.reshape(-1)[start:start + n]


def check_out_overlap(out, *inputs, partial=(), shape=None) -> None:
    """PyTorch's memory-overlap checks of an ``out=`` tensor, RuntimeError "unsupported operation" when
    ``out`` has elements sharing memory (an expanded tensor), shares any memory with one of ``inputs``
    (the same tensor included), or shares part of one of ``partial`` (the same elements are allowed).
    ``shape``: check ``out`` as it will be once resized to it (ops that resize before checking)."""
    if out is None:
        return
    x = out._data if shape is None else _resized(out._data, shape)
    if x is None:  # a resize into new memory shares nothing
        return
    if _self_overlaps(x):
        raise RuntimeError(_SELF_OVERLAP)
    for t in inputs:
        if t is out or isinstance(t, Tensor) and _overlap(x, t._data):
            raise RuntimeError(_INPUT_OVERLAP)
    for t in partial:
        if t is not out and isinstance(t, Tensor) and _overlap(x, t._data) == "partial":
            raise RuntimeError(_INPUT_OVERLAP)


def check_select_out(out, input, index, name) -> None:
    """index_select's and masked_select's ``out=`` checks, in PyTorch's order: ``input``'s dtype, then no
    memory shared with ``input`` or the ``index`` (mask)."""
    if out is not None:
        if out.dtype != input.dtype:
            raise RuntimeError(f"{name}(): self and result must have the same scalar type")
        check_out_overlap(out, input, index)
