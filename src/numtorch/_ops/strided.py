"""Strided views and in-place shape changes (mirrors ``Tensor.unfold``, ``torch.as_strided``,
``Tensor.squeeze_``/``unsqueeze_``/``t_``/``transpose_`` and ``Tensor.resize_``).

Kept apart from ``shape.py`` (the reshaping/transposing family they extend) to keep each file
readable. ``unfold`` and ``as_strided`` return NumPy strided views of the input, so they share
memory with it as in PyTorch; their backward sums the gradient of every output element back onto
the input element it aliases. The in-place forms run the matching view op and then give ``self``
the result's array and history, bumping the version counter as PyTorch does.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .._tensor import Tensor
from .._tensor_storage import _owner
from ..autograd.function import Op, linear_backward
from ._util import check_inplace, dims_arg, wrap_dim
from .shape import SqueezeBackward0, TBackward0, TransposeBackward0, UnsqueezeBackward0, _ints

__all__ = ["as_strided", "as_strided_"]


# ------------------------------------------------------------------------------------------------
# unfold: sliding windows
# ------------------------------------------------------------------------------------------------
class UnfoldBackward0(Op):
    """Windows of ``size`` every ``step`` along ``dim`` as a new last dim, a strided view; backward
    adds each window's gradient back (one vectorized add per window offset, not per element)."""

    _view = True

    def forward(self, a, dim, size, step):
        self.shape, self.dim, self.size, self.step = a.shape, dim, size, step
        if a.ndim == 0:  # PyTorch: a 0-d input gives the 1-d "window" of its one element (or none)
            return a.reshape(1)[:size]
        n = (a.shape[dim] - size) // step + 1
        shape = a.shape[:dim] + (n,) + a.shape[dim + 1:] + (size,)
        strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1:] + (a.strides[dim],)
        return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: self.forward(w, self.dim, self.size, self.step))
        if not self.shape:
            return g.sum().reshape(())
        out = np.zeros(self.shape, g.dtype)
        n, d = g.shape[self.dim], self.dim
        gm = np.moveaxis(g, -1, 0)  # (size, ..., n, ...): offset j of every window at once
        for j in range(self.size):
            out[(slice(None),) * d + (slice(j, j + self.step * (n - 1) + 1, self.step),)] += gm[j]
        return out


def unfold(self: Tensor, dimension, size, step) -> Tensor:
    """All windows of ``size`` elements taken every ``step`` along ``dimension``, as a view with the
    window as a new last dim (``Tensor.unfold``): shape ``(..., (n - size) // step + 1, ..., size)``;
    a 0-d input is treated as 1-d.

    RuntimeError for a negative size, a non-positive step or a window longer than the dim;
    IndexError for a bad dim.
    """
    nd = self._data.ndim
    d = wrap_dim(dimension, max(nd, 1))
    n = self._data.shape[d] if nd else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return UnfoldBackward0.apply(self, dim=d, size=int(size), step=int(step))


# ------------------------------------------------------------------------------------------------
# as_strided: any view of the storage
# ------------------------------------------------------------------------------------------------
def _storage(a):
    """The flat array owning ``a``'s memory (its "storage"), or None if that array is not contiguous."""
    root = _owner(a)
    return root.reshape(-1) if root.flags.c_contiguous else None


def _positions(n, shape, strides, offset):
    """Storage positions (ints) of the elements of the view (shape, element strides, offset)."""
    idx = np.arange(n, dtype=np.int64)
    return np.lib.stride_tricks.as_strided(idx[offset:], shape, tuple(s * idx.itemsize for s in strides))


