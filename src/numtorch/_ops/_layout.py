"""Memory formats (``torch.contiguous_format``, ``channels_last``, ``channels_last_3d``,
``preserve_format``) as NumPy layouts: a Tensor's strides are its array's strides, so a channels-last
tensor is an NCHW view of an NHWC-contiguous array, and ``stride()`` / ``is_contiguous(memory_format=)``
answer as PyTorch's do without a separate format flag.

``laid_out(a, memory_format, like=None)`` is a copy of ``a`` in the asked layout; ``preserve_format`` (or
None) keeps the stride order of ``like`` (else of ``a``), PyTorch's rule for dense tensors. RuntimeError when a channels-last format meets a tensor of the wrong rank.
"""
from __future__ import annotations

import numpy as np

_RANK = {"channels_last": 4, "channels_last_3d": 5}


def format_name(memory_format) -> str:
    """``"channels_last"`` for ``torch.channels_last`` (formats live above this layer: compared by name)."""
    return "preserve_format" if memory_format is None else str(memory_format).split(".")[-1]


def _channels_last_order(nd):
    return (0, *range(2, nd), 1)


def is_channels_last(a: np.ndarray, name: str) -> bool:
    nd = _RANK[name]
    return a.ndim == nd and a.transpose(_channels_last_order(nd)).flags.c_contiguous


def laid_out(a: np.ndarray, memory_format, like: np.ndarray | None = None) -> np.ndarray:
    name = format_name(memory_format)
    if name == "preserve_format":  # the stride order of ``like`` (or of ``a``): NumPy's order="K"
        if like is None:
            return np.array(a, order="K", copy=True)
        out = np.empty_like(like, dtype=a.dtype, order="K")
        out[...] = a
        return out
    if name in _RANK:
        nd = _RANK[name]
        if a.ndim != nd:
            raise RuntimeError(f"required rank {nd} tensor to use {name} format")
        perm = _channels_last_order(nd)
        return np.ascontiguousarray(a.transpose(perm)).transpose(np.argsort(perm))
    if name != "contiguous_format":
        raise RuntimeError(f"unsupported memory format {memory_format}")
    return np.array(a, order="C", copy=True)
