"""Indexing: ``x[idx]``, ``x[idx] = v``, iteration, index_put, index_select/add/copy/fill and masks.

``x[idx]`` runs in two stages, as PyTorch does: first the *basic* part (ints, slices, None,
Ellipsis) gives a view that shares memory and the version counter with ``x``; then, if the index
holds integer or boolean tensors, the *advanced* part gathers a copy (NumPy's rules, which are
PyTorch's once the ints are consumed by the first stage). Gradients of gathers are scattered back
with ``scatter._index_add_rows``.

Related families: gather/scatter/take in ``scatter.py``, sort/topk/unique/nonzero in ``sorting.py``.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from .._tensor import Tensor, _no_values, _wrap_dim
from ..autograd.forward_ad import jvp_linear
from ..autograd import function as _function
from ..autograd.function import Op, linear_backward, save_indices
from ..autograd.grad_mode import _State
from ._cast import _aten, cast, checked_scalar
from ._inplace import check_captured, inplace, inplace_fn
from ._out import _out, check_select_out
from ._util import bump, check_writable, placed, to_tensor, unbroadcast
from .scatter import _add_rows_along, _bcast, _index_add_rows, _wrap_neg, scatter_reduce
from .slicing import SelectBackward0

__all__ = """index_select index_add index_fill index_copy index_put masked_fill masked_select
masked_scatter index_reduce""".split()


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
        if not self.dims:
            return a[self.basic]
        v = self.view(a)
        try:
            if len(self.dims) == 1:
                return np.take(v, self.arrs[0], axis=self.dims[0])
            return v[self._adv(v.ndim)]
        except IndexError:
            if 0 in v.shape and all(v.shape[d] for d in self.dims):  # an empty result: PyTorch checks no range
                return self._clipped(v)
            self._raise(v.shape)
            raise

    def _clipped(self, v):
        t = list(self._adv(v.ndim))
        for d in self.dims:
            t[d] = np.clip(t[d], -v.shape[d], v.shape[d] - 1)
        return v[tuple(t)]

    def put(self, a, value, acc=False):
        """``a[key] = value`` (``+=`` with ``acc``, repeats accumulating) in place; RuntimeError if
        ``value`` does not broadcast."""
        try:
            if acc:
                v = self.view(a)
                np.add.at(v, self._adv(v.ndim), value)
            elif not self.dims:
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
        if g.size == 0:
            return gx
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
        if lin.size == 0:
            return gx
        gm = np.moveaxis(g, list(range(pos, pos + nb)), list(range(nb))) if pos else g
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
    plain, name = True, "AliasBackward0"
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
            plain, name = False, "SelectBackward0"
        elif k == _SLICE:
            basic.append(v)
            d, vd = d + 1, vd + 1
            plain = plain and v == slice(None)
            name = "SliceBackward0"
        elif k == _NONE or k == _BOOL:
            basic.append(None)
            if k == _BOOL:  # x[True] adds a dim of size 1, x[False] one of size 0
                dims.append(vd)
                arrs.append(np.zeros(int(v), np.int64))
                odims.append(d)
            vd += 1
            plain, name = False, "UnsqueezeBackward0"
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
    key.name = "IndexBackward0" if dims else name
    return key


# ------------------------------------------------------------------------------------------------
# __getitem__, __setitem__, __iter__, __contains__
# ------------------------------------------------------------------------------------------------
class _BasicIndex(Op):
    """Basic indexing (ints, slices, None, Ellipsis) in one step: the output is a view of the input.
    PyTorch records a node per index component; this one node reports the name of the last one
    (``SliceBackward0``, ``UnsqueezeBackward0``, ``SelectBackward0``, ``AliasBackward0``)."""
    _vmap = "basic_index"  # batching rule kind (func/_batching_rules.py)

    _view = True

    def forward(self, a, key, name):
        self.key, self.shape, self._node_name = key, a.shape, name
        return a[key]

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: w[self.key])
        return placed(self.shape, self.key, g)


class IndexBackward0(Op):
    jvp = jvp_linear  # forward AD (autograd/forward_ad.py): the key is a keyword
    """Advanced indexing (a gather); backward scatter-adds, so repeated indices accumulate."""

    def forward(self, a, key):
        self.key, self.shape = key, a.shape
        return key.get(a)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), self.key.get)
        return self.key.accumulate(self.shape, g)


def getitem(self: Tensor, idx) -> Tensor:
    """``self[idx]`` (``torch.Tensor.__getitem__``) with PyTorch/NumPy semantics.

    ints, slices (positive steps), None, Ellipsis and 0-d integer tensors give a view sharing
    memory and version counter; integer tensors/lists/arrays and boolean masks give a copy.
    Errors: IndexError for out-of-range ints, too many indices, float index tensors and mask shape
    mismatches; ValueError for a non-positive slice step.
    """
    if type(idx) is int and self._data.ndim and -self._data.shape[0] <= idx < self._data.shape[0]:
        return SelectBackward0.apply(self, dim=0, index=idx)  # fast path for x[i]: select(x, 0, i)
    if _State.vmap and (r := _function.vmap_index("getitem", self, idx)) is not NotImplemented:
        return r
    key = _parse(self._data.shape, idx)
    if key.dims:
        return save_indices(IndexBackward0.apply(self, key=key), *(idx if type(idx) is tuple else (idx,)))
    return _BasicIndex.apply(self, key=key.basic, name=key.name)


class IndexPutBackward0(Op):
    """``out = a.clone(); out[key] = v`` (or ``+= v`` with ``acc``), computed out of place."""

    def forward(self, a, v, key, acc=False):
        self.key, self.vshape = key, np.shape(v)
        self.acc, self.ashape = acc, a.shape
        out = a.copy()
        key.put(out, v, acc)
        return out

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
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

    def _adjoint(self, wa, wv):
        out = np.zeros(self.ashape, (wa if wa is not None else wv).dtype) if wa is None else wa.copy()
        self.key.put(out, 0 if wv is None else wv, self.acc)
        return out


_SCALARS = (int, float, bool, complex, np.number, np.bool_)


def _value_for(self, value):
    """Check an assigned value's type; returns it (a Tensor or scalar)."""
    if isinstance(value, (Tensor,) + _SCALARS):
        return value
    tn = type(value)
    name = tn.__name__ if tn.__module__ == "builtins" else f"{tn.__module__}.{tn.__name__}"
    raise TypeError(f"can't assign a {name} to a {self.type()}")


