"""Indexing, selection and sorting: ``x[idx]``, ``x[idx] = v``, gather/scatter, masks, sort, topk, unique.

``x[idx]`` runs in two stages, as PyTorch does: first the *basic* part (ints, slices, None,
Ellipsis) gives a view that shares memory and the version counter with ``x``; then, if the index
holds integer or boolean tensors, the *advanced* part gathers a copy (NumPy's rules, which are
PyTorch's once the ints are consumed by the first stage). Gradients of gathers are scattered back
with ``_index_add_rows``, one vectorized kernel shared by every backward that accumulates rows.
"""
from __future__ import annotations

import operator
import warnings
from collections import namedtuple

import numpy as np

from .._tensor import Tensor, _make, _wrap_dim
from ..autograd.function import Op
from ..autograd.grad_mode import _State
from . import pointwise as P
from ._util import bump, to_tensor, unbroadcast

__all__ = """gather scatter scatter_add scatter_reduce index_select index_add index_fill index_copy index_put
masked_fill masked_select masked_scatter take take_along_dim nonzero argwhere topk sort argsort msort kthvalue
unique unique_consecutive bincount searchsorted bucketize""".split()


def _result_type(name):
    """A ``torch.return_types.NAME``-like named tuple ``(values, indices)``."""
    cls = namedtuple(name, ["values", "indices"])
    cls.__qualname__ = f"_{name}_result"
    cls.__repr__ = lambda self: f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"
    return cls


_topk_result, _sort_result, _kthvalue_result = _result_type("topk"), _result_type("sort"), _result_type("kthvalue")


