"""Splitting and slicing views: split/chunk/tensor_split, unbind, narrow and select (mirrors the
matching ``torch.*`` functions). Each returns NumPy views of the input (``_view = True`` on its Op),
sharing memory and version counter with it as in PyTorch; backwards pad or concatenate gradients.
"""
from __future__ import annotations

import operator

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op, linear_backward
from ._util import placed, wrap_dim
from .shape import _ints

__all__ = ["split", "chunk", "tensor_split", "unbind", "narrow", "select", "split_with_sizes", "hsplit", "vsplit",
           "dsplit"]


# ------------------------------------------------------------------------------------------------
# split / chunk / unbind / narrow / select
# ------------------------------------------------------------------------------------------------
class SplitBackward0(Op):
    _vmap = ("dims", "dim")  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, bounds, dim):
        self.dim, self._bounds = dim, bounds
        edges = [0, *bounds, a.shape[dim]]  # np.split's pieces, by direct slicing (np.split is slow)
        lead = (slice(None),) * dim
        return tuple(a[lead + (slice(lo, hi),)] for lo, hi in zip(edges[:-1], edges[1:]))

    def backward(self, *grads):
        if self._graph:
            return linear_backward(self, grads, lambda w: self.forward(w, self._bounds, self.dim))
        return np.concatenate(grads, axis=self.dim)


class SplitWithSizesBackward0(SplitBackward0):
    pass


def split(tensor: Tensor, split_size_or_sections, dim=0):
    """Views of consecutive pieces along ``dim`` (``torch.split``): of size ``split_size`` each (the
    last may be smaller) or of the listed sizes. RuntimeError when the sizes do not fit."""
    if not isinstance(dim, (int, np.integer)):  # PyTorch's arg parser, before any shape check
        raise TypeError(f"split() received an invalid combination of arguments - got (Tensor, "
                        f"{type(split_size_or_sections).__name__}, {type(dim).__name__}), but expected one of:\n"
                        f" * (Tensor input, int split_size, int dim = 0)\n"
                        f" * (Tensor input, tuple of ints split_size, int dim = 0)\n")
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, tensor._data.ndim)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (tuple, list)):
        sizes = _ints((split_size_or_sections,), "split", "split_size")
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={list(sizes)}")
        return SplitWithSizesBackward0.apply(tensor, bounds=list(np.cumsum(sizes)[:-1]), dim=d)
    size = operator.index(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0:
        if n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        return SplitBackward0.apply(tensor, bounds=[], dim=d)
    return SplitBackward0.apply(tensor, bounds=list(range(size, n, size)), dim=d)


def chunk(input: Tensor, chunks, dim=0):
    """Split into ``chunks`` views of size ``ceil(n / chunks)`` (fewer if they run out) (``torch.chunk``)."""
    for pos, (arg, v) in enumerate((("chunks", chunks), ("dim", dim)), 2):  # the arg parser's checks first
        if not isinstance(v, (int, np.integer)):
            raise TypeError(f"chunk(): argument '{arg}' (position {pos}) must be int, not {type(v).__name__}")
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if n == 0:
        return split(input, [0] * chunks, d)
    return split(input, -(-n // chunks), d)


def tensor_split(input: Tensor, indices_or_sections=None, dim=0, *, indices=None, sections=None):
    """Views split into ``sections`` near-equal parts or at the given ``indices`` (``torch.tensor_split``;
    the split may also be passed by keyword as ``indices=`` or ``sections=``)."""
    given = [v for v in (indices_or_sections, indices, sections) if v is not None]
    if len(given) != 1:
        raise TypeError("tensor_split() missing required argument 'indices_or_sections' (or got it twice)")
    indices_or_sections = given[0]
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        ios = ios._data.item() if ios._data.ndim == 0 else ios._data.tolist()
    if isinstance(ios, (tuple, list)):
        bounds = [min(max(i if i >= 0 else i + n, 0), n) for i in _ints((ios,), "tensor_split", "indices")]
    else:
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds = list(np.cumsum([q + 1] * r + [q] * (ios - r))[:-1])
    starts = [0] + bounds
    stops = bounds + [n]
    return tuple(SliceBackward0.apply(input, dim=d, start=int(a), stop=int(max(a, b)))
                 for a, b in zip(starts, stops))


def split_with_sizes(input: Tensor, split_sizes, dim=0):
    """Views of the listed sizes along ``dim`` (``torch.split_with_sizes``); RuntimeError when they do not
    sum to the dim's size."""
    return split(input, list(_ints((split_sizes,), "split_with_sizes", "split_sizes")), dim)


def _directional_split(name, input, indices_or_sections, dim, min_dims):
    nd = input._data.ndim
    if nd < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension"
                           f"{'s' if min_dims > 1 else ''}, but got a tensor with {nd} dimensions!")
    if isinstance(indices_or_sections, (int, np.integer)):
        n = input._data.shape[dim]
        if indices_or_sections == 0 or n % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{n} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 for a 1-d input) (``torch.hsplit``); a number of sections must
    divide the dim's size (RuntimeError otherwise)."""
    return _directional_split("hsplit", input, indices_or_sections, 1 if input._data.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections):
    """``tensor_split`` along dim 0 of an input with at least 2 dims (``torch.vsplit``)."""
    return _directional_split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections):
    """``tensor_split`` along dim 2 of an input with at least 3 dims (``torch.dsplit``)."""
    return _directional_split("dsplit", input, indices_or_sections, 2, 3)


