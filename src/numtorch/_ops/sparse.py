"""Sparse COO tensors (PyTorch's ``torch.sparse_coo`` layout): construction, conversions, structure,
the sparse-gradient product ``torch.sparse.mm``, sums and softmax.

A sparse tensor is a plain Tensor whose ``_data`` is a ``SparseCOO`` payload (``_tensor_sparse.py``).
The ops here are ordinary ``Op`` subclasses: ``Op.apply`` wraps a ``SparseCOO`` result as a sparse
tensor, and the engine passes sparse gradients (``SparseCOO``) along edges as it passes arrays. The
dense ops that PyTorch also runs on sparse tensors (``+``, ``-``, ``*``/``/`` by a scalar, ``neg``,
``t``, ``transpose``, ``mm``/``matmul``/``@``, ``sum()``) are the dense ops themselves: the payload
implements the few ndarray methods their formulas use, so their nodes keep PyTorch's names.

Gradients take PyTorch's layouts: sparse with the operand's (coalesced) pattern where PyTorch's
formula masks them (``to_dense``, ``values``, ``torch.sparse.mm``, ``sparse.sum``), dense where
PyTorch's are dense (``torch.mm``, ``dense + sparse``). A sparse gradient means the dense tensor its
entries sum to, so a masked gradient lists each position once, and reading it at a position
(``SparseCOO.gather``) sums the entries there.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._device import check as _check_device
from .._tensor import Tensor, _make
from .._tensor_sparse import SparseCOO, sparse_coo, strided, unsupported
from ..autograd.function import Op
from ._cast import cast
from ._util import wrap_dim
from .creation import tensor

__all__ = ["sparse_coo_tensor"]


def is_sparse(t) -> bool:
    return isinstance(t, Tensor) and type(t._data) is SparseCOO


def _need_sparse(t, what):
    if not is_sparse(t):
        raise RuntimeError(f"{what} expected sparse coordinate tensor layout but got Strided")
    return t._data


# ------------------------------------------------------------------------------------------------
# construction
# ------------------------------------------------------------------------------------------------
class SparseCooTensorWithDimsAndTensorsBackward0(Op):
    """values ``(nnz, *dense)`` -> the sparse tensor with ``indices`` and ``shape``; the gradient of the
    values is the incoming gradient read at the indices (PyTorch's ``sparse_mask`` of it)."""

    def forward(self, values, indices, shape, coalesced):
        self.indices = indices
        return SparseCOO(indices, values, shape, coalesced)

    def backward(self, g):
        return g.gather(self.indices) if type(g) is SparseCOO else g[tuple(self.indices)]


def _index_array(indices):
    arr = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if type(arr) is SparseCOO:
        raise RuntimeError("sparse_coo_tensor(): indices must be a strided (dense) tensor")
    if arr.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(arr.shape)}")
    return arr.astype(np.int64)