def _put(self, key, value, acc=False, idx=()):
    """Write ``value`` at ``key`` into ``self`` in place; recorded for autograd when needed, with the
    index Tensors in ``idx`` version-checked (as PyTorch saves them for ``IndexPutBackward0``)."""
    value = _value_for(self, value)
    vt = isinstance(value, Tensor)
    if _State.captured:  # inside a grad transform: a captured tensor must not be written (func/_captures.py)
        check_captured(self, "aten::index_put_" if key.dims else "aten::copy_")
    if _State.vmap:  # vmap: a batched self's _data is a shape stand-in; inplace() writes its physical data
        if vt and value._data.dtype != self._data.dtype:
            value = cast(value, self.dtype)
        return inplace(self, lambda s, v: IndexPutBackward0.apply(s, v, key=key, acc=acc), value)
    check_writable(self._data)
    if not (_State.enabled and (self._rg or (vt and value._rg)) or _State.fw):  # fw: forward AD
        key.put(self._data, value._data.astype(self._data.dtype, copy=False) if vt else value, acc)
        bump(self)
        return self
    if vt and value._data.dtype != self._data.dtype:
        value = cast(value, self.dtype)
    idx = _index_tensors(idx) if key.dims else ()
    return inplace(self, lambda s, v: save_indices(IndexPutBackward0.apply(s, v, key=key, acc=acc), *idx), value)


def _index_tensors(idx):
    """The Tensors in an index: ``idx`` itself, or the Tensors among its tuple/list elements."""
    if isinstance(idx, Tensor):
        return (idx,)
    return tuple(i for i in idx if isinstance(i, Tensor)) if isinstance(idx, (tuple, list)) else ()


def setitem(self: Tensor, idx, value) -> None:
    """``self[idx] = value`` (``torch.Tensor.__setitem__``): writes in place and bumps the version.

    ``value`` is a number or a Tensor broadcastable to ``self[idx]`` (cast to ``self.dtype``).
    Gradients flow to ``self``'s earlier history and to ``value``. Errors: TypeError for other
    value types (lists, ndarrays), RuntimeError for a shape mismatch or a leaf requiring grad,
    plus ``__getitem__``'s index errors.
    """
    if _State.vmap and (r := _function.vmap_index("setitem", self, idx, value)) is not NotImplemented:
        return
    _put(self, _parse(self._data.shape, idx), value, idx=idx)