class AsStridedBackward0(Op):
    _view = True

    def forward(self, a, size, stride, offset):
        root = _storage(a)
        if root is None:
            raise RuntimeError("numtorch: as_strided needs a tensor whose underlying array is contiguous")
        start = (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize
        self.n, self.out_geom = root.size, (size, stride, offset)
        self.in_geom = (a.shape, tuple(s // a.itemsize for s in a.strides), start)
        return np.lib.stride_tricks.as_strided(root[offset:], size, tuple(s * a.itemsize for s in stride),
                                               writeable=a.flags.writeable)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        pos = _positions(self.n, *self.out_geom).reshape(-1)
        total = np.bincount(pos, weights=g.reshape(-1), minlength=self.n).astype(g.dtype, copy=False)
        return total[_positions(self.n, *self.in_geom)]

    def _adjoint(self, w):
        """The forward on a gradient ``w`` shaped like the input: its storage is ``w`` at the input's
        positions (zero elsewhere), read at the output's positions."""
        store = np.zeros(self.n, w.dtype)
        store[_positions(self.n, *self.in_geom)] = w
        return store[_positions(self.n, *self.out_geom)]


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """The view of ``input``'s storage with ``size``, ``stride`` (in elements) and ``storage_offset``
    (default: ``input``'s own) (``torch.as_strided``). RuntimeError for negative values or a view
    reaching past the end of the storage."""
    return AsStridedBackward0.apply(input, **_as_strided_geometry(input, size, stride, storage_offset))


def _as_strided_geometry(input: Tensor, size, stride, storage_offset):
    """``as_strided``'s arguments checked: the view's size, stride and storage offset."""
    size, stride = _ints((size,), "as_strided"), _ints((stride,), "as_strided", "stride")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    offset = input.storage_offset() if storage_offset is None else operator.index(storage_offset)
    if min(size + stride + (offset,)) < 0:
        raise RuntimeError(f"as_strided: Negative strides, sizes or storage offset are not supported, got size "
                           f"{list(size)}, stride {list(stride)}, offset {offset}")
    root = _storage(input._data)
    need = offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1 if all(size) else 0
    if root is not None and need > root.size:
        isz = input._data.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {isz} requiring a storage size of {need * isz} are out of bounds for storage "
                           f"of size {root.size * isz}")
    return dict(size=size, stride=stride, offset=offset)


# ------------------------------------------------------------------------------------------------
# in-place shape changes; the node names are PyTorch's for the in-place forms
# ------------------------------------------------------------------------------------------------
class SqueezeBackward3(SqueezeBackward0):
    pass


class SqueezeBackward4(SqueezeBackward0):
    pass


class SqueezeBackward5(SqueezeBackward0):
    pass


class UnsqueezeBackward1(UnsqueezeBackward0):
    pass


class TransposeBackward1(TransposeBackward0):
    pass


class TBackward1(TBackward0):
    pass


class AsStridedBackward1(AsStridedBackward0):
    pass


def _restride(self: Tensor, op, **opts) -> Tensor:
    """Run view ``op`` on ``self`` and make ``self`` that view: new array, new history, version + 1."""
    phys = getattr(self, "_phys", None)  # a batched tensor (under vmap): its physical tensor is restrided
    check_inplace(self if phys is None else phys)
    out = op.apply(self, **opts)
    self._data = out._data
    if phys is not None:
        self._phys, self._levels = out._phys, out._levels
    elif out.grad_fn is not None:
        self.grad_fn, self._output_nr = out.grad_fn, 0
    self._vc[0] += 1
    if self._base is not None:
        self._view_version = self._vc[0]  # its new history is already current
    return self


def squeeze_(self: Tensor, dim=None) -> Tensor:
    """In-place ``squeeze``: ``self`` loses its size-1 dims (all, or those among ``dim``)."""
    shp = self._data.shape
    if dim is None:
        return _restride(self, SqueezeBackward3, axes=tuple(i for i, s in enumerate(shp) if s == 1))
    if isinstance(dim, (tuple, list)):
        dims = dims_arg(dim, len(shp)) or ()
        return _restride(self, SqueezeBackward5, axes=tuple(d for d in dims if shp and shp[d] == 1))  # 0-d: dim 0 ok
    d = wrap_dim(dim, len(shp))
    return _restride(self, SqueezeBackward4, axes=(d,) if shp and shp[d] == 1 else ())


def unsqueeze_(self: Tensor, dim) -> Tensor:
    """In-place ``unsqueeze``: a size-1 dim is inserted into ``self`` at ``dim``."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"unsqueeze_(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    return _restride(self, UnsqueezeBackward1, dim=wrap_dim(dim, self._data.ndim + 1))


def t_(self: Tensor) -> Tensor:
    """In-place ``t``; RuntimeError for more than 2 dims."""
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
    return _restride(self, TBackward1)


def as_strided_(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    """In-place ``as_strided`` (``Tensor.as_strided_``): ``self`` becomes the view of its storage with
    ``size``, ``stride`` and ``storage_offset`` (default: its own); errors as ``as_strided``."""
    return _restride(self, AsStridedBackward1, **_as_strided_geometry(self, size, stride, storage_offset))


def transpose_(self: Tensor, dim0, dim1) -> Tensor:
    """In-place ``transpose`` (also bound as ``swapdims_`` and ``swapaxes_``)."""
    nd = self._data.ndim
    return _restride(self, TransposeBackward1, d0=wrap_dim(dim0, nd), d1=wrap_dim(dim1, nd))


def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """Give ``self`` the shape ``sizes`` in place (``Tensor.resize_``): its elements, in order, fill the
    new shape and any beyond the old count are uninitialized. RuntimeError if ``self`` requires grad."""
    if self._rg:
        raise RuntimeError("cannot resize variables that require grad")
    shape = _ints(sizes, "resize_")
    if shape and min(shape) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    n, a = math.prod(shape), self._data
    if n == a.size and a.flags.c_contiguous:
        self._data = a.reshape(shape)
    else:
        new = np.empty(n, a.dtype)
        k = min(n, a.size)
        new[:k] = a.reshape(-1)[:k]
        self._data = new.reshape(shape)
    self._vc[0] += 1
    return self
