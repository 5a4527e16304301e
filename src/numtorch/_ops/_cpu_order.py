"""The order in which PyTorch's CPU kernels leave equal elements: ports of the selection and sorting
routines ``torch.sort(stable=False)``, ``torch.topk`` and ``torch.kthvalue`` run on CPU.

Sorting by value alone leaves the positions of tied elements to the algorithm. PyTorch's CPU
kernels use libstdc++'s ``std::sort`` (introsort: median-of-three quicksort, heapsort past a depth
limit, a final insertion sort), ``std::nth_element`` (introselect) and ``std::partial_sort``
(heap select) for ``sort``/``topk``, and Torch7's quickselect for ``kthvalue``. These are
deterministic, so numtorch replays them on ``(value, index)`` pairs, comparing values only, to give
PyTorch's indices. They run in Python, one row at a time, and are only called for rows whose
answer depends on the order of ties (see ``sorting.py``).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["stl_sort", "stl_nth_element", "stl_partial_sort", "quick_select", "sort_order", "topk_order",
           "kthvalue_order", "mode_index"]

_THRESHOLD = 16  # libstdc++'s _S_threshold


def _swap(v, i, j):
    v[i], v[j] = v[j], v[i]


def _median_to_first(v, result, a, b, c, less):
    """libstdc++'s ``__move_median_to_first``: swap the median of ``v[a], v[b], v[c]`` into ``result``."""
    x, y, z = v[a], v[b], v[c]
    if less(x, y):
        pick = b if less(y, z) else (c if less(x, z) else a)
    else:
        pick = a if less(x, z) else (c if less(y, z) else b)
    _swap(v, result, pick)


