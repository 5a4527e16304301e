"""Reductions: sums and means, variance, products, extremes and their indices, log-sum-exp,
norms, logical all/any and counts; the ``return_types`` registry of named result tuples.

Each differentiable reduction is an ``Op`` named after PyTorch's backward node, with a vectorized
backward that broadcasts the reduced gradient back over the reduced axes (``_expand``). ``dim``
arguments accept an int, a tuple/list of ints or None, negative values included; ``dim=()`` means
"all dims" as in PyTorch. NumPy's ``axis=``/``keepdims=`` spellings are accepted wherever PyTorch's
argument parser accepts them (every function here except ``norm``). Scans (``cumsum``...) live in
``cumulative.py``; medians, quantiles and modes in ``statistics.py``.
"""
from __future__ import annotations

import builtins
import collections
import functools
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.forward_ad import jvp_linear
from ..autograd.function import Op
from ..autograd.grad_mode import _State
from ._util import _ARG, _IntProd, _IntSum, _cj, _result, dims_arg, wrap_dim
from ._cast import cast
from ._out import _out, check_out_dtype
from .pointwise import div, maximum, minimum

__all__ = """sum mean nansum nanmean var std var_mean std_mean prod max min amax amin aminmax argmax argmin
logsumexp norm return_types""".split()


def _tname(a: np.ndarray) -> str:
    """PyTorch's scalar-type name for an array's dtype, as its error messages spell it."""
    return _dtype.from_np(a.dtype)._aten_name


# ------------------------------------------------------------------------------------------------
# result tuples (torch.return_types.*)
# ------------------------------------------------------------------------------------------------
class return_types:
    """The named result tuples of the reductions and scans (``torch.return_types``): each family
    registers its own with ``_return_type`` where the op returning it is defined."""


def _return_type(name, fields):
    """Define ``return_types.<name>``, a named tuple of ``fields`` that pickles and prints as PyTorch's."""
    cls = collections.namedtuple(name, fields, module=__name__)
    cls.__qualname__ = f"return_types.{name}"  # so instances pickle
    cls.__repr__ = lambda self: (f"torch.return_types.{name}(\n"
                                 + ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self)) + ")")
    setattr(return_types, name, cls)
    return cls


_return_type("max", "values indices")
_return_type("min", "values indices")
_return_type("median", "values indices")
_return_type("aminmax", "min max")


# ------------------------------------------------------------------------------------------------
# argument helpers
# ------------------------------------------------------------------------------------------------
def _np_aliases(fn, overloads=None):
    """Accept NumPy's ``axis``/``keepdims`` for ``dim``/``keepdim``, as PyTorch's arg parser does; with
    ``overloads``, its TypeError for ``keepdim=`` without ``dim`` and for ``dim=None`` to an "int dim"."""
    none_ok = overloads is None or "int dim" not in overloads[2]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
            if overloads and "keepdim" in kwargs and len(args) < 2 and "dim" not in kwargs:
                _bad_combination(args, kwargs, *overloads)
        if not none_ok and (kwargs.get("dim", 0) is None or len(args) > 1 and args[1] is None):
            _bad_combination(args, kwargs, *overloads)
        return fn(*args, **kwargs)
    return wrapper


_SIG_DIM = "bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None"


def _keepdim_needs_dim(name, sig_all, sig_dim):
    """``_np_aliases`` for ops whose ``keepdim`` exists only in PyTorch's overload with ``dim``."""
    return lambda fn: _np_aliases(fn, (name, sig_all, sig_dim))


def _bad_combination(args, kwargs, name, sig_all, sig_dim):
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}".replace("=dtype", "=torch.dtype")
                                              for k, v in kwargs.items()]
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but "
                    f"expected one of:\n * (Tensor input, {sig_all})\n * (Tensor input, {sig_dim})\n")


def _isint(d):
    return isinstance(d, (int, np.integer))


def _axes(dim, ndim, name):
    """``dim`` (None, int, tuple/list) as a tuple of non-negative axes, or None for all axes.

    IndexError for an out-of-range dim, RuntimeError for a repeated one, TypeError for non-ints.
    """
    if dim is None:
        return None
    _dim_types(dim, name)
    axes = dims_arg(dim, ndim)
    return axes if ndim else None