class UnbindBackward0(Op):
    _vmap = ("dims", "dim")  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, dim):
        self.dim = dim
        m = np.moveaxis(a, dim, 0)
        return tuple(m[i, ...] for i in range(m.shape[0]))

    def backward(self, *grads):
        if self._graph:
            return linear_backward(self, grads, lambda w: self.forward(w, self.dim))
        return np.stack(grads, axis=self.dim)


def unbind(input: Tensor, dim=0):
    """A tuple of views, one per index along ``dim``, each without that dim (``torch.unbind``)."""
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return UnbindBackward0.apply(input, dim=wrap_dim(dim, input._data.ndim))


class SliceBackward0(Op):
    _vmap = ("dims", "dim")  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, dim, start, stop):
        self.shape = a.shape
        self.idx = (slice(None),) * dim + (slice(start, stop),)
        return a[self.idx]

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: w[self.idx])
        return placed(self.shape, self.idx, g)


def narrow(input: Tensor, dim, start, length) -> Tensor:
    """The view of ``length`` indices from ``start`` along ``dim`` (``torch.narrow``).

    ``start`` may be negative or a 0-d tensor. RuntimeError for a 0-d input, negative length or a
    range past the end or a tensor ``start`` that is not a 0-d integer tensor; IndexError for a start
    out of range.
    """
    if isinstance(start, Tensor) and (start._data.ndim or start._data.dtype.kind not in "iu"):
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    start = operator.index(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return SliceBackward0.apply(input, dim=d, start=start, stop=start + length)


class SelectBackward0(Op):
    _vmap = ("dims", "dim")  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, dim, index):
        self.shape = a.shape
        # Ellipsis keeps 0-d results as views
        self.idx = (index, Ellipsis) if dim == 0 else (slice(None),) * dim + (index, Ellipsis)
        return a[self.idx]

    backward = SliceBackward0.backward  # zeros with g at idx


def select(input: Tensor, dim, index) -> Tensor:
    """The view at ``index`` along ``dim``, without that dim (``torch.select``); IndexError if out of range."""
    shp = input._data.shape
    if not shp:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shp))
    index = operator.index(index)
    if not -shp[d] <= index < shp[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shp)} at dimension {d}")
    return SelectBackward0.apply(input, dim=d, index=index % shp[d])
