"""Flat indices and coordinates: ``torch.unravel_index`` (the coordinates of flat indices into a C-ordered
tensor of a given shape)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._util import to_tensor

__all__ = ["unravel_index"]


def unravel_index(indices: Tensor, shape) -> tuple:
    """The coordinates, one int64 tensor per dim of ``shape``, of flat ``indices`` into a C-ordered tensor of
    ``shape`` (``torch.unravel_index``): ``(indices // stride) % size`` per dim, so out-of-range and negative
    indices wrap as in PyTorch. TypeError for non-integer indices or shape; ValueError for a negative size."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    a = indices._data
    if a.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    elif isinstance(shape, (tuple, list)) and all(isinstance(n, (int, np.integer)) for n in shape):
        shape = tuple(int(n) for n in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if 0 in shape and a.size:
        raise RuntimeError("ZeroDivisionError")
    strides = np.cumprod((1,) + shape[::-1][:-1])[::-1] if shape else ()
    a = a.astype(np.int64)
    return tuple(to_tensor(np.asarray(np.floor_divide(a, int(st)) % n if n else a)) for st, n in zip(strides, shape))
