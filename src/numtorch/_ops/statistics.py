"""Order statistics and counts: ``quantile``/``nanquantile``, the NaN-ignoring median ``nanmedian``,
the most frequent value ``mode``, the histogram ``histc``, and the covariance and correlation
matrices ``cov``/``corrcoef``.

Quantiles compose differentiable ops (sort, gather, lerp) as PyTorch does; ``nanmedian`` and
``mode`` are ``Op``s sharing the extreme-value machinery of ``reduction.py`` (``median``'s home), so
the gradient goes to the selected element. ``histc`` is not differentiable.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._dtype import get_default_dtype
from .._tensor import Tensor, _make
from ._util import wrap_dim
from .pointwise import _out, lerp
from .reduction import (AmaxBackward0, MaxBackward0, _extreme, _np_aliases, _return_type, _tname, _with_dim,
                        return_types)
from .scatter import gather
from ._cpu_order import mode_index
from .sorting import sort

__all__ = ["median", "quantile", "nanquantile", "nanmedian", "mode", "histc", "cov", "corrcoef"]

_return_type("nanmedian", "values indices")


# ------------------------------------------------------------------------------------------------
# median: the lower of the two middle values (NaN if any is NaN)
# ------------------------------------------------------------------------------------------------
def _lower_middle(flat, dtype):
    """The lower of the two middle values of a 1-d array; NaN when it is empty."""
    if flat.size == 0:
        return np.asarray(np.nan, dtype)
    k = (flat.size - 1) // 2
    return np.partition(flat, k)[k]


def _per_batch(fn):
    """``fn`` of all elements, or under vmap (``axis``: the trailing logical axes after the batch dims)
    of each sample's elements, with the reduced axes kept as size 1 when ``keepdims``."""
    def reduce(a, axis=None, keepdims=False):
        if axis is None:
            return fn(a)
        lead = a.shape[:a.ndim - len(axis)]
        rows = a.reshape((int(np.prod(lead, dtype=np.int64)), -1))
        r = np.array([fn(row) for row in rows], a.dtype).reshape(lead)
        return r.reshape(lead + (1,) * len(axis)) if keepdims else r
    return reduce


@_per_batch
def _lower_median(a):
    flat = a.reshape(-1)
    if a.dtype.kind in "fV" and np.isnan(flat).any():
        return np.asarray(np.nan, a.dtype)
    return _lower_middle(flat, a.dtype)


class MedianBackward0(AmaxBackward0):
    """``median()`` of every element: the lower of the two middle values."""

    _fn = staticmethod(_lower_median)
    _nan_aware = True


class MedianBackward1(MaxBackward0):
    """``median(dim)``: values and indices of the lower median along ``dim``."""

    @staticmethod
    def _index(a, axis):
        # lower median; among ties, the stable-sort position (PyTorch's pick depends on its
        # selection algorithm and agrees in common cases)
        k = (a.shape[axis] - 1) // 2
        idx = np.take(np.argsort(a, axis=axis, kind="stable"), [k], axis=axis)
        if a.dtype.kind in "fV":
            nan = np.isnan(a)
            has = nan.any(axis=axis, keepdims=True)
            if has.any():  # a NaN anywhere in the slice makes the median NaN, at the first NaN
                idx = np.where(has, np.argmax(nan, axis=axis, keepdims=True), idx)
        return idx


@_np_aliases
def median(input, dim=None, keepdim=False):
    """``torch.median``: without ``dim`` the lower median of all elements (NaN if any is NaN);
    with ``dim``, ``return_types.median(values, indices)`` along it."""
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
    if dim is None:
        a = input._data
        return _extreme(MedianBackward0, "median", input, None, False) if a.size else _make(_lower_median(a))
    return _with_dim(MedianBackward1, return_types.median, "median", input, dim, keepdim)
_return_type("mode", "values indices")


def _float_check(t, name):
    if t._data.dtype.kind not in "fV":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")


# ------------------------------------------------------------------------------------------------
# quantile, nanquantile
# ------------------------------------------------------------------------------------------------
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan, out):
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
    xs = sort(x.movedim(d, -1), -1).values  # NaNs sort last
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
    lo = gather(xs, -1, _make(lo_i))
    if interpolation in ("lower", "higher", "nearest"):
        r = lo
    else:
        hi = gather(xs, -1, _make(hi_i))
        w = 0.5 if interpolation == "midpoint" else (rank - lo_i).astype(xs._data.dtype)
        if interpolation == "midpoint":
            w = np.where(lo_i == hi_i, 0, 0.5).astype(xs._data.dtype)
        r = lerp(lo, hi, _make(np.ascontiguousarray(w)))
    r = r.movedim(-1, 0)  # (nq, ...)
    if keepdim and input.dim():  # (a 0-d input keeps its 0 dims)
        r = r.unsqueeze(d + 1) if dim is not None else r.reshape(r.shape[0], *([1] * input.dim()))
    if scalar_q:
        r = r.squeeze(0)
    return _out(r, out)


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
# nanmedian, mode
# ------------------------------------------------------------------------------------------------
@_per_batch
def _nan_lower_median(a):
    flat = a.reshape(-1)
    return _lower_middle(flat[~np.isnan(flat)] if a.dtype.kind in "fV" else flat, a.dtype)


