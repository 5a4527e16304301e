"""Gather and scatter along a dimension: gather, scatter, scatter_add, scatter_reduce, take, take_along_dim.

Also home of ``_index_add_rows``, the vectorized scatter-add kernel that every backward of a gather
(``x[idx]``, ``index_select``, ``gather``, ``take``, ...) uses to accumulate gradients.
"""
from __future__ import annotations

import numpy as np

from .._dtype import from_np
from .._tensor import Tensor, _make, _wrap_dim
from ..autograd.forward_ad import jvp_linear
from ..autograd import function as _function
from ..autograd.function import Op, linear_backward, save_indices
from ..autograd.grad_mode import _State
from ._inplace import inplace_fn
from ._out import _out, check_out_dtype, check_out_overlap
from ._util import unbroadcast
from ._window import _as_tensor
from .shape import clone

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "take", "take_along_dim", "put"]


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


def _bcast(sa, sb):
    """The broadcast of two shapes; RuntimeError in PyTorch's words naming the clashing dim."""
    if sa == sb:
        return sa
    try:
        return np.broadcast_shapes(sa, sb)
    except ValueError:
        n = max(len(sa), len(sb))
        pa, pb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
        d = max(i for i in range(n) if pa[i] != pb[i] and 1 not in (pa[i], pb[i]))
        raise RuntimeError(f"The size of tensor a ({pa[d]}) must match the size of tensor b ({pb[d]}) at "
                           f"non-singleton dimension {d}") from None


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
    dim = dim if a.ndim else 0  # dims 0 and -1 of a 0-d input: its one element's axis
    if what == "gather" and idx.size == 0:  # PyTorch's gather checks nothing more of an empty index
        return dim, idx
    if max(idx.ndim, 1) != nd:  # PyTorch counts a 0-d tensor as 1-d here
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
    jvp = jvp_linear  # forward AD (autograd/forward_ad.py): idx is a keyword
    def forward(self, a, dim, idx):
        self.shape, self.oshape = a.shape, idx.shape
        if idx.size == 0:  # an empty index (of any rank): an empty result, a zero gradient
            self.grid = None
            return np.zeros(idx.shape, a.dtype)
        self.grid = _grid(idx.reshape(idx.shape or (1,)), dim)
        return a.reshape(a.shape or (1,))[self.grid].reshape(idx.shape)

    def backward(self, g):
        if self.grid is None:
            return g.sum() * 0 + np.zeros(self.shape, g.dtype) if self._graph else np.zeros(self.shape, g.dtype)
        if self._graph:
            return linear_backward(self, (g,), lambda w: w.reshape(self.shape or (1,))[self.grid].reshape(self.oshape))
        shape = self.shape or (1,)
        return _scatter_sum(shape, self.grid, g.reshape(g.shape or (1,))).reshape(self.shape)


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad=False, out=None) -> Tensor:
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` for dim 0, etc. (``torch.gather``).

    ``index`` (int64, same ndim as input, no larger than input outside ``dim``) gives the output
    shape. RuntimeError for a wrong dtype/ndim/size or an out-of-range index.
    """
    if _State.vmap and (r := _function.vmap_index("gather", input, dim, index)) is not NotImplemented:
        return _out(r, out)
    if isinstance(index, Tensor) and index._data.size == 0:  # PyTorch checks nothing but dim then
        _wrap_dim(dim, input._data.ndim)
        return _out(GatherBackward0.apply(input, dim=None, idx=index._data), out)
    dim, idx = _gather_args(input, dim, index, "gather")
    if out is not None:  # PyTorch checks out once resized: it may then overlap the index
        check_out_dtype(out, input.dtype)
        check_out_overlap(out, input, partial=(index,), shape=index._data.shape)
    return _out(save_indices(GatherBackward0.apply(input, dim=dim, idx=idx), index), out)


class ScatterBackward0(Op):
    """scatter / scatter_add / scatter_reduce with ``src`` (array or scalar)."""

    # the src actually scattered (s), weights and counts: unused by the graph backward of the linear
    # reductions, which are the only ones it runs (amax/amin/prod raise)
    _graph_constants = ("s", "self_w", "cnt", "a", "out")

    def forward(self, a, src, dim, idx, reduce=None, include_self=True):
        shape = a.shape or (1,)
        idx = idx.reshape(idx.shape or (1,))
        grid = _grid(idx, dim)
        s = src[tuple(slice(0, n) for n in idx.shape)] if np.ndim(src) else np.asarray(src, a.dtype)
        s = np.broadcast_to(s.reshape(s.shape or (1,)) if np.ndim(src) else s, idx.shape)
        out = a.reshape(shape).copy()
        self.grid, self.shape, self.sshape, self.reduce, self.s = grid, a.shape, np.shape(src), reduce, s
        self.dim, self.idx = dim, idx
        self.include_self = include_self
        if reduce is None:
            out[grid] = s
        elif reduce == "sum" and include_self:
            out = out + _scatter_sum(shape, grid, s)
        else:
            self._reduce(out, grid, s, reduce, include_self, a.reshape(shape))
        if reduce in ("amax", "amin", "prod"):
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
                reduce != "amax") if out.dtype == np.bool_ else (np.iinfo(out.dtype).min if reduce == "amax" else np.iinfo(out.dtype).max)
        ufunc.at(out, grid, s)

    def backward(self, g):
        if self._graph:
            if self.reduce == "prod":
                return _prod_graph_backward(self, g)
            return linear_backward(self, (g,), self._adjoint)
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
        elif np.all(self.a != 0) and np.all(self.s != 0):  # prod without zeros
            go = g * self.out
            ga, gsv = go * self.self_w / self.a, go[grid] / self.s
        else:  # prod with zeros: the products of the other factors, as PyTorch computes them
            ga, gsv = self._prod_zeros_backward(g)
        if len(self._edges) > 1 and self._edges[1] is not None:  # a Tensor src (0-d ones count as 1-d)
            gs = np.zeros(self.sshape, g.dtype)
            gs.reshape(gs.shape or (1,))[tuple(slice(0, n) for n in gsv.shape)] = gsv
        return ga.reshape(self.shape), gs

    def _prod_zeros_backward(self, g):
        """prod's gradients when ``a`` or ``s`` hold zeros: a zero factor of the input is replaced by 1 in a
        new product; a source value that is the only zero of its target gets the product of the others."""
        a, s, grid = self.a, self.s, self.grid

        def reduced(base, src):
            res = base.copy()
            if not self.include_self:
                res[grid] = 1
            np.multiply.at(res, grid, src)
            return res
        ma = np.where(a == 0, 1, a)
        ga = g * reduced(ma, s) / ma * self.self_w
        zero = s == 0
        single = zero & (_scatter_sum(a.shape, grid, zero.astype(g.dtype))[grid] == 1)
        gsv = np.where(single, (g * reduced(a, np.where(single, 1, s)))[grid],
                       (g * self.out)[grid] / np.where(zero, 1, s))
        return ga, gsv

    def _adjoint(self, wa, ws):
        """The adjoint of the backward (the forward on gradients for none/sum/mean), for every reduction
        whose backward is linear in the gradient with constant weights (all but prod)."""
        dt = (wa if wa is not None else ws).dtype
        shape = self.shape or (1,)
        wa = np.zeros(shape, dt) if wa is None else wa.reshape(shape)
        idx_shape = np.broadcast_shapes(*(x.shape for x in self.grid))
        s = np.zeros(idx_shape, dt) if ws is None else ws.reshape(ws.shape or (1,))[
            tuple(slice(0, n) for n in idx_shape)]
        if self.reduce is None:
            out = wa.copy()
            out[self.grid] = s
        elif self.reduce == "sum":
            out = (wa if self.include_self else wa * self.self_w) + _scatter_sum(shape, self.grid, s)
        elif self.reduce == "mean":
            out = (wa * self.self_w + _scatter_sum(shape, self.grid, s)) / self.cnt
        else:  # amax / amin: the gradient is shared by the (constant) winners, so it is linear too
            self_hit = self.self_w * (self.a == self.out)
            src_hit = (self.s == self.out[self.grid]).astype(dt)
            out = (wa * self_hit + _scatter_sum(shape, self.grid, s * src_hit)) / (
                self_hit + _scatter_sum(shape, self.grid, src_hit))
            out = np.where(self_hit + _scatter_sum(shape, self.grid, src_hit) > 0, out, 0)
        return out.reshape(self.shape)


class ScatterBackward1(ScatterBackward0):
    """scatter with a scalar ``value``."""


class ScatterAddBackward0(ScatterBackward0):
    pass


class ScatterReduceBackward0(ScatterBackward0):
    pass


class ScatterReduceProdBackward(ScatterReduceBackward0):
    """scatter_reduce(reduce="prod"): saves the input, src and output (its gradient reads them), so an
    in-place change raises and create_graph differentiates through them."""

    _node_name = "ScatterReduceBackward0"
    _saves = (0, 1, "out")


class ScatterReduceZerosError(Op):
    """PyTorch's ``Error`` node: the src gradient of a prod scatter where two or more zeros of src meet
    in one position has no derivative; differentiating it raises."""

    _node_name = "torch::autograd::Error"

    def forward(self, value):
        return value

    def backward(self, g):
        raise RuntimeError("scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
                           "scattered to the same position in self")


def _prod_graph_backward(node, g):
    """prod's gradients with numtorch ops on Tensors (create_graph=True), zeros handled as PyTorch does:
    ``masked_fill`` is written ``x * (1 - m) + m`` with a constant mask ``m``, so it has no gradient where
    ``m`` is set; ``where(m, p, q)`` is ``p * m + q * (1 - m)``."""
    shape = node.shape or (1,)
    a = _as_tensor(node._graph_args[0]).reshape(shape)
    src = _as_tensor(node._graph_args[1])
    out, g = _as_tensor(node._graph_out).reshape(shape), _as_tensor(g).reshape(shape)
    idx = _make(node.idx)
    src = src.reshape(src.shape or (1,))[tuple(slice(0, n) for n in node.idx.shape)]
    dt = g._data.dtype
    az = (a._data == 0).astype(dt)
    ma = a * (1 - az) + az
    ga = g * scatter_reduce(ma, node.dim, idx, src, "prod", include_self=node.include_self) / ma
    if not node.include_self:
        ga = ga * node.self_w
    zero = node.s == 0
    nz = _scatter_sum(shape, node.grid, zero.astype(dt))[node.grid]
    single = (zero & (nz == 1)).astype(dt)
    zf = zero.astype(dt)
    with_one = scatter_reduce(a, node.dim, idx, src * (1 - single) + single, "prod", include_self=node.include_self)
    gs = (gather(g * with_one, node.dim, idx) * single
          + gather(g * out, node.dim, idx) / (src * (1 - zf) + zf) * (1 - single))
    if np.any(zero & (nz > 1)):
        gs = ScatterReduceZerosError.apply(gs)
    ga = (ga.reshape(node.shape) if not node.shape else ga) if node._edges[0] is not None else None
    if node._edges[1] is None:
        return ga, None
    if tuple(gs.shape) != tuple(node.sshape):  # src larger than index: the rest gets zeros
        full = _make(np.zeros(node.sshape or (1,), dt))
        full[tuple(slice(0, n) for n in gs.shape)] = gs
        gs = full
    return ga, gs.reshape(node.sshape) if not node.sshape else gs


_SCATTER_OPS = {"scatter": ScatterBackward0, "scatter_add": ScatterAddBackward0,
                "scatter_reduce": ScatterReduceBackward0}


def _scatter(input, dim, index, src, reduce, include_self, what):
    srcarr = src._data if isinstance(src, Tensor) else None
    if isinstance(index, Tensor) and index._data.size == 0:  # PyTorch returns a copy before any shape check
        _wrap_dim(dim, input._data.ndim)
        _index_arr(index, what)
        if srcarr is not None and srcarr.dtype != input._data.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        return clone(input)
    dim, idx = _gather_args(input, dim, index, what, srcarr)
    if isinstance(src, Tensor):
        if max(src._data.ndim, 1) != max(input._data.ndim, 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if src._data.dtype != input._data.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    op = _SCATTER_OPS[what] if isinstance(src, Tensor) else ScatterBackward1
    if what == "scatter_reduce" and reduce == "prod":
        op = ScatterReduceProdBackward
    if what == "scatter_reduce" and reduce == "mean" and input._data.dtype == np.bool_:  # no such CPU kernel
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    return save_indices(op.apply(input, src, dim=dim, idx=idx, reduce=reduce, include_self=include_self), index)


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """Out-of-place ``scatter_`` (``torch.scatter``): ``out[index[i][j]][j] = src[i][j]`` for dim 0.

    ``src`` is a Tensor (same ndim, at least index's size) or a number (``value``); ``reduce``
    "add"/"multiply" combines instead of overwriting. Gradient flows to input (zero where
    overwritten) and src. RuntimeError for shape, dtype or range errors.
    """
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing the source: pass a Tensor src or a number value")
    if _State.vmap and (r := _function.vmap_index("scatter", input, dim, index, src,
                                                  reduce=reduce)) is not NotImplemented:
        return r
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    r = {"add": "sum", "multiply": "prod"}.get(reduce)
    return _scatter(input, dim, index, src, r, True, "scatter")


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``out = input.clone(); out[index[i][j]][j] += src[i][j]`` (``torch.scatter_add``)."""
    if _State.vmap and (r := _function.vmap_index("scatter_add", input, dim, index, src)) is not NotImplemented:
        return r
    return _scatter(input, dim, index, src, "sum", True, "scatter_add")


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self=True) -> Tensor:
    """Scatter ``src`` reducing with "sum", "prod", "mean", "amax" or "amin" (``torch.scatter_reduce``).

    With ``include_self=False`` the input's values at scattered positions are left out. Ties of
    amax/amin share the gradient evenly, as in PyTorch.
    """
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if _State.vmap and (r := _function.vmap_index(
            "scatter_reduce", input, dim, index, src, reduce, include_self=include_self)) is not NotImplemented:
        return r
    return _scatter(input, dim, index, src, reduce, include_self, "scatter_reduce")


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
        if self._graph:
            return linear_backward(self, (g,), lambda w: w.reshape(-1)[self.idx])
        n = int(np.prod(self.shape))
        return _index_add_rows(n, self.idx.reshape(-1), g.reshape(-1, 1)).reshape(self.shape)


def take(input: Tensor, index: Tensor, *, out=None) -> Tensor:
    """``input.flatten()[index]`` with ``index``'s shape (``torch.take``); IndexError when out of range.
    RuntimeError for an ``out`` of another dtype than ``input`` or sharing memory with an argument."""
    if _State.vmap and (r := _function.vmap_index("take", input, index)) is not NotImplemented:
        return _out(r, out)
    idx = _index_arr(index, "take")
    if out is not None:
        if out.dtype != input.dtype:
            raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                               f"{input.dtype._aten_name} and out.dtype = {out.dtype._aten_name}")
        check_out_overlap(out, index, input)
    return _out(save_indices(TakeBackward0.apply(input, idx=idx), index), out)


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
        if self._graph:
            return linear_backward(self, (g,), lambda w: np.broadcast_to(w, self.bshape)[self.grid])
        return unbroadcast(_scatter_sum(self.bshape, self.grid, g), self.shape)


def take_along_dim(input: Tensor, indices: Tensor, dim=None, *, out=None) -> Tensor:
    """Values of ``input`` at ``indices`` along ``dim``, broadcasting the other dims
    (``torch.take_along_dim``, like ``np.take_along_axis``); the flattened input when ``dim`` is None."""
    if _State.vmap and (r := _function.vmap_index("take_along_dim", input, indices, dim)) is not NotImplemented:
        return _out(r, out)
    # a copy: PyTorch's backward reads its own broadcast copy, so changing ``indices`` later is fine there,
    # except without ``dim``, where PyTorch gathers from a view of ``indices`` and version-checks it
    idx = np.array(indices._data if isinstance(indices, Tensor) else indices)
    if dim is None:  # PyTorch gathers from the flattened input: no negative indices, int32 allowed
        if idx.dtype not in (np.int32, np.int64):
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        _check_bounds(idx, input._data.size, 0)
    else:
        dim = _wrap_dim(dim, input._data.ndim)
        if idx.ndim != input._data.ndim:
            raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                               f"dimensions, but got {input._data.ndim} dimensions for input, and {idx.ndim} "
                               f"dimensions for indices")
        if idx.dtype != np.int64:
            raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                               f"{from_np(idx.dtype)._aten_name}")
        n = input._data.shape[dim]
        if idx.size and idx.min() < 0 and idx.min() >= -n:  # negative indices count from the end (PyTorch)
            idx = np.where(idx < 0, idx + n, idx)
        _check_bounds(idx, n, dim, IndexError)
    r = TakeAlongDimBackward0.apply(input, dim=dim, idx=idx)
    return _out(save_indices(r, indices) if dim is None else r, out)


# in-place forms (recorded through _inplace.inplace)
scatter_ = inplace_fn(scatter, "scatter_")
scatter_add_ = inplace_fn(scatter_add, "scatter_add_")
scatter_reduce_ = inplace_fn(scatter_reduce, "scatter_reduce_")


# ------------------------------------------------------------------------------------------------
# put: take's inverse
# ------------------------------------------------------------------------------------------------
class PutBackward0(Op):
    """``out = input`` with ``out.flatten()[idx] = src`` (or ``+=`` with ``accumulate``)."""

    def forward(self, a, src, idx, accumulate):
        self.idx, self.accumulate, self.sshape = idx, accumulate, src.shape
        out = np.array(a, order="C", copy=True)
        flat = out.reshape(-1)
        if accumulate:
            np.add.at(flat, idx, src.reshape(-1))
        else:
            flat[idx] = src.reshape(-1)
        return out

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda ga, gs: self.forward(ga, gs, self.idx, self.accumulate))
        gs = g.reshape(-1)[self.idx].reshape(self.sshape)
        if self.accumulate:
            return g, gs
        ga = np.array(g, order="C", copy=True)
        ga.reshape(-1)[self.idx] = 0
        return ga, gs


def put(input: Tensor, index: Tensor, source: Tensor, accumulate=False) -> Tensor:
    """``input`` with ``input.flatten()[index] = source`` (``torch.put``; ``Tensor.put_`` in place);
    ``accumulate=True`` adds instead (repeated indices sum). ``index`` is int64 and may be negative.
    IndexError out of range or when the counts differ; RuntimeError for other dtypes."""
    for arg, t in (("index", index), ("source", source)):
        if not isinstance(t, Tensor):
            raise TypeError(f"put(): argument '{arg}' must be Tensor, not {type(t).__name__}")
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype._aten_name}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input.dtype._aten_name} and source.dtype = {source.dtype._aten_name}")
    if idx.size != source._data.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._data.size}, index.numel() = {idx.size}")
    n = input._data.size
    flat = idx.reshape(-1)
    if flat.size and (flat.min() < -n or flat.max() >= n):
        bad = flat[(flat < -n) | (flat >= n)][0]
        if n == 0:
            raise IndexError("put_(): Tried to indexing on an empty tensor")
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return save_indices(PutBackward0.apply(input, source, idx=_wrap_neg(flat, n), accumulate=bool(accumulate)), index)