def _dim_types(dim, name):
    """TypeError unless ``dim`` is None, an int or a tuple/list of ints (PyTorch's arg parser runs first)."""
    if isinstance(dim, (tuple, list)):
        if not builtins.all(_isint(d) for d in dim):
            raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, but found element of type "
                            f"{type(next(d for d in dim if not _isint(d))).__name__}")
    elif dim is not None and not _isint(dim):
        raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")


def _dim1(dim, ndim, name):
    """A single ``dim`` as a non-negative axis; TypeError unless it is an int."""
    if not _isint(dim):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    return wrap_dim(dim, ndim)


def _expand(g, shape, axes, keepdim):
    """Broadcast a reduced gradient back to ``shape`` (a read-only view, no copy)."""
    if axes is not None and not keepdim:
        g = np.expand_dims(g, axes)
    return np.broadcast_to(g, shape)


def _keep(r, axes, keepdim):
    """A reduced result with its reduced axes restored as size-1 dims, for broadcasting."""
    if keepdim or axes is None:  # a 0-d result broadcasts as is
        return r
    return np.expand_dims(r, axes)


def _count(shape, axes):
    """Number of elements each output element reduces over."""
    return int(np.prod(shape if axes is None else [shape[a] for a in axes], dtype=np.int64))


def _half(a):
    """The accumulation dtype for 16-bit floats (PyTorch accumulates them in float32), else None."""
    return np.float32 if a.dtype.itemsize == 2 and a.dtype.kind in "fV" else None


def _int_total(op, t, axes, keepdim, dtype):
    """A bool/integer sum or product (``op``: ``_IntSum``/``_IntProd``, which vmap can batch), never
    differentiable: int64 unless an explicit ``dtype`` asked for another (``t`` is already cast to it)."""
    return op.apply(t if dtype is not None else cast(t, _dtype.int64), axes, keepdim)


def _nonempty(a, axes, name):
    if a.size == 0:
        if axes is None:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               f"Specify the reduction dim with the 'dim' argument.")
        for ax in axes:
            if a.shape[ax] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {ax} to have non-zero size.")


# ------------------------------------------------------------------------------------------------
# sum, mean, nansum, nanmean
# ------------------------------------------------------------------------------------------------
class SumBackward1(Op):
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)
    jvp = jvp_linear  # forward AD (autograd/forward_ad.py)

    def forward(self, a, axes, keepdim):
        self.shape, self.axes, self.keepdim = a.shape, axes, keepdim
        acc = _half(a)
        out = np.sum(a, axis=axes, keepdims=keepdim, dtype=acc)
        return out.astype(a.dtype) if acc else out

    def backward(self, g):
        return _expand(g, self.shape, self.axes, self.keepdim)


class SumBackward0(SumBackward1):
    """``sum`` over every element."""


class MeanBackward1(Op):
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)
    jvp = jvp_linear

    def forward(self, a, axes, keepdim):
        self.shape, self.axes, self.keepdim = a.shape, axes, keepdim
        self.n = _count(a.shape, axes)
        acc = _half(a)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.sum(a, axis=axes, keepdims=keepdim, dtype=acc) / self.n  # empty input gives nan
        return out.astype(a.dtype) if acc else out

    def backward(self, g):
        return _expand(g / self.n, self.shape, self.axes, self.keepdim)


class MeanBackward0(MeanBackward1):
    """``mean`` over every element."""


class NansumBackward0(Op):
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)
    _saves = (0,)

    def forward(self, a, axes, keepdim):
        self.shape, self.axes, self.keepdim = a.shape, axes, keepdim
        self.saved = a
        return np.nansum(a, axis=axes, keepdims=keepdim)

    def backward(self, g):
        a = self.saved
        return np.where(np.isnan(a), 0, _expand(g, self.shape, self.axes, self.keepdim)).astype(g.dtype)