def _check_indices(idx, shape):
    """PyTorch's invariant checks (``check_invariants=True``). numtorch always runs them: an index out of
    range would otherwise give a silently wrong dense result."""
    if not idx.shape[1]:
        return
    lo, hi = idx.min(axis=1), idx.max(axis=1)
    for d in range(idx.shape[0]):
        if lo[d] < 0:
            raise RuntimeError(f"found negative index {lo[d]} for dim {d}")
        if hi[d] >= shape[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {shape[d]} but found "
                               f"index {hi[d]}")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None) -> Tensor:
    """A sparse COO tensor with entries ``values`` at ``indices`` (``torch.sparse_coo_tensor``).

    ``indices``: integers ``(sparse_dim, nnz)`` (any numeric dtype, stored as int64); ``values``:
    ``(nnz, *dense_shape)`` (a Tensor keeps its graph: the result's gradient flows back to it); ``size``:
    the full shape, inferred as ``max(indices) + 1`` per sparse dim when None. Duplicate indices are allowed
    (the tensor is then uncoalesced; their values add up). RuntimeError for indices that are not 2-D,
    unequal nnz, a ``size`` that does not fit, indices out of range (always checked in numtorch, as with
    ``check_invariants=True``) and ``is_coalesced=True`` for indices that are not sorted and unique (PyTorch
    trusts the flag); RuntimeError for ``requires_grad`` on non-float values.
    """
    if device is not None and _check_device(device).type == "meta":  # a CPU result would be silently wrong
        raise unsupported("aten::_sparse_coo_tensor_with_dims_and_tensors on the meta device (numtorch has no "
                          "sparse meta tensors)")
    idx = _index_array(indices)
    if isinstance(values, Tensor):
        vt = values if dtype is None else cast(values, dtype)
    else:
        vt = tensor(values, dtype=dtype)
    vals = vt._data
    if vt.is_meta != (isinstance(indices, Tensor) and indices.is_meta):
        raise RuntimeError(f"backend of indices ({'Meta' if not vt.is_meta else 'CPU'}) must match backend of values "
                           f"({'Meta' if vt.is_meta else 'CPU'})")
    if vt.is_meta:
        raise unsupported("aten::_sparse_coo_tensor_with_dims_and_tensors with meta tensors (numtorch has no sparse "
                          "meta tensors)")
    if type(vals) is SparseCOO:
        raise RuntimeError("sparse_coo_tensor(): values must be a strided (dense) tensor")
    nnz_v = vals.shape[0] if vals.ndim else 1
    if idx.shape[1] != nnz_v:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {idx.shape[1]}, "
                           f"nnz from values: {nnz_v}")
    sd, dense = idx.shape[0], tuple(vals.shape[1:])
    if size is None:
        shape = tuple(int(m) + 1 for m in idx.max(axis=1)) if idx.shape[1] else (0,) * sd
        shape += dense
    else:
        shape = tuple(int(s) for s in size)
        if len(shape) != sd + len(dense):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(shape)}, "
                               f"sparse_dim = {sd}, dense_dim = {len(dense)}")
        if any(s < 0 for s in shape):
            raise RuntimeError("numel: integer multiplication overflow")
        if shape[sd:] != dense:
            raise RuntimeError(f"values has incorrect size, expected {[nnz_v, *shape[sd:]]}, got {list(vals.shape)}")
    _check_indices(idx, shape)
    if is_coalesced and idx.shape[1] > 1 and np.any(np.diff(SparseCOO(idx, vals, shape).linear()) <= 0):
        raise RuntimeError("sparse_coo_tensor(): is_coalesced=True, but the indices are not sorted and unique "
                           "(numtorch trusts the flag only when it holds: coalesce() would return a wrong tensor)")
    if requires_grad and vals.dtype.kind not in "fcV":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    out = SparseCooTensorWithDimsAndTensorsBackward0.apply(vt, indices=idx, shape=shape,
                                                           coalesced=bool(is_coalesced))
    if requires_grad:
        out = _make(out._data, True)  # a new leaf, as PyTorch's factory with requires_grad=True makes
    return out


# ------------------------------------------------------------------------------------------------
# conversions
# ------------------------------------------------------------------------------------------------
class ToDenseBackward0(Op):
    """sparse -> dense; the gradient is the incoming one read at the input's entries (sparse, its pattern)."""

    def forward(self, a):
        self.pattern = a.coalesce()  # each position once: the gradient's entries must not repeat
        return a.to_dense()

    def backward(self, g):
        p = self.pattern
        vals = g.gather(p.indices) if type(g) is SparseCOO else g[tuple(p.indices)]
        return p.with_values(vals)


