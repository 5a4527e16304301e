"""Embeddings: ``torch.embedding`` (row lookup) and bags of embeddings, ``F.embedding_bag`` (mirrors
``torch.nn.functional.embedding_bag`` and ATen's ``_embedding_bag`` with its backward).

A lookup's backward sums gradient rows per index (a one-hot product or a sorted segment sum). An
embedding bag looks up rows of ``weight`` ``(V, D)`` and reduces each bag of them (sum, mean or max).
Bags are given as a flat index list cut by ``offsets``, or as the rows of a 2-D index tensor, so each bag
is a contiguous run of indices and nothing loops over bags in Python: sum and mean are one sparse
``(bags, V)`` CSR matrix product with ``weight`` (no ``(n, D)`` lookup is built), max is a segment
reduction (``fmax.reduceat``) over the looked-up rows.
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np

from .. import _backend, _dtype
from .._tensor import Tensor
from .._tensor_sparse import SparseCOO
from ..autograd import function as _function
from ..autograd.function import Op, save_indices
from ..autograd.grad_mode import _State, no_grad
from ._util import bump

class _Lazy__sparse:
    """``scipy.sparse``, imported on first use so that ``import numtorch`` stays light."""

    def __getattr__(self, attr):
        return getattr(importlib.import_module("scipy.sparse"), attr)


_sparse = _Lazy__sparse()


__all__ = ["embedding"]  # torch.embedding; embedding_bag is F.embedding_bag only

_SUM, _MEAN, _MAX = 0, 1, 2
_MODES = {"sum": _SUM, "mean": _MEAN, "max": _MAX}


# ------------------------------------------------------------------------------------------------
# embedding: a row lookup
# ------------------------------------------------------------------------------------------------
class EmbeddingBackward0(Op):
    """Row lookup ``weight[indices]``; backward accumulates rows of the gradient per index.

    Accumulation uses a one-hot matrix product when ``num_embeddings * n`` is small (fastest for
    character- and BPE-sized vocabularies), and a sort plus segmented sum otherwise.
    """
    _vmap = "embedding"  # batching rule kind (func/_batching_rules.py)

    def forward(self, w, indices, padding_idx, scale_grad_by_freq, sparse=False):
        self.idx = indices
        self.wshape = w.shape
        self.padding_idx, self.freq, self.sparse = padding_idx, scale_grad_by_freq, sparse
        return w[indices]

    def backward(self, g):
        if self.sparse:
            return self._sparse_grad(g)
        v, d = self.wshape
        idx = self.idx.reshape(-1)
        g2 = g.reshape(-1, d)
        if self.freq:
            counts = np.bincount(idx, minlength=v)
            g2 = g2 / counts[idx].astype(g.dtype)[:, None]
        if v * idx.size <= 1 << 22:
            onehot = np.zeros((v, idx.size), g.dtype)
            onehot[idx, np.arange(idx.size)] = 1
            gw = onehot @ g2
        else:
            order = np.argsort(idx, kind="stable")
            s = idx[order]
            starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
            gw = np.zeros((v, d), g.dtype)
            gw[s[starts]] = np.add.reduceat(g2[order], starts, axis=0)
        if self.padding_idx is not None:
            gw[self.padding_idx] = 0
        return gw


    def _sparse_grad(self, g):
        """PyTorch's sparse gradient: one entry per looked-up index (input order, duplicates kept, padding
        dropped) holding that position's gradient row, in a ``(V, D)`` sparse COO tensor."""
        if self.freq:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
        idx, rows = self.idx.reshape(-1).astype(np.int64), g.reshape(-1, self.wshape[1])
        if self.padding_idx is not None:
            keep = idx != self.padding_idx
            idx, rows = idx[keep], rows[keep]
        return SparseCOO(idx[None], np.array(rows), self.wshape)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``torch.embedding(weight, indices)``: rows of ``weight`` (``(V, D)``) at integer ``indices`` (any shape).

    Returns ``indices.shape + (D,)``. ``padding_idx`` (``-1``/None for none) gets no gradient. RuntimeError
    for a weight that is not 2-D or indices other than int64/int32; IndexError ("index out of range in self")
    for indices outside ``[0, V)``.
    """
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iu" or idx.dtype.itemsize < 4:
        name = "CPUBoolType" if idx.dtype.kind == "b" else (  # PyTorch's own word for bool here
            indices.type() if isinstance(indices, Tensor) else str(idx.dtype))
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {name} instead (while checking arguments for embedding)")
    if _State.vmap and (r := _function.vmap_index("embedding", weight, indices, padding_idx,
                                                  scale_grad_by_freq)) is not NotImplemented:
        return r  # batched weight or indices: the rule checks every sample's indices (func/_batching_rules_index.py)
    v, vals = weight._data.shape[0], idx
    if idx.size and (vals.min() < 0 or vals.max() >= v):
        if v == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if weight._data.size == 0:  # PyTorch's path for rows of no elements words it differently
            first = int(vals.reshape(-1)[(vals.reshape(-1) < 0) | (vals.reshape(-1) >= v)][0])
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={first} axis_dim={v}")
        raise IndexError("index out of range in self")
    pad = None if padding_idx is None or padding_idx < 0 else int(padding_idx)
    return save_indices(EmbeddingBackward0.apply(weight, indices=idx, padding_idx=pad,
                                                 scale_grad_by_freq=bool(scale_grad_by_freq),
                                                 sparse=bool(sparse)), indices)


def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescale in place the rows of ``weight`` used by ``indices`` whose ``norm_type``-norm exceeds ``max_norm``."""
    rows = np.unique(indices._data if isinstance(indices, Tensor) else np.asarray(indices))
    w = weight._data
    norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        r = rows[big]
        w[r] *= (max_norm / (norms[big] + 1e-7)).astype(w.dtype)[:, None]
        bump(weight)
    return weight


