"""Batching rules for indexing, gather and scatter under vmap (functorch's BatchRulesScatterOps).

These public functions read their index tensors' VALUES before any Op runs (parsing ``x[i]``, bounds
checks, mask positions), which a batched tensor's ``_data`` stand-in cannot give. So each of them
starts with ``if _State.vmap:`` and hands its call to ``vmap_index`` (the hook
``autograd.function.vmap_index``); when a batched tensor is among the arguments, the rule here runs the
whole batch as ONE call of the plain function (or Op) on the physical tensors, with every value check
made there, on every sample's values, in PyTorch's words. Otherwise it returns NotImplemented and the
public function goes on as without vmap.

* ``x[i]`` with a batched ``i`` (or a batched ``x``): the batch dims become advanced indices of their
  own (``arange(B)`` broadcast against the index arrays), so one NumPy advanced index gathers every
  sample; the result is permuted when NumPy's placement rule for advanced dims differs between the
  logical key and the physical one (logical adjacent advanced dims not at the front).
* ``x[i] = v``, ``index_put``, ``index_add/copy/fill`` with a batched index: the same physical key, in
  ``IndexPutBackward0`` (accumulating for index_add).
* gather, scatter, scatter_add, scatter_reduce, take_along_dim, index_select with an unbatched index:
  every tensor aligned to the batch (expanded), the dim shifted past the batch dims (PyTorch's rules do
  the same, so their error messages name the physical dims, as PyTorch's do).
* masked_fill with a batched mask, masked_select with an unbatched mask, embedding with a batched weight.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .._tensor import Tensor, _make, _wrap_dim
from .._ops import embedding as _emb
from .._ops import indexing as _ix
from .._ops import scatter as _sc
from .._ops.pointwise import where
from ..autograd import function as _function
from ..autograd.grad_mode import _State
from ._batched import BatchedTensor, align, batch_shape, levels_of, wrap

__all__ = ["vmap_index"]

_DYNAMIC_MASK = ("vmap: We do not support batching operators that can support dynamic shape. Attempting to batch "
                 "over indexing with a boolean mask.")
_MASKED_SELECT = ("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support this "
                  "because for each batch this would return a differently shaped Tensor. Please file an issue at "
                  "https://github.com/pytorch/pytorch/issues if you need this feature.")


def _inplace_error(name):
    return (f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args "
            f"that has more elements than `self`. This happened due to `other` being vmapped over but `self` not "
            f"being vmapped over in a vmap. Please try to use out-of-place operators instead of {name}. If said "
            f"operator is being called inside the PyTorch framework, please file a bug report instead.")


def vmap_index(name, *args, **kwargs):
    """The hook: rule ``name`` on the physical tensors when an argument is batched, else NotImplemented."""
    levels = levels_of(args + tuple(kwargs.values()))
    if not levels:
        return NotImplemented
    depth = _State.vmap
    _State.vmap = 0  # the rules run plain ops on physical tensors
    try:
        return _RULES[name](levels, depth, *args, **kwargs)
    finally:
        _State.vmap = depth


def _is_b(t):
    return type(t) is BatchedTensor


def _vmapped(depth, fn, *args, **kwargs):
    """``fn`` run with vmap switched back on (for the in-place machinery)."""
    _State.vmap = depth
    try:
        return fn(*args, **kwargs)
    finally:
        _State.vmap = 0


# ------------------------------------------------------------------------------------------------
# advanced indexing: x[idx], x[idx] = v, index_put
# ------------------------------------------------------------------------------------------------
class _PhysKey:
    """A logical index ``idx`` of a tensor of logical shape ``shape`` made into an ``indexing._Key`` on the
    physical tensor (batch dims ``levels`` in front, expanded): ``key`` is None when the index is basic."""

    def __init__(self, shape, idx, levels):
        items = idx if type(idx) is tuple else (idx,)
        subs, batched = [], {}
        for it in items:
            if _is_b(it):
                if it._data.dtype == np.bool_ or it._data.dtype == np.uint8:
                    raise RuntimeError(_DYNAMIC_MASK)
                ph = np.zeros((1,) * max(it._data.ndim, 1), it._data.dtype)  # parsed as an index array
                batched[id(ph)] = it
                subs.append(ph)
            else:
                subs.append(it)
        lk = _ix._parse(shape, tuple(subs) if type(idx) is tuple or batched else idx)
        self.logical, self.key = lk, None
        if not lk.dims:
            return
        n = len(levels)
        arrs = [batched.get(id(a), a) for a in lk.arrs]
        rank = max(a._data.ndim if _is_b(a) else a.ndim for a in arrs)
        bshape = batch_shape(levels)
        phys = [np.arange(s).reshape((1,) * k + (s,) + (1,) * (n - k - 1 + rank)) for k, s in enumerate(bshape)]
        any_b = bool(batched)
        phys += [align(a, levels, rank, expand=False)._data if _is_b(a) else a for a in arrs]
        key = _ix._Key()
        key.basic = (slice(None),) * n + lk.basic
        key.plain = lk.plain
        key.dims = list(range(n)) + [n + d for d in lk.dims]
        key.arrs = phys
        key.odims = list(range(n)) + [od + n if any_b else od for od in lk.odims]
        key.name = "IndexBackward0"
        self.key, self.n, self.rank = key, n, rank
        # NumPy puts the advanced dims first unless they are adjacent: physically the batch aranges make
        # them non-adjacent, so logical adjacent advanced dims at d0 > 0 must be moved back to d0
        d0 = lk.dims[0]
        adjacent = lk.dims == list(range(d0, d0 + len(lk.dims)))
        self.move = d0 if adjacent and d0 > 0 else 0

    def perm(self, ndim):
        """The permutation from NumPy's physical result layout to the logical one (None: identity)."""
        if not self.move:
            return None
        n, r, m = self.n, self.rank, self.move
        logical = list(range(n + r, n + r + m)) + list(range(n, n + r))
        return list(range(n)) + logical + list(range(n + r + m, ndim))


