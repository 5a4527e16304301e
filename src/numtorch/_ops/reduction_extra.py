"""More reductions and scans: distances, differences, quantiles, running extremes, log-cum-sum-exp,
NaN-aware medians, modes, renorm, trapezoid integration, and a few combinatorial builders
(``block_diag``, ``cartesian_prod``, ``combinations``, ``vander``, ``histc``).

Where PyTorch itself is a composite of other ops (diff, quantile, trapezoid, cdist's matmul path,
cartesian_prod, vander, renorm), this module composes numtorch ops so autograd comes for free. Ops
with their own PyTorch backward node (``CummaxBackward0``, ``LogcumsumexpBackward0``,
``CdistBackward0``, ``NanmedianBackward*``, ``ModeBackward0``, ``BlockDiagBackward0``) are ``Op``s.
"""
from __future__ import annotations

import builtins
import itertools
import math
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op
from . import reduction as R
from ._util import unbroadcast, wrap_dim
from ._cast import cast

__all__ = """cdist diff quantile nanquantile cummax cummin logcumsumexp cross nanmedian mode renorm
trapezoid trapz cumulative_trapezoid block_diag cartesian_prod combinations vander histc""".split()

for _n in ("cummax", "cummin", "nanmedian", "mode"):
    setattr(R.return_types, _n, R._return_type(_n, "values indices"))


def _nt():
    import numtorch  # the top-level namespace, for composing ops (imported lazily: no cycle)
    return numtorch


def _float_check(t, name):
    if t._data.dtype.kind not in "fV":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")


# ------------------------------------------------------------------------------------------------
# cdist
# ------------------------------------------------------------------------------------------------
class CdistBackward0(Op):
    """p-norm distances between the rows of ``x1`` (B, P, M) and ``x2`` (B, R, M); direct formula."""

    _saves = (0, 1, "out")

    def forward(self, x1, x2, p):
        self.p = p
        d = x1[..., :, None, :] - x2[..., None, :, :]
        ad = np.abs(d)
        if p == 0:
            out = np.sum(ad != 0, axis=-1).astype(x1.dtype)
        elif p == 1:
            out = ad.sum(-1)
        elif p == 2:
            out = np.sqrt(np.sum(d * d, axis=-1))
        elif math.isinf(p):
            out = ad.max(-1) if ad.shape[-1] else np.zeros(ad.shape[:-1], x1.dtype)
        else:
            out = np.sum(ad ** p, axis=-1) ** (1.0 / p)
        out = out.astype(x1.dtype, copy=False)
        self.saved = (x1, x2, out)
        return out

    def backward(self, g):
        x1, x2, out = self.saved
        p = self.p
        d = x1[..., :, None, :] - x2[..., None, :, :]
        dist = out[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 0:
                w = np.zeros_like(d)
            elif p == 1:
                w = np.sign(d)
            elif p == 2:
                w = np.where(dist == 0, 0, d / dist)
            elif math.isinf(p):
                w = np.sign(d) * (np.abs(d) == dist)
            else:
                w = np.sign(d) * np.abs(d) ** (p - 1) / dist ** (p - 1)
                w = np.where((dist == 0) | (d == 0), 0, w)
        gd = (g[..., None] * w).astype(x1.dtype, copy=False)
        return unbroadcast(gd.sum(-2), x1.shape), unbroadcast(-gd.sum(-3), x2.shape)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise p-norm distances (``torch.cdist``): ``x1`` (*, P, M), ``x2`` (*, R, M) -> (*, P, R).

    For p=2 the matmul expansion ``|a|^2 - 2ab + |b|^2`` is used when ``compute_mode`` is
    ``use_mm_for_euclid_dist`` or (the default) when P or R exceeds 25, as PyTorch does.
    RuntimeError for non-float inputs, < 2-D inputs, mismatched M, negative p, or a bad mode.
    """
    for nm, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {nm} got: {t._data.ndim}D")
    for nm, t in (("X1", x1), ("X2", x2)):
        if t._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {nm} got: {R._tname(t._data)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"X1 and X2 must have the same dtype, X1 got: {R._tname(x1._data)} "
                           f"X2 got: {R._tname(x2._data)}")
    mode, r1, r2 = modes[compute_mode], x1.shape[-2], x2.shape[-2]
    if p == 2 and x1._data.size and x2._data.size and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        nt = _nt()
        n1 = (x1 * x1).sum(-1, keepdim=True)
        n2 = (x2 * x2).sum(-1, keepdim=True)
        a = nt.cat([x1 * -2, n1, nt.ones_like(n1)], -1)
        b = nt.cat([x2, nt.ones_like(n2), n2], -1)
        return nt.matmul(a, b.mT).clamp_min(1e-30).sqrt()
    return CdistBackward0.apply(x1, x2, p=float(p))


# ------------------------------------------------------------------------------------------------
# diff
# ------------------------------------------------------------------------------------------------
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along ``dim`` (``torch.diff``), after concatenating ``prepend`` /
    ``append``; bool inputs use logical xor. RuntimeError for a 0-d input or negative n."""
    nt = _nt()
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.dim())
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        parts = [t if t.dim() else t.expand(*input.shape[:dim], 1, *input.shape[dim + 1:]) for t in parts]
        input = nt.cat(parts, dim)
    for _ in range(n):
        size = input.shape[dim]
        if size == 0:
            break
        hi, lo = input.narrow(dim, 1, size - 1), input.narrow(dim, 0, size - 1)
        input = nt.logical_xor(hi, lo) if input._data.dtype == np.bool_ else hi - lo
    return input


