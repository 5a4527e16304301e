"""Copying rearrangements: cat/stack, repeat/tile/repeat_interleave, flip/roll/rot90, triangles and
diagonals (mirrors ``torch.cat``, ``torch.stack``, ``Tensor.repeat``, ``torch.flip``, ``torch.roll``,
``torch.tril``, ``torch.diagonal``, ...).

The view-producing shape ops (view, permute, expand, ...) are in ``shape.py``, split/narrow/select
in ``slicing.py``; these ops
(except ``diagonal``, a view) build new arrays. Every backward is a slice, a flip or a mask over
whole arrays.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op, linear_backward
from ._cast import cast
from ._out import _out, check_out_overlap
from ._util import dims_arg, wrap_dim
from .indexing import IndexSelectBackward0
from .shape import _ints, _varargs, atleast_1d, atleast_2d, atleast_3d, contiguous, expand, flatten, unsqueeze, view

__all__ = """cat concat concatenate stack hstack vstack row_stack dstack repeat_interleave tile flip fliplr flipud roll
rot90 tril triu diagonal diag diag_embed column_stack diagflat""".split()


def _check_tensors(tensors, fn):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def _promote(tensors):
    """Cast every tensor to the common dtype (differentiably), as cat/stack do."""
    dt = tensors[0]._data.dtype
    if all(t._data.dtype == dt for t in tensors):
        return tensors
    common = functools.reduce(_dtype.promote_types, (t.dtype for t in tensors))
    return [cast(t, common) for t in tensors]


# ------------------------------------------------------------------------------------------------
# cat / stack
# ------------------------------------------------------------------------------------------------
def _legacy_empty(a):
    return a.ndim == 1 and a.shape[0] == 0  # PyTorch lets 1-d empty tensors join any cat


class CatBackward0(Op):
    _vmap = ("dims", "dim")  # batching rule kind (func/_batching_rules.py)
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
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        grads = [np.zeros(s, d) for s, d in self.meta]
        if self.parts:
            bounds = np.cumsum([self.meta[i][0][self.dim] for i in self.parts])[:-1]
            for i, piece in zip(self.parts, np.split(g, bounds, axis=self.dim)):
                grads[i] = piece
        return tuple(grads)

    def _adjoint(self, *ws):
        parts = [w if w is not None else np.zeros(*self.meta[i]) for i, w in enumerate(ws) if i in self.parts]
        return np.concatenate(parts, axis=self.dim) if parts else np.empty((0,), self.meta[0][1])


def _int_dim(dim, name):
    """PyTorch's arg-parser TypeError for a ``dim`` that is not an int (checked before any shape)."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")


def cat(tensors, dim=0, *, out=None) -> Tensor:
    """Concatenate ``tensors`` along existing dim ``dim`` (``torch.cat``), promoting dtypes.

    1-d empty tensors are skipped, as in PyTorch. ValueError for an empty list; RuntimeError for
    0-d tensors or sizes that differ outside ``dim``; TypeError for a non-Tensor element.
    """
    tensors = _check_tensors(tensors, "cat")
    if type(dim) is not int:
        _int_dim(dim, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = next((x for x in tensors if not _legacy_empty(x._data)), None)
    d = 0 if ref is None else wrap_dim(dim, ref._data.ndim)  # only 1-d empty tensors: any dim (PyTorch)
    check_out_overlap(out, *tensors)
    return _out(CatBackward0.apply(*_promote(tensors), dim=d), out)


concat = cat


def concatenate(tensors, axis=0, out=None) -> Tensor:
    """``torch.cat`` with NumPy's argument name ``axis``."""
    return cat(tensors, axis, out=out)


class StackBackward0(Op):
    _vmap = ("dims", "dim")  # batching rule kind (func/_batching_rules.py)
    def forward(self, *arrays, dim):
        self.dim = dim
        return np.stack(arrays, axis=dim)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda *ws: np.stack(ws, axis=self.dim))
        gm = np.moveaxis(g, self.dim, 0)
        return tuple(gm[i, ...] for i in range(gm.shape[0]))


def stack(tensors, dim=0, *, out=None) -> Tensor:
    """Join equally shaped tensors along a new dim ``dim`` (``torch.stack``), promoting dtypes.

    RuntimeError for an empty list or tensors of different shapes.
    """
    tensors = _check_tensors(tensors, "stack")
    if type(dim) is not int:
        _int_dim(dim, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = tensors[0]._data.shape
    d = wrap_dim(dim, len(s0) + 1)
    for i, x in enumerate(tensors):
        if x._data.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(s0)} at entry 0 and "
                               f"{list(x._data.shape)} at entry {i}")
    return _out(StackBackward0.apply(*_promote(tensors), dim=d), out)