def _partition_pivot(v, first, last, less):
    """libstdc++'s ``__unguarded_partition_pivot``: the median of three moved to ``first`` is the pivot."""
    _median_to_first(v, first, first + 1, first + (last - first) // 2, last - 1, less)
    pivot, lo, hi = v[first], first + 1, last
    while True:
        while less(v[lo], pivot):
            lo += 1
        hi -= 1
        while less(pivot, v[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        _swap(v, lo, hi)
        lo += 1


def _linear_insert(v, last, less):
    val, nxt = v[last], last - 1
    while less(val, v[nxt]):
        v[last] = v[nxt]
        last, nxt = nxt, nxt - 1
    v[last] = val


def _insertion_sort(v, first, last, less):
    for i in range(first + 1, last):
        if less(v[i], v[first]):
            val = v[i]
            v[first + 1:i + 1] = v[first:i]
            v[first] = val
        else:
            _linear_insert(v, i, less)


def _adjust_heap(v, first, hole, n, value, less):
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(v[first + parent], value):
        v[first + hole] = v[first + parent]
        hole, parent = parent, (parent - 1) // 2
    v[first + hole] = value


def _make_heap(v, first, last, less):
    n = last - first
    if n < 2:
        return
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(v, first, parent, n, v[first + parent], less)


def _pop_heap(v, first, last, result, less):
    value = v[result]
    v[result] = v[first]
    _adjust_heap(v, first, 0, last - first, value, less)


def _heap_select(v, first, middle, last, less):
    _make_heap(v, first, middle, less)
    for i in range(middle, last):
        if less(v[i], v[first]):
            _pop_heap(v, first, middle, i, less)


def _sort_heap(v, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(v, first, last, last, less)


def _lg(n):
    return int(math.log2(n)) if n > 0 else 0


def stl_sort(v, first, last, less):
    """``std::sort(v[first:last])`` in place."""
    if last - first < 2:
        return
    stack = [(first, last, 2 * _lg(last - first))]
    while stack:  # the introsort loop: recurse on the right part, loop on the left
        lo, hi, depth = stack.pop()
        while hi - lo > _THRESHOLD:
            if depth == 0:
                _heap_select(v, lo, hi, hi, less)
                _sort_heap(v, lo, hi, less)
                break
            depth -= 1
            cut = _partition_pivot(v, lo, hi, less)
            stack.append((cut, hi, depth))
            hi = cut
    if last - first > _THRESHOLD:
        _insertion_sort(v, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(v, i, less)
    else:
        _insertion_sort(v, first, last, less)


def stl_nth_element(v, nth, less):
    """``std::nth_element(v.begin(), v.begin() + nth, v.end())`` in place."""
    first, last = 0, len(v)
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(v, first, nth + 1, last, less)
            _swap(v, first, nth)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, less)


def stl_partial_sort(v, middle, less):
    """``std::partial_sort(v.begin(), v.begin() + middle, v.end())`` in place."""
    _heap_select(v, 0, middle, len(v), less)
    _sort_heap(v, 0, middle, less)


def quick_select(v, k, greater):
    """Torch7's quickselect (PyTorch's ``quick_select_template``, used by ``kthvalue``/``median``):
    puts the ``k``-th smallest at ``v[k]``; ``greater`` is its "greater or NaN" test."""
    lo, hi = 0, len(v) - 1
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if greater(v[lo], v[hi]):
                _swap(v, lo, hi)
            return
        _swap(v, lo + (hi - lo) // 2, lo + 1)
        if greater(v[lo + 1], v[hi]):
            _swap(v, lo + 1, hi)
        if greater(v[lo], v[hi]):
            _swap(v, lo, hi)
        if greater(v[lo + 1], v[lo]):
            _swap(v, lo + 1, lo)
        i, j, piv = lo + 1, hi, v[lo]
        while True:
            i += 1
            while greater(piv, v[i]):
                i += 1
            j -= 1
            while greater(v[j], piv):
                j -= 1
            if j < i:
                break
            _swap(v, i, j)
        _swap(v, lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


# ------------------------------------------------------------------------------------------------
# replaying them on the rows of an array whose answer depends on the order of ties
# ------------------------------------------------------------------------------------------------
REPLAY_LIMIT = 1 << 14  # at most this many elements are replayed per call (Python speed); beyond, ties keep NumPy's order


def _comparator(kind, descending):
    """PyTorch's comparators on ``(value, index)`` pairs: NaN is the largest value."""
    if kind not in "fcV":
        return (lambda x, y: x[0] > y[0]) if descending else (lambda x, y: x[0] < y[0])
    isnan = math.isnan
    if descending:
        return lambda x, y: (isnan(x[0]) and not isnan(y[0])) or x[0] > y[0]
    return lambda x, y: (not isnan(x[0]) and isnan(y[0])) or x[0] < y[0]


def _pairs(row):
    vals = row.astype(float).tolist() if row.dtype.kind == "V" else row.tolist()
    return list(zip(vals, range(len(vals))))


def _ties(s):
    """For values sorted along the last axis: where an element equals the one before (NaNs alike)."""
    eq = s[..., 1:] == s[..., :-1]
    if s.dtype.kind in "fV":
        eq |= np.isnan(s[..., 1:]) & np.isnan(s[..., :-1])
    return eq


def _replay(a, axis, order, rows, fn):
    """``order`` (indices along ``axis``) with ``order[row] = fn(pairs of a[row])`` for the chosen rows
    (a boolean array over the rows, i.e. ``a``'s shape without ``axis``); the others are kept."""
    rows = np.nonzero(rows.reshape(-1))[0]
    n = a.shape[axis]
    if not rows.size or rows.size * n > REPLAY_LIMIT:
        return order
    b = np.moveaxis(a, axis, -1).reshape(-1, n)
    out = np.moveaxis(order, axis, -1).copy()
    flat = out.reshape(-1, out.shape[-1])
    for r in rows.tolist():
        flat[r] = fn(_pairs(b[r]))
    return np.moveaxis(flat.reshape(out.shape), -1, axis)


def sort_order(a, axis, order, descending):
    """``torch.sort(stable=False)``'s indices: ``order`` is the stable order; rows with ties are
    re-sorted by ``std::sort`` (rows of up to 16 elements are insertion-sorted, i.e. stable)."""
    n = a.shape[axis]
    if n <= _THRESHOLD:
        return order
    s = np.moveaxis(np.take_along_axis(a, order, axis), axis, -1)
    less = _comparator(a.dtype.kind, descending)

    def fn(v):
        stl_sort(v, 0, len(v), less)
        return [p[1] for p in v]
    return _replay(a, axis, order, _ties(s).any(-1), fn)


def topk_order(a, axis, order, k, largest, sorted):
    """``torch.topk``'s indices (``order``: the first ``k`` of the stable order): ``std::partial_sort``
    when ``64 k <= n``, else ``std::nth_element`` (then ``std::sort`` of the first ``k - 1`` if
    ``sorted``). With ``sorted=False`` every row is replayed (the arrangement is the algorithm's)."""
    n = a.shape[axis]
    if k == 0:
        return order
    less = _comparator(a.dtype.kind, largest)
    if sorted:
        full = np.moveaxis(np.take_along_axis(a, order, axis), axis, -1)
        rows = _ties(full).any(-1)  # ties inside the top k
        if k < n:  # or the k-th value also occurs among the elements left out
            kth = full[..., -1:]
            boundary = (np.moveaxis(a, axis, -1) == kth).sum(-1) > (full == kth).sum(-1)
            if a.dtype.kind in "fV":
                boundary |= np.isnan(kth[..., 0]) & (np.isnan(np.moveaxis(a, axis, -1)).sum(-1) > np.isnan(full).sum(-1))
            rows = rows | boundary
    else:
        rows = np.ones(np.delete(a.shape, axis), bool)

    def fn(v):
        if k * 64 <= n:
            stl_partial_sort(v, k, less)
        else:
            stl_nth_element(v, k - 1, less)
            if sorted:
                stl_sort(v, 0, k - 1, less)
        return [p[1] for p in v[:k]]
    return _replay(a, axis, order, rows, fn)


def kthvalue_order(a, axis, order, k):
    """``torch.kthvalue``'s index (``order``: that of the stable sort, shape 1 along ``axis``): rows
    where the ``k``-th value occurs more than once are replayed by PyTorch's quickselect."""
    kth = np.take_along_axis(a, order, axis)
    same = a == kth
    if a.dtype.kind in "fV":
        same |= np.isnan(a) & np.isnan(kth)
    greater = _comparator(a.dtype.kind, True)

    def fn(v):
        quick_select(v, k - 1, greater)
        return [v[k - 1][1]]
    return _replay(a, axis, order, same.sum(axis) > 1, fn)


def mode_index(a, axis, idx):
    """``torch.mode``'s index: PyTorch sorts ``(value, index)`` pairs with ``std::sort`` on ``<`` and
    takes the last pair of the mode's run, so which occurrence it names depends on the sort. ``idx``
    (the last occurrence) is kept for rows holding NaN (``<`` is then not an ordering) and for rows
    whose mode occurs once."""
    b = np.moveaxis(a, axis, -1)
    s = np.sort(b, axis=-1)
    rows = _ties(s).any(-1)
    if a.dtype.kind in "fV":
        rows &= ~np.isnan(b).any(-1)
    less = _comparator("i", False)

    def fn(v):
        stl_sort(v, 0, len(v), less)
        best = run = 0
        pick = None
        for i, (x, j) in enumerate(v):
            run += 1
            if i == len(v) - 1 or x != v[i + 1][0]:
                if run > best:
                    best, pick = run, j
                run = 0
        return [pick]
    return _replay(a, axis, idx, rows, fn)