def iter_(self: Tensor):
    """Iterate over dim 0, yielding views (``torch.Tensor.__iter__``); TypeError for a 0-d tensor."""
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (getitem(self, i) for i in range(self._data.shape[0]))


def contains(self: Tensor, element) -> bool:
    """``element in self``: any element equal (``torch.Tensor.__contains__``)."""
    _no_values(self)
    if isinstance(element, Tensor):
        _no_values(element)
    if isinstance(element, Tensor):
        return bool(np.any(self._data == element._data))
    if isinstance(element, _SCALARS):
        return bool(np.any(self._data == element))
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")


def index_put(input: Tensor, indices, values, accumulate=False) -> Tensor:
    """``out = input.clone(); out[indices] = values`` (``+=`` when ``accumulate``), ``torch.index_put``.

    ``indices`` is a tuple of integer/bool tensors (``None`` means a full slice).
    """
    if _State.vmap and (r := _function.vmap_index("index_put", input, indices, values,
                                                  accumulate)) is not NotImplemented:
        return r
    key = _parse(input._data.shape, tuple(slice(None) if i is None else i for i in indices))
    values = to_tensor(values) if not isinstance(values, _SCALARS) else values
    if isinstance(values, Tensor) and values._data.dtype != input._data.dtype:
        values = cast(values, input.dtype)
    return save_indices(IndexPutBackward0.apply(input, values, key=key, acc=bool(accumulate)), *indices)


def index_put_(self: Tensor, indices, values, accumulate=False) -> Tensor:
    if _State.vmap and (r := _function.vmap_index("index_put_", self, indices, values,
                                                  accumulate)) is not NotImplemented:
        return r
    key = _parse(self._data.shape, tuple(slice(None) if i is None else i for i in indices))
    return _put(self, key, values if isinstance(values, (Tensor,) + _SCALARS) else to_tensor(values),
                acc=bool(accumulate), idx=indices)


# ------------------------------------------------------------------------------------------------
# index_select / index_add / index_fill / index_copy
# ------------------------------------------------------------------------------------------------
def _vec_index(input, dim, index, what, check_range=True):
    """``dim`` wrapped and ``index`` as a 1-D integer array, checked in PyTorch's order: TypeError for a
    non-int dim, IndexError for a bad dim or a non-vector index, RuntimeError for a non-integer index
    (index_select/index_add take int32/int64 only); with ``check_range``, IndexError out of range."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{what}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    dim = _wrap_dim(dim, input._data.ndim)
    if idx.ndim > 1:
        raise IndexError(f"{what}(): Index is supposed to be a vector" + (
            f", but got dim: {idx.ndim} with type: {_aten(idx.dtype)} and size: {list(idx.shape)}"
            if what == "index_add" else ""))
    if idx.dtype.kind not in "iu" or (not check_range and idx.dtype not in (np.int32, np.int64)):
        if what == "index_add":
            raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {_aten(idx.dtype)}")
        raise RuntimeError(f"{what}(): Expected dtype int32 or int64 for index")
    if check_range and _out_of_range(idx, input._data.shape[dim] if input._data.ndim else 1) is not None:
        raise IndexError("index out of range in self")
    return dim, idx.reshape(-1)


def _out_of_range(idx, n):
    """The first element of ``idx`` outside ``[0, n)``, or None."""
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        return int(idx.reshape(-1)[(idx.reshape(-1) < 0) | (idx.reshape(-1) >= n)][0])
    return None


def _select_range(a, dim, idx):
    """index_select's range errors, each of PyTorch's CPU kernels' own type: a 0-d input takes one index;
    an empty input's own check; the dim-1 kernel's RuntimeError; IndexError otherwise."""
    if a.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    n = a.shape[dim] if a.ndim else 1
    bad = _out_of_range(idx, n)
    if bad is None:
        return
    if a.ndim >= 2 and a.size == 0 and n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if a.ndim >= 2 and (a.size == 0 or dim == 1):
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
    raise IndexError("index out of range in self")


class IndexSelectBackward0(Op):
    def forward(self, a, dim, idx):
        self.shape, self.dim, self.idx = a.shape, dim, idx
        if a.ndim == 0:
            return a.copy()
        return np.take(a, idx, axis=dim)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: w.copy() if not self.shape else np.take(w, self.idx, axis=self.dim))
        if not self.shape:
            return g.copy()
        return _add_rows_along(self.shape, self.dim, self.idx, g)


def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    """Entries of ``input`` at positions ``index`` (1-D int) along ``dim`` (``torch.index_select``).

    IndexError for a non-vector or out-of-range index; RuntimeError for a non-integer index.
    """
    if _State.vmap and (r := _function.vmap_index("index_select", input, dim, index)) is not NotImplemented:
        return _out(r, out)
    dim, idx = _vec_index(input, dim, index, "index_select", check_range=False)
    check_select_out(out, input, index, "index_select")
    _select_range(input._data, dim, idx)
    return _out(save_indices(IndexSelectBackward0.apply(input, dim=dim, idx=idx), index), out)


def _check_source(input, dim, idx, source, what):
    """index_add's (dtype, count, shape: PyTorch's order) or index_copy's (shape, count, dtype) checks."""
    a, s = input._data, source._data
    if what == "index_add_":
        if s.dtype != a.dtype:
            raise RuntimeError(f"index_add_(): self ({input.dtype._aten_name}) and source "
                               f"({source.dtype._aten_name}) must have the same scalar type")
        if s.ndim and dim >= s.ndim:
            raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                               f"{s.ndim}")
        _check_count(s, dim, idx, what)
    if (a.ndim or what == "index_add_") and (s.ndim != a.ndim or any(
            s.shape[d] != a.shape[d] for d in range(a.ndim) if d != dim)):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(a.shape)} source.shape = {list(s.shape)}")
    _check_count(s, dim, idx, what)
    if s.dtype != a.dtype:  # PyTorch casts nothing here
        sn, an = input.dtype._aten_name, source.dtype._aten_name
        if what == "index_add_":
            raise RuntimeError(f"index_add_(): self ({sn}) and source ({an}) must have the same scalar type")
        raise RuntimeError(f"{what}(): self and source expected to have the same dtype, but got (self) {sn} and "
                           f"(source) {an}")
    return source