# ------------------------------------------------------------------------------------------------
# the differentiable op
# ------------------------------------------------------------------------------------------------
def _acc(dt):
    """The dtype sums are computed in: float32 for half-precision weights, as PyTorch's kernels do."""
    return np.dtype(np.float32) if dt.itemsize < 4 else dt


class EmbeddingBagBackward0(Op):
    """``(num_bags, D)`` bag reductions of rows of ``weight``; positional inputs ``weight`` and, in sum
    mode, optionally ``per_sample_weights``.

    Options describe the bags, already validated (see ``_bags``): ``iv`` the used indices in input order
    (padding and indices outside every bag removed), ``pos`` their positions in the flat input of ``n``
    (None: ``0..len(iv)-1``), ``counts`` the used entries per bag; ``freq`` the index counts over the
    whole input when ``scale_grad_by_freq``; ``need_arg`` whether max mode must keep its argmax.

    Sum and mean are a sparse ``(num_bags, V)`` matrix of the bags times ``weight`` (scipy's CSR product
    adds each bag's rows in input order, as PyTorch does, and never copies the looked-up rows); the
    weight gradient is that matrix's transpose times the output gradient.
    """

    _graph_error = {None: (NotImplementedError, "the derivative for '_embedding_bag_backward' is not implemented."),
                    1: (RuntimeError, "derivative for aten::_embedding_bag_per_sample_weights_backward is not "
                                      "implemented")}

    def forward(self, w, psw=None, *, iv, pos, counts, n, mode, freq, need_arg, sparse=False):
        self.iv, self.pos, self.counts, self.n, self.mode, self.freq = iv, pos, counts, n, mode, freq
        self.sparse = sparse
        self.wshape, self.dtype = w.shape, w.dtype
        self.saved = (w, psw)
        num_bags, d = counts.size, w.shape[1]
        if iv.size == 0:
            self.amax, self.ids = np.zeros((d, 0), np.int64), np.zeros(0, np.int64)
            return _backend.zeros((num_bags, d), w.dtype)
        if mode == _MAX:
            return self._max(w, need_arg)
        acc = _acc(w.dtype)
        vals = np.ones(iv.size, acc) if psw is None else self._sample_weights(psw).astype(acc, copy=False)
        if w.dtype == acc:
            out = self._matrix(vals) @ w
        else:  # scipy has no half-precision products: gather the rows in float32
            out = self._matrix(vals, cols=np.arange(iv.size)) @ w[iv].astype(acc)
        if mode == _MEAN:
            out /= np.maximum(counts, 1).astype(acc)[:, None]
        return out.astype(w.dtype, copy=False)

    def _matrix(self, vals, cols=None):
        """The CSR matrix with ``vals`` at (bag, index) for each used entry (or at (bag, ``cols``))."""
        indptr = np.zeros(self.counts.size + 1, np.int64)
        np.cumsum(self.counts, out=indptr[1:])
        cols = self.iv if cols is None else cols
        ncols = self.wshape[0] if cols is self.iv else cols.size
        return _sparse.csr_matrix((vals, cols, indptr), shape=(self.counts.size, ncols))

    def _sample_weights(self, psw):
        """``per_sample_weights`` of the used entries, in ``iv``'s order."""
        return psw[:self.iv.size] if self.pos is None else psw[self.pos]

    def _max(self, w, need_arg):
        """Per bag and column, the first largest entry (a NaN first entry stays, later NaNs are skipped,
        as PyTorch's ``>`` scan does); with ``need_arg`` keeps the winning word indices in ``self.amax``.

        Works on the transposed rows ``(D, n_used)`` so each segment reduction runs over contiguous
        memory; the transpose is taken of the table or of the looked-up rows, whichever is smaller.
        """
        if w.dtype.kind != "f":  # bfloat16: compare in float32 (exact)
            w = w.astype(np.float32)
        iv, counts = self.iv, self.counts
        nv = iv.size
        rows = np.take(np.ascontiguousarray(w.T), iv, axis=1) if w.shape[0] <= 2 * nv else \
            np.ascontiguousarray(np.take(w, iv, axis=0).T)
        ids = np.flatnonzero(counts)
        starts = (np.cumsum(counts) - counts)[ids]
        top = np.fmax.reduceat(rows, starts, axis=1)
        nan_first = np.isnan(rows[:, starts])
        if need_arg:
            hit = rows == np.repeat(top, counts[ids], axis=1)
            hit[:, starts] |= nan_first
            it = np.int32 if nv < 2 ** 31 else np.int64
            where = np.where(hit, np.arange(nv, dtype=it), it(nv))
            arg = np.minimum.reduceat(where, starts, axis=1)  # (D, bags) positions into iv
            self.amax, self.ids = iv[arg], ids
            top = np.take_along_axis(rows, arg, axis=1)
        elif nan_first.any():
            top[nan_first] = np.nan
        out = _backend.zeros((counts.size, rows.shape[0]), self.dtype)
        out[ids] = top.T
        return out

    def backward(self, g):
        w, psw = self.saved
        v, d = self.wshape
        need_w = self._edges[0] is not None
        need_p = len(self._edges) > 1 and self._edges[1] is not None
        gw = gp = None
        acc = _acc(g.dtype)
        ga = g.astype(acc, copy=False)
        bag = None
        if need_w:
            if self.mode == _MAX:
                flat = (self.amax.T * d + np.arange(d)).ravel()
                gw = np.bincount(flat, weights=g[self.ids].astype(np.float64).ravel(), minlength=v * d)
                gw = gw.reshape(v, d).astype(self.dtype)
            else:
                # per-entry scale in PyTorch's order: 1/freq, then 1/bag size, then the sample weight
                scale = np.ones(self.iv.size, acc)
                if self.freq is not None:
                    scale /= self.freq[self.iv].astype(acc)
                if self.mode == _MEAN:
                    bag = np.repeat(np.arange(self.counts.size), self.counts)
                    scale /= np.maximum(self.counts, 1).astype(acc)[bag]
                if psw is not None:
                    scale *= self._sample_weights(psw).astype(acc, copy=False)
                if self.sparse:  # PyTorch's sparse gradient: one entry per used index, in input order
                    if self.freq is not None:
                        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse "
                                           "gradients")
                    if bag is None:
                        bag = np.repeat(np.arange(self.counts.size), self.counts)
                    gw = SparseCOO(self.iv.astype(np.int64)[None], (ga[bag] * scale[:, None]).astype(self.dtype),
                                   self.wshape)
                else:
                    gw = (self._matrix(scale).T @ ga).astype(self.dtype, copy=False)
        if need_p:
            # d out[bag] / d psw[i] = weight[idx[i]]; padding and unused entries get 0
            if bag is None:
                bag = np.repeat(np.arange(self.counts.size), self.counts)
            dots = np.einsum("ij,ij->i", ga[bag], w[self.iv].astype(acc, copy=False))
            gp = np.zeros(self.n, psw.dtype)
            gp[self.pos if self.pos is not None else slice(0, self.iv.size)] = dots
        return (gw, gp) if psw is not None else gw