# ------------------------------------------------------------------------------------------------
# quantile, nanquantile
# ------------------------------------------------------------------------------------------------
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan, out):
    nt = _nt()
    _float_check(input, name)
    if interpolation not in _INTERP:
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
                         f"nearest. Got {interpolation}")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        qa = np.asarray([q], input._data.dtype)
    else:
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._data.dtype != input._data.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        scalar_q = q.dim() == 0
        qa = q._data.reshape(-1)
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if not np.all((qa >= 0) & (qa <= 1)):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    x = input
    if dim is None:
        x = x.reshape(-1)
        d = 0
    else:
        d = wrap_dim(dim, max(input.dim(), 1))
        if x.dim() == 0:
            x = x.reshape(1)
    xs = nt.sort(x.movedim(d, -1), -1).values  # NaNs sort last
    nan = np.isnan(xs._data)
    cnt = (~nan).sum(-1, keepdims=True) if ignore_nan else np.full(nan.shape[:-1] + (1,), xs.shape[-1])
    last = xs.shape[-1] - 1
    rank = qa * (cnt - 1).astype(qa.dtype)  # (..., nq), in the input dtype as PyTorch
    # a NaN in the slice (quantile) or an all-NaN slice (nanquantile) gives NaN: point at the last value
    bad = (cnt == 0) if ignore_nan else nan[..., -1:]
    rank = np.where(bad, last, rank)
    if interpolation == "lower":
        rank = np.floor(rank)
    elif interpolation == "higher":
        rank = np.ceil(rank)
    elif interpolation == "nearest":
        rank = np.round(rank)
    lo_i = np.floor(rank).astype(np.int64)
    hi_i = np.minimum(np.ceil(rank).astype(np.int64), last)
    lo = nt.gather(xs, -1, _make(lo_i))
    if interpolation in ("lower", "higher", "nearest"):
        r = lo
    else:
        hi = nt.gather(xs, -1, _make(hi_i))
        w = 0.5 if interpolation == "midpoint" else (rank - lo_i).astype(xs._data.dtype)
        if interpolation == "midpoint":
            w = np.where(lo_i == hi_i, 0, 0.5).astype(xs._data.dtype)
        r = nt.lerp(lo, hi, _make(np.ascontiguousarray(w)))
    r = r.movedim(-1, 0)  # (nq, ...)
    if keepdim:
        r = r.unsqueeze(d + 1) if dim is not None else r.reshape(r.shape[0], *([1] * input.dim()))
    if scalar_q:
        r = r.squeeze(0)
    return R._out(r, out)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """q-th quantiles along ``dim`` (all elements if None) (``torch.quantile``).

    ``q`` is a float or a 0-/1-D tensor of the input's dtype (a 1-D q adds a leading output dim).
    ``interpolation`` is linear/lower/higher/midpoint/nearest. NaN where a slice holds a NaN.
    RuntimeError for non-float input, q outside [0, 1], empty input; ValueError for a bad mode.
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False, out)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaNs (``torch.nanquantile``); an all-NaN slice gives NaN."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True, out)


# ------------------------------------------------------------------------------------------------
# cummax, cummin, logcumsumexp
# ------------------------------------------------------------------------------------------------
class CummaxBackward0(Op):
    """Running max and its index (the last among ties; NaN propagates); backward scatter-adds."""

    _nondiff_outputs = (1,)
    _ufunc = np.maximum

    def forward(self, a, axis):
        self.shape = a.shape
        if a.ndim == 0:
            self.idx = np.zeros((), np.int64)
            return a.copy(), self.idx
        vals = self._ufunc.accumulate(a, axis=axis)
        hit = a == vals
        if a.dtype.kind in "fV":
            hit |= np.isnan(a)
        pos = np.arange(a.shape[axis]).reshape((-1,) + (1,) * (a.ndim - 1 - axis))
        self.idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=axis).astype(np.int64, copy=False)
        self.axis = axis
        return vals, self.idx

    def backward(self, g, gi=None):
        if g.ndim == 0:
            return g
        gx = np.zeros(self.shape, g.dtype)
        ax = np.moveaxis(gx, self.axis, -1)
        ii = np.moveaxis(self.idx, self.axis, -1)
        gg = np.moveaxis(g, self.axis, -1)
        rows = np.arange(ax.size // max(ax.shape[-1], 1)).reshape(ax.shape[:-1] + (1,)) if ax.size else 0
        flat = ax.reshape(-1, ax.shape[-1]) if ax.size else ax
        if ax.size:
            np.add.at(flat, (rows.reshape(-1, 1), ii.reshape(-1, ii.shape[-1])), gg.reshape(-1, gg.shape[-1]))
            gx = np.moveaxis(flat.reshape(ax.shape), -1, self.axis)
        return gx


class CumminBackward0(CummaxBackward0):
    _ufunc = np.minimum


def _cumext(op, name, input, dim):
    a = input._data
    axis = R._dim1(dim, a.ndim, name)
    vals, idx = op.apply(input, axis=axis)
    return getattr(R.return_types, name)(vals, idx)


def cummax(input, dim):
    """Running maximum along ``dim`` (``torch.cummax``): ``return_types.cummax(values, indices)``;
    the index is the last among ties, NaN propagates. The gradient goes to the indices."""
    return _cumext(CummaxBackward0, "cummax", input, dim)


def cummin(input, dim):
    """Running minimum along ``dim`` (``torch.cummin``); see ``cummax``."""
    return _cumext(CumminBackward0, "cummin", input, dim)


class LogcumsumexpBackward0(Op):
    _saves = (0, "out")

    def forward(self, a, axis):
        self.axis = axis
        out = np.logaddexp.accumulate(a, axis=axis) if a.ndim else a.copy()
        self.saved = (a, out)
        return out

    def backward(self, g):
        a, out = self.saved
        if a.ndim == 0:
            return g
        ax = self.axis
        # grad_k = sum_{j>=k} g_j exp(a_k - out_j), summed in log space for positive and negative g
        with np.errstate(divide="ignore", invalid="ignore"):
            lp = np.where(g > 0, np.log(np.abs(g)) - out, -np.inf)
            ln = np.where(g < 0, np.log(np.abs(g)) - out, -np.inf)
            rp = np.flip(np.logaddexp.accumulate(np.flip(lp, ax), axis=ax), ax)
            rn = np.flip(np.logaddexp.accumulate(np.flip(ln, ax), axis=ax), ax)
            return (np.exp(a + rp) - np.exp(a + rn)).astype(a.dtype, copy=False)


def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input), dim))`` computed stably (``torch.logcumsumexp``); ints promote to float."""
    if input._data.dtype.kind in "biu":
        input = cast(input, _dtype.get_default_dtype())
    axis = R._dim1(dim, input._data.ndim, "logcumsumexp")
    return R._out(LogcumsumexpBackward0.apply(input, axis=axis), out)