def _float_input(input, dtype, error, dim=None):
    """``input``, cast to ``dtype`` if given; RuntimeError ``error`` + its type name unless it is
    floating or complex (after the arg parser's TypeError for a ``dim`` of the wrong type)."""
    if dtype is not None:
        input = cast(input, dtype)
    if input._data.dtype.kind not in "fcV":
        _dim_types(dim, error.partition("(")[0])
        raise RuntimeError(error + _tname(input._data))
    return input


@_keepdim_needs_dim("sum", "*, torch.dtype dtype = None", "tuple of ints dim, " + _SIG_DIM)
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over ``dim`` (int, tuple, or None/``()`` for all), as ``torch.sum``.

    Bool and integer inputs sum to int64 unless ``dtype`` is given; with ``dtype`` the input is cast
    first. IndexError for an out-of-range dim. Backward node ``SumBackward0``/``SumBackward1``.
    """
    if dtype is not None:
        input = cast(input, dtype)
    a = input._data
    axes = _axes(dim, a.ndim, "sum")
    if a.dtype.kind in "biu":
        return _out(_int_total(_IntSum, input, axes, keepdim, dtype), out)
    op = SumBackward0 if axes is None else SumBackward1
    return _out(op.apply(input, axes=axes, keepdim=keepdim), out)


@_keepdim_needs_dim("mean", "*, torch.dtype dtype = None, Tensor out = None", "tuple of ints dim, " + _SIG_DIM)
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean over ``dim`` (``torch.mean``); an empty reduction gives nan.

    RuntimeError for bool/integer inputs unless a floating ``dtype`` is given.
    """
    input = _float_input(input, dtype, "mean(): could not infer output dtype. Input dtype must be either a "
                                       "floating point or complex dtype. Got: ", dim)
    axes = _axes(dim, input._data.ndim, "mean")
    op = MeanBackward0 if axes is None else MeanBackward1
    return _out(op.apply(input, axes=axes, keepdim=keepdim), out)


@_np_aliases
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum treating NaN as zero (``torch.nansum``); integer inputs sum to int64."""
    t = input if dtype is None else cast(input, dtype)
    axes = _axes(dim, t._data.ndim, "nansum")
    if t._data.dtype.kind in "fcV":
        return _out(NansumBackward0.apply(t, axes=axes, keepdim=keepdim), out)
    return _out(_int_total(_IntSum, t, axes, keepdim, dtype), out)  # no NaN to skip in integers


@_np_aliases
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN elements (``torch.nanmean``); all-NaN slices give NaN.

    RuntimeError for non-floating inputs. Computed as ``nansum / count`` like PyTorch (node ``DivBackward0``).
    """
    input = _float_input(input, dtype, "nanmean(): expected input to have floating point or complex dtype but got ")
    a = input._data
    axes = _axes(dim, a.ndim, "nanmean")
    cnt = np.sum(~np.isnan(a), axis=axes, keepdims=keepdim).astype(a.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _out(div(NansumBackward0.apply(input, axes=axes, keepdim=keepdim), _make(cnt)), out)


# ------------------------------------------------------------------------------------------------
# var, std, var_mean, std_mean
# ------------------------------------------------------------------------------------------------
def _sq_abs(d):
    """``|d|^2``: real for a complex ``d`` (PyTorch's var of a complex tensor is real)."""
    return (d * d.conj()).real if d.dtype.kind == "c" else d * d


class VarBackward0(Op):
    """Variance; subclasses add the std and the (var, mean) pair. Two passes: mean, then squares.

    A complex input gives a real result, the mean of ``|x - mean|^2``; its gradient is
    ``2 (x - mean) / (N - correction)`` times the (real) incoming gradient, as PyTorch's.
    """
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)

    _std = False
    _with_mean = False
    _saves = (0,)  # read only by the create_graph backward (PyTorch's var_backward saves self too)
    _graph, _graph_recompute = False, True

    def forward(self, a, axes, correction, keepdim):
        self.shape, self.axes, self.keepdim = a.shape, axes, keepdim
        n = self.n = _count(a.shape, axes)
        self.denom = builtins.max(0, n - correction)
        self.bdenom = n - correction  # PyTorch's backward does not clamp the divisor
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.sum(a, axis=axes, keepdims=True) / n
            d = a - m
            v = np.sum(_sq_abs(d), axis=axes, keepdims=keepdim) / self.denom
            r = np.sqrt(v) if self._std else v
        self.saved = (d, r)
        if not self._with_mean:
            return r
        return r, (m if keepdim else m.reshape(np.shape(v)))

    def backward(self, g, gm=None):
        d, r = self.saved
        if self._graph:  # create_graph: rebuild the centred input and the result from the input's box
            a = self._graph_args[0]
            d = a - np.sum(a, axis=self.axes, keepdims=True) / self.n
            with np.errstate(invalid="ignore", divide="ignore"):
                r = np.sum(_sq_abs(d), axis=self.axes, keepdims=self.keepdim) / self.denom
                r = np.sqrt(r) if self._std else r
        # d var / dx = 2 (x - mean) / (N - correction); d std = d var / (2 std), zero where std == 0
        k = 2 / self.bdenom if self.bdenom else np.inf
        with np.errstate(invalid="ignore", divide="ignore"):
            if self._std:
                g, k = np.where(r == 0, 0, g / r).astype(g.dtype), k / 2
            gx = _expand(g, self.shape, self.axes, self.keepdim) * (d * k)
        if gm is not None:
            gx = gx + _expand(gm / self.n, self.shape, self.axes, self.keepdim)
        return gx.astype(d.dtype, copy=False)


