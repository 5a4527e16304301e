"""Differentiable backward passes: how ``create_graph=True`` works.

Every built-in Op writes its backward formula once, on NumPy arrays (``autograd/function.py``). A
first-order backward calls that formula on ndarrays, at NumPy speed. When a graph of the gradients
is asked for (``backward(create_graph=True)``, ``autograd.grad(..., create_graph=True)``), the engine
calls the *same* formula on ``GradArray`` boxes instead: objects that look like ndarrays to the
formula (``shape``, ``dtype``, operators, ``x.sum(axis=...)``, ``np.exp(x)``, ``np.where(...)``) but
compute every step with numtorch ops on Tensors, so each step records a node. The gradients that
come out are Tensors with a ``grad_fn``, and can be differentiated again, to any order.

This is the ArrayBox idea of HIPS autograd (and of JAX's tracers) applied to backward formulas: one
formula per op, no second hand-written copy that could drift from the first.

What a formula may use on a box is listed in the tables below; anything else raises
``NotImplementedError`` naming the op, never a silently wrong gradient. The values an Op saved are
boxed back into the Tensors they came from (saved inputs keep their graph; a saved output becomes a
Tensor whose ``grad_fn`` is the node itself). A node that kept other floating-point arrays (values
derived from its inputs, e.g. a normalised input) cannot know how they depend on the inputs, so its
double backward raises unless its class lists them in ``_graph_constants`` (arrays that are constant
with respect to the inputs: masks, indices) or sets ``_graph_recompute = True`` and rebuilds them
from ``self._graph_args``/``self._graph_out`` when ``self._graph`` is set (see ``_boxed_copy``).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from .._ops import pointwise as P, unary as U, reduction as R, shape as S, rearrange as RA
from .._ops import determinants as D, einsum as E, linalg as L, matmul as M
from .._ops import special as SP, cumulative as CU
from .._ops import scatter as SC
from .._ops._inplace import copy_
from . import engine
from .function import Op, Unsaved, _FunctionNode

__all__ = ["GradArray", "run_node"]


def _t(x):
    """A Tensor for a box, an array or a scalar (arrays and scalars are constants)."""
    if isinstance(x, GradArray):
        return x.t
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return _make(x)
    return x  # Python / NumPy scalars stay scalars: numtorch promotes them like NumPy does


def _box(x):
    if isinstance(x, Tensor):
        # a batched tensor (vmap, a subclass) stays boxed: its ``_data`` is a stand-in without values
        return GradArray(x) if x._rg or type(x) is not Tensor else x._data
    return x


def _batched(t):
    """Whether ``t`` is a batched tensor (``func._batched.BatchedTensor``, under vmap)."""
    return type(t) is not Tensor and hasattr(t, "_levels")


def _axis_to_dim(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return axis


class GradArray:
    """An ndarray look-alike wrapping a Tensor, so a NumPy backward formula records a graph."""

    __slots__ = ("t",)
    __array_priority__ = 2000  # above Tensor and ndarray: mixed operations come here

    def __init__(self, t: Tensor):
        self.t = t

    # ----------------------------------------------------------------- ndarray metadata
    shape = property(lambda self: self.t._data.shape)
    dtype = property(lambda self: self.t._data.dtype)
    ndim = property(lambda self: self.t._data.ndim)
    size = property(lambda self: self.t._data.size)
    itemsize = property(lambda self: self.t._data.itemsize)
    T = property(lambda self: GradArray(self.t.permute(*range(self.ndim - 1, -1, -1))))
    real = property(lambda self: GradArray(self.t.real) if self.t.is_complex() else self)
    imag = property(lambda self: GradArray(self.t.imag))

    def __len__(self):
        return len(self.t)

    def __repr__(self):
        return f"GradArray({self.t!r})"

    def __array__(self, dtype=None, copy=None):
        # Turning a box into a plain array would silently cut the graph.
        raise NotImplementedError("a backward formula turned a gradient into a plain array; its double "
                                  "backward is not supported")

    # ----------------------------------------------------------------- operators
    def _bin(fn, swap=False):
        def op(self, other):
            if isinstance(other, (list, tuple)):
                return NotImplemented
            a, b = (_t(other), self.t) if swap else (self.t, _t(other))
            return _box(fn(a, b))
        return op

    __add__, __radd__ = _bin(P.add), _bin(P.add, True)
    __sub__, __rsub__ = _bin(P.sub), _bin(P.sub, True)
    __mul__, __rmul__ = _bin(P.mul), _bin(P.mul, True)
    __truediv__, __rtruediv__ = _bin(P.div), _bin(P.div, True)
    __pow__, __rpow__ = _bin(P.pow), _bin(P.pow, True)
    __matmul__, __rmatmul__ = _bin(L.matmul), _bin(L.matmul, True)
    del _bin

    def __neg__(self):
        return GradArray(P.neg(self.t)) if hasattr(P, "neg") else GradArray(U.neg(self.t))

    def __pos__(self):
        return self

    def __abs__(self):
        return _box(U.abs(self.t))

    # comparisons give constants (masks), as they have no gradient
    def _cmp(name):
        def op(self, other):
            o = other.t._data if isinstance(other, GradArray) else other
            return getattr(self.t._data, name)(o)
        return op

    __lt__, __le__, __gt__, __ge__ = _cmp("__lt__"), _cmp("__le__"), _cmp("__gt__"), _cmp("__ge__")
    __eq__, __ne__ = _cmp("__eq__"), _cmp("__ne__")
    del _cmp
    __hash__ = None

    # ----------------------------------------------------------------- methods formulas use
    def sum(self, axis=None, dtype=None, keepdims=False, out=None):
        _no_out(out)
        t = self.t if dtype is None else self.t.to(_dt(dtype))
        if axis is None and not keepdims:
            return _box(R.sum(t))
        return _box(R.sum(t, dim=_axis_to_dim(axis, self.ndim), keepdim=keepdims))

    def mean(self, axis=None, dtype=None, keepdims=False, out=None):
        _no_out(out)
        if axis is None and not keepdims:
            return _box(R.mean(self.t))
        return _box(R.mean(self.t, dim=_axis_to_dim(axis, self.ndim), keepdim=keepdims))

    def max(self, axis=None, out=None, keepdims=False):
        _no_out(out)
        return _box(R.amax(self.t, dim=_axis_to_dim(axis, self.ndim), keepdim=keepdims))

    def min(self, axis=None, out=None, keepdims=False):
        _no_out(out)
        return _box(R.amin(self.t, dim=_axis_to_dim(axis, self.ndim), keepdim=keepdims))

    def reshape(self, *shape, order="C"):
        if order != "C":
            raise NotImplementedError("GradArray.reshape: only order='C'")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _box(S.reshape(self.t, shape))

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], np.ndarray):  # e.g. np.argsort(dims)
            axes = (tuple(int(a) for a in axes[0]),)
        if not axes:
            axes = tuple(range(self.ndim - 1, -1, -1))
        elif len(axes) == 1 and isinstance(axes[0], (tuple, list, np.ndarray)):
            axes = tuple(axes[0])
        axes = tuple(int(a) for a in axes)  # NumPy integers (from argsort, say) are fine too
        return _box(S.permute(self.t, axes))

    def swapaxes(self, a, b):
        return _box(S.transpose(self.t, a, b))

    def squeeze(self, axis=None):
        return _box(S.squeeze(self.t) if axis is None else S.squeeze(self.t, axis))

    def astype(self, dtype, copy=True, **kw):
        d = np.dtype(dtype)
        if d == self.dtype:
            return self
        if d.kind not in "fcV":
            if _batched(self.t):
                _unsupported("an integer cast of a batched gradient")
            return self.t._data.astype(d)  # an integer/bool cast has no gradient
        return _box(self.t.to(_dt(d)))

    def conj(self):
        return _box(self.t.conj()) if self.t.is_complex() else self

    conjugate = conj

    def copy(self, order="C"):
        return _box(S.clone(self.t))

    def apply_tensor_fn(self, fn, *args, **kwargs):
        """``fn(tensor, *args, **kwargs)`` on the boxed Tensor, boxed: for a formula whose NumPy steps have
        no box form (SciPy's FFTs), written again with the differentiable numtorch ops it stands for."""
        return _box(fn(self.t, *args, **kwargs))

    def __getitem__(self, idx):
        return _box(self.t[_index(idx)])

    def __setitem__(self, idx, value):
        # Formulas write into fresh gradient buffers; on a box that is a functional update.
        out = S.clone(self.t)
        out[_index(idx)] = _t(value) if isinstance(value, (GradArray, np.ndarray)) else value
        self.t = out

    # ----------------------------------------------------------------- NumPy protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None or "where" in kwargs:
            return _unsupported(f"np.{ufunc.__name__}.{method}" if method != "__call__" else
                                f"np.{ufunc.__name__}(out=/where=)")
        if ufunc.__name__ in _CONSTANT_UFUNCS:  # comparisons, predicates: no gradient
            return ufunc(*[x.t._data if isinstance(x, GradArray) else x for x in inputs], **kwargs)
        fn = _UFUNCS.get(ufunc.__name__)
        if fn is None:
            return _unsupported(f"np.{ufunc.__name__}")
        return _box(fn(*[_t(x) for x in inputs]))

    def __array_function__(self, func, types, args, kwargs):
        fn = _FUNCTIONS.get(func.__name__)
        if fn is None:
            return _unsupported(f"np.{func.__name__}")
        return fn(*args, **kwargs)


def _no_out(out):
    if out is not None:
        _unsupported("out= on a gradient")


def _dt(np_dtype):
    return _dtype.from_np(np.dtype(np_dtype))


def _index(idx):
    if isinstance(idx, tuple):
        return tuple(_t(i) if isinstance(i, GradArray) else i for i in idx)
    return idx


class _Unsupported(NotImplementedError):
    pass


def _unsupported(what):
    raise _Unsupported(what)


# ----------------------------------------------------------------------------------------------------
# What a backward formula may call on boxes: NumPy ufuncs and functions mapped to numtorch ops
# ----------------------------------------------------------------------------------------------------
_CONSTANT_UFUNCS = {"greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "isnan",
                    "isinf", "isfinite", "signbit", "logical_and", "logical_or", "logical_not", "logical_xor",
                    "sign", "floor", "ceil", "trunc", "rint"}


def _ufuncs():
    u = {"add": P.add, "subtract": P.sub, "multiply": P.mul, "true_divide": P.div, "divide": P.div,
         "power": P.pow, "float_power": P.pow, "maximum": P.maximum, "minimum": P.minimum,
         "arctan2": P.atan2, "fmax": P.fmax, "fmin": P.fmin, "matmul": L.matmul}
    for name, ours in (("negative", "neg"), ("absolute", "abs"), ("exp", "exp"), ("exp2", "exp2"),
                       ("expm1", "expm1"), ("log", "log"), ("log2", "log2"), ("log10", "log10"),
                       ("log1p", "log1p"), ("sqrt", "sqrt"), ("square", "square"), ("reciprocal", "reciprocal"),
                       ("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("arcsin", "asin"), ("arccos", "acos"),
                       ("arctan", "atan"), ("sinh", "sinh"), ("cosh", "cosh"), ("tanh", "tanh"),
                       ("arcsinh", "asinh"), ("arccosh", "acosh"), ("arctanh", "atanh")):
        mod = U if hasattr(U, ours) else P
        if hasattr(mod, ours):
            u[name] = getattr(mod, ours)
    u["conjugate"] = u["conj"] = lambda x: x.conj() if x.is_complex() else x
    # SciPy's special-function ufuncs (the special family's formulas call them) -> numtorch's ops
    for name, ours in (("psi", "digamma"), ("gammaln", "lgamma"), ("i0", "i0"), ("i1", "i1"), ("i0e", "i0e"),
                       ("i1e", "i1e"), ("erfc", "erfc"), ("erfcx", "erfcx"), ("ndtr", "ndtr"), ("ndtri", "ndtri"),
                       ("log_ndtr", "log_ndtr"), ("xlog1py", "xlog1py"), ("xlogy", "xlogy")):
        u[name] = getattr(SP, ours)
    u["zeta"] = u["_zeta"] = _zeta
    u["erf"], u["erfinv"], u["expit"] = U.erf, U.erfinv, U.sigmoid
    return u


def _zeta(x, q):
    # SciPy's zeta(x, q) takes numbers for x; numtorch's zeta a Tensor or number for either
    return SP.zeta(x if isinstance(x, Tensor) else float(x), q)


_UFUNCS = _ufuncs()
_UFUNCS.setdefault("erf", U.erf)  # scipy.special.erf is a ufunc


def _logaddexp(a, b):
    """``np.logaddexp``: ``max(a, b) + log1p(exp(-|a - b|))``, the max as ``(a + b + |a - b|) / 2``."""
    ad = U.abs(P.sub(a, b) if isinstance(a, Tensor) else P.sub(b, a))
    return P.add(P.mul(P.add(P.add(ad, a), b), 0.5), U.log1p(U.exp(U.neg(ad))))


_UFUNCS.setdefault("logaddexp", _logaddexp)


def _where(cond, x=None, y=None):
    if isinstance(cond, GradArray) and _batched(cond.t):
        _unsupported("np.where on a batched gradient's values")
    if x is None:
        return np.where(cond.t._data if isinstance(cond, GradArray) else cond)
    c = cond.t._data if isinstance(cond, GradArray) else np.asarray(cond)
    return _box(P.where(_make(np.asarray(c, bool)), _t(x), _t(y)))


def _zeros_like(a, dtype=None, **kw):
    src = a.t._data if isinstance(a, GradArray) else a  # shape and dtype only (a batched box's is a stand-in)
    return np.zeros(src.shape, src.dtype if dtype is None else dtype)


def _ones_like(a, dtype=None, **kw):
    src = a.t._data if isinstance(a, GradArray) else a
    return np.ones(src.shape, src.dtype if dtype is None else dtype)


def _sum(a, axis=None, dtype=None, keepdims=False, **kw):
    return GradArray(_t(a)).sum(axis, dtype, keepdims) if not isinstance(a, GradArray) else a.sum(axis, dtype, keepdims)


def _broadcast_to(a, shape, **kw):
    return _box(S.broadcast_to(_t(a), tuple(shape)))


def _expand_dims(a, axis):
    t = _t(a)
    for ax in sorted(axis if isinstance(axis, (tuple, list)) else (axis,)):
        t = S.unsqueeze(t, ax)
    return _box(t)


def _concatenate(arrays, axis=0, **kw):
    return _box(RA.cat([_t(x) for x in arrays], axis))


def _stack(arrays, axis=0, **kw):
    return _box(RA.stack([_t(x) for x in arrays], axis))


def _einsum(eq, *ops, **kw):
    return _box(E.einsum(eq, *[_t(x) for x in ops]))


def _matmul(a, b, **kw):
    return _box(L.matmul(_t(a), _t(b)))


def _clip(a, lo=None, hi=None, **kw):
    return _box(U.clamp(_t(a), lo, hi))


def _take_along_axis(a, idx, axis):
    return _box(SC.gather(_t(a), axis, _make(np.asarray(idx))))


def _moveaxis(a, src, dst):
    return _box(S.movedim(_t(a), src, dst))


def _flip(a, axis=None):
    t = _t(a)
    axes = tuple(range(t.ndim)) if axis is None else (axis if isinstance(axis, (tuple, list)) else (axis,))
    return _box(RA.flip(t, axes))


def _cumsum(a, axis=None, dtype=None, **kw):
    t = _t(a) if axis is not None else S.reshape(_t(a), (-1,))
    return _box(CU.cumsum(t, 0 if axis is None else axis, dtype=None if dtype is None else _dt(dtype)))


def _cumprod(a, axis=None, dtype=None, **kw):
    t = _t(a) if axis is not None else S.reshape(_t(a), (-1,))
    return _box(CU.cumprod(t, 0 if axis is None else axis, dtype=None if dtype is None else _dt(dtype)))


def _prod(a, axis=None, dtype=None, keepdims=False, **kw):
    t = _t(a) if dtype is None else _t(a).to(_dt(dtype))
    if axis is None:
        out = R.prod(t)
        return _box(S.reshape(out, (1,) * t.ndim) if keepdims else out)
    for ax in sorted(axis if isinstance(axis, (tuple, list)) else (axis,), reverse=True):
        t = R.prod(t, ax, keepdim=True)
    return _box(t if keepdims else S.squeeze(t, axis) if not isinstance(axis, (tuple, list)) else
                S.reshape(t, tuple(n for i, n in enumerate(t.shape) if i not in {x % t.ndim for x in axis})))


_FUNCTIONS = {
    "where": _where, "zeros_like": _zeros_like, "ones_like": _ones_like, "sum": _sum,
    "broadcast_to": _broadcast_to, "expand_dims": _expand_dims, "concatenate": _concatenate,
    "stack": _stack, "einsum": _einsum, "matmul": _matmul, "clip": _clip,
    "take_along_axis": _take_along_axis, "moveaxis": _moveaxis,
    "cross": lambda a, b, axis=-1, **kw: _box(L.cross(_t(a), _t(b), dim=axis)),
    "tril": lambda m, k=0: _box(RA.tril(_t(m), k)), "triu": lambda m, k=0: _box(RA.triu(_t(m), k)),
    "inv": lambda a: _box(L.inv(_t(a))), "det": lambda a: _box(D.det(_t(a))),
    "solve": lambda a, b: _box(L.solve(_t(a), _t(b))),  # b (..., n, k) as in the formulas (NumPy 2)
    "reshape": lambda a, shape, **kw: GradArray(_t(a)).reshape(shape),
    "transpose": lambda a, axes=None: GradArray(_t(a)).transpose(*(axes or ())),
    "swapaxes": lambda a, x, y: GradArray(_t(a)).swapaxes(x, y),
    "squeeze": lambda a, axis=None: GradArray(_t(a)).squeeze(axis),
    "mean": lambda a, axis=None, dtype=None, keepdims=False, **kw: GradArray(_t(a)).mean(axis, dtype, keepdims),
    "conj": lambda a: a.conj(), "conjugate": lambda a: a.conj(),
    "real": lambda a: a.real, "imag": lambda a: a.imag,
    "shape": lambda a: a.shape, "ndim": lambda a: a.ndim, "size": lambda a: a.size,
    "result_type": lambda *a: np.result_type(*[x.dtype if isinstance(x, GradArray) else x for x in a]),
    "iscomplexobj": lambda a: a.dtype.kind == "c",
    "isrealobj": lambda a: a.dtype.kind != "c",
    "asarray": lambda a, dtype=None, **kw: a if dtype is None else a.astype(dtype),
    "ascontiguousarray": lambda a, dtype=None, **kw: a if dtype is None else a.astype(dtype),
    "flip": _flip, "cumsum": _cumsum, "cumprod": _cumprod, "prod": _prod,
    "svd": lambda a, full_matrices=True, compute_uv=True, **kw: (
        tuple(_box(x) for x in L.svd(_t(a), full_matrices)) if compute_uv else _box(L.svdvals(_t(a)))),
}


# ----------------------------------------------------------------------------------------------------
# Running one node's backward on Tensors
# ----------------------------------------------------------------------------------------------------
def _not_supported(node, why):
    return NotImplementedError(
        f"numtorch: the derivative of {node.name()}'s backward (double backward, create_graph=True) is not "
        f"implemented: {why}")


def _boxed_copy(node):
    """A shallow copy of ``node`` whose saved arrays are boxes over the Tensors they came from.

    Attributes named in the class's ``_graph_tensors`` that hold Tensors (inputs a node keeps without
    saving them, so that they are not version-checked) are boxed too.

    The copy also gets ``_graph = True``, ``_graph_args`` (a box, or the plain array, for each input
    index in ``_saves``; None elsewhere) and ``_graph_out`` (the saved output's box), so a backward
    whose class sets ``_graph_recompute = True`` can rebuild the intermediates it cached in forward
    from these when ``self._graph`` is set, instead of using the cached (constant) arrays.
    """
    cls = type(node)
    sub = {}
    args = [None] * (max(cls._save_in) + 1 if cls._save_in else 0)
    out_box = None
    for entry in node._versions:
        if len(entry) == 4:  # a saved input: (version counter, version, Tensor, input index)
            t, i = entry[2], entry[3]
            sub[id(t._data)] = t
            if i is not None:  # None: an index Tensor (``save_indices``), a constant
                args[i] = GradArray(t) if t._rg else t._data
        else:  # a saved output's array: a Tensor whose grad_fn is the node itself
            vc, _, arr = entry
            out = _make(arr, True)
            out.grad_fn, out._vc = node, vc
            fw = node.__dict__.get("_fw_out")  # the output's forward-AD tangents (forward_ad.py)
            if fw and 0 in fw:
                out._fw = fw[0]
            sub[id(arr)] = out
            if "_out_scalar" in node.__dict__:  # the forward's NumPy scalar, kept by the backward for a 0-d result
                sub[id(node._out_scalar)] = out
            out_box = GradArray(out)
    consts = getattr(cls, "_graph_constants", ())
    recompute = getattr(cls, "_graph_recompute", False)
    tensors = getattr(cls, "_graph_tensors", ())

    def conv(name, v):
        if name in tensors and isinstance(v, Tensor):  # an input Tensor kept, unsaved, for its graph
            return GradArray(v) if v._rg else v._data
        if isinstance(v, np.generic) and id(v) in sub:
            return GradArray(sub[id(v)])
        if isinstance(v, np.ndarray):
            t = sub.get(id(v))
            if t is not None:
                return GradArray(t) if t._rg else v
            if v.dtype.kind in "fcV" and name not in consts and not recompute and type(v) is not Unsaved:
                raise _not_supported(node, f"it saved an intermediate array ({name}) that depends on its inputs")
            return v
        if type(v) in (tuple, list):
            return type(v)(conv(name, x) for x in v)
        return v

    clone = object.__new__(cls)
    clone.__dict__.update({k: conv(k, v) for k, v in node.__dict__.items() if k not in ("_edges", "_versions")})
    clone._edges = node._edges
    clone._graph, clone._graph_args, clone._graph_out = True, tuple(args), out_box
    clone._graph_outputs = _output_boxes(node)
    conv = None  # conv's closure refers to itself: a cycle that would keep ``node`` alive until gc.collect()
    return clone


class NotImplementedBackward(Op):
    """The gradient of an op PyTorch gives no double backward (class attribute ``_graph_error``: the
    exception type and message, or a dict of them by input index): its value, linked to the incoming
    gradients and saved inputs, and a backward that raises that error, as PyTorch's
    ``torch::autograd::NotImplemented`` node."""

    def forward(self, value, *linked, error):
        self.error = error
        return value

    _node_name = "torch::autograd::NotImplemented"

    def backward(self, *grads):
        raise self.error[0](self.error[1])


def _run_not_implemented(node, grads, error):
    """``error``: (type, message), or a dict of them by input index (key None: the other inputs)."""
    if any(_batched(g) for g in grads):  # the formula runs on arrays: sample by sample (_batched_backward)
        _unsupported(f"{node.name()} on batched gradients")
    out = node._run_backward([g._data for g in grads])
    linked = [*grads, *(e[2] for e in node._versions if len(e) == 4)]
    errs = error if isinstance(error, dict) else {None: error}
    return tuple(None if g is None or e is None else
                 NotImplementedBackward.apply(np.asarray(g), *linked, error=errs.get(i, errs[None]))
                 for i, (g, e) in enumerate(zip(out, node._edges)))


def _output_boxes(node):
    """``clone._graph_outputs(arr0, arr1, ...)``: boxes over a multi-output node's output arrays (in
    output order; ``None`` skipped), Tensors whose ``grad_fn`` is the node. For ops whose backward
    reads their outputs (eigh, svd, qr), which the node keeps as plain arrays."""
    def make(*arrays):
        res = []
        for i, arr in enumerate(arrays):
            if arr is None:
                res.append(None)
                continue
            t = _make(arr, True)
            t.grad_fn, t._output_nr = node, i
            fw = node.__dict__.get("_fw_out")  # the output's forward-AD tangents (forward_ad.py)
            if fw and i in fw:
                t._fw = fw[i]
            res.append(GradArray(t))
        return res
    return make


def _run_op(node, grads):
    if node._versions or node._freed:
        node._check_saved()
    error = getattr(type(node), "_graph_error", None)
    if error is not None:
        return _run_not_implemented(node, grads, error)
    if node._n_out > 1:
        grads = [g if g is not None else _make(z) for g, z in zip(grads, node._materialize([None] * len(grads)))]
    clone = _boxed_copy(node)
    try:
        out = clone.backward(*[GradArray(g) for g in grads])  # boxed even without grad: the graph then version-checks them
    except _Unsupported as e:
        raise _not_supported(node, f"its formula uses {e} on a gradient") from None
    out = out if type(out) is tuple else (out,)
    # what the formula read that has a graph: a gradient computed from them is part of the graph even
    # where its value does not depend on them (PyTorch: relu's second derivative is zeros, not "unused")
    linked = [g for g in grads if g.requires_grad] + [e[2] for e in node._versions if len(e) == 4 and e[2]._rg]
    if clone._graph_out is not None:  # the saved output counts too (relu's gradient reads only its output)
        linked.append(clone._graph_out.t)
    res = []
    for g, e in zip(out, node._edges):
        if isinstance(g, GradArray):
            g = g.t
        if g is None or e is None:
            res.append(None)
        elif isinstance(g, Tensor) and (g.requires_grad or not linked):
            res.append(g)
        elif linked:  # (a batched g goes in as a Tensor: its batching rule is in func/_batching_rules_backward.py)
            res.append(ConstantGradient.apply(g if _batched(g) else g._data if isinstance(g, Tensor)
                                              else np.asarray(g), *linked))
        else:
            res.append(_make(np.asarray(g)))
    return tuple(res)


class ConstantGradient(Op):
    """A gradient whose value does not depend on the Tensors its formula read (``linked``): it stays in
    the graph, and differentiating it again gives zeros for them, as in PyTorch."""

    def forward(self, value, *linked):
        self.shapes = [(x.shape, x.dtype) for x in linked]
        return value

    def backward(self, g):
        return (None,) + tuple(np.zeros(s, d) for s, d in self.shapes)


def _run_function(node, grads):
    """A custom ``autograd.Function``: its backward runs with grad mode on, on the saved Tensors."""
    return node._run_backward_tensors(grads)


def run_node(node, grads):
    """One node's backward on Tensor gradients, recording a graph (``create_graph=True``)."""
    if isinstance(node, Op):
        return _run_op(node, grads)
    if isinstance(node, _FunctionNode):
        return _run_function(node, grads)
    raise _not_supported(node, "this node type has no differentiable backward")


def _grad_copy(g):
    """A leaf's first ``.grad`` under create_graph: as PyTorch's AccumulateGrad, a new Tensor ``copy_``-ed
    from the gradient, so its ``grad_fn`` is ``CopyBackwards`` and it aliases nothing."""
    return copy_(_make(np.empty(g._data.shape, g._data.dtype)), g)


engine.graph_runner = run_node
engine.graph_grad_copy = _grad_copy
engine.stack = RA.stack