def to_dense(input: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """The dense tensor of a sparse one (``Tensor.to_dense``); a dense tensor is returned as it is.
    RuntimeError for ``dtype`` (PyTorch's sparse_to_dense takes none)."""
    if not is_sparse(input):
        return input if dtype is None else cast(input, dtype)
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    return ToDenseBackward0.apply(input)


class ToSparseBackward0(Op):
    """dense -> sparse with ``sparse_dim`` sparse dims: the entries whose dense slice is not all zero, in
    row-major order (coalesced). The gradient is the incoming one made dense."""

    def forward(self, a, sparse_dim):
        if a.ndim == 0:  # one entry holding the value, none for a zero (as PyTorch)
            n = int(a != 0)
            return SparseCOO(np.zeros((0, n), np.int64), a.reshape(1)[:n].copy(), (), True)
        lead = a.reshape(a.shape[:sparse_dim] + (-1,))
        nz = np.nonzero((lead != 0).any(axis=-1))
        return SparseCOO(np.stack(nz).astype(np.int64).reshape(sparse_dim, -1), a[nz].copy(), a.shape, True)

    def backward(self, g):
        return g.to_dense() if type(g) is SparseCOO else g


class ToSparseBackward1(ToSparseBackward0):
    """``to_sparse()`` with no ``sparse_dim`` (PyTorch names this overload's node apart)."""


def to_sparse(input: Tensor, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor:
    """A sparse COO copy of ``input`` (``Tensor.to_sparse``): all dims sparse, or the first ``sparse_dim``
    (the rest dense). A sparse tensor is returned as it is. RuntimeError for ``sparse_dim`` out of
    ``[1, dim]``; NotImplementedError for the compressed layouts (CSR, CSC, BSR, BSC), which numtorch lacks.
    """
    if layout is not None and layout is not sparse_coo and layout is not strided:
        raise unsupported(f"aten::to_sparse with layout={layout}")
    a = input._data
    if type(a) is SparseCOO:
        if sparse_dim is not None and sparse_dim != a.sparse_dim:
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        return input
    if sparse_dim is None:
        return ToSparseBackward1.apply(input, sparse_dim=a.ndim)
    sparse_dim = int(sparse_dim)
    if not 0 <= sparse_dim <= a.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{a.ndim}] range, but {sparse_dim} "
                           f"is given")
    if sparse_dim == 0 and a.ndim > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    return ToSparseBackward0.apply(input, sparse_dim=sparse_dim)


class SparseMaskBackward0(Op):
    """dense -> sparse: the input read at the mask's pattern; the gradient is made dense."""

    def forward(self, a, pattern):
        return pattern.with_values(a[tuple(pattern.indices)])

    def backward(self, g):
        return g.to_dense() if type(g) is SparseCOO else g


def sparse_mask(input: Tensor, mask: Tensor) -> Tensor:
    """``input`` (dense) read at the entries of the sparse ``mask`` (``Tensor.sparse_mask``): a
    sparse tensor with the mask's pattern. RuntimeError for a dense mask or unequal shapes."""
    p = _need_sparse(mask, "sparse_mask")
    if tuple(input.shape) != p.shape:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(input.shape)} but "
                           f"mask has size {list(p.shape)}")
    if is_sparse(input):
        raise unsupported("aten::sparse_mask of a sparse tensor")
    return SparseMaskBackward0.apply(input, pattern=p)


# ------------------------------------------------------------------------------------------------
# structure: coalesce, indices, values, dims
# ------------------------------------------------------------------------------------------------
class CoalesceBackward0(Op):
    """Sort the entries and sum duplicates; the gradient passes through (each duplicate gets the sum's)."""

    def forward(self, a):
        return a.coalesce()

    def backward(self, g):
        return g


def coalesce(input: Tensor) -> Tensor:
    """The coalesced tensor (``Tensor.coalesce``): ``input`` itself when it already is one."""
    p = _need_sparse(input, "coalesce")
    return input if p.coalesced else CoalesceBackward0.apply(input)


def is_coalesced(input: Tensor) -> bool:
    return _need_sparse(input, "is_coalesced").coalesced


class ValuesBackward0(Op):
    """The values ``(nnz, *dense)`` of a coalesced tensor; the gradient is sparse with its pattern."""

    def forward(self, a):
        self.pattern = a
        return a.values

    def backward(self, g):
        return self.pattern.with_values(g)


def values(input: Tensor) -> Tensor:
    """The values of a coalesced sparse tensor, differentiable (``Tensor.values``); RuntimeError when it is
    not coalesced."""
    p = _need_sparse(input, "values")
    if not p.coalesced:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
    return ValuesBackward0.apply(input)


def indices(input: Tensor) -> Tensor:
    """The int64 indices ``(sparse_dim, nnz)`` of a coalesced sparse tensor (``Tensor.indices``)."""
    p = _need_sparse(input, "indices")
    if not p.coalesced:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
    return _make(p.indices)


def _indices(input: Tensor) -> Tensor:
    """The indices as stored, coalesced or not (``Tensor._indices``)."""
    return _make(_need_sparse(input, "_indices").indices)


def _values(input: Tensor) -> Tensor:
    """The values as stored, outside autograd (``Tensor._values``)."""
    return _make(_need_sparse(input, "_values").values)