# ------------------------------------------------------------------------------------------------
# argument checks and bag layout (ATen's _embedding_bag checks, in its order)
# ------------------------------------------------------------------------------------------------
def _bags(idx, offs, v, num_bags, include_last_offset, padding_idx):
    """The bag layout ``(iv, pos, counts)`` for flat int indices ``idx`` (n,) and int64 ``offs`` (see
    ``EmbeddingBagBackward0``), after the offsets' and indices' range checks.

    Bags are ``[offs[b], offs[b+1])``; the last runs to the end of the input, or to ``offs[-1]`` with
    ``include_last_offset`` (later indices are in no bag). Unsorted offsets count as ATen's
    ``offset2bag`` counts them: index ``p`` is in bag ``#{b: offs[b] <= p} - 1``.
    """
    n = idx.size
    if offs.size and (offs.min() < 0 or offs.max() > n):
        raise IndexError("index out of range in self")
    if n:
        bad = (idx < 0) | (idx >= v)
        if bad.any():
            raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                               f"{int(idx[np.argmax(bad)])}")
    starts = offs[:num_bags]
    if starts.size > 1 and (starts[1:] < starts[:-1]).any():
        starts = np.sort(starts)
    end = int(offs[-1]) if include_last_offset and num_bags else n
    counts = np.maximum(np.diff(starts, append=end), 0) if num_bags else np.zeros(0, np.int64)
    used = int(counts.sum())  # entries 0..used-1 lie in a bag (offs[0] == 0)
    iv = idx if used == n else idx[:used]
    pos = None
    if padding_idx is not None:
        pad = iv == padding_idx
        if pad.any():
            # a position's bag is the last one starting at or before it (earlier ones there are empty)
            pad_bags = np.searchsorted(starts, np.flatnonzero(pad), side="right") - 1
            counts = counts - np.bincount(pad_bags, minlength=num_bags)
            pos = np.flatnonzero(~pad)
            iv = iv[pos]
    return iv, pos, counts


