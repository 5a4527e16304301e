"""Sorting and value-based selection: sort, argsort, topk, kthvalue, unique, bincount, searchsorted,
bucketize, nonzero and one_hot.

NaN sorts as the largest value, as in PyTorch; where PyTorch's answer depends on how its CPU
algorithms order equal values (``sort(stable=False)``, ``topk``, ``kthvalue``), ``_cpu_order.py``
replays those algorithms, so indices match PyTorch's. The ops
returning ``(values, indices)`` give named tuples like ``torch.return_types.sort``.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .._tensor import Tensor, _make, _no_values, _wrap_dim
from ..autograd import function as _function
from ..autograd.function import Op, linear_backward
from ..autograd.grad_mode import _State
from ._cpu_order import kthvalue_order, sort_order, topk_order
from ._out import _out, check_out_overlap

__all__ = """nonzero argwhere topk sort argsort msort kthvalue unique unique_consecutive bincount searchsorted
bucketize isin""".split()


def _result_type(name):
    """A ``torch.return_types.NAME``-like named tuple ``(values, indices)``."""
    cls = namedtuple(name, ["values", "indices"])
    cls.__qualname__ = f"_{name}_result"
    cls.__repr__ = lambda self: f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"
    return cls


_topk_result, _sort_result, _kthvalue_result = _result_type("topk"), _result_type("sort"), _result_type("kthvalue")


# ------------------------------------------------------------------------------------------------
# nonzero
# ------------------------------------------------------------------------------------------------
def nonzero(input: Tensor, *, out=None, as_tuple=False):
    """Indices of non-zero entries: int64 ``(n, ndim)``, or a tuple of ndim 1-D tensors."""
    a = input._data
    if as_tuple:
        return tuple(_make(i.astype(np.int64, copy=False)) for i in np.nonzero(np.atleast_1d(a)))
    return _out(_make(np.argwhere(a).astype(np.int64, copy=False)), out)


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
    _vmap = ("along", "dim")  # batching rule kind (func/_batching_rules_nn.py)

    _nondiff_outputs = (1,)

    def _pick(self, a, dim, order, keepdim=True):
        a1 = a.reshape(a.shape or (1,))
        self.shape, self.dim, self.idx = a.shape, dim, order
        vals = np.take_along_axis(a1, order, axis=dim)
        if not keepdim:
            vals, order = vals.squeeze(dim), order.squeeze(dim)
        if not a.ndim:
            vals, order = vals.reshape(()), order.reshape(())
        self.vshape = vals.shape
        return vals, order.astype(np.int64, copy=False)

    def backward(self, g, gi=None):
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        gx = np.zeros(self.shape or (1,), g.dtype)
        np.put_along_axis(gx, self.idx, g.reshape(self.idx.shape), axis=self.dim)
        return gx.reshape(self.shape)

    def _adjoint(self, w):
        picked = np.take_along_axis(w.reshape(self.shape or (1,)), self.idx, axis=self.dim)
        return picked.reshape(self.vshape)


class SortBackward0(_PickAlong):
    def forward(self, a, dim, descending, stable):
        a1 = a.reshape(a.shape or (1,))
        order = _argsort(a1, dim, descending)
        return self._pick(a, dim, order if stable else sort_order(a1, dim, order, descending))


class TopkBackward0(_PickAlong):
    def forward(self, a, k, dim, largest, sorted):
        a1 = a.reshape(a.shape or (1,))
        order = np.take(_argsort(a1, dim, largest), np.arange(k), axis=dim)
        return self._pick(a, dim, topk_order(a1, dim, order, k, largest, sorted))


class KthvalueBackward0(_PickAlong):
    def forward(self, a, k, dim, keepdim):
        a1 = a.reshape(a.shape or (1,))
        order = np.take(_argsort(a1, dim, False), [k - 1], axis=dim)
        return self._pick(a, dim, kthvalue_order(a1, dim, order, k), keepdim)


def sort(input: Tensor, dim=-1, descending=False, stable=False, *, out=None):
    """``(values, indices)`` sorted along ``dim`` (``torch.sort``); NaN sorts as the largest value.

    ``stable=True`` keeps ties in index order. ``stable=False`` gives PyTorch's CPU order of ties
    (``std::sort``'s; PyTorch documents it as unspecified), replayed for rows with ties while at most
    ``2**14`` elements need it; past that, ties keep index order."""
    dim = _wrap_dim(dim, input._data.ndim) if input._data.ndim else 0
    return _sort_result(*SortBackward0.apply(input, dim=dim, descending=bool(descending), stable=bool(stable)))


def argsort(input: Tensor, dim=-1, descending=False, stable=False) -> Tensor:
    """Indices (int64) that sort ``input`` along ``dim`` (``torch.argsort``); ties as ``sort``."""
    return sort(input, dim, descending, stable).indices


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values`` (``torch.msort``)."""
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) entries along ``dim`` as ``(values, indices)`` (``torch.topk``);
    NaN counts as the largest value.

    Indices of tied values, and the arrangement when ``sorted=False``, are PyTorch's on CPU (its
    ``std::partial_sort``/``std::nth_element``, replayed while at most ``2**14`` elements need it;
    past that, sorted order with ties in index order). RuntimeError "selected index k out of range"
    unless ``0 <= k <= input.size(dim)``.
    """
    dim = _wrap_dim(dim, input._data.ndim) if input._data.ndim else 0
    n = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    return _topk_result(*TopkBackward0.apply(input, k=int(k), dim=dim, largest=bool(largest), sorted=bool(sorted)))


def kthvalue(input: Tensor, k: int, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest entry (1-based) along ``dim`` and its index (``torch.kthvalue``); among
    equal values, the index PyTorch's CPU quickselect picks."""
    dim = _wrap_dim(dim, input._data.ndim) if input._data.ndim else 0
    n = input._data.shape[dim] if input._data.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    if out is not None:
        _check_values_indices_out(input, out, "kthvalue")
    res = KthvalueBackward0.apply(input, k=int(k), dim=dim, keepdim=bool(keepdim))
    return _kthvalue_result(*res) if out is None else _kthvalue_result(_out(res[0], out[0]), _out(res[1], out[1]))


