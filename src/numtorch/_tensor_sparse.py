"""Layouts (``torch.strided``, ``torch.sparse_coo``, ...) and the payload of a sparse COO tensor.

A sparse COO tensor is a plain ``Tensor`` whose ``_data`` is a ``SparseCOO`` instead of an ndarray,
as PyTorch's sparse tensors are plain ``torch.Tensor`` objects with another layout. ``SparseCOO``
holds ``indices`` (int64, ``(sparse_dim, nnz)``), ``values`` (``(nnz, *dense_shape)``), the full
``shape`` and whether the entries are known to be coalesced (sorted, no duplicates). It answers the
metadata reads that ``Tensor`` makes on any ``_data`` (``shape``, ``ndim``, ``size``, ``dtype``,
``itemsize``), adds itself to gradients (the autograd engine sums gradients with ``+``), and refuses
every other NumPy use with NotImplementedError, as PyTorch refuses ops that have no sparse kernel.
The ops themselves live in ``_ops/sparse.py``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "SparseCOO"]


class layout:
    """``torch.layout``: how a tensor's elements are stored (compared by identity, printed as ``torch.NAME``)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):  # pickles as the module-level singleton
        return self._name


strided, sparse_coo = layout("strided"), layout("sparse_coo")
# named so that programs can compare against them; numtorch stores none of these layouts
sparse_csr, sparse_csc, sparse_bsr, sparse_bsc = (layout(n) for n in ("sparse_csr", "sparse_csc", "sparse_bsr",
                                                                      "sparse_bsc"))


class SparseUnsupported(NotImplementedError, AttributeError):
    """An op without a sparse kernel; an AttributeError too, so that ``hasattr(payload, name)`` is False."""


def unsupported(what) -> SparseUnsupported:
    return SparseUnsupported(f"Could not run '{what}' with arguments from the 'SparseCPU' backend: numtorch has "
                             f"no sparse COO kernel for it (see docs/sparse.md for what sparse tensors support)")


def _merge(a: "SparseCOO", b: "SparseCOO") -> "SparseCOO":
    """``a + b`` as PyTorch's sparse add computes it: one walk over both entry lists in their stored order
    that emits the smaller position first and one summed entry where the two current positions are equal.
    For coalesced operands that is the sorted union; otherwise entries may repeat (the sum is uncoalesced)."""
    dt = np.result_type(a.values, b.values)
    if not a.nnz or not b.nnz:  # nothing to merge (the walk below needs entries on both sides)
        c = b if not a.nnz else a
        return SparseCOO(c.indices, c.values.astype(dt), a.shape, c.coalesced)
    if a.coalesced and b.coalesced:
        both = SparseCOO(np.concatenate([a.indices, b.indices], 1),
                         np.concatenate([a.values.astype(dt), b.values.astype(dt)]), a.shape)
        return both.coalesce()
    ka, kb = a.linear().tolist(), b.linear().tolist()
    ia, ib = [], []  # per output entry: the entry of a and of b it sums (-1: none)
    i = j = 0
    while i < len(ka) and j < len(kb):
        take_a, take_b = ka[i] <= kb[j], kb[j] <= ka[i]
        ia.append(i if take_a else -1)
        ib.append(j if take_b else -1)
        i, j = i + take_a, j + take_b
    ia += list(range(i, len(ka))) + [-1] * (len(kb) - j)
    ib += [-1] * (len(ka) - i) + list(range(j, len(kb)))
    ia, ib = np.array(ia, np.int64), np.array(ib, np.int64)
    has_a, has_b = ia >= 0, ib >= 0
    values = np.zeros((ia.size,) + a.values.shape[1:], dt)
    values[has_a] += a.values[ia[has_a]]
    values[has_b] += b.values[ib[has_b]]
    idx = np.where(has_a, a.indices[:, np.maximum(ia, 0)], b.indices[:, np.maximum(ib, 0)])
    return SparseCOO(idx.reshape(a.sparse_dim, -1), values, a.shape)