def _getitem(levels, depth, self, idx):
    pk = _PhysKey(self._data.shape, idx, levels)
    if pk.key is None:  # basic indexing of a batched tensor: its own rule
        lk = pk.logical
        return _vmapped(depth, _ix._BasicIndex.apply, self, key=lk.basic, name=lk.name)
    out = _ix.IndexBackward0.apply(align(self, levels), key=pk.key)
    p = pk.perm(out.ndim)
    return wrap(out if p is None else out.permute(p), levels)


def _index_put_phys(levels, self, idx, value, acc):
    """Out of place ``self[idx] = value`` (``+=`` with ``acc``) for the whole batch; a batched result."""
    pk = _PhysKey(self._data.shape, idx, levels)
    key, lk, n = pk.key, pk.logical, len(levels)
    view = np.broadcast_to(np.zeros((), np.int8), self._data.shape)[lk.basic]  # shape only
    if key is None:  # basic key: the physical key gets a full slice per batch dim
        key = _ix._Key()
        key.basic, key.plain, key.dims, key.arrs, key.odims = (slice(None),) * n + lk.basic, False, [], [], []
        rank = view.ndim
    else:
        rank = pk.rank + view.ndim - len(lk.dims)  # the logical result's rank
    if isinstance(value, Tensor):
        fits = value._data.ndim <= rank
        pv = align(value, levels, rank if fits else None, expand=False)
        if pv._data.dtype != self._data.dtype:
            pv = pv.to(self.dtype)
        p = pk.perm(pv.ndim) if pk.key is not None and fits else None
        if p is not None:  # into NumPy's physical layout: the inverse permutation
            inv = [0] * len(p)
            for i, j in enumerate(p):
                inv[j] = i
            pv = pv.permute(inv)
        value = pv
    out = _ix.IndexPutBackward0.apply(align(self, levels), value, key=key, acc=bool(acc))
    return wrap(out, levels)


def _setitem(levels, depth, self, idx, value, acc=False, name="index_put_"):
    value = _ix._value_for(self, value)
    own = self._levels if _is_b(self) else ()
    if any(lid not in own for lid in levels):
        raise RuntimeError(_inplace_error(name))
    return _vmapped(depth, _ix.inplace, self, _index_put_b, idx, value, acc)


def _index_put_b(s, idx, v, acc):
    levels = levels_of((s, v) + (idx if type(idx) is tuple else (idx,)))
    depth = _State.vmap
    _State.vmap = 0
    try:
        return _index_put_phys(levels, s, idx, v, acc)
    finally:
        _State.vmap = depth


def _index_put(levels, depth, input, indices, values, accumulate=False):
    idx = tuple(slice(None) if i is None else i for i in indices)
    if not isinstance(values, (Tensor,) + _ix._SCALARS):
        values = _ix.to_tensor(values)
    return _index_put_phys(levels, input, idx, values, accumulate)


def _index_put_(levels, depth, self, indices, values, accumulate=False):
    idx = tuple(slice(None) if i is None else i for i in indices)
    if not isinstance(values, (Tensor,) + _ix._SCALARS):
        values = _ix.to_tensor(values)
    return _setitem(levels, depth, self, idx, values, accumulate)