class StdBackward0(VarBackward0):
    _std = True


class VarMeanBackward0(VarBackward0):
    _with_mean = True


class StdMeanBackward0(VarBackward0):
    _std = True
    _with_mean = True


def _moments(op, name, input, dim, unbiased, keepdim, correction, out=None):
    if isinstance(dim, bool):  # var(input, unbiased) overload
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both 'unbiased' and "
                        f"'correction'; pass only one")
    if correction is None:
        correction = 1 if unbiased is None else int(unbiased)
    if input._data.dtype.kind not in "fcV":
        _dim_types(dim, name)
        raise RuntimeError("std and var only support floating point and complex dtypes")
    axes = _axes(dim, input._data.ndim, name)
    if _count(input._data.shape, axes) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      f"reduction factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    res = op.apply(input, axes=axes, correction=correction, keepdim=keepdim)
    return res if isinstance(res, tuple) else _out(res, out)


@_np_aliases
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim`` with ``correction`` (default 1, Bessel's) (``torch.var``).

    ``unbiased=False`` is ``correction=0``; ``var(x, False)`` works as in PyTorch. The divisor is
    ``max(0, N - correction)``. RuntimeError for non-floating inputs.
    """
    return _moments(VarBackward0, "var", input, dim, unbiased, keepdim, correction, out)


@_np_aliases
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Standard deviation, ``sqrt(var(...))`` (``torch.std``); a zero std gets a zero gradient."""
    return _moments(StdBackward0, "std", input, dim, unbiased, keepdim, correction, out)


@_np_aliases
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one pass (``torch.var_mean``); arguments as ``var``."""
    return _moments(VarMeanBackward0, "var_mean", input, dim, unbiased, keepdim, correction)


@_np_aliases
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` (``torch.std_mean``); arguments as ``var``."""
    return _moments(StdMeanBackward0, "std_mean", input, dim, unbiased, keepdim, correction)


# ------------------------------------------------------------------------------------------------
# prod
# ------------------------------------------------------------------------------------------------
class ProdBackward1(Op):
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)
    _saves = (0, "out")

    def forward(self, a, axes, keepdim):
        self.shape, self.axes, self.keepdim = a.shape, axes, keepdim
        out = np.asarray(np.prod(a, axis=axes, keepdims=keepdim))  # an array, not a NumPy scalar: backward
        self.saved = (a, out)  # under create_graph finds the saved output by identity
        return out

    def backward(self, g):
        a, out = self.saved
        a, out = (a.conj(), out.conj()) if a.dtype.kind == "c" else (a, out)  # complex: g * conj(d out / d a)
        axes = self.axes
        o = _keep(out, axes, self.keepdim)
        g = _expand(g, self.shape, axes, self.keepdim)
        zero = a == 0
        if not zero.any():
            return g * (o / a)
        # exact with zeros: an only zero gets the product of the others, the rest get nothing
        nz = np.sum(zero, axis=axes, keepdims=True)
        others = np.prod(np.where(zero, 1, a), axis=axes, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = o / np.where(zero, 1, a)
        return g * np.where(zero, np.where(nz == 1, others, 0), ratio).astype(a.dtype, copy=False)


class ProdBackward0(ProdBackward1):
    """``prod`` over every element."""


@_keepdim_needs_dim("prod", "*, torch.dtype dtype = None", "int dim, " + _SIG_DIM)
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product over one ``dim`` (int) or all elements (``torch.prod``); bool/int inputs give int64.

    The gradient is exact when the input holds zeros. TypeError for a tuple ``dim``.
    """
    if dtype is not None:
        input = cast(input, dtype)
    a = input._data
    axes = None if dim is None else (_dim1(dim, a.ndim, "prod"),)
    axes = axes if a.ndim else None
    if a.dtype.kind in "biu":
        return _out(_int_total(_IntProd, input, axes, keepdim, dtype), out)
    op = ProdBackward0 if axes is None else ProdBackward1
    return _out(op.apply(input, axes=axes, keepdim=keepdim), out)


# ------------------------------------------------------------------------------------------------
# max, min, amax, amin (values): gradient shared evenly among ties
# ------------------------------------------------------------------------------------------------
class AmaxBackward0(Op):
    """The extreme value over ``axes``; backward splits the gradient evenly among the elements equal
    to it, as PyTorch does. For a NaN result ``amax``/``amin`` give NaN gradients over the slice,
    while ``max()``/``min()``/``median()`` share it among the NaNs (``_nan_aware``), as PyTorch."""
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)

    _saves = (0, "out")
    _fn = staticmethod(np.max)
    _nan_aware = False

    def forward(self, a, axes, keepdim):
        self.shape, self.axes, self.keepdim = a.shape, axes, keepdim
        out = np.asarray(self._fn(a, axis=axes, keepdims=keepdim))
        self.saved = (a, out)
        return out

    def backward(self, g):
        a, out = self.saved
        o = _keep(out, self.axes, self.keepdim)
        mask = a == o
        if self._nan_aware and a.dtype.kind in "fV":
            mask |= np.isnan(a) & np.isnan(o)
        cnt = np.sum(mask, axis=self.axes, keepdims=True).astype(g.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            return _keep(g, self.axes, self.keepdim) / cnt * mask


class AminBackward0(AmaxBackward0):
    _fn = staticmethod(np.min)


class MaxBackward1(AmaxBackward0):
    """``max()`` of every element."""

    _nan_aware = True


class MinBackward1(AminBackward0):
    """``min()`` of every element."""

    _nan_aware = True


def _extreme(op, name, input, axes, keepdim):
    a = input._data
    _nonempty(a, axes, name)
    if a.dtype.kind in "fcV" and (input._rg or _State.fw) or _State.vmap:  # fw: forward AD; vmap: the Op's rule
        return op.apply(input, axes=axes, keepdim=keepdim)
    return _make(_result(op._fn(a, axis=axes, keepdims=keepdim)))


def _extreme_axes(input, dim, name):  # amax/amin's axes; an empty dim is reported before a repeated one
    a = input._data
    if a.size == 0 and isinstance(dim, (tuple, list)) and builtins.all(_isint(d) for d in dim):
        _nonempty(a, [wrap_dim(d, a.ndim) for d in dim] if a.ndim else (), name)
    return _axes(dim, a.ndim, name)


@_np_aliases
def amax(input, dim=(), keepdim=False, *, out=None):
    """Maximum over ``dim`` (int or tuple; default all) (``torch.amax``); ties share the gradient.

    IndexError for a reduced dim of size zero, RuntimeError for an empty input reduced entirely.
    """
    return _out(_extreme(AmaxBackward0, "amax", input, _extreme_axes(input, dim, "amax"), keepdim), out)


@_np_aliases
def amin(input, dim=(), keepdim=False, *, out=None):
    """Minimum over ``dim`` (``torch.amin``); see ``amax``."""
    return _out(_extreme(AminBackward0, "amin", input, _extreme_axes(input, dim, "amin"), keepdim), out)


@_np_aliases
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``(min, max)`` over one ``dim`` or all elements, as ``return_types.aminmax`` (``torch.aminmax``);
    ``out=(min, max)`` of ``input``'s dtype (else RuntimeError)."""
    nd = input._data.ndim
    axes = (_dim1(dim, nd, "aminmax"),) if dim is not None and nd else None
    if axes is None and keepdim:
        axes = tuple(range(nd)) or None
    lo, hi = (_extreme(op, "aminmax", input, axes, keepdim) for op in (AminBackward0, AmaxBackward0))
    for o in out or ():
        check_out_dtype(o, input.dtype)
    return return_types.aminmax(lo, hi) if out is None else return_types.aminmax(_out(lo, out[0]), _out(hi, out[1]))


# ------------------------------------------------------------------------------------------------
# max/min with dim: (values, indices); gradient goes to the selected index
# ------------------------------------------------------------------------------------------------
class MaxBackward0(Op):
    """Value and index along one axis; backward scatters the gradient to the selected indices."""
    _vmap = ("axis", "axis")  # batching rule kind (func/_batching_rules.py)

    _nondiff_outputs = (1,)
    _graph = False

    def forward(self, a, axis, keepdim):
        self.shape = a.shape
        if a.ndim == 0:  # a 0-d tensor is its own extreme, at index 0
            a, keepdim = a.reshape(1), False
        idx = self._index(a, axis)
        vals = np.take_along_axis(a, idx, axis)
        self.saved, self.axis, self.keepdim = idx, axis, keepdim
        if not keepdim:
            vals, idx = vals.squeeze(axis), idx.squeeze(axis)
        return vals, idx

    @staticmethod
    def _index(a, axis):
        return np.argmax(a, axis=axis, keepdims=True)

    def backward(self, g, gi=None):
        if self._graph:  # create_graph: the scatter as a select by a constant one-hot mask
            idx = self.saved
            pos = np.arange((self.shape or (1,))[self.axis])
            hit = np.moveaxis(np.moveaxis(idx, self.axis, -1) == pos, -1, self.axis)
            gk = g if self.keepdim else np.expand_dims(g, self.axis)
            return np.where(hit, gk, 0).reshape(self.shape)
        gx = np.zeros(self.shape or (1,), g.dtype)
        np.put_along_axis(gx, self.saved, g if self.keepdim else np.expand_dims(g, self.axis), self.axis)
        return gx.reshape(self.shape)


class MinBackward0(MaxBackward0):
    @staticmethod
    def _index(a, axis):
        return np.argmin(a, axis=axis, keepdims=True)


def _with_dim(op, rtype, name, input, dim, keepdim):
    a = input._data
    axis = _dim1(dim, a.ndim, name)
    if a.ndim:
        _nonempty(a, (axis,), name)
    vals, idx = op.apply(input, axis=axis, keepdim=keepdim)
    return rtype(vals, idx)


def _max_min(name, op_all, op_dim, pair, input, dim, keepdim, other, out):
    if isinstance(dim, Tensor) or other is not None:
        return pair(input, dim if other is None else other, out=out)
    if dim is None:
        return _out(_extreme(op_all, name, input, None, False), out)
    return _with_dim(op_dim, getattr(return_types, name), name, input, dim, keepdim)


@_np_aliases
def max(input, dim=None, keepdim=False, *, other=None, out=None):
    """``torch.max``: ``max(input)`` is the largest value (ties share the gradient);
    ``max(input, dim, keepdim=False)`` is ``return_types.max(values, indices)`` (first index among
    ties; the gradient goes to it); ``max(input, other_tensor)`` is ``torch.maximum``.

    RuntimeError for ``max()`` of an empty tensor, IndexError for a bad or empty ``dim``.
    """
    return _max_min("max", MaxBackward1, MaxBackward0, maximum, input, dim, keepdim, other, out)


@_np_aliases
def min(input, dim=None, keepdim=False, *, other=None, out=None):
    """``torch.min``; the mirror of ``max``."""
    return _max_min("min", MinBackward1, MinBackward0, minimum, input, dim, keepdim, other, out)


def _arg(fn, name, input, dim, keepdim):
    a = input._data
    if a.dtype.kind == "b":
        if dim is not None and not _isint(dim):
            _dim1(dim, 0, name)  # the arg parser's TypeError comes first
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if a.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return _ARG[name].apply(input, None, keepdim)  # a value reduction vmap can batch
    axis = _dim1(dim, a.ndim, name)
    if a.ndim == 0:
        return _make(np.zeros((), np.int64))
    _nonempty(a, (axis,), name)
    return _ARG[name].apply(input, (axis,), keepdim)


@_np_aliases
def argmax(input, dim=None, keepdim=False):
    """Index of the maximum (``torch.argmax``), first among ties, of the flattened input if ``dim`` is
    None. int64; RuntimeError for bool input, IndexError for an empty reduction."""
    return _arg(np.argmax, "argmax", input, dim, keepdim)


@_np_aliases
def argmin(input, dim=None, keepdim=False):
    """Index of the minimum (``torch.argmin``); see ``argmax``."""
    return _arg(np.argmin, "argmin", input, dim, keepdim)


# ------------------------------------------------------------------------------------------------
# logsumexp
# ------------------------------------------------------------------------------------------------
class LogsumexpBackward0(Op):
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)
    _saves = (0, "out")
    _graph, _graph_recompute = False, True

    def forward(self, a, axes, keepdim):
        self.shape, self.axes, self.keepdim = a.shape, axes, keepdim
        m = np.max(a, axis=axes, keepdims=True, initial=-np.inf)
        # an all -inf (or a +inf) slice must not be shifted by an infinity: that would give nan
        m = np.where(np.isinf(m), 0, m).astype(a.dtype, copy=False)
        with np.errstate(divide="ignore"):
            r = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
        self.saved = (a, r)
        return r if keepdim else r.reshape(np.shape(np.sum(r, axis=axes)) if axes else ())

    def backward(self, g):
        a, r = self.saved
        if self._graph:  # create_graph: the kept-dims result from the output's box
            a, r = self._graph_args[0], _keep(self._graph_out, self.axes, self.keepdim)
        with np.errstate(invalid="ignore"):  # inf - inf: PyTorch's gradient is nan there too
            return _expand(g, self.shape, self.axes, self.keepdim) * _cj(np.exp(a - r))  # complex: g * conj(f')