class _Flags:
    """What ``ndarray.flags`` answers for a sparse payload: writable (in-place ops check it), never contiguous
    (PyTorch's ``is_contiguous()`` of a sparse tensor is False)."""
    writeable, c_contiguous, f_contiguous = True, False, False


class SparseCOO:
    """The ``_data`` of a sparse COO tensor: ``indices`` (int64 ``(sparse_dim, nnz)``), ``values``
    (``(nnz, *dense_shape)``), ``shape`` (a tuple: sparse dims, then dense dims) and ``coalesced``."""

    __slots__ = ("indices", "values", "shape", "coalesced")
    flags = _Flags()

    def __init__(self, indices: np.ndarray, values: np.ndarray, shape, coalesced: bool = False):
        self.indices, self.values = indices, values
        self.shape = tuple(int(s) for s in shape)
        self.coalesced = bool(coalesced) or indices.shape[1] < 2  # no two entries: nothing to sort or sum

    # ---- what Tensor reads from any _data
    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def itemsize(self) -> int:
        return self.values.itemsize

    @property
    def sparse_dim(self) -> int:
        return self.indices.shape[0]

    @property
    def nnz(self) -> int:
        return self.indices.shape[1]

    def copy(self) -> "SparseCOO":
        return SparseCOO(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def astype(self, dtype) -> "SparseCOO":
        return SparseCOO(self.indices, self.values.astype(dtype), self.shape, self.coalesced)

    def with_values(self, values) -> "SparseCOO":
        """The same pattern holding other values (``(nnz, *dense_shape)``)."""
        return SparseCOO(self.indices, values, self.shape, self.coalesced)

    # ---- structure
    def linear(self) -> np.ndarray:
        """Each entry's row-major position among the sparse dims (int64 ``(nnz,)``)."""
        sd = self.shape[:self.sparse_dim]
        if not sd:
            return np.zeros(self.nnz, np.int64)
        return np.ravel_multi_index(tuple(self.indices), sd) if self.nnz else np.zeros(0, np.int64)

    def coalesce(self) -> "SparseCOO":
        """Entries sorted by position with duplicates summed (PyTorch's ``coalesce``)."""
        if self.coalesced:
            return self
        lin = self.linear()
        uniq, inverse = np.unique(lin, return_inverse=True)
        values = np.zeros((uniq.size,) + self.values.shape[1:], self.values.dtype)
        np.add.at(values, inverse.reshape(-1), self.values)
        sd = self.shape[:self.sparse_dim]
        idx = np.stack(np.unravel_index(uniq, sd)).astype(np.int64) if sd else np.zeros((0, uniq.size), np.int64)
        return SparseCOO(idx.reshape(self.sparse_dim, uniq.size), values, self.shape, True)

    def to_dense(self) -> np.ndarray:
        out = np.zeros(self.shape, self.values.dtype)
        if self.sparse_dim == 0:  # every entry is the whole (dense) tensor
            out[...] = self.values.sum(axis=0)
        else:
            np.add.at(out, tuple(self.indices), self.values)
        return out

    def gather(self, indices: np.ndarray) -> np.ndarray:
        """The summed values at the positions ``indices`` (``(sparse_dim, n)``), zeros where no entry is:
        ``(n, *dense_shape)``. This is the sparse mask a gradient gets when it flows to a sparse pattern."""
        c = self.coalesce()
        lin, want = c.linear(), SparseCOO(indices, self.values[:0], self.shape).linear()
        pos = np.searchsorted(lin, want)
        pos = np.minimum(pos, max(lin.size - 1, 0))
        hit = lin[pos] == want if lin.size else np.zeros(want.shape, bool)
        out = np.zeros((want.size,) + c.values.shape[1:], c.values.dtype)
        out[hit] = c.values[pos[hit]]
        return out

    # ---- the part of ndarray's interface that dense ops' formulas use (so add, mul, div, neg, t and
    # transpose work on sparse tensors with their own grad_fn names, as in PyTorch); the autograd
    # engine sums gradients with ``+``
    def __add__(self, other):
        if isinstance(other, SparseCOO):
            if other.shape != self.shape:
                raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                                   f"{list(self.shape)} while other has size {list(other.shape)} (FYI: dense-"
                                   f"sparse addition does not currently support broadcasting)")
            return _merge(self, other)
        if isinstance(other, np.ndarray):
            out = np.array(np.broadcast_to(other, self.shape), np.result_type(other, self.values), copy=True)
            np.add.at(out, tuple(self.indices), self.values)
            return out
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        if not isinstance(other, (SparseCOO, np.ndarray)):  # number - sparse: PyTorch's add size check fails
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size [] while "
                               f"other has size {list(self.shape)} (FYI: dense-sparse addition does not currently "
                               f"support broadcasting)")
        return (-self) + other

    def _scalar(self, other):
        """``other`` as a number the values can be scaled by; anything else has no sparse kernel here."""
        if isinstance(other, (int, float, complex, bool, np.generic)):
            return other
        if isinstance(other, np.ndarray) and other.ndim == 0:
            return other[()]
        raise unsupported("aten::mul.Tensor with a sparse and a non-scalar operand")

    def __mul__(self, other):
        """By a number; by a dense array of the same shape (this pattern); by a sparse one (the coalesced
        patterns' intersection)."""
        if isinstance(other, SparseCOO):
            a, b = self.coalesce(), other.coalesce()
            ka, kb = a.linear(), b.linear()
            both, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
            return SparseCOO(a.indices[:, ia], a.values[ia] * b.values[ib], self.shape, True)
        if isinstance(other, np.ndarray) and other.ndim:
            try:
                shape = np.broadcast_shapes(other.shape, self.shape)
            except ValueError:
                raise RuntimeError(f"The size of tensor a ({self.shape[-1]}) must match the size of tensor b "
                                   f"({other.shape[-1]}) at non-singleton dimension {len(self.shape) - 1}") from None
            if shape == self.shape:  # a dense factor broadcast to this shape (a row or column scaling, D^-1/2 A)
                return self.with_values(self.values * np.broadcast_to(other, self.shape)[tuple(self.indices)])
        return self.with_values(self.values * self._scalar(other))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, np.ndarray) and other.ndim:
            raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                               f"{list(other.shape)} for divisor)")
        return self.with_values(self.values / self._scalar(other))

    def __rtruediv__(self, other):  # number / sparse needs the reciprocal of the unspecified zeros
        raise unsupported("aten::reciprocal")

    def __neg__(self):
        return self.with_values(-self.values)

    def swapaxes(self, d0, d1):
        """Swap two sparse dims (rows of ``indices``); the result is not known to be coalesced."""
        sd = self.sparse_dim
        if d0 >= sd or d1 >= sd:
            raise unsupported("aten::transpose of a dense dim of a sparse tensor")
        order = list(range(self.ndim))
        order[d0], order[d1] = d1, d0
        rows = order[:sd]
        return SparseCOO(self.indices[rows], self.values, [self.shape[i] for i in order],
                         self.coalesced and d0 == d1)

    @property
    def T(self):
        return self.swapaxes(0, 1) if self.ndim == 2 else self

    def conj(self):
        return self.with_values(self.values.conj())

    def reshape(self, *shape):
        """Only the no-op reshape (to its own shape) that the matmul gradient formulas make."""
        want = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape
        if tuple(s if s != -1 else self.shape[i] for i, s in enumerate(want)) != self.shape:
            raise RuntimeError("reshape is not implemented for sparse tensors")
        return self

    def csr(self):
        """This 2-D matrix (sparse dims 2, dense dims 0) as a ``scipy.sparse.csr_matrix`` (duplicates summed)."""
        import scipy.sparse  # heavy: imported on the first sparse product only
        if self.ndim != 2 or self.sparse_dim != 2:
            raise unsupported("aten::mm of a sparse tensor that is not a 2-D matrix of sparse dims")
        return scipy.sparse.csr_matrix((self.values, (self.indices[0], self.indices[1])), shape=self.shape)

    def __matmul__(self, other):
        """``self @ other`` for a dense (1-D or 2-D) or sparse right operand (scipy's CSR kernels)."""
        if isinstance(other, SparseCOO):
            out = (self.csr() @ other.csr()).tocoo()
            idx = np.stack([out.row, out.col]).astype(np.int64)
            return SparseCOO(idx, np.asarray(out.data, self.values.dtype), out.shape).coalesce()
        if np.ndim(other) > 2:  # PyTorch's batched matmul would expand the sparse operand
            raise RuntimeError("expand is unsupported for Sparse tensors")
        return np.asarray(self.csr() @ other, dtype=np.result_type(self.values, other))

    def __rmatmul__(self, other):
        """``other @ self`` for a dense left operand: ``(self^T @ other^T)^T``."""
        return np.asarray((self.csr().T @ other.T).T, dtype=np.result_type(self.values, other))

    # ---- every other NumPy use is an op without a sparse kernel
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)  # an in-place dense op (dense.add_(sparse)): computed, then written back
        if method == "__call__" and len(inputs) == 2 and not kwargs:
            a, b = inputs
            r = NotImplemented
            if isinstance(a, np.ndarray) and ufunc in (np.add, np.subtract, np.multiply):
                # a dense left operand: PyTorch adds/subtracts only a sparse tensor of the dense one's shape
                if ufunc is not np.multiply and a.shape != b.shape:
                    raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                                       f"{list(a.shape)} while other has size {list(b.shape)} (FYI: dense-sparse "
                                       f"addition does not currently support broadcasting)")
                r = b * a if ufunc is np.multiply else b.__add__(a) if ufunc is np.add else (-b).__add__(a)
            elif isinstance(a, np.ndarray) and ufunc is np.true_divide:
                raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                                   f"{list(b.shape)} for divisor)")
            elif ufunc is np.add:
                r = self.__add__(b if a is self else a)
            elif ufunc is np.matmul:
                r = a.__matmul__(b) if isinstance(a, SparseCOO) else b.__rmatmul__(a)
            if r is not NotImplemented and out is None:
                return r
            if r is not NotImplemented and isinstance(r, np.ndarray) and len(out) == 1 and out[0].shape == r.shape:
                out[0][...] = r
                return out[0]
        raise unsupported(f"numpy.{ufunc.__name__}")

    def __array_function__(self, func, types, args, kwargs):
        if func is np.sum and args[0] is self and kwargs.get("axis") is None and not kwargs.get("keepdims"):
            return np.sum(self.values, dtype=kwargs.get("dtype"))  # the sum of all elements (Tensor.sum())
        raise unsupported(f"numpy.{func.__name__}")

    def __array__(self, dtype=None, copy=None):
        raise unsupported("a dense view")

    def __getitem__(self, key):
        raise unsupported("aten::index (indexing a sparse tensor)")

    def fill(self, value):
        """Only ``fill(0)`` (``zero_``, ``zero_grad(set_to_none=False)``): PyTorch's zero_ of a sparse tensor
        leaves it with no entries."""
        if np.any(value != 0):
            raise unsupported("aten::fill_ (a sparse tensor filled with a non-zero value)")
        self.indices, self.values = self.indices[:, :0], self.values[:0]
        self.coalesced = True

    def __setitem__(self, key, value):
        if key is not Ellipsis:
            raise unsupported("aten::index_put_ (writing into a sparse tensor)")
        self.fill(value)

    def __getattr__(self, name):
        raise unsupported(name)

    def __repr__(self):
        return f"SparseCOO(shape={self.shape}, nnz={self.nnz}, dtype={self.values.dtype})"