# ------------------------------------------------------------------------------------------------
# scatter-add kernel shared by the backwards
# ------------------------------------------------------------------------------------------------
def _index_add_rows(n_rows, idx, vals):
    """``out[idx[i]] += vals[i]`` for ``vals`` of shape (N, R); returns a fresh (n_rows, R) array.

    ``idx`` holds non-negative ints. Small problems (the embedding lookup ``C[X]``) use a one-hot
    matrix product, single columns ``bincount``, large ones a sort plus ``add.reduceat``.
    """
    n, r = vals.shape
    out_dt = vals.dtype
    if n == 0:
        return np.zeros((n_rows, r), out_dt)
    if out_dt.kind == "f" and r == 1:
        return np.bincount(idx, weights=vals[:, 0], minlength=n_rows).astype(out_dt, copy=False)[:, None]
    if out_dt.kind in "fc":
        if n_rows * n <= 1 << 20:
            onehot = np.zeros((n_rows, n), out_dt)
            onehot[idx, np.arange(n)] = 1
            return onehot @ vals
        order = np.argsort(idx, kind="stable")
        s = idx[order]
        first = np.empty(n, bool)
        first[0] = True
        np.not_equal(s[1:], s[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        out = np.zeros((n_rows, r), out_dt)
        out[s[starts]] = np.add.reduceat(np.take(vals, order, axis=0), starts, axis=0)
        return out
    out = np.zeros((n_rows, r), out_dt)  # ints, bfloat16: the slow but general ufunc.at
    np.add.at(out, idx, vals)
    return out


def _add_rows_along(shape, dim, idx, vals):
    """Zeros of ``shape`` with ``vals`` (``shape`` but ``len(idx)`` along ``dim``) added at rows ``idx``."""
    rest = shape[:dim] + shape[dim + 1:]
    vm = np.moveaxis(vals, dim, 0).reshape(len(idx), int(np.prod(rest)))
    rows = _index_add_rows(shape[dim], idx, vm)
    return np.moveaxis(rows.reshape((shape[dim],) + rest), 0, dim)


def _wrap_neg(arr, n):
    return arr % n if arr.size and n and arr.min() < 0 else arr


# ------------------------------------------------------------------------------------------------
# parsing an index
# ------------------------------------------------------------------------------------------------
_INT, _SLICE, _NONE, _ELL, _BOOL, _ARR, _MASK = range(7)
_BAD_DTYPE = "tensors used as indices must be long, int, byte or bool tensors"


def _item(it):
    """Classify one index element: (kind, value)."""
    if it is None:
        return _NONE, None
    if it is Ellipsis:
        return _ELL, None
    t = type(it)
    if t is int:
        return _INT, it
    if t is slice:
        if it.step is not None:
            step = operator.index(it.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
        return _SLICE, it
    if t is bool or t is np.bool_:
        return _BOOL, bool(it)
    if isinstance(it, Tensor):
        arr = it._data
    elif isinstance(it, np.ndarray):
        arr = it
    elif isinstance(it, range):
        arr = np.arange(it.start, it.stop, it.step, dtype=np.int64)
    elif isinstance(it, (list, tuple)):
        arr = np.array([np.asarray(e._data) if isinstance(e, Tensor) else e for e in it])
        if arr.size == 0:
            arr = arr.astype(np.int64)
    elif isinstance(it, np.integer):
        return _INT, int(it)
    elif isinstance(it, (float, complex, np.floating)):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                         f"valid indices (got {type(it).__name__})")
    elif hasattr(it, "__index__"):
        return _INT, operator.index(it)
    else:
        raise TypeError(f"invalid index of type {type(it).__name__}: only integers, slices, None, Ellipsis, "
                        f"bool/integer tensors and sequences of them are valid indices")
    k = arr.dtype.kind
    if k == "b" or arr.dtype == np.uint8:
        return (_BOOL, bool(arr)) if arr.ndim == 0 else (_MASK, arr.astype(bool, copy=False))
    if arr.dtype == np.int64 or arr.dtype == np.int32:
        return (_INT, int(arr)) if arr.ndim == 0 else (_ARR, arr)
    raise IndexError(_BAD_DTYPE)


def _seq_as_tuple(idx):
    """PyTorch's legacy rule: a short list holding slices/None/sequences/tensors acts as a tuple."""
    if len(idx) >= 32:
        return False
    return any(e is None or e is Ellipsis or isinstance(e, (Tensor, np.ndarray, list, tuple, slice)) for e in idx)


_NAMES = {_INT: "Select", _SLICE: "Slice", _NONE: "Unsqueeze"}


class _Key:
    """A parsed index: ``basic`` (a NumPy basic-index tuple ending in Ellipsis, so it always gives a
    view) and the advanced int arrays ``arrs`` at dims ``dims`` of that view."""

    __slots__ = ("basic", "plain", "dims", "arrs", "odims", "name")

    def view(self, a):
        return a if self.plain else a[self.basic]

    def _adv(self, ndim):
        t = [slice(None)] * ndim
        for d, arr in zip(self.dims, self.arrs):
            t[d] = arr
        return tuple(t)

    def get(self, a):
        """``a[key]``: a view for basic keys, a copy otherwise."""
        v = a[self.basic]
        if not self.dims:
            return v
        try:
            if len(self.dims) == 1:
                return np.take(v, self.arrs[0], axis=self.dims[0])
            return v[self._adv(v.ndim)]
        except IndexError:
            self._raise(v.shape)
            raise

    def put(self, a, value):
        """``a[key] = value`` in place; RuntimeError if ``value`` does not broadcast."""
        try:
            if not self.dims:
                a[self.basic] = value
            else:
                v = self.view(a)
                v[self._adv(v.ndim)] = value
        except IndexError:
            self._raise(self.view(a).shape)
            raise
        except ValueError:
            tgt, src = list(self.get(a).shape), list(np.shape(value))
            raise RuntimeError(f"shape mismatch: value tensor of shape {src} cannot be broadcast to indexing "
                               f"result of shape {tgt}") from None

    def accumulate(self, shape, g):
        """Zeros of ``shape`` with ``g`` (shaped like ``zeros[key]``) added at the indexed places."""
        gx = np.zeros(shape, g.dtype)
        v = self.view(gx)
        if not self.dims:
            v[...] = g
            return gx
        vs = v.shape
        sizes = [vs[d] for d in self.dims]
        arrs = [_wrap_neg(a, s) for a, s in zip(self.arrs, sizes)]
        lin = np.ravel_multi_index(np.broadcast_arrays(*arrs), sizes) if len(arrs) > 1 else arrs[0]
        nb = lin.ndim
        adjacent = self.dims == list(range(self.dims[0], self.dims[0] + len(self.dims)))
        pos = self.dims[0] if adjacent else 0
        gm = np.moveaxis(g, list(range(pos, pos + nb)), list(range(nb))) if pos else g
        if lin.size == 0:
            return gx
        gm = gm.reshape(lin.size, int(np.prod([s for i, s in enumerate(vs) if i not in self.dims])))
        rows = _index_add_rows(int(np.prod(sizes)), lin.reshape(-1), gm)
        vm = np.moveaxis(v, self.dims, list(range(len(self.dims))))
        vm[...] = rows.reshape(vm.shape)
        return gx

    def _raise(self, vshape):
        for d, arr, od in zip(self.dims, self.arrs, self.odims):
            n = vshape[d]
            bad = arr[(arr >= n) | (arr < -n)]
            if bad.size:
                raise IndexError(f"index {bad.flat[0]} is out of bounds for dimension {od} with size {n}") from None
        shapes = ", ".join(str(list(a.shape)) for a in self.arrs)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                         f"{shapes}") from None


def _parse(shape, idx) -> _Key:
    """Turn a Python index into a ``_Key`` for a tensor of ``shape``, raising PyTorch's errors."""
    if type(idx) is not tuple:
        if type(idx) is list and _seq_as_tuple(idx):
            warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated; use "
                          "x[tuple(seq)] instead of x[seq].", UserWarning, stacklevel=3)
            idx = tuple(idx)
        else:
            idx = (idx,)
    items = [_item(i) for i in idx]
    ndim = len(shape)
    used = sum(1 if k in (_INT, _SLICE, _ARR) else v.ndim if k == _MASK else 0 for k, v in items)
    if used > ndim:
        if ndim == 0 and items[0][0] == _INT:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    key = _Key()
    basic, dims, arrs, odims = [], [], [], []
    d = vd = 0
    plain, name = True, "Alias"
    for k, v in items:
        if k == _ELL:
            n, used = ndim - used, ndim  # a second Ellipsis expands to nothing
            basic += [slice(None)] * n
            d, vd = d + n, vd + n
        elif k == _INT:
            n = shape[d]
            if not -n <= v < n:
                raise IndexError(f"index {v} is out of bounds for dimension {d} with size {n}")
            basic.append(v)
            d += 1
            plain, name = False, "Select"
        elif k == _SLICE:
            basic.append(v)
            d, vd = d + 1, vd + 1
            plain = plain and v == slice(None)
            name = "Slice"
        elif k == _NONE or k == _BOOL:
            basic.append(None)
            if k == _BOOL:  # x[True] adds a dim of size 1, x[False] one of size 0
                dims.append(vd)
                arrs.append(np.zeros(int(v), np.int64))
                odims.append(d)
            vd += 1
            plain, name = False, "Unsqueeze"
        elif k == _ARR:
            basic.append(slice(None))
            dims.append(vd)
            arrs.append(v)
            odims.append(d)
            d, vd = d + 1, vd + 1
        else:  # boolean mask over v.ndim dims
            for j, s in enumerate(v.shape):
                if s != shape[d + j]:
                    raise IndexError(f"The shape of the mask {list(v.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(shape)} at index {d + j}")
            for nz in np.nonzero(v):
                basic.append(slice(None))
                dims.append(vd)
                arrs.append(nz)
                odims.append(d)
                d, vd = d + 1, vd + 1
    basic.append(Ellipsis)
    key.basic, key.plain, key.dims, key.arrs, key.odims = tuple(basic), plain, dims, arrs, odims
    key.name = "Index" if dims else name
    return key