# ------------------------------------------------------------------------------------------------
# gather / scatter / take_along_dim / index_select
# ------------------------------------------------------------------------------------------------
def _dim0(levels, *ts):
    """The tensors aligned (expanded) to ``levels``; a 0-d logical tensor gets one trailing dim (as
    PyTorch's rules unsqueeze it)."""
    out = []
    for t in ts:
        if not isinstance(t, Tensor):
            out.append(t)
            continue
        p = align(t, levels)
        out.append(p.unsqueeze(-1) if t._data.ndim == 0 else p)
    return out


def _gather(levels, depth, input, dim, index, *, sparse_grad=False, out=None):
    n, nd = len(levels), input._data.ndim
    d = _wrap_dim(dim, nd) if nd else 0
    pin, pidx = _dim0(levels, input, index)
    r = _sc.gather(pin, d + n, pidx)
    return wrap(r.squeeze(-1) if index._data.ndim == 0 else r, levels)


def _scatter_like(fn):
    def rule(levels, depth, input, dim, index, *args, **kwargs):
        n, nd = len(levels), input._data.ndim
        d = _wrap_dim(dim, nd) if nd else 0
        args = list(args)
        pin, pidx = _dim0(levels, input, index)
        if args and isinstance(args[0], Tensor):
            args[0] = _dim0(levels, args[0])[0]
        if isinstance(kwargs.get("src"), Tensor):
            kwargs["src"] = _dim0(levels, kwargs["src"])[0]
        r = fn(pin, d + n, pidx, *args, **kwargs)
        return wrap(r.squeeze(-1) if nd == 0 else r, levels)
    return rule


def _take_along_dim(levels, depth, input, indices, dim=None, *, out=None):
    n = len(levels)
    pin, pidx = align(input, levels), align(indices, levels)
    if dim is None:
        shape = batch_shape(levels)
        pin, pidx = pin.reshape(shape + (-1,)), pidx.reshape(shape + (-1,))
        return wrap(_sc.take_along_dim(pin, pidx, n), levels)
    nd = input._data.ndim
    if indices._data.ndim != nd:  # the logical ranks in PyTorch's message
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {nd} dimensions for input, and {indices._data.ndim} dimensions for indices")
    return wrap(_sc.take_along_dim(pin, pidx, _wrap_dim(dim, nd) + n), levels)


def _take(levels, depth, input, index):
    """``take``: an advanced index of each sample's flattened data."""
    _sc._index_arr(index, "take")
    n = input._data.size
    vals = align(index, levels)._data if _is_b(index) else index._data
    bad = vals[(vals >= n) | (vals < -n)] if vals.size else vals
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {n} elements.")
    flat = wrap(align(input, levels).reshape(batch_shape(levels) + (-1,)), levels)
    return _getitem(levels, depth, flat, index)


def _index_select(levels, depth, input, dim, index, *, out=None):
    d, _ = _ix._vec_index(input, dim, index, "index_select", check_range=False)
    n = len(levels)
    if not _is_b(index):
        nd = input._data.ndim
        pin = align(input, levels)
        if nd == 0:
            return wrap(_ix.index_select(pin.unsqueeze(-1), n, index).squeeze(-1), levels)
        return wrap(_ix.index_select(pin, d + n, index), levels)
    try:
        return _getitem(levels, depth, input, (slice(None),) * d + (index,))
    except IndexError as e:  # PyTorch's index_select reports a bad index as RuntimeError
        raise RuntimeError(str(e)) from None


def _index_add_like(what):
    """index_add / index_copy / index_fill: an index_put (accumulating for index_add) of ``source`` at
    ``index`` along ``dim``, with the batch aranges; the bounds checked on every sample's indices."""
    def rule(levels, depth, input, dim, index, source, **kw):
        if input._data.ndim == 0:
            return NotImplemented  # a 0-d input: the plain path (the loop fallback)
        n = len(levels)
        d, _ = _ix._vec_index(input, dim, index, what, check_range=False)
        if what == "index_fill" and _is_b(source):  # a per-sample 0-d value: checked, cast physically
            _ix._fill_value(_make(np.empty(source._data.shape, input._data.dtype)), input, "index_fill_")
            if source._data.dtype != input._data.dtype:
                source = wrap(source._phys.to(input.dtype), source._levels)
        elif what == "index_fill":
            source = _ix._fill_value(source, input, "index_fill_")
        else:
            source = _ix._check_source(input, d, np.zeros(index._data.shape[:1] or (1,), np.int64), source,
                                       what + "_")
        size = input._data.shape[d]
        vals = align(index, levels)._data if _is_b(index) else np.asarray(index._data)
        if vals.size and (vals.min() < 0 or vals.max() >= size):
            bad = int(vals.reshape(-1)[(vals.reshape(-1) < 0) | (vals.reshape(-1) >= size)][0])
            exc = IndexError if what == "index_fill" else RuntimeError
            pd = d + n if _is_b(index) and what != "index_add" else d  # PyTorch's index_add names the logical dim
            raise exc(f"index {bad} is out of bounds for dimension {pd} with size {size}")
        if what == "index_add" and kw.get("alpha", 1) != 1:
            source = _vmapped(depth, operator.mul, source, kw["alpha"])
        return _index_put_phys(levels, input, (slice(None),) * d + (index,), source, what == "index_add")
    return rule