# ------------------------------------------------------------------------------------------------
# cross, nanmedian, mode, renorm
# ------------------------------------------------------------------------------------------------
def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along ``dim`` (``torch.cross``); ``dim=None`` picks the first dim
    of size 3 (with PyTorch's deprecation warning). Delegates to ``linalg.cross``."""
    from .. import linalg
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                      "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
                      "dim will change to agree with that of linalg.cross in a future release.")
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return linalg.cross(input, other, dim=dim, out=out)


def _nan_lower_median(a, axis=None, keepdims=False):
    flat = a.reshape(-1)
    flat = flat[~np.isnan(flat)] if a.dtype.kind in "fV" else flat
    if flat.size == 0:
        return np.asarray(np.nan, a.dtype)
    k = (flat.size - 1) // 2
    return np.partition(flat, k)[k]


class NanmedianBackward0(R.AmaxBackward0):
    _fn = staticmethod(_nan_lower_median)
    _nan_aware = True


class NanmedianBackward1(R.MaxBackward0):
    @staticmethod
    def _index(a, axis):
        srt = np.argsort(a, axis=axis, kind="stable")  # NaNs last
        cnt = (~np.isnan(a)).sum(axis=axis, keepdims=True) if a.dtype.kind in "fV" else a.shape[axis]
        k = np.maximum((cnt - 1) // 2, 0)
        if np.ndim(k) == 0:
            k = np.full(a.shape[:axis] + (1,) + a.shape[axis + 1:], k)
        return np.take_along_axis(srt, k, axis)


class ModeBackward0(R.MaxBackward0):
    @staticmethod
    def _index(a, axis):
        # sort each slice, measure runs of equal values; the longest run wins, smallest value on ties;
        # its index is the value's last occurrence (as PyTorch's CPU kernel returns)
        b = np.moveaxis(a, axis, -1)
        order = np.argsort(b, axis=-1, kind="stable")
        s = np.take_along_axis(b, order, -1)
        n = s.shape[-1]
        new = np.ones(s.shape, bool)
        new[..., 1:] = s[..., 1:] != s[..., :-1]
        if s.dtype.kind in "fV":
            new[..., 1:] &= ~(np.isnan(s[..., 1:]) & np.isnan(s[..., :-1]))
        pos = np.arange(n)
        start = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
        runlen = pos - start + 1  # run length so far; at a run's end, its full length
        best = np.argmax(runlen, axis=-1)[..., None]  # first max: the smallest value's run end
        # last occurrence in the original order = largest original index within that run
        run_start = np.take_along_axis(start, best, -1)
        in_run = (pos >= run_start) & (pos <= best)
        idx = np.max(np.where(in_run, order, -1), axis=-1, keepdims=True)
        return np.moveaxis(idx, -1, axis)


def nanmedian(input, dim=None, keepdim=False):
    """``median`` ignoring NaNs (``torch.nanmedian``): the lower median of the non-NaN values;
    with ``dim``, ``return_types.nanmedian(values, indices)``. All-NaN slices give NaN."""
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"nanmedian_cpu\" not implemented for 'Bool'")
    if dim is None:
        a = input._data
        return R._extreme(NanmedianBackward0, "nanmedian", input, None, False) if a.size else _make(
            _nan_lower_median(a))
    return R._with_dim(NanmedianBackward1, R.return_types.nanmedian, "nanmedian", input, dim, keepdim)