# ------------------------------------------------------------------------------------------------
# __getitem__, __setitem__, __iter__, __contains__
# ------------------------------------------------------------------------------------------------
class _BasicIndex(Op):
    """Basic indexing: the output is a view of the input."""

    _view = True

    def forward(self, a, key):
        self.key, self.shape = key, a.shape
        return a[key]

    def backward(self, g):
        gx = np.zeros(self.shape, g.dtype)
        gx[self.key] = g
        return gx


class SelectBackward0(_BasicIndex):
    pass


class SliceBackward0(_BasicIndex):
    pass


class UnsqueezeBackward0(_BasicIndex):
    pass


class AliasBackward0(_BasicIndex):
    pass


_BASIC_OPS = {"Select": SelectBackward0, "Slice": SliceBackward0, "Unsqueeze": UnsqueezeBackward0,
              "Alias": AliasBackward0}


class IndexBackward0(Op):
    """Advanced indexing (a gather); backward scatter-adds, so repeated indices accumulate."""

    def forward(self, a, key):
        self.key, self.shape = key, a.shape
        return key.get(a)

    def backward(self, g):
        return self.key.accumulate(self.shape, g)


def getitem(self: Tensor, idx) -> Tensor:
    """``self[idx]`` (``torch.Tensor.__getitem__``) with PyTorch/NumPy semantics.

    ints, slices (positive steps), None, Ellipsis and 0-d integer tensors give a view sharing
    memory and version counter; integer tensors/lists/arrays and boolean masks give a copy.
    Errors: IndexError for out-of-range ints, too many indices, float index tensors and mask shape
    mismatches; ValueError for a non-positive slice step.
    """
    if type(idx) is int and self._data.ndim and -self._data.shape[0] <= idx < self._data.shape[0]:
        return SelectBackward0.apply(self, key=(idx, Ellipsis))  # fast path for x[i]
    key = _parse(self._data.shape, idx)
    if key.dims:
        return IndexBackward0.apply(self, key=key)
    return _BASIC_OPS[key.name].apply(self, key=key.basic)


class IndexPutBackward0(Op):
    """``out = a.clone(); out[key] = v`` (or ``+= v`` with ``acc``), computed out of place."""

    def forward(self, a, v, key, acc=False):
        self.key, self.vshape = key, np.shape(v)
        self.acc = acc
        out = a.copy()
        if acc:
            vw = key.view(out)
            np.add.at(vw, key._adv(vw.ndim), v)
        else:
            key.put(out, v)
        return out

    def backward(self, g):
        ga = gv = None
        if self._edges[0] is not None:
            ga = g
            if not self.acc:
                ga = g.copy()
                self.key.put(ga, 0)
        if self._edges[1] is not None:
            gv = self.key.get(g)
            vs = self.vshape
            stripped = vs[len(vs) - min(len(vs), gv.ndim):]
            gv = unbroadcast(gv, stripped).reshape(vs)
        return ga, gv


_SCALARS = (int, float, bool, complex, np.number, np.bool_)


def _value_for(self, value):
    """Check an assigned value's type; returns it (a Tensor or scalar)."""
    if isinstance(value, (Tensor,) + _SCALARS):
        return value
    tn = type(value)
    name = tn.__name__ if tn.__module__ == "builtins" else f"{tn.__module__}.{tn.__name__}"
    raise TypeError(f"can't assign a {name} to a {self.type()}")


def _put(self, key, value, acc=False):
    """Write ``value`` at ``key`` into ``self`` in place; recorded for autograd when needed."""
    value = _value_for(self, value)
    vt = isinstance(value, Tensor)
    if not (_State.enabled and (self._rg or (vt and value._rg))):
        v = value._data.astype(self._data.dtype, copy=False) if vt else value
        if acc:
            vw = key.view(self._data)
            np.add.at(vw, key._adv(vw.ndim), v)
        else:
            key.put(self._data, v)
        bump(self)
        return self
    if vt and value._data.dtype != self._data.dtype:
        value = P.cast(value, self.dtype)
    return P.inplace(self, lambda s, v: IndexPutBackward0.apply(s, v, key=key, acc=acc), value)


def setitem(self: Tensor, idx, value) -> None:
    """``self[idx] = value`` (``torch.Tensor.__setitem__``): writes in place and bumps the version.

    ``value`` is a number or a Tensor broadcastable to ``self[idx]`` (cast to ``self.dtype``).
    Gradients flow to ``self``'s earlier history and to ``value``. Errors: TypeError for other
    value types (lists, ndarrays), RuntimeError for a shape mismatch or a leaf requiring grad,
    plus ``__getitem__``'s index errors.
    """
    _put(self, _parse(self._data.shape, idx), value)


def iter_(self: Tensor):
    """Iterate over dim 0, yielding views (``torch.Tensor.__iter__``); TypeError for a 0-d tensor."""
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (getitem(self, i) for i in range(self._data.shape[0]))


def contains(self: Tensor, element) -> bool:
    """``element in self``: any element equal (``torch.Tensor.__contains__``)."""
    if isinstance(element, Tensor):
        return bool(np.any(self._data == element._data))
    if isinstance(element, _SCALARS):
        return bool(np.any(self._data == element))
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")


def index_put(input: Tensor, indices, values, accumulate=False) -> Tensor:
    """``out = input.clone(); out[indices] = values`` (``+=`` when ``accumulate``), ``torch.index_put``.

    ``indices`` is a tuple of integer/bool tensors (``None`` means a full slice).
    """
    key = _parse(input._data.shape, tuple(slice(None) if i is None else i for i in indices))
    values = to_tensor(values) if not isinstance(values, _SCALARS) else values
    if isinstance(values, Tensor) and values._data.dtype != input._data.dtype:
        values = P.cast(values, input.dtype)
    return IndexPutBackward0.apply(input, values, key=key, acc=bool(accumulate))