def _check_count(s, dim, idx, what):
    if (s.shape[dim] if s.ndim else 1) != len(idx):
        raise RuntimeError(f"{what}(): Number of indices ({len(idx)}) should be equal to source.size(dim): "
                           f"({s.shape[dim] if s.ndim else 1}), for dim: {dim}")


class IndexAddBackward0(Op):
    def forward(self, a, src, dim, idx, alpha):
        self.dim, self.idx, self.alpha, self.sshape, self.ashape = dim, idx, alpha, src.shape, a.shape
        if not (a.size and src.size):  # nothing to add (and the index is not range-checked)
            return a.copy()
        shape = a.shape or (1,)
        rows = _add_rows_along(shape, dim, idx, src.reshape(src.shape or (1,)))
        return (a + (rows if alpha == 1 else rows * alpha).reshape(a.shape)).astype(a.dtype, copy=False)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        gs = None
        if self._edges[1] is not None:
            gs = np.take(g.reshape(g.shape or (1,)), self.idx, axis=self.dim).reshape(self.sshape)
            if self.alpha != 1:
                gs = gs * self.alpha
        return g, gs

    def _adjoint(self, wa, ws):
        dt = (wa if wa is not None else ws).dtype
        wa = np.zeros(self.ashape, dt) if wa is None else wa
        return self.forward(wa, np.zeros(self.sshape, dt) if ws is None else ws, self.dim, self.idx, self.alpha)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """``out = input.clone(); out[..., index[i], ...] += alpha * source[..., i, ...]`` (``torch.index_add``).

    Repeated indices accumulate. RuntimeError when ``source`` does not match ``input`` outside
    ``dim`` or its size along ``dim`` differs from ``len(index)``.
    """
    if _State.vmap and (r := _function.vmap_index("index_add", input, dim, index, source,
                                                  alpha=alpha)) is not NotImplemented:
        return r
    dim, idx = _vec_index(input, dim, index, "index_add", check_range=False)
    source = _check_source(input, dim, idx, source, "index_add_")
    a, n = input._data, input._data.shape[dim] if input._data.ndim else 1
    # PyTorch's kernels for 0-d/1-d inputs, a middle dim or int32 indices raise IndexError, the others
    # RuntimeError and only when something is written
    bad = _out_of_range(idx, n) if a.ndim < 2 or a.size and source._data.size else None
    if bad is not None:
        if a.ndim < 2 or 0 < dim < a.ndim - 1 or idx.dtype == np.int32:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {n}")
    if a.dtype.kind != "b":  # c10's conversion into input's dtype: uint8 wraps -1 to 255, 300 raises
        alpha = checked_scalar(alpha, a.dtype)
    return save_indices(IndexAddBackward0.apply(input, source, dim=dim, idx=idx, alpha=alpha), index)