def sparse_dim(input: Tensor) -> int:
    return input._data.sparse_dim if is_sparse(input) else 0


def dense_dim(input: Tensor) -> int:
    return input._data.values.ndim - 1 if is_sparse(input) else input._data.ndim


def _nnz(input: Tensor) -> int:
    return _need_sparse(input, "_nnz").nnz


# ------------------------------------------------------------------------------------------------
# products
# ------------------------------------------------------------------------------------------------
class SparseAddmmBackward0(Op):
    """sparse ``(n, k)`` @ dense ``(k, m)`` -> dense ``(n, m)`` (``torch.sparse.mm``); the sparse operand's
    gradient is sparse with its pattern: ``(G @ D^T)`` read at its entries."""

    _saves = (0, 1)

    def forward(self, s, d):
        self.saved = (s, d)
        return s @ d

    def backward(self, g):
        s, d = self.saved
        if type(g) is SparseCOO:
            g = g.to_dense()
        gs = gd = None
        if self._edges[0] is not None:  # each position once (coalesced): entries of a gradient add up
            sc = s.coalesce()
            rows, cols = sc.indices
            gs = sc.with_values(np.einsum("nk,nk->n", g[rows], d[cols].conj()))
        if self._edges[1] is not None:
            gd = s.conj().T @ g
        return gs, gd


class SparseSparseMatmulBackward0(Op):
    """sparse ``(n, k)`` @ sparse ``(k, m)`` -> sparse (coalesced); each operand's gradient is the dense one
    (``G @ B^H``, ``A^H @ G``) read at its own coalesced pattern."""

    _saves = (0, 1)

    def forward(self, a, b):
        self.saved = (a, b)
        return a @ b

    def backward(self, g):
        a, b = self.saved
        g = g.to_dense() if type(g) is SparseCOO else g
        ga = gb = None
        if self._edges[0] is not None:
            ac = a.coalesce()
            ga = ac.with_values((b.conj() @ g.T).T[tuple(ac.indices)])
        if self._edges[1] is not None:
            bc = b.coalesce()
            gb = bc.with_values((a.conj().T @ g)[tuple(bc.indices)])
        return ga, gb


def mm(mat1: Tensor, mat2: Tensor, reduce: str = "sum") -> Tensor:
    """``torch.sparse.mm``: sparse ``(n, k)`` @ dense ``(k, m)`` -> dense, with a sparse gradient for the
    sparse operand (its pattern); sparse @ sparse -> sparse; dense @ dense is ``torch.mm``.

    RuntimeError for mismatched sizes or dtypes; NotImplementedError for ``reduce`` other than "sum" (that
    is a CSR-only option in PyTorch).
    """
    if reduce != "sum":
        raise unsupported(f"aten::_sparse_mm_reduce_impl (reduce={reduce!r}) on a sparse COO tensor")
    if not is_sparse(mat1):
        return mat1.mm(mat2)
    s, d = mat1._data, mat2._data
    if s.ndim != 2 or s.sparse_dim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {s.sparse_dim}D tensor")
    if d.ndim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {d.ndim}D tensor")
    if d.shape[0] != s.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, got {d.shape[0]}")
    if s.dtype != d.dtype:
        raise RuntimeError(f"expected scalar type {_dtype.from_np(s.dtype)._aten_name} but found "
                           f"{_dtype.from_np(d.dtype)._aten_name}")
    return (SparseSparseMatmulBackward0 if type(d) is SparseCOO else SparseAddmmBackward0).apply(mat1, mat2)