def index_put_(self: Tensor, indices, values, accumulate=False) -> Tensor:
    key = _parse(self._data.shape, tuple(slice(None) if i is None else i for i in indices))
    return _put(self, key, values if isinstance(values, (Tensor,) + _SCALARS) else to_tensor(values),
                acc=bool(accumulate))


# ------------------------------------------------------------------------------------------------
# gather / scatter
# ------------------------------------------------------------------------------------------------
def _index_arr(index, what, exc=RuntimeError) -> np.ndarray:
    arr = index._data if isinstance(index, Tensor) else np.asarray(index)
    if arr.dtype.kind not in "iu":
        raise exc(f"{what}(): Expected dtype int32/int64 for index")
    return arr


def _check_bounds(arr, n, dim, exc=RuntimeError):
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if lo < 0 or hi >= n:
            raise exc(f"index {lo if lo < 0 else hi} is out of bounds for dimension {dim} with size {n}")


def _grid(idx, axis):
    """Open-grid index tuple: position ``i`` of ``idx`` addresses ``(i_0, .., idx[i], .., i_n)``."""
    nd = idx.ndim
    return tuple(idx if d == axis else np.arange(s).reshape([-1 if e == d else 1 for e in range(nd)])
                 for d, s in enumerate(idx.shape))


def _lin(grid, shape):
    """Flat positions in a C-ordered ``shape`` array addressed by ``grid``."""
    lin, stride = 0, 1
    for g, s in zip(reversed(grid), reversed(shape)):
        lin = lin + g * stride
        stride *= s
    return np.broadcast_to(lin, np.broadcast_shapes(*(g.shape for g in grid)))


def _scatter_sum(shape, grid, vals):
    """Zeros of ``shape`` with ``vals`` added at ``grid`` (duplicates accumulate)."""
    lin = _lin(grid, shape).reshape(-1)
    return _index_add_rows(int(np.prod(shape)), lin, vals.reshape(-1, 1)).reshape(shape)


def _gather_args(input, dim, index, what, src=None):
    a = input._data
    idx = _index_arr(index, what)
    nd = max(a.ndim, 1)
    dim = _wrap_dim(dim, a.ndim)
    if idx.ndim != a.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    a, i1 = a.reshape(a.shape or (1,)), idx.reshape(idx.shape or (1,))
    for d in range(nd):
        if d != dim and i1.shape[d] > a.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)} to be no "
                               f"larger than self {list(input.shape)} apart from dimension {dim}")
        if src is not None and src.ndim and i1.shape[d] > src.shape[d]:
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than src {list(src.shape)} "
                               f"apart from dimension {dim}")
    _check_bounds(idx, a.shape[dim], dim)
    return dim, idx