def mode(input, dim=-1, keepdim=False):
    """Most frequent value along ``dim`` (``torch.mode``): ``return_types.mode(values, indices)``;
    the smallest among equally frequent values, at its last occurrence."""
    return R._with_dim(ModeBackward0, R.return_types.mode, "mode", input, dim, keepdim)


def renorm(input, p, dim, maxnorm, *, out=None):
    """Rescale each slice ``input.select(dim, i)`` whose p-norm exceeds ``maxnorm`` to norm
    ``maxnorm`` (``torch.renorm``; factor ``maxnorm / (norm + 1e-7)``). RuntimeError for p <= 0,
    maxnorm < 0, non-float input, or a 0-d input."""
    nt = _nt()
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError(f"\"renorm\" not implemented for '{R._tname(input._data)}'")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    nd = input.dim()
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = wrap_dim(dim, nd)
    axes = [i for i in range(nd) if i != d]
    norm = nt.linalg.vector_norm(input, p, dim=axes, keepdim=True)
    factor = nt.where(norm > maxnorm, maxnorm / (norm + 1e-7), nt.ones_like(norm))
    return R._out(input * factor, out)


# ------------------------------------------------------------------------------------------------
# trapezoid, cumulative_trapezoid
# ------------------------------------------------------------------------------------------------
def _trap_terms(name, y, x, dx, dim):
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: x and dx")
    d = wrap_dim(dim, y.dim())
    n = y.shape[d]
    mid = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) if n else y
    if isinstance(x, Tensor):
        if x.dim() == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
            dxs = diff(x).reshape(-1, *([1] * (y.dim() - d - 1)))
        else:
            dxs = diff(x, dim=dim)
        return d, mid * dxs / 2
    step = 1 if x is None and dx is None else (x if x is not None else dx)
    return d, mid * (step / 2)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Trapezoid-rule integral of ``y`` along ``dim`` (``torch.trapezoid``) with sample points ``x``
    (a tensor, 1-D or broadcastable) or constant spacing ``x``/``dx`` (default 1)."""
    d, terms = _trap_terms("trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:
        return _nt().zeros(*y.shape[:d], *y.shape[d + 1:], dtype=y.dtype) if y._data.dtype.kind == "f" else \
            y.sum(d)
    return terms.sum(d)


trapz = trapezoid


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoid integral along ``dim`` (``torch.cumulative_trapezoid``); one fewer element."""
    d, terms = _trap_terms("cumulative_trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:
        return y
    return _nt().cumsum(terms, d)


# ------------------------------------------------------------------------------------------------
# block_diag, cartesian_prod, combinations, vander, histc
# ------------------------------------------------------------------------------------------------
class BlockDiagBackward0(Op):
    def forward(self, *mats):
        self.shapes = [m.shape for m in mats]
        ms = [m.reshape(1, -1) if m.ndim == 1 else m.reshape(1, 1) if m.ndim == 0 else m for m in mats]
        self.blocks = [m.shape for m in ms]
        dt = np.result_type(*mats) if mats else np.float32
        out = np.zeros((builtins.sum(m.shape[0] for m in ms), builtins.sum(m.shape[1] for m in ms)), dt)
        r = c = 0
        for m in ms:  # one slice assignment per input tensor
            out[r:r + m.shape[0], c:c + m.shape[1]] = m
            r, c = r + m.shape[0], c + m.shape[1]
        return out

    def backward(self, g):
        grads, r, c = [], 0, 0
        for (h, w), s in zip(self.blocks, self.shapes):
            grads.append(g[r:r + h, c:c + w].reshape(s))
            r, c = r + h, c + w
        return tuple(grads)


def block_diag(*tensors):
    """Block-diagonal matrix of 0-, 1- or 2-D tensors (``torch.block_diag``), dtypes promoted.
    RuntimeError for a tensor with more than 2 dims."""
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
    if tensors:
        rt = _dtype.result_type(*tensors)
        tensors = [t if t._data.dtype == rt.np else cast(t, rt) for t in tensors]
    return BlockDiagBackward0.apply(*tensors)


def cartesian_prod(*tensors):
    """Cartesian product of 1-D tensors (``torch.cartesian_prod``): (N1*...*Nk, k), or the tensor
    itself for one input. RuntimeError for non-1-D inputs."""
    nt = _nt()
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    full = [t.shape[0] for t in tensors]
    k = len(tensors)
    cols = [t.reshape(*[-1 if j == i else 1 for j in range(k)]).expand(*full).reshape(-1)
            for i, t in enumerate(tensors)]
    return nt.stack(cols, 1)


def combinations(input, r=2, with_replacement=False):
    """Length-``r`` combinations of a 1-D tensor's elements (``torch.combinations``), as rows of an
    (n_comb, r) tensor (``itertools.combinations`` order). RuntimeError for non-1-D input or r < 0."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _make(np.empty((0,), input._data.dtype))
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.fromiter(itertools.chain.from_iterable(gen(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return input[_make(idx)]


def vander(x, N=None, increasing=False):
    """Vandermonde matrix (``torch.vander``): columns ``x**(N-1) ... x**0`` (reversed if
    ``increasing``); bool/int inputs give int64. RuntimeError for non-1-D x or negative N."""
    nt = _nt()
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "bu" or x._data.dtype.kind == "i":
        x = cast(x, _dtype.int64)
    res = nt.ones(x.shape[0], builtins.max(n, 1), dtype=x.dtype)
    if n > 1:
        res = nt.cat([res[:, :1], nt.cumprod(x.unsqueeze(1).expand(-1, n - 1), 1)], 1)
    res = res[:, :n]
    return res if increasing else res.flip(1)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram with ``bins`` equal bins over [min, max] (``torch.histc``); min == max uses the
    data range; values outside are ignored, ``max`` itself lands in the last bin. Same dtype as
    input; not differentiable. RuntimeError for bins <= 0, min > max, non-finite range, ints."""
    a = input._data
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{R._tname(a)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: min must be less than or equal to max, but got "
                           f"min {lo:g} max {hi:g}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    v = a.reshape(-1).astype(np.float64)
    v = v[(v >= lo) & (v <= hi)]
    pos = ((v - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return R._out(_make(np.bincount(pos, minlength=bins).astype(a.dtype)), out)