# ------------------------------------------------------------------------------------------------
# masks, embedding
# ------------------------------------------------------------------------------------------------
def _masked_fill(levels, depth, input, mask, value):
    m = _ix._mask_arr(mask, "masked_fill_")
    rank = max(input._data.ndim, m.ndim)
    pin = align(input, levels, rank)
    pm = align(mask, levels, rank, expand=False)._data if _is_b(mask) else m
    if _is_b(value):  # a per-sample 0-d value: broadcast against each sample's data
        _ix._fill_value(_make(np.empty(value._data.shape, input._data.dtype)), input, "masked_fill_")  # its checks
        pv = align(value, levels, rank, expand=False)
        return wrap(_where(pm, pv if pv.dtype == pin.dtype else pv.to(pin.dtype), pin), levels)
    value = _ix._fill_value(value, input, "masked_fill_")
    return wrap(_ix.MaskedFillBackward0.apply(pin, value, mask=pm), levels)


def _where(m, v, a):
    return where(_make(np.ascontiguousarray(np.broadcast_to(m, np.broadcast_shapes(m.shape, a._data.shape)))), v, a)


def _masked_select(levels, depth, input, mask, *, out=None):
    if _is_b(mask):
        raise RuntimeError(_MASKED_SELECT)
    m = _ix._mask_arr(mask, "masked_select")
    bshape = _sc._bcast(input._data.shape, m.shape)
    pin = align(input, levels, len(bshape))
    pin = pin.expand(batch_shape(levels) + bshape)
    n = len(levels)
    key = _ix._parse(pin._data.shape, (slice(None),) * n + (np.broadcast_to(m, bshape),))
    return wrap(_ix.IndexBackward0.apply(pin, key=key), levels)


def _embedding(levels, depth, weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    """``embedding``: a shared weight runs the plain function on the physical indices (its checks read
    every sample's); a batched weight is flattened to (batch * V, D) and gathered at indices offset by
    ``b * V``, one gather for all (each sample's padding row gets no gradient)."""
    if not _is_b(weight):
        return wrap(_emb.embedding(weight, align(indices, levels), padding_idx, scale_grad_by_freq), levels)
    shape, n = batch_shape(levels), len(levels)
    nb = math.prod(shape)
    pw = align(weight, levels)
    v = pw.shape[n]
    if _is_b(indices):
        pi = align(indices, levels)._data
    else:
        pi = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
        pi = np.broadcast_to(pi, shape + pi.shape)
    if pi.size and (pi.min() < 0 or pi.max() >= v):
        raise IndexError("index out of range in self")
    flat = pi.reshape((nb, -1)).astype(np.int64) + (np.arange(nb) * v)[:, None]
    out = _emb.EmbeddingBackward0.apply(pw.reshape((nb * v,) + pw.shape[n + 1:]), indices=flat.reshape(-1),
                                        padding_idx=None, scale_grad_by_freq=bool(scale_grad_by_freq))
    if padding_idx is not None and padding_idx >= 0:  # no gradient to the padding rows, same values
        keep = _make(np.asarray(pi.reshape(-1) != padding_idx, out._data.dtype)[:, None])
        out = out * keep + out.detach() * (1 - keep)
    lshape = indices._data.shape if isinstance(indices, Tensor) else np.shape(indices)
    return wrap(out.reshape(shape + tuple(lshape) + pw.shape[n + 1:]), levels)


_RULES = {
    "getitem": _getitem,
    "setitem": lambda levels, depth, self, idx, value: _setitem(levels, depth, self, idx, value),
    "index_put": _index_put,
    "index_put_": _index_put_,
    "gather": _gather,
    "scatter": _scatter_like(_sc.scatter),
    "scatter_add": _scatter_like(_sc.scatter_add),
    "scatter_reduce": _scatter_like(_sc.scatter_reduce),
    "take_along_dim": _take_along_dim,
    "take": _take,
    "index_select": _index_select,
    "index_add": _index_add_like("index_add"),
    "index_copy": _index_add_like("index_copy"),
    "index_fill": _index_add_like("index_fill"),
    "masked_fill": _masked_fill,
    "masked_select": _masked_select,
    "embedding": _embedding,
}

_function.vmap_index = vmap_index