class IndexCopyBackward0(Op):
    """index_copy (``src`` an array) and index_fill (``src`` a scalar or 0-d array)."""

    def forward(self, a, src, dim, idx, fill=False):
        self.dim, self.idx, self.fill, self.sshape, self.ashape = dim, idx, fill, np.shape(src), a.shape
        out = np.array(a)  # a copy that is an ndarray even for a NumPy scalar (a 0-d gradient), so the view below writes
        sel = (slice(None),) * dim + (idx,)
        out.reshape(out.shape or (1,))[sel] = src if fill else src.reshape(src.shape or (1,))
        return out

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        sel = (slice(None),) * self.dim + (self.idx,)
        g1 = g.reshape(g.shape or (1,))
        gs = None
        if self._edges[1] is not None:
            if self.fill:
                gs = np.asarray(g1[(slice(None),) * self.dim + (np.unique(self.idx),)].sum(), g.dtype)
            else:
                gs = g1[sel].reshape(self.sshape)
        ga = np.array(g)
        ga.reshape(ga.shape or (1,))[sel] = 0
        return ga, gs

    def _adjoint(self, wa, ws):
        dt = (wa if wa is not None else ws).dtype
        wa = np.zeros(self.ashape, dt) if wa is None else wa
        return self.forward(wa, np.zeros(self.sshape, dt) if ws is None else ws, self.dim, self.idx, self.fill)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``out[..., index[i], ...] = source[..., i, ...]`` on a copy of input (``torch.index_copy``)."""
    if _State.vmap and (r := _function.vmap_index("index_copy", input, dim, index, source)) is not NotImplemented:
        return r
    dim, idx = _vec_index(input, dim, index, "index_copy")
    source = _check_source(input, dim, idx, source, "index_copy_")
    return save_indices(IndexCopyBackward0.apply(input, source, dim=dim, idx=idx), index)


def _fill_value(value, input, fname):
    """A fill value: a number, or a 0-d tensor cast to ``input``'s dtype; RuntimeError for other tensors
    and for values ``input``'s dtype can't hold (a complex into a real tensor, 300 into uint8)."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"{fname} only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        if value._data.dtype != input._data.dtype:
            checked_scalar(value.item(), input._data.dtype)
            value = cast(value, input.dtype)
    else:
        dt = input._data.dtype
        checked_scalar(value, dt)
        if isinstance(value, complex) and dt.kind != "c" or dt.kind == "u" and value < 0:  # what NumPy refuses
            value = np.asarray(value.real if isinstance(value, complex) else value).astype(dt)[()]
    return value


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``out[..., index, ...] = value`` on a copy (``torch.index_fill``); value a number or 0-d tensor."""
    if _State.vmap and (r := _function.vmap_index("index_fill", input, dim, index, value)) is not NotImplemented:
        return r
    dim, idx = _vec_index(input, dim, index, "index_fill")
    value = _fill_value(value, input, "index_fill_")
    return save_indices(IndexCopyBackward0.apply(input, value, dim=dim, idx=idx, fill=True), index)


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


class MaskedFillBackward0(Op):
    def forward(self, a, v, mask):
        self.mask, self.shape, self.vshape = mask, a.shape, np.shape(v)
        _bcast(a.shape, mask.shape)
        return np.where(mask, np.asarray(v, a.dtype), a)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        ga = unbroadcast(np.where(self.mask, 0, g), self.shape) if self._edges[0] is not None else None
        gv = None
        if len(self._edges) > 1 and self._edges[1] is not None:
            gv = np.asarray(np.where(self.mask, g, 0).sum(), g.dtype)
        return ga, gv

    def _adjoint(self, wa, wv):
        dt = (wa if wa is not None else wv).dtype
        wa = np.zeros(self.shape, dt) if wa is None else wa
        return np.where(self.mask, np.zeros((), dt) if wv is None else wv, wa)


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``value`` where the bool ``mask`` (broadcast) is True, else ``input`` (``torch.masked_fill``).

    ``value`` is a number or a 0-d tensor (differentiable). RuntimeError for a non-bool mask or a
    value tensor with dimensions. The input's gradient is zero at masked positions.
    """
    if _State.vmap and (r := _function.vmap_index("masked_fill", input, mask, value)) is not NotImplemented:
        return r
    m = _mask_arr(mask, "masked_fill_")
    value = _fill_value(value, input, "masked_fill_")
    return save_indices(MaskedFillBackward0.apply(input, value, mask=m), mask)  # backward reads the mask