class GatherBackward0(Op):
    def forward(self, a, dim, idx):
        self.shape, self.grid = a.shape, _grid(idx.reshape(idx.shape or (1,)), dim)
        return a.reshape(a.shape or (1,))[self.grid].reshape(idx.shape)

    def backward(self, g):
        shape = self.shape or (1,)
        return _scatter_sum(shape, self.grid, g.reshape(g.shape or (1,))).reshape(self.shape)


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad=False, out=None) -> Tensor:
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` for dim 0, etc. (``torch.gather``).

    ``index`` (int64, same ndim as input, no larger than input outside ``dim``) gives the output
    shape. RuntimeError for a wrong dtype/ndim/size or an out-of-range index.
    """
    dim, idx = _gather_args(input, dim, index, "gather")
    return P._out(GatherBackward0.apply(input, dim=dim, idx=idx), out)


class ScatterBackward0(Op):
    """scatter / scatter_add / scatter_reduce with ``src`` (array or scalar)."""

    def forward(self, a, src, dim, idx, reduce=None, include_self=True):
        shape = a.shape or (1,)
        idx = idx.reshape(idx.shape or (1,))
        grid = _grid(idx, dim)
        s = src[tuple(slice(0, n) for n in idx.shape)] if np.ndim(src) else np.asarray(src, a.dtype)
        s = np.broadcast_to(s.reshape(s.shape or (1,)) if np.ndim(src) else s, idx.shape)
        out = a.reshape(shape).copy()
        self.grid, self.shape, self.sshape, self.reduce, self.s = grid, a.shape, np.shape(src), reduce, s
        self.include_self = include_self
        if reduce is None:
            out[grid] = s
        elif reduce == "sum" and include_self:
            out = out + _scatter_sum(shape, grid, s)
        else:
            self._reduce(out, grid, s, reduce, include_self, a.reshape(shape))
        self.out = out
        return out.reshape(a.shape)

    def _reduce(self, out, grid, s, reduce, include_self, a):
        hit = np.zeros(out.shape, bool)
        hit[grid] = True
        self_w = (np.ones(out.shape, bool) if include_self else ~hit).astype(out.dtype)
        self.self_w, self.a = self_w, a
        if reduce == "sum":
            out[...] = a * self_w + _scatter_sum(out.shape, grid, s)
            return
        if reduce == "mean":
            cnt = _scatter_sum(out.shape, grid, np.ones(s.shape, out.dtype)) + self_w
            tot = a * self_w + _scatter_sum(out.shape, grid, s)
            out[...] = tot // cnt if out.dtype.kind in "iu" else tot / cnt
            self.cnt = cnt
            return
        ufunc = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}.get(reduce)
        if ufunc is None:
            raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
        if not include_self:
            out[hit] = ufunc.identity if ufunc.identity is not None else (
                -np.inf if reduce == "amax" else np.inf) if out.dtype.kind in "fc" else (
                np.iinfo(out.dtype).min if reduce == "amax" else np.iinfo(out.dtype).max)
        ufunc.at(out, grid, s)

    def backward(self, g):
        grid, reduce = self.grid, self.reduce
        g = g.reshape(g.shape or (1,))
        ga = gs = None
        if reduce is None:
            ga = g.copy()
            ga[grid] = 0
            gsv = g[grid]
        elif reduce == "sum":
            ga, gsv = (g if self.include_self else g * self.self_w), g[grid]
        elif reduce == "mean":
            gc = g / self.cnt
            ga, gsv = gc * self.self_w, gc[grid]
        elif reduce in ("amax", "amin"):
            out = self.out
            self_hit = self.self_w * (self.a == out)
            src_hit = (self.s == out[grid]).astype(g.dtype)
            gt = g / (self_hit + _scatter_sum(out.shape, grid, src_hit))
            ga, gsv = np.where(self_hit > 0, gt, 0), gt[grid] * src_hit
        else:  # prod
            if not (np.all(self.a != 0) and np.all(self.s != 0)):
                raise RuntimeError("numtorch: scatter_reduce(reduce='prod') backward with zeros is not implemented")
            go = g * self.out
            ga, gsv = go * self.self_w / self.a, go[grid] / self.s
        if len(self.sshape) and self._edges[1] is not None:
            gs = np.zeros(self.sshape, g.dtype)
            gs[tuple(slice(0, n) for n in gsv.shape)] = gsv
        return ga.reshape(self.shape), gs


def _scatter(input, dim, index, src, reduce, include_self, what):
    srcarr = src._data if isinstance(src, Tensor) else None
    dim, idx = _gather_args(input, dim, index, what, srcarr)
    if isinstance(src, Tensor):
        if src._data.ndim != input._data.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if src._data.dtype != input._data.dtype:
            src = P.cast(src, input.dtype)
    return ScatterBackward0.apply(input, src, dim=dim, idx=idx, reduce=reduce, include_self=include_self)


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """Out-of-place ``scatter_`` (``torch.scatter``): ``out[index[i][j]][j] = src[i][j]`` for dim 0.

    ``src`` is a Tensor (same ndim, at least index's size) or a number (``value``); ``reduce``
    "add"/"multiply" combines instead of overwriting. Gradient flows to input (zero where
    overwritten) and src. RuntimeError for shape, dtype or range errors.
    """
    if src is None:
        src = value
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    r = {"add": "sum", "multiply": "prod"}.get(reduce)
    return _scatter(input, dim, index, src, r, True, "scatter")


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``out = input.clone(); out[index[i][j]][j] += src[i][j]`` (``torch.scatter_add``)."""
    return _scatter(input, dim, index, src, "sum", True, "scatter_add")


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self=True) -> Tensor:
    """Scatter ``src`` reducing with "sum", "prod", "mean", "amax" or "amin" (``torch.scatter_reduce``).

    With ``include_self=False`` the input's values at scattered positions are left out. Ties of
    amax/amin share the gradient evenly, as in PyTorch.
    """
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return _scatter(input, dim, index, src, reduce, include_self, "scatter_reduce")


# ------------------------------------------------------------------------------------------------
# index_select / index_add / index_fill / index_copy
# ------------------------------------------------------------------------------------------------
def _vec_index(input, dim, index, what):
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.ndim > 1:
        raise IndexError(f"{what}(): Index is supposed to be a vector")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{what}(): Expected dtype int32 or int64 for index")
    dim = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[dim] if input._data.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    return dim, idx.reshape(-1)


class IndexSelectBackward0(Op):
    def forward(self, a, dim, idx):
        self.shape, self.dim, self.idx = a.shape, dim, idx
        if a.ndim == 0:
            return a.copy()
        return np.take(a, idx, axis=dim)

    def backward(self, g):
        if not self.shape:
            return g.copy()
        return _add_rows_along(self.shape, self.dim, self.idx, g)


def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    """Entries of ``input`` at positions ``index`` (1-D int) along ``dim`` (``torch.index_select``).

    IndexError for a non-vector or out-of-range index; RuntimeError for a non-integer index.
    """
    dim, idx = _vec_index(input, dim, index, "index_select")
    return P._out(IndexSelectBackward0.apply(input, dim=dim, idx=idx), out)


def _check_source(input, dim, idx, source, what):
    a, s = input._data, source._data
    if a.ndim and (s.ndim != a.ndim or any(s.shape[d] != a.shape[d] for d in range(a.ndim) if d != dim)):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(a.shape)} source.shape = {list(s.shape)}")
    if (s.shape[dim] if s.ndim else 1) != len(idx):
        raise RuntimeError(f"{what}(): Number of indices ({len(idx)}) should be equal to source.size(dim): "
                           f"({s.shape[dim] if s.ndim else 1}), for dim: {dim}")
    return P.cast(source, input.dtype) if s.dtype != a.dtype else source


class IndexAddBackward0(Op):
    def forward(self, a, src, dim, idx, alpha):
        self.dim, self.idx, self.alpha, self.sshape = dim, idx, alpha, src.shape
        shape = a.shape or (1,)
        rows = _add_rows_along(shape, dim, idx, src.reshape(src.shape or (1,)))
        return (a + (rows if alpha == 1 else rows * alpha).reshape(a.shape)).astype(a.dtype, copy=False)

    def backward(self, g):
        gs = None
        if self._edges[1] is not None:
            gs = np.take(g.reshape(g.shape or (1,)), self.idx, axis=self.dim).reshape(self.sshape)
            if self.alpha != 1:
                gs = gs * self.alpha
        return g, gs


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """``out = input.clone(); out[..., index[i], ...] += alpha * source[..., i, ...]`` (``torch.index_add``).

    Repeated indices accumulate. RuntimeError when ``source`` does not match ``input`` outside
    ``dim`` or its size along ``dim`` differs from ``len(index)``.
    """
    dim, idx = _vec_index(input, dim, index, "index_add")
    source = _check_source(input, dim, idx, source, "index_add_")
    return IndexAddBackward0.apply(input, source, dim=dim, idx=idx, alpha=alpha)


class IndexCopyBackward0(Op):
    """index_copy (``src`` an array) and index_fill (``src`` a scalar or 0-d array)."""

    def forward(self, a, src, dim, idx, fill=False):
        self.dim, self.idx, self.fill, self.sshape = dim, idx, fill, np.shape(src)
        out = a.copy()
        sel = (slice(None),) * dim + (idx,)
        out.reshape(out.shape or (1,))[sel] = src if fill else src.reshape(src.shape or (1,))
        return out

    def backward(self, g):
        sel = (slice(None),) * self.dim + (self.idx,)
        g1 = g.reshape(g.shape or (1,))
        gs = None
        if self._edges[1] is not None:
            if self.fill:
                gs = np.asarray(g1[(slice(None),) * self.dim + (np.unique(self.idx),)].sum(), g.dtype)
            else:
                gs = g1[sel].reshape(self.sshape)
        ga = g.copy()
        ga.reshape(ga.shape or (1,))[sel] = 0
        return ga, gs


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``out[..., index[i], ...] = source[..., i, ...]`` on a copy of input (``torch.index_copy``)."""
    dim, idx = _vec_index(input, dim, index, "index_copy")
    source = _check_source(input, dim, idx, source, "index_copy_")
    return IndexCopyBackward0.apply(input, source, dim=dim, idx=idx)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``out[..., index, ...] = value`` on a copy (``torch.index_fill``); value a number or 0-d tensor."""
    dim, idx = _vec_index(input, dim, index, "index_fill")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        if value._data.dtype != input._data.dtype:
            value = P.cast(value, input.dtype)
    return IndexCopyBackward0.apply(input, value, dim=dim, idx=idx, fill=True)


# ------------------------------------------------------------------------------------------------
# masks
# ------------------------------------------------------------------------------------------------
_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "float32": "float", "float64": "double", "float16": "c10::Half"}


def _mask_arr(mask, what):
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        if what == "masked_select":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        raise RuntimeError(f"{what} only supports boolean masks, but got mask with dtype "
                           f"{_CPP_NAMES.get(str(m.dtype), str(m.dtype))}")
    return m


def _bcast(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({list(shapes[0])}) must match the size of tensor b "
                           f"({list(shapes[1])}) at non-singleton dimension") from None


class MaskedFillBackward0(Op):
    def forward(self, a, v, mask):
        self.mask, self.shape = mask, a.shape
        _bcast(a.shape, mask.shape)
        return np.where(mask, np.asarray(v, a.dtype), a)

    def backward(self, g):
        ga = unbroadcast(np.where(self.mask, 0, g), self.shape) if self._edges[0] is not None else None
        gv = None
        if len(self._edges) > 1 and self._edges[1] is not None:
            gv = np.asarray(np.where(self.mask, g, 0).sum(), g.dtype)
        return ga, gv


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``value`` where the bool ``mask`` (broadcast) is True, else ``input`` (``torch.masked_fill``).

    ``value`` is a number or a 0-d tensor (differentiable). RuntimeError for a non-bool mask or a
    value tensor with dimensions. The input's gradient is zero at masked positions.
    """
    m = _mask_arr(mask, "masked_fill_")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        if value._data.dtype != input._data.dtype:
            value = P.cast(value, input.dtype)
    return MaskedFillBackward0.apply(input, value, mask=m)


class MaskedSelectBackward0(Op):
    def forward(self, a, mask):
        self.shape = a.shape
        self.bshape = _bcast(a.shape, mask.shape)
        self.mask = np.broadcast_to(mask, self.bshape)
        return np.broadcast_to(a, self.bshape)[self.mask]

    def backward(self, g):
        gx = np.zeros(self.bshape, g.dtype)
        gx[self.mask] = g
        return unbroadcast(gx, self.shape)


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """1-D tensor of the ``input`` entries where the bool ``mask`` (broadcast together) is True."""
    return P._out(MaskedSelectBackward0.apply(input, mask=_mask_arr(mask, "masked_select")), out)


class MaskedScatterBackward0(Op):
    def forward(self, a, src, mask):
        bshape = _bcast(a.shape, mask.shape)
        self.shape, self.sshape = a.shape, src.shape
        self.mask = np.broadcast_to(mask, bshape)
        self.count = int(np.count_nonzero(self.mask))
        if src.size < self.count:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        out = np.array(np.broadcast_to(a, bshape))
        out[self.mask] = src.reshape(-1)[:self.count]
        return out

    def backward(self, g):
        gs = np.zeros(int(np.prod(self.sshape)), g.dtype)
        gs[:self.count] = g[self.mask]
        return unbroadcast(np.where(self.mask, 0, g), self.shape), gs.reshape(self.sshape)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Copy ``source``'s leading elements, in order, into the True places of ``mask``."""
    m = _mask_arr(mask, "masked_scatter_")
    if source._data.dtype != input._data.dtype:
        source = P.cast(source, input.dtype)
    return MaskedScatterBackward0.apply(input, source, mask=m)


# ------------------------------------------------------------------------------------------------
# take / take_along_dim
# ------------------------------------------------------------------------------------------------
class TakeBackward0(Op):
    def forward(self, a, idx):
        n = a.size
        bad = idx[(idx >= n) | (idx < -n)] if idx.size else idx
        if bad.size:
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {n} elements.")
        self.shape, self.idx = a.shape, _wrap_neg(idx, n)
        return a.reshape(-1)[self.idx]

    def backward(self, g):
        n = int(np.prod(self.shape))
        return _index_add_rows(n, self.idx.reshape(-1), g.reshape(-1, 1)).reshape(self.shape)


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input.flatten()[index]`` with ``index``'s shape (``torch.take``); IndexError when out of range."""
    return TakeBackward0.apply(input, idx=_index_arr(index, "take"))


class TakeAlongDimBackward0(Op):
    def forward(self, a, dim, idx):
        self.shape = a.shape
        if dim is None:
            self.bshape, self.grid = (a.size,), (idx.reshape(-1),)
            return a.reshape(-1)[self.grid]
        sa, si = list(a.shape), list(idx.shape)
        sa[dim] = si[dim] = 1
        b = list(_bcast(sa, si))
        ba, bi = b.copy(), b.copy()
        ba[dim], bi[dim] = a.shape[dim], idx.shape[dim]
        self.bshape, self.grid = tuple(ba), _grid(np.broadcast_to(idx, bi), dim)
        return np.broadcast_to(a, ba)[self.grid]

    def backward(self, g):
        return unbroadcast(_scatter_sum(self.bshape, self.grid, g), self.shape)


def take_along_dim(input: Tensor, indices: Tensor, dim=None, *, out=None) -> Tensor:
    """Values of ``input`` at ``indices`` along ``dim``, broadcasting the other dims
    (``torch.take_along_dim``, like ``np.take_along_axis``); the flattened input when ``dim`` is None."""
    idx = _index_arr(indices, "take_along_dim")
    if dim is None:
        _check_bounds(idx, input._data.size, 0, IndexError)
    else:
        dim = _wrap_dim(dim, input._data.ndim)
        if idx.ndim != input._data.ndim:
            raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                               f"dimensions, but got {input._data.ndim} dimensions for input, and {idx.ndim} "
                               f"dimensions for indices")
        _check_bounds(idx, input._data.shape[dim], dim, IndexError)
    return P._out(TakeAlongDimBackward0.apply(input, dim=dim, idx=idx), out)


# ------------------------------------------------------------------------------------------------
# nonzero
# ------------------------------------------------------------------------------------------------
def nonzero(input: Tensor, *, out=None, as_tuple=False):
    """Indices of non-zero entries: int64 ``(n, ndim)``, or a tuple of ndim 1-D tensors."""
    a = input._data
    if as_tuple:
        return tuple(_make(i.astype(np.int64, copy=False)) for i in np.nonzero(np.atleast_1d(a)))
    return P._out(_make(np.argwhere(a).astype(np.int64, copy=False)), out)


def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)`` (``torch.argwhere``)."""
    return nonzero(input)


# ------------------------------------------------------------------------------------------------
# sorting and selection
# ------------------------------------------------------------------------------------------------
def _argsort(a, axis, descending):
    """Stable argsort; descending keeps ties in index order and puts NaN first (as PyTorch)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    return (n - 1) - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)


class _PickAlong(Op):
    """Ops returning ``(values, indices)`` picked along ``dim``: backward puts ``g`` at ``indices``."""

    _nondiff_outputs = (1,)

    def _pick(self, a, dim, order, keepdim=True):
        a1 = a.reshape(a.shape or (1,))
        self.shape, self.dim, self.idx = a.shape, dim, order
        vals = np.take_along_axis(a1, order, axis=dim)
        if not keepdim:
            vals, order = vals.squeeze(dim), order.squeeze(dim)
        if not a.ndim:
            vals, order = vals.reshape(()), order.reshape(())
        return vals, order.astype(np.int64, copy=False)

    def backward(self, g, gi=None):
        gx = np.zeros(self.shape or (1,), g.dtype)
        np.put_along_axis(gx, self.idx, g.reshape(self.idx.shape), axis=self.dim)
        return gx.reshape(self.shape)


class SortBackward0(_PickAlong):
    def forward(self, a, dim, descending):
        a1 = a.reshape(a.shape or (1,))
        return self._pick(a, dim, _argsort(a1, dim, descending))


class TopkBackward0(_PickAlong):
    def forward(self, a, k, dim, largest):
        a1 = a.reshape(a.shape or (1,))
        return self._pick(a, dim, np.take(_argsort(a1, dim, largest), np.arange(k), axis=dim))


class KthvalueBackward0(_PickAlong):
    def forward(self, a, k, dim, keepdim):
        a1 = a.reshape(a.shape or (1,))
        return self._pick(a, dim, np.take(_argsort(a1, dim, False), [k - 1], axis=dim), keepdim)


def sort(input: Tensor, dim=-1, descending=False, stable=False, *, out=None):
    """``(values, indices)`` sorted along ``dim`` (``torch.sort``); always stable (ties keep index order)."""
    dim = _wrap_dim(dim, input._data.ndim) if input._data.ndim else 0
    return _sort_result(*SortBackward0.apply(input, dim=dim, descending=bool(descending)))


def argsort(input: Tensor, dim=-1, descending=False, stable=False) -> Tensor:
    """Indices (int64) that sort ``input`` along ``dim`` (``torch.argsort``); stable."""
    return sort(input, dim, descending).indices


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values`` (``torch.msort``)."""
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) entries along ``dim`` as ``(values, indices)``, in sorted order.

    RuntimeError "selected index k out of range" unless ``0 <= k <= input.size(dim)``.
    """
    dim = _wrap_dim(dim, input._data.ndim) if input._data.ndim else 0
    n = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    return _topk_result(*TopkBackward0.apply(input, k=int(k), dim=dim, largest=bool(largest)))


def kthvalue(input: Tensor, k: int, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest entry (1-based) along ``dim`` and its index (``torch.kthvalue``)."""
    dim = _wrap_dim(dim, input._data.ndim) if input._data.ndim else 0
    n = input._data.shape[dim] if input._data.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _kthvalue_result(*KthvalueBackward0.apply(input, k=int(k), dim=dim, keepdim=bool(keepdim)))


def _unique_result(out, inv, counts, return_inverse, return_counts):
    res = [_make(out)]
    if return_inverse:
        res.append(_make(inv.astype(np.int64, copy=False)))
    if return_counts:
        res.append(_make(counts.astype(np.int64, copy=False)))
    return res[0] if len(res) == 1 else tuple(res)


def unique(input: Tensor, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted unique elements (or slices along ``dim``) of ``input`` (``torch.unique``); not differentiable.

    Returns a tensor, or a tuple with the int64 ``inverse`` (input's shape, or ``(size(dim),)``) and
    ``counts`` when requested.
    """
    a = input._data
    if dim is not None:
        dim = _wrap_dim(dim, a.ndim)
    out, inv, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    inv = inv.reshape(a.shape if dim is None else (-1,))
    return _unique_result(out, inv, counts, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``) (``torch.unique_consecutive``)."""
    a = input._data
    m = np.moveaxis(a, _wrap_dim(dim, a.ndim), 0) if dim is not None else a.reshape(-1)
    rows = m.reshape(m.shape[0], -1)
    new = np.ones(rows.shape[0], bool)
    new[1:] = np.any(rows[1:] != rows[:-1], axis=1) if rows.shape[1] else False
    starts = np.flatnonzero(new)
    out = m[starts]
    out = np.moveaxis(out, 0, dim) if dim is not None else out
    inv = (np.cumsum(new) - 1).reshape(a.shape if dim is None else (-1,))
    counts = np.diff(np.append(starts, rows.shape[0]))
    return _unique_result(out, inv, counts, return_inverse, return_counts)


def bincount(input: Tensor, weights=None, minlength=0) -> Tensor:
    """Counts of each value in a 1-D non-negative int tensor (``torch.bincount``).

    int64 result, or the weights' dtype (float64 for integer weights). RuntimeError for other
    inputs; NotImplementedError for a float input.
    """
    a = input._data
    if a.dtype.kind == "f":
        raise NotImplementedError("\"bincount_cpu\" not implemented for 'Float'")
    if a.ndim != 1 or a.dtype.kind not in "iub" or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _make(np.bincount(a, minlength=minlength).astype(np.int64, copy=False))
    w = weights._data if isinstance(weights, Tensor) else np.asarray(weights)
    dt = w.dtype if w.dtype.kind == "f" else np.dtype(np.float64)
    return _make(np.bincount(a, weights=w, minlength=minlength).astype(dt, copy=False))


def searchsorted(sorted_sequence: Tensor, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None) -> Tensor:
    """Insertion points of ``input`` in ``sorted_sequence``'s last dim (``torch.searchsorted``).

    The sequence is 1-D, or N-D with leading dims equal to ``input``'s (one search per row).
    ``right``/``side="right"`` returns the last valid position. int64 (int32 with ``out_int32``).
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    v = input._data if isinstance(input, Tensor) else np.asarray(input)
    srt = None if sorter is None else (sorter._data if isinstance(sorter, Tensor) else np.asarray(sorter))
    sd = "right" if right else "left"
    dt = np.int32 if out_int32 else np.int64
    if seq.ndim <= 1:
        return P._out(_make(np.asarray(np.searchsorted(seq, v, side=sd, sorter=srt), dt)), out)
    if seq.shape[:-1] != v.shape[:-1] or v.ndim != seq.ndim:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}")
    if srt is not None:
        seq = np.take_along_axis(seq, srt, axis=-1)
    # one flat search: rank all values together, then offset each row's ranks past the previous row's
    m, q = seq.shape[-1], v.shape[-1]
    s2, v2 = seq.reshape(-1, m), v.reshape(-1, q)
    _, ranks = np.unique(np.concatenate([s2.ravel(), v2.ravel()]), return_inverse=True)
    ranks = ranks.reshape(-1)
    span = (ranks.max() + 2 if ranks.size else 1) * np.arange(s2.shape[0])[:, None]
    ks = (ranks[:s2.size].reshape(s2.shape) + span).ravel()
    kv = ranks[s2.size:].reshape(v2.shape) + span
    pos = np.searchsorted(ks, kv, side=sd) - m * np.arange(s2.shape[0])[:, None]
    return P._out(_make(pos.reshape(v.shape).astype(dt)), out)


def bucketize(input, boundaries: Tensor, *, out_int32=False, right=False, out=None) -> Tensor:
    """Index of the bucket of each ``input`` value given 1-D sorted ``boundaries`` (``torch.bucketize``).

    ``right=False``: ``boundaries[i-1] < x <= boundaries[i]``. RuntimeError for non-1-D boundaries.
    """
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a new last dim of ``num_classes`` (``torch.nn.functional.one_hot``).

    ``num_classes=-1`` uses ``max + 1``. RuntimeError for non-int64 input, negative values, values
    >= num_classes, or an empty input with ``num_classes=-1``.
    """
    a = tensor._data
    if a.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _make((a[..., None] == np.arange(num_classes)).astype(np.int64))


# ------------------------------------------------------------------------------------------------
# in-place forms (recorded through pointwise.inplace)
# ------------------------------------------------------------------------------------------------
def _inplace_of(fn, name):
    def method(self, *args, **kwargs):
        return P.inplace(self, fn, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``: writes into ``self`` and returns it (``torch.Tensor.{name}``)."
    return method


masked_fill_ = _inplace_of(masked_fill, "masked_fill_")
masked_scatter_ = _inplace_of(masked_scatter, "masked_scatter_")
scatter_ = _inplace_of(scatter, "scatter_")
scatter_add_ = _inplace_of(scatter_add, "scatter_add_")
scatter_reduce_ = _inplace_of(scatter_reduce, "scatter_reduce_")
index_add_ = _inplace_of(index_add, "index_add_")
index_fill_ = _inplace_of(index_fill, "index_fill_")
index_copy_ = _inplace_of(index_copy, "index_copy_")
