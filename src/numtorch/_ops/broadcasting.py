"""Broadcasting as its own operation: ``torch.broadcast_shapes`` (the shape that broadcasting several
shapes gives) and ``Tensor.sum_to_size`` (its adjoint: summing a tensor down to a shape it broadcasts
from, which is what every backward of a broadcasting op does to its gradient).
"""
from __future__ import annotations

import operator

from .._tensor import Size, Tensor
from .reduction import sum as _sum

__all__ = ["broadcast_shapes"]


def _as_shape(s):
    if isinstance(s, Tensor):
        raise TypeError("broadcast_shapes(): expected shapes as ints or sequences of ints, got a Tensor")
    try:
        return (operator.index(s),)
    except TypeError:
        return tuple(operator.index(n) for n in s)


def broadcast_shapes(*shapes) -> Size:
    """The shape ``broadcast_tensors`` would give tensors of these shapes (``torch.broadcast_shapes``);
    each shape is an int or a sequence of ints. RuntimeError when two sizes clash or a size is negative."""
    shapes = [_as_shape(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for k, s in enumerate(shapes):
        for i, n in enumerate(s, ndim - len(s)):
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(s)}")
            if n == out[i] or n == 1:
                continue
            if out[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {i - ndim}! Mismatching "
                                   f"argument at index {k} had {s}; but expected shape should be broadcastable to "
                                   f"{out}")
            out[i] = n
    return Size(out)


def sum_to_size(self: Tensor, *size) -> Tensor:
    """``self`` summed down to ``size`` (``Tensor.sum_to_size``), which must broadcast to ``self``'s shape:
    leading dims are summed away, dims of size 1 in ``size`` are summed keeping the dim.
    RuntimeError when ``size`` is not expandable to ``self``'s shape."""
    if len(size) == 1 and not isinstance(size[0], (int,)) and not hasattr(size[0], "__index__"):
        size = tuple(size[0])
    size = tuple(operator.index(n) for n in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if not shape:
        return _sum(self)  # PyTorch sums a 0-d tensor too (integers become int64)
    out = self
    keep = tuple(lead + i for i, (n, m) in enumerate(zip(size, shape[lead:])) if n == 1 and m != 1)
    if keep:
        out = _sum(out, keep, keepdim=True)
    if lead:
        out = _sum(out, tuple(range(lead)))
    return out