def _check_values_indices_out(input, out, name):
    """The ``out=(values, indices)`` checks of PyTorch's sorting reductions: values not sharing memory
    with ``input``, values of ``input``'s dtype, int64 indices."""
    values, indices = out
    check_out_overlap(values, input)
    if values.dtype != input.dtype:
        raise RuntimeError("output values must be of same type as input")
    if indices.dtype.name != "int64":
        raise RuntimeError("output indices must be of scalar type Long")


def _unique_result(out, inv, counts, return_inverse, return_counts):
    res = [_make(out)]
    if return_inverse:
        res.append(_make(inv.astype(np.int64, copy=False)))
    if return_counts:
        res.append(_make(counts.astype(np.int64, copy=False)))
    return res[0] if len(res) == 1 else tuple(res)


def _check_empty_dims(shape, dim):
    """PyTorch's refusal of slices along ``dim`` that are empty for another dim being 0 (RuntimeError)."""
    if any(s == 0 for i, s in enumerate(shape) if i != dim):
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")


def unique(input: Tensor, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted unique elements (or slices along ``dim``) of ``input`` (``torch.unique``); not differentiable.

    Returns a tensor, or a tuple with the int64 ``inverse`` (input's shape, or ``(size(dim),)``) and
    ``counts`` when requested.
    """
    a = input._data
    if dim is not None:
        dim = _wrap_dim(dim, a.ndim)
        _check_empty_dims(a.shape, dim)
    out, inv, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    inv = inv.reshape(a.shape if dim is None else (-1,))
    return _unique_result(out, inv, counts, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``) (``torch.unique_consecutive``)."""
    if input.is_meta:
        raise NotImplementedError("aten::unique_consecutive: attempted to run this operator with Meta tensors, but there was no "
                                  "fake impl or Meta kernel registered (the result's shape depends on the values)")
    a = input._data
    if dim is not None:
        dim = _wrap_dim(dim, a.ndim)
        _check_empty_dims(a.shape, dim)
    m = np.moveaxis(a, dim, 0) if dim is not None else a.reshape(-1)
    rows = m.reshape(m.shape[0], math.prod(m.shape[1:]))  # explicit width: -1 is ambiguous for 0 rows
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
    if input.is_meta:
        raise NotImplementedError("aten::bincount: attempted to run this operator with Meta tensors, but there was no "
                                  "fake impl or Meta kernel registered (the result's shape depends on the values)")
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
    if _State.vmap:  # func/_batching_rules.searchsorted searches the physical rows
        r = _function.vmap_dispatch(_SearchSorted, (sorted_sequence, input),
                                    {"out_int32": out_int32, "right": right, "sorter": sorter})
        return _out(r, out)
    seq = sorted_sequence._data
    v = input._data if isinstance(input, Tensor) else np.asarray(input)
    srt = None if sorter is None else (sorter._data if isinstance(sorter, Tensor) else np.asarray(sorter))
    sd = "right" if right else "left"
    dt = np.int32 if out_int32 else np.int64
    if seq.ndim <= 1:
        return _out(_make(np.asarray(np.searchsorted(seq, v, side=sd, sorter=srt), dt)), out)
    if seq.shape[:-1] != v.shape[:-1] or v.ndim != seq.ndim:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}")
    if srt is not None:
        seq = np.take_along_axis(seq, srt, axis=-1)
    # one flat search: rank all values together, then offset each row's ranks past the previous row's
    m, q = seq.shape[-1], v.shape[-1]
    if m == 0 or v.size == 0:  # nothing to search in, or nothing to search for: every point is 0
        return _out(_make(np.zeros(v.shape, dt)), out)
    s2, v2 = seq.reshape(-1, m), v.reshape(-1, q)
    _, ranks = np.unique(np.concatenate([s2.ravel(), v2.ravel()]), return_inverse=True)
    ranks = ranks.reshape(-1)
    span = (ranks.max() + 2 if ranks.size else 1) * np.arange(s2.shape[0])[:, None]
    ks = (ranks[:s2.size].reshape(s2.shape) + span).ravel()
    kv = ranks[s2.size:].reshape(v2.shape) + span
    pos = np.searchsorted(ks, kv, side=sd) - m * np.arange(s2.shape[0])[:, None]
    return _out(_make(pos.reshape(v.shape).astype(dt)), out)


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
    >= num_classes, or an empty input with ``num_classes <= 0``.
    """
    a = tensor._data
    if a.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if _State.vmap:  # the elementwise batching rule encodes the physical indices (values still checked)
        if num_classes <= 0:
            raise RuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an explicit positive "
                               "num_classes argument.")
        return _function.vmap_dispatch(_OneHot, (tensor,), {"num_classes": num_classes})
    if a.size == 0 and num_classes <= 0:  # PyTorch's message for any non-positive count of no values
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        _no_values(tensor)  # the class count is a value
        num_classes = int(a.max()) + 1
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _make((a[..., None] == np.arange(num_classes)).astype(np.int64))


class _SearchSorted:
    """``searchsorted`` seen as an Op class by vmap (rule ``searchsorted``)."""
    _vmap = "searchsorted"

    def forward(self, sorted_sequence, input, out_int32=False, right=False, sorter=None):  # for the rules
        raise NotImplementedError

    apply = staticmethod(searchsorted)


class _OneHot:
    """``one_hot`` seen as an Op class by vmap's elementwise batching rule."""
    _vmap = "elementwise"

    def forward(self, tensor, num_classes):  # the signature the batching rules read
        raise NotImplementedError

    apply = staticmethod(one_hot)


def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None) -> Tensor:
    """A bool tensor shaped like ``elements``: True where the element occurs in ``test_elements``
    (``torch.isin``; either may be a number; ``invert=True`` negates). Values compare after promotion."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (elements and test_elements "
                        "both numbers), but expected at least one Tensor")
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    for arr in (e, t):
        if arr.dtype.kind == "c":
            raise NotImplementedError("Unsupported input type encountered for isin(): ComplexFloat")
    return _out(_make(np.asarray(np.isin(e, t, invert=bool(invert)))), out)