class MaskedSelectBackward0(Op):
    def forward(self, a, mask):
        self.shape = a.shape
        self.bshape = _bcast(a.shape, mask.shape)
        self.mask = np.broadcast_to(mask, self.bshape)
        return np.broadcast_to(a, self.bshape)[self.mask]

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: np.broadcast_to(w, self.bshape)[self.mask])
        gx = np.zeros(self.bshape, g.dtype)
        gx[self.mask] = g
        return unbroadcast(gx, self.shape)


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """1-D tensor of the ``input`` entries where the bool ``mask`` (broadcast together) is True."""
    if _State.vmap and (r := _function.vmap_index("masked_select", input, mask)) is not NotImplemented:
        return _out(r, out)
    m = _mask_arr(mask, "masked_select")
    check_select_out(out, input, mask, "masked_select")
    return _out(save_indices(MaskedSelectBackward0.apply(input, mask=m), mask), out)



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
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        gs = np.zeros(int(np.prod(self.sshape)), g.dtype)
        gs[:self.count] = g[self.mask]
        return unbroadcast(np.where(self.mask, 0, g), self.shape), gs.reshape(self.sshape)

    def _adjoint(self, wa, ws):
        dt = (wa if wa is not None else ws).dtype
        wa = np.zeros(self.shape, dt) if wa is None else wa
        return self.forward(wa, np.zeros(self.sshape, dt) if ws is None else ws, self.mask)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Copy ``source``'s leading elements, in order, into the True places of ``mask``."""
    m = _mask_arr(mask, "masked_scatter_")
    if source._data.dtype != input._data.dtype:
        source = cast(source, input.dtype)
    return save_indices(MaskedScatterBackward0.apply(input, source, mask=m), mask)


# ------------------------------------------------------------------------------------------------
# in-place forms (recorded through _inplace.inplace)
# ------------------------------------------------------------------------------------------------
masked_fill_ = inplace_fn(masked_fill, "masked_fill_")
masked_scatter_ = inplace_fn(masked_scatter, "masked_scatter_")
index_add_ = inplace_fn(index_add, "index_add_")
index_fill_ = inplace_fn(index_fill, "index_fill_")
index_copy_ = inplace_fn(index_copy, "index_copy_")


# ------------------------------------------------------------------------------------------------
# index_reduce (unravel_index: coordinates.py)
# ------------------------------------------------------------------------------------------------
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self=True) -> Tensor:
    """Reduce the slices ``source[..., i, ...]`` into ``input[..., index[i], ...]`` with "prod", "mean",
    "amax" or "amin" (``torch.index_reduce``); with ``include_self=False`` the input's values at indexed
    positions are left out. ``scatter_reduce`` with ``index`` spread over ``source``'s shape, so its
    gradients are scatter_reduce's (ties of amax/amin share evenly, as PyTorch)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim, idx = _vec_index(input, dim, index, "index_reduce", check_range=False)
    source = _check_source(input, dim, idx, source, "index_reduce_")
    bad = _out_of_range(idx, input._data.shape[dim] if input._data.ndim else 1)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size "
                         f"{input._data.shape[dim] if input._data.ndim else 1}")
    if source._data.ndim == 0:
        return scatter_reduce(input, 0, index.reshape(-1)[:1].reshape(()), source, reduce, include_self=include_self)
    spread = [1] * source._data.ndim
    spread[dim] = -1
    full = to_tensor(np.broadcast_to(idx.astype(np.int64).reshape(spread), source._data.shape).copy())
    return scatter_reduce(input, dim, full, source, reduce, include_self=include_self)