class NanmedianBackward0(AmaxBackward0):
    """``nanmedian()`` of every element: the lower middle value of the non-NaN ones."""

    _nan_aware = True
    _fn = staticmethod(_nan_lower_median)


class NanmedianBackward1(MaxBackward0):
    @staticmethod
    def _index(a, axis):
        srt = np.argsort(a, axis=axis, kind="stable")  # NaNs last
        cnt = (~np.isnan(a)).sum(axis=axis, keepdims=True) if a.dtype.kind in "fV" else a.shape[axis]
        k = np.maximum((cnt - 1) // 2, 0)
        if np.ndim(k) == 0:
            k = np.full(a.shape[:axis] + (1,) + a.shape[axis + 1:], k)
        return np.take_along_axis(srt, k, axis)


class ModeBackward0(MaxBackward0):
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
        return mode_index(a, axis, np.moveaxis(idx, -1, axis))  # PyTorch's pick among the occurrences


def nanmedian(input, dim=None, keepdim=False):
    """``median`` ignoring NaNs (``torch.nanmedian``): the lower median of the non-NaN values;
    with ``dim``, ``return_types.nanmedian(values, indices)``. All-NaN slices give NaN."""
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"nanmedian_cpu\" not implemented for 'Bool'")
    if dim is None:
        a = input._data
        return _extreme(NanmedianBackward0, "nanmedian", input, None, False) if a.size else _make(
            _nan_lower_median(a))
    return _with_dim(NanmedianBackward1, return_types.nanmedian, "nanmedian", input, dim, keepdim)


def mode(input, dim=-1, keepdim=False):
    """Most frequent value along ``dim`` (``torch.mode``): ``return_types.mode(values, indices)``;
    the smallest among equally frequent values. The index is the occurrence PyTorch's CPU kernel
    names (the last of the value's run after its ``std::sort``, replayed in ``_cpu_order.py`` for
    slices of up to 2**14 elements in all); slices holding NaN (which PyTorch's ``<`` sort does not
    order) and larger inputs give the last occurrence instead, which can differ from PyTorch's."""
    return _with_dim(ModeBackward0, return_types.mode, "mode", input, dim, keepdim)


# ------------------------------------------------------------------------------------------------
# histc
# ------------------------------------------------------------------------------------------------
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram with ``bins`` equal bins over [min, max] (``torch.histc``); min == max uses the
    data range; values outside are ignored, ``max`` itself lands in the last bin. Same dtype as
    input; not differentiable. RuntimeError for bins <= 0, min > max, non-finite range, ints."""
    a = input._data
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_tname(a)}'")
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
    return _out(_make(np.bincount(pos, minlength=bins).astype(a.dtype)), out)


# ------------------------------------------------------------------------------------------------
# cov / corrcoef: compositions of differentiable ops, as PyTorch's
# ------------------------------------------------------------------------------------------------
def _check_weights(w, name, n, integral):
    if w is None:
        return None
    if w._data.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w._data.ndim} dimensions")
    if w._data.size != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w._data.size} != {n}")
    if integral and w._data.dtype.kind not in "iu":
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                           f"{w.dtype._aten_name} dtype")
    if not integral and w._data.dtype.kind not in "fV":
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{w.dtype._aten_name} dtype")
    if w._data.size and w._data.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return w


def cov(input: Tensor, *, correction=1, fweights=None, aweights=None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (``torch.cov``; a 1-d input is one
    variable), observations in the columns, optionally weighted by integer frequencies ``fweights`` and
    float ``aweights``; ``correction`` is Bessel's (1: unbiased). A 0-d result for one variable. Integer
    inputs give the default float dtype. RuntimeError for more than 2 dims or bad weights."""
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {nd} "
                           "dimensions")
    x = input.reshape(1, -1) if nd < 2 else input
    if x._data.dtype.kind in "iub":
        x = x.to(get_default_dtype())
    n = x.shape[1]
    fw = _check_weights(fweights, "fweights", n, True)
    aw = _check_weights(aweights, "aweights", n, False)
    w = fw if aw is None else (aw if fw is None else fw * aw)
    if w is None:
        w_sum = n
        avg = x.mean(1)
        norm = n - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aw is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aw).sum() / w_sum
    if (norm._data if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.")
        norm = norm * 0 if isinstance(norm, Tensor) else 0
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = xw.matmul(xm.t().conj()) / norm
    return c.squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows of ``input`` (``torch.corrcoef``): ``cov`` scaled by
    the standard deviations, real parts clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = (d.real if d.is_complex() else d).sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c if c.is_complex() else c.clamp(-1, 1)