def embedding_bag(input: Tensor, weight: Tensor, offsets=None, max_norm=None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False, padding_idx=None) -> Tensor:
    """Sums, means or maxima of bags of embeddings (``torch.nn.functional.embedding_bag``).

    Shapes: ``weight`` ``(V, D)`` float16/bfloat16/float32/float64. ``input`` int64/int32 either
    ``(B, N)`` (B bags of N indices; ``offsets`` must be None) or ``(n,)`` with 1-D ``offsets`` ``(B,)``
    giving each bag's start (``offsets[0] == 0``; with ``include_last_offset`` ``(B + 1,)``, the last
    entry being the end of the last bag). Returns ``(B, D)`` of ``weight``'s dtype.

    ``mode``: 'sum', 'mean' or 'max' (max: each column's first largest entry; the gradient goes to that
    row). ``per_sample_weights`` (input's shape, weight's dtype; 'sum' only) scale each looked-up row
    and receive gradients. Entries equal to ``padding_idx`` (may be negative) are left out of their bag
    (so they count neither in a mean nor get gradient); an empty bag gives zeros. ``max_norm``
    renormalizes the looked-up rows of ``weight`` in place first, as ``F.embedding`` does;
    ``scale_grad_by_freq`` divides gradients by the index counts in the input. ``sparse=True`` makes
    ``weight``'s gradient a sparse COO tensor (sum and mean modes), as PyTorch's.

    Errors as PyTorch: ValueError for wrong dims, shape mismatches, an unknown mode, or max mode with
    ``scale_grad_by_freq``/``sparse``; NotImplementedError for ``per_sample_weights`` outside 'sum';
    RuntimeError for ``padding_idx`` out of range, non-integer indices, non-float weights,
    ``offsets[0] != 0``, ``offsets[-1] > n``, ``per_sample_weights`` of another dtype, and indices
    outside ``[0, V)``; IndexError for other offsets outside ``[0, n]`` (or, with ``max_norm``, for
    indices outside ``[-V, V)``).
    """
    # the old argument order embedding_bag(weight, input) still works, with a warning
    if weight.dtype is _dtype.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    psw = per_sample_weights
    if psw is not None and input.size() != psw.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, then it must have the "
                         f"same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    idx = input._data
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        if idx.shape[1] == 0:
            raise RuntimeError("step must be nonzero")  # PyTorch builds offsets with arange(0, numel, N)
        offs = np.arange(0, idx.size, idx.shape[1], dtype=idx.dtype)
        include_last_offset = False
        idx = idx.reshape(-1)
        if psw is not None:
            psw = psw.reshape(-1)  # a view: gradients and in-place checks reach the caller's tensor
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs = offsets._data
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    m = _MODES[mode]
    if m == _MAX and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if m == _MAX and sparse:
        raise ValueError("max mode does not support sparse weights")
    v = weight.shape[0]
    if max_norm is not None:
        _renorm(weight, idx, v, max_norm, norm_type)
    if psw is not None and m != _SUM:
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")

    # ---- ATen's checks
    if padding_idx is not None:
        if not -v <= padding_idx < v:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{v} through {v - 1}, "
                               f"but got {padding_idx}")
        padding_idx = int(padding_idx) % v
    # indices and offsets are promoted to a common type, which must be int32 or int64
    it = _dtype.promote_types(_dtype.from_np(idx.dtype), _dtype.from_np(offs.dtype)).np
    if it.kind != "i" or it.itemsize < 4:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_dtype.from_np(it)._tensor_type} instead (while checking arguments "
                           "for embedding_bag)")
    wd = weight._data.dtype
    if wd.kind != "f" and wd.name != "bfloat16":
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {weight.type()} instead (while checking "
                           "arguments for embedding_bag)")
    n = idx.size
    offs = offs.astype(np.int64, copy=False)
    if offs.size:
        if offs[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {int(offs[0])}")
        if offs[-1] > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                               f"{int(offs[-1])}")
    if psw is not None and psw._data.dtype != wd:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {weight.type()} does not equal {psw.type()} "
                           "(while checking arguments for embedding_bag)")
    if include_last_offset and offs.size == 0:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    num_bags = max(offs.size - 1, 0) if include_last_offset else offs.size
    iv, pos, counts = _bags(idx, offs, v, num_bags, include_last_offset, padding_idx)
    freq = np.bincount(idx, minlength=v) if scale_grad_by_freq and n else None
    # max mode keeps its argmax only for a backward pass
    need_arg = m == _MAX and _State.enabled and weight.requires_grad
    opts = {"iv": iv, "pos": pos, "counts": counts, "n": n, "mode": m, "freq": freq, "need_arg": need_arg,
            "sparse": bool(sparse)}
    if psw is None:
        return EmbeddingBagBackward0.apply(weight, **opts)
    out = EmbeddingBagBackward0.apply(weight, psw, **opts)
    fn = out.grad_fn
    if fn is not None:
        # as PyTorch, weight is saved only for per_sample_weights' gradient, and those only for weight's
        fn._versions = [(t._vc, t._vc[0], t, i) for i, (t, other) in enumerate(((weight, psw), (psw, weight)))
                        if other._rg]
    return out


def _renorm(weight, idx, v, max_norm, norm_type):
    """``max_norm``: rescale the looked-up rows in place (no autograd), after PyTorch's checks."""
    if idx.dtype.kind not in "iu" or idx.dtype.itemsize < 4:
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_dtype.from_np(idx.dtype)._tensor_type} instead (while checking "
                           "arguments for embedding_renorm_)")
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < -v or hi >= v:  # PyTorch visits the unique indices in sorted order
            bad = int(lo) if lo < -v else int(hi)
            raise IndexError(f"select(): index {bad} out of range for tensor of size {list(weight.shape)} at "
                             "dimension 0")
    with no_grad():
        embedding_renorm_(weight, idx, max_norm, norm_type)