def _nonempty(tensors, fn):
    """hstack/vstack/dstack of no tensors: PyTorch's RuntimeError (cat itself raises ValueError)."""
    tensors = _check_tensors(tensors, fn)
    if not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 1 (dim 0 for 1-d inputs) (``torch.hstack``)."""
    ts = atleast_1d(_nonempty(tensors, "hstack"))
    return cat(ts, 0 if ts and ts[0]._data.ndim == 1 else 1, out=out)


def column_stack(tensors, *, out=None) -> Tensor:
    """Stack as columns (``torch.column_stack``): 0-d and 1-d tensors become ``(n, 1)`` columns, then
    ``hstack``. RuntimeError for an empty sequence."""
    ts = _check_tensors(tensors, "column_stack")
    if not ts:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return hstack([t.reshape(-1, 1) if t._data.ndim <= 1 else t for t in ts], out=out)


def vstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 0 after making inputs at least 2-d (``torch.vstack``)."""
    return cat(atleast_2d(_nonempty(tensors, "vstack")), 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 2 after making inputs at least 3-d (``torch.dstack``)."""
    return cat(atleast_3d(_nonempty(tensors, "dstack")), 2, out=out)


# ------------------------------------------------------------------------------------------------
# repeat / tile / repeat_interleave
# ------------------------------------------------------------------------------------------------
class RepeatBackward0(Op):
    def forward(self, a, reps):
        self.shape, self.reps = a.shape, reps
        return np.tile(a, reps)

    def backward(self, g):
        # the output is blocks (r0, s0, r1, s1, ...): sum over every r axis
        padded = (1,) * (len(self.reps) - len(self.shape)) + self.shape
        inter = tuple(x for pair in zip(self.reps, padded) for x in pair)
        return g.reshape(inter).sum(axis=tuple(range(0, len(inter), 2))).reshape(self.shape)


def repeat(input: Tensor, repeats) -> Tensor:
    """``input`` tiled ``repeats[i]`` times along each dim, as a copy (``Tensor.repeat``).

    ``len(repeats)`` may exceed ``input.dim()`` (new leading dims); RuntimeError if it is smaller
    or a count is negative.
    """
    reps = _ints((repeats,), "repeat", "repeats")
    shp = input._data.shape
    if len(reps) < len(shp):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if any(r < 0 for r in reps):
        padded = (1,) * (len(reps) - len(shp)) + shp
        sizes = [r * s for r, s in zip(reps, padded)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(s for s in sizes if s < 0)}: "
                           f"{sizes}")
    return RepeatBackward0.apply(input, reps=reps)


def tile(input: Tensor, dims) -> Tensor:
    """``repeat`` with ``dims`` padded by leading ones to ``input.dim()`` (``torch.tile``)."""
    dims = _ints((dims,), "tile", "dims")
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element ``repeats`` times along ``dim`` (flattened when ``dim`` is None).

    ``repeats`` is an int or a 0-d/1-d int tensor (one count per index). With only a tensor
    argument, returns ``arange(n)`` repeated by it (``torch.repeat_interleave(repeats)``).
    RuntimeError for negative counts or a count tensor of the wrong length.
    """
    if repeats is None:
        r = input._data
        return _make(np.repeat(np.arange(r.shape[0], dtype=np.int64), r))
    if dim is None:
        input, dim = flatten(input), 0
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if isinstance(repeats, Tensor):
        r = repeats._data
        if repeats.is_meta and repeats._data.size != 1:  # the output's length is the repeats' sum, a value
            raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
        if r.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if r.size != 1 and r.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {r.size} and input.size({d}) = {n}")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        reps = np.broadcast_to(r.astype(np.int64).reshape(-1), (n,))
        return IndexSelectBackward0.apply(input, dim=d, idx=np.repeat(np.arange(n), reps))  # PyTorch's node too
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # PyTorch's graph: unsqueeze -> expand -> clone -> view
    shp = input._data.shape
    e = expand(unsqueeze(input, d + 1), shp[:d + 1] + (repeats,) + shp[d + 1:])
    return view(contiguous(e), shp[:d] + (n * repeats,) + shp[d + 1:])


def repeat_method(self: Tensor, *sizes, **kw) -> Tensor:
    return repeat(self, _varargs("repeat", "repeats", sizes, kw))


def tile_method(self: Tensor, *dims, **kw) -> Tensor:
    return tile(self, _varargs("tile", "dims", dims, kw))


# ------------------------------------------------------------------------------------------------
# flip / roll / rot90
# ------------------------------------------------------------------------------------------------
class FlipBackward0(Op):
    _vmap = ("dims", "dims")  # batching rule kind (func/_batching_rules.py)
    def forward(self, a, dims):
        self.dims = dims
        return np.flip(a, dims).copy()

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: np.flip(w, self.dims))
        return np.flip(g, self.dims)


def flip(input: Tensor, dims) -> Tensor:
    """A copy with the order of elements reversed along ``dims`` (``torch.flip``)."""
    dims = _ints((dims,), "flip", "dims")
    dims = dims_arg(dims, input._data.ndim) or ()
    return FlipBackward0.apply(input, dims=dims if input._data.ndim else ())


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
        if self._graph:
            return linear_backward(self, (g,), lambda w: np.roll(w, self.shifts, self.dims))
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
        if self._graph:
            return linear_backward(self, (g,), lambda w: np.rot90(w, self.k, self.dims))
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
class _Triangle(Op):
    """The lower or upper triangle (``_tri``: np.tril or np.triu) from diagonal ``k``; the gradient is
    the same triangle of ``g``."""

    def forward(self, a, k):
        self.k = k
        return self._tri(a, k)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: self._tri(w, self.k))
        return self._tri(g, self.k)


class TrilBackward0(_Triangle):
    _tri = staticmethod(np.tril)


class TriuBackward0(_Triangle):
    _tri = staticmethod(np.triu)


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
        if self._graph:
            return linear_backward(self, (g,), lambda w: np.diagonal(w, *self.args).copy())
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
        if self._graph:
            return linear_backward(self, (g,), lambda w: self.forward(w, *self.args))
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


def diagflat(input: Tensor, offset=0) -> Tensor:
    """The square matrix with ``input`` flattened on diagonal ``offset`` (``torch.diagflat``)."""
    return DiagEmbedBackward0.apply(input.reshape(-1), offset=offset, d1=0, d2=1)


def flip_method(self: Tensor, *dims, **kw) -> Tensor:
    return flip(self, _varargs("flip", "dims", dims, kw))