@_np_aliases
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input), dim))`` computed stably by shifting with the max (``torch.logsumexp``).

    Integer inputs promote to the default float dtype. ``dim`` is an int or tuple.
    """
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    if input._data.dtype.kind in "biu":
        input = cast(input, _dtype.get_default_dtype())
    axes = _axes(dim, input._data.ndim, "logsumexp")
    return _out(LogsumexpBackward0.apply(input, axes=axes, keepdim=keepdim), out)


# ------------------------------------------------------------------------------------------------
# norm
# ------------------------------------------------------------------------------------------------
class LinalgVectorNormBackward0(Op):
    """``(sum |a|^p)^(1/p)`` over ``axes``; ``p`` = 0 (count), 1, 2, +-inf (max/min of |a|) or any float."""
    _vmap = ("axis", "axes")  # batching rule kind (func/_batching_rules.py)

    _saves = (0, "out")

    def forward(self, a, ord, axes, keepdim):
        self.shape, self.axes, self.keepdim, self.ord = a.shape, axes, keepdim, ord
        if ord in (np.inf, -np.inf) and 0 in (a.shape if axes is None else [a.shape[i] for i in axes]):
            raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                               "operation does not have an identity")
        x = np.abs(a)
        kw = dict(axis=axes, keepdims=keepdim)
        if ord == 2:
            r = np.sqrt(np.sum(x * x, **kw))
        elif ord == 1:
            r = np.sum(x, **kw)
        elif ord == np.inf:
            r = np.max(x, initial=0, **kw)
        elif ord == -np.inf:
            r = np.min(x, **kw)
        elif ord == 0:
            r = np.sum(x != 0, **kw).astype(x.dtype)
        else:
            with np.errstate(divide="ignore"):
                r = np.sum(x ** ord, **kw) ** (1 / ord)
        r = np.asarray(r)
        self.saved = (a, r)
        return r

    def backward(self, g):
        a, r = self.saved
        p = self.ord
        if p == 0:
            return None  # the count of non-zeros is piecewise constant; PyTorch leaves the grad undefined
        g = _expand(g, self.shape, self.axes, self.keepdim)
        r = _keep(r, self.axes, self.keepdim)
        if p == 1:
            return g * np.sign(a)
        with np.errstate(invalid="ignore", divide="ignore"):
            if p == 2:
                return g * np.where(r == 0, 0, a / r)
            if np.isinf(p):  # ties share the gradient
                mask = np.abs(a) == r
                cnt = np.sum(mask, axis=self.axes, keepdims=True).astype(a.dtype)
                return g * np.where(mask, np.sign(a) / cnt, 0)
            s = np.sign(a) * np.where(a == 0, 0, np.abs(a) ** (p - 1)) / r ** (p - 1)
            return g * np.where(r == 0, 0, s)


class NuclearNormBackward0(Op):
    """Sum of singular values over two dims; its gradient is ``U @ Vh`` of the reduced SVD."""

    _saves = (0,)  # read only by the create_graph backward
    _graph, _graph_recompute = False, True

    def forward(self, a, dims, keepdim):
        self.dims, self.keepdim = dims, keepdim
        u, s, vh = np.linalg.svd(np.moveaxis(a, dims, (-2, -1)), full_matrices=False)
        self.saved = (u @ vh,)
        r = s.sum(-1)
        return np.expand_dims(r, sorted(dims)) if keepdim else r

    def backward(self, g):
        (uv,) = self.saved
        if self._graph:  # create_graph: U @ Vh again, from a differentiable SVD of the input's box
            u, _, vh = np.linalg.svd(np.moveaxis(self._graph_args[0], self.dims, (-2, -1)), full_matrices=False)
            uv = u @ vh
        if self.keepdim:
            g = np.squeeze(g, axis=tuple(sorted(self.dims)))
        return np.moveaxis(g[..., None, None] * uv, (-2, -1), self.dims)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector or matrix norm (``torch.norm``).

    A number ``p`` (0, 1, 2, inf, -inf, any float) or ``'fro'`` (the 2-norm) gives the vector norm
    over ``dim`` (int, tuple, or None for all elements); ``'nuc'`` gives the nuclear norm over two
    dims (``dim`` a 2-tuple, or a 2-D input). ``dtype`` casts the input first. RuntimeError for
    non-floating inputs, an unknown order, or a ``'nuc'`` dim that is not a 2-tuple.
    """
    input = _float_input(input, dtype, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ")
    a = input._data
    if p is None:
        p = "fro"
    if isinstance(p, str):
        # 'fro' over at most two dims is the vector 2-norm; otherwise PyTorch goes to matrix_norm
        seq = isinstance(dim, (tuple, list))
        if p == "nuc" or (p == "fro" and seq and len(dim) > 2):
            dims = tuple(range(a.ndim)) if dim is None else dim
            if not isinstance(dims, (tuple, list)) or len(dims) != 2:
                got = " ".join(map(str, dims)) if isinstance(dims, (tuple, list)) else dims
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {got}")
            dims = tuple(wrap_dim(d, a.ndim) for d in dims)
            return _out(NuclearNormBackward0.apply(input, dims=dims, keepdim=keepdim), out)
        if p != "fro":
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        p = 2
    axes = _axes(dim, a.ndim, "norm")
    return _out(LinalgVectorNormBackward0.apply(input, ord=float(p), axes=axes, keepdim=keepdim), out)