# ------------------------------------------------------------------------------------------------
# reductions and softmax
# ------------------------------------------------------------------------------------------------
class SparseSumBackward0(Op):
    """Sum over ``dims`` (sparse and/or dense ones): a sparse result over the remaining sparse dims, or a
    dense one when every sparse dim is summed. The gradient is sparse with the input's pattern."""

    def forward(self, a, dims):
        a = a.coalesce()  # the gradient's pattern: each position once
        self.pattern, sd = a, a.sparse_dim
        sp = [d for d in range(sd) if d not in dims]
        dn = tuple(d - sd + 1 for d in dims if d >= sd)
        vals = a.values.sum(axis=dn) if dn else a.values
        self.keep, self.dense_axes = sp, dn
        if not sp:
            return vals.sum(axis=0)
        shape = [a.shape[d] for d in sp] + [a.shape[d] for d in range(sd, a.ndim) if d not in dims]
        return SparseCOO(a.indices[sp], vals, shape).coalesce()

    def backward(self, g):
        p = self.pattern
        if self.keep:
            idx = p.indices[self.keep]
            vals = g.gather(idx) if type(g) is SparseCOO else g[tuple(idx)]
        else:  # a dense result: every entry reads the same gradient
            vals = (g.to_dense() if type(g) is SparseCOO else g)[None]
        for ax in self.dense_axes:  # ascending: each summed dense axis back as a size-1 axis
            vals = np.expand_dims(vals, ax)
        return p.with_values(np.array(np.broadcast_to(vals, p.values.shape)))


def sparse_sum(input: Tensor, dim=None, dtype=None) -> Tensor:
    """``torch.sparse.sum``: the sum of all elements (dense 0-d), or over ``dim`` (an int or a sequence)."""
    p = _need_sparse(input, "sparse.sum")
    if dtype is not None:
        input = cast(input, dtype)
    if dim is None:
        return input.sum()
    dims = sorted({wrap_dim(d, p.ndim) for d in ((dim,) if isinstance(dim, int) else dim)})
    return SparseSumBackward0.apply(input, dims=tuple(dims))


def _segments(p, dim):
    """For a coalesced 2+-D payload: a group id per entry (entries sharing all sparse indices but ``dim``)."""
    rest = [d for d in range(p.sparse_dim) if d != dim]
    if not rest:
        return np.zeros(p.nnz, np.int64)
    key = np.ravel_multi_index(tuple(p.indices[rest]), [p.shape[d] for d in rest])
    return np.unique(key, return_inverse=True)[1].reshape(-1)


class SparseSoftmaxBackward0(Op):
    """Softmax over the specified entries along a sparse ``dim`` (unspecified ones count as -inf, so they
    stay unspecified); the result has the (coalesced) input's pattern."""

    _log = False

    def forward(self, a, dim):
        p = a.coalesce()
        seg = _segments(p, dim)
        n = int(seg.max()) + 1 if seg.size else 0
        v = p.values
        mx = np.full((n,) + v.shape[1:], -np.inf, v.dtype)
        np.maximum.at(mx, seg, v)
        e = np.exp(v - mx[seg])
        tot = np.zeros_like(mx)
        np.add.at(tot, seg, e)
        out = (v - mx[seg] - np.log(tot[seg])) if self._log else e / tot[seg]
        self.pattern, self.seg, self.n, self.out = p, seg, n, out
        return p.with_values(out.astype(v.dtype))

    def backward(self, g):
        p, y = self.pattern, self.out
        gv = g.gather(p.indices) if type(g) is SparseCOO else g[tuple(p.indices)]
        tot = np.zeros((self.n,) + gv.shape[1:], gv.dtype)
        if self._log:  # d log_softmax: g - softmax * sum(g)
            np.add.at(tot, self.seg, gv)
            return p.with_values((gv - np.exp(y) * tot[self.seg]).astype(gv.dtype))
        np.add.at(tot, self.seg, gv * y)  # d softmax: y * (g - sum(g * y))
        return p.with_values((y * (gv - tot[self.seg])).astype(gv.dtype))


class SparseLogSoftmaxBackward0(SparseSoftmaxBackward0):
    _log = True


def _softmax(input, dim, dtype, op):
    p = _need_sparse(input, "softmax")
    if dtype is not None:
        input = cast(input, dtype)
    d = wrap_dim(dim, p.ndim)
    if d >= p.sparse_dim:
        raise unsupported("aten::_sparse_softmax over a dense dim")
    return op.apply(input, dim=d)


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``torch.sparse.softmax``: softmax along ``dim`` over the specified entries only (unspecified ones
    are treated as -inf and stay unspecified); a sparse result with the coalesced input's pattern."""
    return _softmax(input, dim, dtype, SparseSoftmaxBackward0)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``torch.sparse.log_softmax``: as ``softmax``, in log space."""
    return _softmax(input, dim, dtype, SparseLogSoftmaxBackward0)
