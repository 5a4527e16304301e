"""Copying rearrangements: cat/stack, flip/roll/rot90, triangles and diagonals (mirrors ``torch.cat``,
``torch.stack``, ``torch.flip``, ``torch.roll``, ``torch.tril``, ``torch.diagonal``, ...).

The view-producing shape ops (view, permute, expand, split, ...) are in ``shape.py``; these ops
(except ``diagonal``, a view) build new arrays. Every backward is a slice, a flip or a mask over
whole arrays.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from ._util import dims_arg, wrap_dim
from .shape import _check_tensors, _ints, _out, _promote, atleast_1d, atleast_2d, atleast_3d

__all__ = """cat concat concatenate stack hstack vstack row_stack dstack flip fliplr flipud roll rot90 tril triu
diagonal diag diag_embed""".split()

# ------------------------------------------------------------------------------------------------
# cat / stack
# ------------------------------------------------------------------------------------------------
def _legacy_empty(a):
    return a.ndim == 1 and a.shape[0] == 0  # PyTorch lets 1-d empty tensors join any cat


class CatBackward0(Op):
    def forward(self, *arrays, dim):
        parts = [(i, a) for i, a in enumerate(arrays) if not _legacy_empty(a)]
        self.meta = [(a.shape, a.dtype) for a in arrays]
        self.dim = dim
        self.parts = [i for i, _ in parts]
        if not parts:
            return np.empty((0,), arrays[0].dtype)
        i0, ref = parts[0]
        for i, a in parts[1:]:
            if a.ndim != ref.ndim:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {a.ndim}")
            for k in range(ref.ndim):
                if k != dim and a.shape[k] != ref.shape[k]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                       f"{ref.shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
        return np.concatenate([a for _, a in parts], axis=dim)

    def backward(self, g):
        grads = [np.zeros(s, d) for s, d in self.meta]
        if self.parts:
            bounds = np.cumsum([self.meta[i][0][self.dim] for i in self.parts])[:-1]
            for i, piece in zip(self.parts, np.split(g, bounds, axis=self.dim)):
                grads[i] = piece
        return tuple(grads)


def cat(tensors, dim=0, *, out=None) -> Tensor:
    """Concatenate ``tensors`` along existing dim ``dim`` (``torch.cat``), promoting dtypes.

    1-d empty tensors are skipped, as in PyTorch. ValueError for an empty list; RuntimeError for
    0-d tensors or sizes that differ outside ``dim``; TypeError for a non-Tensor element.
    """
    tensors = _check_tensors(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = next((x for x in tensors if not _legacy_empty(x._data)), tensors[0])
    d = wrap_dim(dim, ref._data.ndim)
    return _out(CatBackward0.apply(*_promote(tensors), dim=d), out)


concat = cat


def concatenate(tensors, axis=0, out=None) -> Tensor:
    """``torch.cat`` with NumPy's argument name ``axis``."""
    return cat(tensors, axis, out=out)


class StackBackward0(Op):
    def forward(self, *arrays, dim):
        self.dim = dim
        return np.stack(arrays, axis=dim)

    def backward(self, g):
        gm = np.moveaxis(g, self.dim, 0)
        return tuple(gm[i, ...] for i in range(gm.shape[0]))


def stack(tensors, dim=0, *, out=None) -> Tensor:
    """Join equally shaped tensors along a new dim ``dim`` (``torch.stack``), promoting dtypes.

    RuntimeError for an empty list or tensors of different shapes.
    """
    tensors = _check_tensors(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = tensors[0]._data.shape
    for i, x in enumerate(tensors):
        if x._data.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(s0)} at entry 0 and "
                               f"{list(x._data.shape)} at entry {i}")
    d = wrap_dim(dim, len(s0) + 1)
    return _out(StackBackward0.apply(*_promote(tensors), dim=d), out)


def hstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 1 (dim 0 for 1-d inputs) (``torch.hstack``)."""
    ts = atleast_1d(_check_tensors(tensors, "hstack"))
    return cat(ts, 0 if ts and ts[0]._data.ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 0 after making inputs at least 2-d (``torch.vstack``)."""
    return cat(atleast_2d(_check_tensors(tensors, "vstack")), 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 2 after making inputs at least 3-d (``torch.dstack``)."""
    return cat(atleast_3d(_check_tensors(tensors, "dstack")), 2, out=out)


# ------------------------------------------------------------------------------------------------
# flip / roll / rot90
# ------------------------------------------------------------------------------------------------
class FlipBackward0(Op):
    def forward(self, a, dims):
        self.dims = dims
        return np.flip(a, dims).copy()

    def backward(self, g):
        return np.flip(g, self.dims)


def flip(input: Tensor, dims) -> Tensor:
    """A copy with the order of elements reversed along ``dims`` (``torch.flip``)."""
    dims = _ints((dims,), "flip", "dims")
    return FlipBackward0.apply(input, dims=dims_arg(dims, input._data.ndim) or ())


def fliplr(input: Tensor) -> Tensor:
    """``flip(input, (1,))`` for inputs of at least 2 dims."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return FlipBackward0.apply(input, dims=(1,))


def flipud(input: Tensor) -> Tensor:
    """``flip(input, (0,))`` for inputs of at least 1 dim."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return FlipBackward0.apply(input, dims=(0,))


class RollBackward0(Op):
    def forward(self, a, shifts, dims):
        self.shifts, self.dims = shifts, dims
        return np.roll(a, shifts, dims)

    def backward(self, g):
        return np.roll(g, tuple(-s for s in self.shifts) if self.dims is not None else -self.shifts, self.dims)


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Rotate elements by ``shifts`` along ``dims`` (the flattened tensor when None) (``torch.roll``).

    RuntimeError when the numbers of shifts and dims differ.
    """
    shifts = _ints((shifts,), "roll", "shifts")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return RollBackward0.apply(input, shifts=shifts[0], dims=None)
    dims = _ints((dims,), "roll", "dims")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    nd = input._data.ndim
    return RollBackward0.apply(input, shifts=shifts, dims=tuple(wrap_dim(d, nd) for d in dims))


class Rot90Backward0(Op):
    def forward(self, a, k, dims):
        self.k, self.dims = k, dims
        return np.rot90(a, k, dims).copy()

    def backward(self, g):
        return np.rot90(g, -self.k, self.dims)


def rot90(input: Tensor, k=1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane ``dims``, from the first toward the second."""
    dims = _ints((dims,), "rot90", "dims")
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = wrap_dim(dims[0], nd), wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return Rot90Backward0.apply(input, k=k % 4, dims=(d0, d1))


# ------------------------------------------------------------------------------------------------
# triangles and diagonals
# ------------------------------------------------------------------------------------------------
class TrilBackward0(Op):
    def forward(self, a, k):
        self.k = k
        return np.tril(a, k)

    def backward(self, g):
        return np.tril(g, self.k)


class TriuBackward0(Op):
    def forward(self, a, k):
        self.k = k
        return np.triu(a, k)

    def backward(self, g):
        return np.triu(g, self.k)


def tril(input: Tensor, diagonal=0, *, out=None) -> Tensor:
    """Lower triangle of the last two dims, zero above ``diagonal`` (``torch.tril``)."""
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return _out(TrilBackward0.apply(input, k=diagonal), out)


def triu(input: Tensor, diagonal=0, *, out=None) -> Tensor:
    """Upper triangle of the last two dims, zero below ``diagonal`` (``torch.triu``)."""
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return _out(TriuBackward0.apply(input, k=diagonal), out)


def _diag_view(a, offset, d1, d2):
    """np.diagonal made writable when ``a`` is (NumPy returns it read-only by default)."""
    v = np.diagonal(a, offset, d1, d2)
    if a.flags.writeable and not v.flags.writeable:
        v.flags.writeable = True
    return v


class DiagonalBackward0(Op):
    _view = True

    def forward(self, a, offset, d1, d2):
        self.shape, self.args = a.shape, (offset, d1, d2)
        return _diag_view(a, offset, d1, d2)

    def backward(self, g):
        out = np.zeros(self.shape, g.dtype)
        _diag_view(out, *self.args)[...] = g
        return out


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - PyTorch's node name (torch.diag of a matrix)
    _view = False

    def forward(self, a, offset, d1, d2):
        return super().forward(a, offset, d1, d2).copy()


class DiagEmbedBackward0(Op):
    def forward(self, a, offset, d1, d2):
        self.args = (offset, d1, d2)
        n = a.shape[-1] + abs(offset)
        shape = list(a.shape[:-1])
        for d in sorted((d1, d2)):
            shape.insert(d, n)
        out = np.zeros(shape, a.dtype)
        _diag_view(out, offset, d1, d2)[...] = a
        return out

    def backward(self, g):
        return _diag_view(g, *self.args)


def diagonal(input: Tensor, offset=0, dim1=0, dim2=1) -> Tensor:
    """View of the diagonal ``offset`` of the (``dim1``, ``dim2``) planes, appended as the last dim."""
    nd = input._data.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagonalBackward0.apply(input, offset=offset, d1=d1, d2=d2)


def diag_embed(input: Tensor, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """Matrices whose diagonal ``offset`` in dims (``dim1``, ``dim2``) holds the last dim of ``input``."""
    nd = input._data.ndim + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbedBackward0.apply(input, offset=offset, d1=d1, d2=d2)


def diag(input: Tensor, diagonal=0, *, out=None) -> Tensor:
    """1-d input: a square matrix with it on diagonal ``diagonal``; 2-d: a copy of that diagonal."""
    nd = input._data.ndim
    if nd == 1:
        return _out(DiagEmbedBackward0.apply(input, offset=diagonal, d1=0, d2=1), out)
    if nd == 2:
        return _out(DiagonalBackward0_copy.apply(input, offset=diagonal, d1=0, d2=1), out)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


def flip_method(self: Tensor, *dims, **kw) -> Tensor:
    return flip(self, _ints(dims or (kw["dims"],), "flip", "dims"))
