"""Batched tensors and the vmap dispatcher (the machinery behind ``numtorch.func.vmap``).

A batched tensor (``BatchedTensor``) is what a function under ``vmap`` sees in place of a tensor with
a batch dimension. It keeps a plain tensor, ``_phys``, whose LEADING dims are the batch dims of the
vmap levels it is batched at (``_levels``, ascending: outer vmap first), followed by the logical data.
Its own ``_data`` is a memoryless stand-in array of the LOGICAL shape and dtype (``_Logical``), so
every public function that reads ``x.shape``, ``x.dim()`` or ``x._data.shape`` to check arguments and
compute an Op's options computes them for one sample, as the user wrote them. The stand-in refuses to
give values (ufuncs, array functions, indexing, reshape...), so code that bypasses the Ops raises
instead of computing on zeros.

While a vmap is active, ``Op.apply`` hands every call to ``dispatch`` (one flag read in Op.apply; see
``autograd/function.py``). ``dispatch`` finds the batched arguments and runs the Op class's batching
rule (named by its ``_vmap`` class attribute, implemented in ``_batching_rules.py``) on the physical
tensors, or, for an Op without a rule, ``fallback``: a loop over the batch that calls the Op on each
sample and stacks the results (it warns once per Op, as PyTorch's BatchedFallback does). Either way
the results are ordinary autograd results on the physical tensors, so ``autograd.grad`` inside vmap
differentiates them (see ``lift_for_grad``).
"""
from __future__ import annotations

import itertools
import math
import threading
import warnings

import numpy as np

from .._tensor import Size, Tensor
from ..autograd import function as _function
from ..autograd.grad_mode import _State

__all__ = ["BatchedTensor", "dispatch", "fallback", "lift_for_grad", "lift_inputs", "physical_grad", "is_batched"]

_new = object.__new__


# ------------------------------------------------------------------------------------------------
# vmap levels (per thread, as PyTorch's functorch interpreter stack)
# ------------------------------------------------------------------------------------------------
class _Level:
    __slots__ = ("id", "size", "randomness")

    def __init__(self, id, size, randomness):
        self.id, self.size, self.randomness = id, size, randomness


class _Levels(threading.local):
    stack = ()  # the active _Level objects of this thread, outermost first


_LEVELS = _Levels()
_next_id = itertools.count(1)


def push_level(size, randomness):
    lvl = _Level(next(_next_id), size, randomness)
    _LEVELS.stack = _LEVELS.stack + (lvl,)
    _State.vmap = len(_LEVELS.stack)
    return lvl


def pop_level():
    _LEVELS.stack = _LEVELS.stack[:-1]
    _State.vmap = len(_LEVELS.stack)


def current_level():
    return _LEVELS.stack[-1] if _LEVELS.stack else None


def _level_size(lid):
    for lvl in _LEVELS.stack:
        if lvl.id == lid:
            return lvl.size
    raise RuntimeError("Either your tensor may have escaped from inside a function being vmapped and this is a "
                       "user error (see https://pytorch.org/functorch/stable/ux_limitations.html), or there is "
                       "an internal functorch error in `gen_vmap_plumbing` Please file an issue if it looks "
                       "like the latter")


# ------------------------------------------------------------------------------------------------
# the logical stand-in array
# ------------------------------------------------------------------------------------------------
_ZEROS = bytes(64)
_READ_ERROR = ("vmap: numtorch cannot read the values of a batched tensor outside an op (a function that "
               "computes on `tensor._data` directly has no batching rule). Either the tensor escaped from the "
               "function being vmapped (see https://pytorch.org/functorch/stable/ux_limitations.html), or "
               "the op is not supported under vmap")


class StandInRead(RuntimeError):
    """A value read of a batched tensor's stand-in (a RuntimeError, as before): the batched backward
    (``_batched_backward.py``) catches it to run that one node's formula sample by sample."""


def _read_error(standin):
    """StandInRead for a value read of ``standin``: PyTorch's escaped-tensor message when its vmap level
    is no longer active (the tensor escaped the vmapped function), else numtorch's own."""
    src = getattr(standin, "_src", None)
    active = {lvl.id for lvl in _LEVELS.stack}
    if src is not None and not set(src[1]) <= active:
        try:
            _level_size(next(lid for lid in src[1] if lid not in active))
        except RuntimeError as e:
            return StandInRead(str(e))
    return StandInRead(_READ_ERROR)


class _Logical(np.ndarray):
    """A batched tensor's ``_data``: the logical shape and dtype of one sample, no memory (zero strides
    over a shared zero buffer) and no values: computing with it raises RuntimeError."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise _read_error(next((a for a in inputs if isinstance(a, _Logical)), self))

    def __array_function__(self, func, types, args, kwargs):
        if func in _SHAPE_FUNCS:  # shape-only functions give a stand-in of the resulting shape
            return _relabel(func(*[_plain(a) for a in args], **kwargs))
        raise _read_error(next((a for a in args if isinstance(a, _Logical)), self))

    def _refuse(self, *args, **kwargs):
        raise _read_error(self)

    _src = None  # (physical tensor, levels) of the batched tensor whose _data this is

    def _shape_only(name):
        def method(self, *args, **kwargs):
            return _relabel(getattr(_plain(self), name)(*args, **kwargs), self)
        method.__name__ = name
        return method

    __getitem__ = _shape_only("__getitem__")
    reshape, astype = _shape_only("reshape"), _shape_only("astype")
    copy, view = _shape_only("copy"), _shape_only("view")
    transpose, swapaxes, ravel = _shape_only("transpose"), _shape_only("swapaxes"), _shape_only("ravel")
    flatten, squeeze = _shape_only("flatten"), _shape_only("squeeze")
    __setitem__ = tolist = item = tobytes = fill = __iter__ = __float__ = __int__ = __bool__ = _refuse
    del _shape_only


_SHAPE_FUNCS = {np.reshape, np.expand_dims, np.squeeze, np.moveaxis, np.transpose, np.swapaxes, np.broadcast_to,
                np.shape, np.ndim, np.size, np.result_type, np.atleast_1d, np.atleast_2d, np.ravel}


def _plain(a):
    return np.ndarray.view(a, np.ndarray) if isinstance(a, _Logical) else a


def _relabel(r, src=None):
    """A shape-only result as a stand-in (values never readable). Same shape as the stand-in ``src``
    (``astype``, ``copy``): it still stands for ``src``'s batched tensor, converted like the result, so
    an Op given the array as an option (``target=``) can find the batched values."""
    if isinstance(r, np.ndarray):
        out = _standin(r.shape, r.dtype)
        if src is not None and src._src is not None and r.shape == src.shape:
            phys, levels = src._src
            out._src = (phys if phys._data.dtype == r.dtype else phys.to(_dtype_of(r.dtype)), levels)
        return out
    return r


def _dtype_of(np_dtype):
    from .._dtype import from_np  # the numtorch dtype of a NumPy dtype
    return from_np(np_dtype)


def _standin(shape, dtype):
    dtype = np.dtype(dtype)
    return np.ndarray.__new__(_Logical, shape, dtype, buffer=_ZEROS, strides=(0,) * len(shape))


# ------------------------------------------------------------------------------------------------
# BatchedTensor
# ------------------------------------------------------------------------------------------------
class BatchedTensor(Tensor):
    """A tensor seen under vmap: logical shape outside, physical ``_phys`` (batch dims first) inside.

    Not a graph node itself (``_rg`` False, no ``grad_fn``): its physical tensor is; ``requires_grad``
    reports the physical one's. ``item()``/``bool()``/``tolist()``/``numpy()`` raise PyTorch's vmap
    RuntimeErrors (data-dependent Python control flow cannot be batched).
    """

    __slots__ = ("_phys", "_levels")

    @property
    def requires_grad(self):
        return self._phys._rg

    @requires_grad.setter
    def requires_grad(self, flag):
        self._phys.requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        self._phys.requires_grad = requires_grad
        return self

    def detach(self):
        return wrap(self._phys.detach(), self._levels)

    def detach_(self):
        self._phys.detach_()
        return self

    def is_contiguous(self, memory_format=None):
        return self._phys._data.flags.c_contiguous

    def stride(self, dim=None):
        st = Tensor.stride(self._phys)[len(self._levels):]
        return st if dim is None else Size(st)[dim]

    def data_ptr(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                           "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                           "operations. If error is occurring somewhere inside PyTorch internals, please file a "
                           "bug report.")

    __float__ = __int__ = __index__ = __complex__ = tolist = item

    def __bool__(self):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                           "flow. We don't support that yet, please file an issue at "
                           "https://github.com/pytorch/pytorch/issues .")

    def numpy(self, *, force=False):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    __array__ = numpy

    def __repr__(self, *, tensor_contents=None):
        return f"BatchedTensor(lvl={self._levels}, bdim=0, value=\n{self._phys!r})"

    def __reduce_ex__(self, proto):
        raise RuntimeError("vmap: cannot pickle a batched tensor")

    def __deepcopy__(self, memo):
        raise RuntimeError("vmap: cannot deepcopy a batched tensor")


def wrap(phys, levels):
    """A BatchedTensor over plain tensor ``phys`` whose first ``len(levels)`` dims are those levels'."""
    t = _new(BatchedTensor)
    d = phys._data
    t._data = _standin(d.shape[len(levels):], d.dtype)
    t._rg = False
    t._grad = t.grad_fn = t._base = t._hooks = None
    t._output_nr = 0
    t._vc = phys._vc
    t._phys, t._levels = phys, levels
    t._data._src = (phys, levels)
    return t


def is_batched(t):
    return type(t) is BatchedTensor


def levels_of(args):
    """The sorted union of the vmap levels of the batched tensors in ``args`` (lists/tuples looked into)."""
    lv = set()
    for a in args:
        if type(a) is BatchedTensor:
            lv.update(a._levels)
        elif type(a) in (list, tuple):
            for b in a:
                if type(b) is BatchedTensor:
                    lv.update(b._levels)
    for lid in lv:
        _level_size(lid)  # raises for an escaped tensor
    return tuple(sorted(lv))


def logical_ndim(a):
    return a._data.ndim


def align(a, levels, rank=None, expand=True):
    """Plain physical tensor of ``a`` (batched or not) with one leading dim per level in ``levels``
    (size 1 where ``a`` is not batched at it, or the level's size if ``expand``), then its logical dims,
    left-padded with size-1 dims to ``rank`` when given."""
    if type(a) is BatchedTensor:
        phys, own = a._phys, a._levels
    else:
        phys, own = a, ()
    d = phys._data
    lshape = d.shape[len(own):]
    pad = (1,) * (rank - len(lshape)) if rank is not None and rank > len(lshape) else ()
    bshape, it = [], iter(d.shape[:len(own)])
    for lid in levels:
        bshape.append(next(it) if lid in own else 1)
    shape = tuple(bshape) + pad + lshape
    if shape != d.shape:
        phys = phys.reshape(shape)
    if expand:
        full = tuple(_level_size(lid) for lid in levels)
        if tuple(bshape) != full:
            phys = phys.expand(full + pad + lshape)
    return phys


def batch_size(levels):
    return math.prod(_level_size(lid) for lid in levels)


def batch_shape(levels):
    return tuple(_level_size(lid) for lid in levels)


# ------------------------------------------------------------------------------------------------
# dispatch
# ------------------------------------------------------------------------------------------------
RULES = {}  # rule kind name -> rule(cls, args, kwargs, levels, *params); filled by _batching_rules.py


def dispatch(cls, args, kwargs):
    """Run Op ``cls`` on ``args`` while a vmap is active (called by ``Op.apply``)."""
    levels = levels_of(args)
    if kwargs:  # an option given as a batched tensor's ``_data`` (``target=`` of cross_entropy)
        for k, v in kwargs.items():
            if type(v) is _Logical and v._src is not None:
                kwargs = dict(kwargs)
                kwargs[k] = wrap(*v._src)
                levels = tuple(sorted(set(levels) | set(v._src[1])))
    depth = _State.vmap
    _State.vmap = 0  # rules and the fallback run ordinary ops on physical tensors
    try:
        if not levels:
            return cls.apply(*args, **kwargs)
        spec = getattr(cls, "_vmap", None)
        if spec is None:
            return fallback(cls, args, kwargs, levels)
        if type(spec) is str:
            spec = (spec,)
        return RULES[spec[0]](cls, args, kwargs, levels, *spec[1:])
    finally:
        _State.vmap = depth


def wrap_out(out, levels):
    if type(out) is tuple:
        return tuple(wrap(o, levels) for o in out)
    return wrap(out, levels)


_WARNED = set()


def fallback(cls, args, kwargs, levels):
    """The loop over the batch for an Op without a batching rule: each batched argument is sliced per
    sample, the Op runs on the slices and the results are stacked (all as recorded ops, so gradients
    flow). Warns once per Op, in PyTorch's words."""
    from .._ops.rearrange import stack  # func (layer 5) uses the op families to stack the samples
    name = getattr(cls, "_node_name", None) or cls.__name__
    if cls not in _WARNED:
        _WARNED.add(cls)
        warnings.warn(f"There is a performance drop because we have not yet implemented the batching rule for "
                      f"{name}. Please file us an issue on GitHub so that we can prioritize its implementation.",
                      UserWarning, stacklevel=4)
    shape = batch_shape(levels)
    n = math.prod(shape)

    def flat(a):
        if type(a) is BatchedTensor:
            p = align(a, levels)
            return p.reshape((n,) + p.shape[len(levels):])
        if type(a) in (list, tuple) and any(type(b) is BatchedTensor for b in a):
            return type(a)(flat(b) for b in a)
        return a

    flats = [flat(a) for a in args]
    kflat = {k: flat(v) for k, v in kwargs.items() if type(v) is BatchedTensor}
    outs = []
    for i in range(n):
        kwargs.update((k, v[i]._data) for k, v in kflat.items())
        sample = [a if f is a else (type(f)(b[i] if type(b) is not type(a) else b for b in f)
                                    if type(f) in (list, tuple) else f[i]) for f, a in zip(flats, args)]
        outs.append(cls.apply(*sample, **kwargs))
    if type(outs[0]) is tuple:
        cols = zip(*outs)
        return tuple(wrap(stack(list(c)).reshape(shape + c[0].shape), levels) for c in map(list, cols))
    return wrap(stack(outs).reshape(shape + outs[0].shape), levels)


# ------------------------------------------------------------------------------------------------
# in-place ops under vmap
# ------------------------------------------------------------------------------------------------
_INPLACE_ERROR = ("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor "
                  "`other` in extra_args that has more elements than `self`. This happened due to `other` being "
                  "vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place "
                  "operators instead of inplace arithmetic. If said operator is being called inside the PyTorch "
                  "framework, please file a bug report instead.")


def inplace(self, result_fn, args, kwargs):
    """``_ops._inplace.inplace`` under vmap: the op runs out of place on the batched value, and its
    physical result is written into ``self``'s physical tensor (history rebased as usual). RuntimeError
    (PyTorch's message) when the result is batched at a level ``self`` is not: writing it would change
    ``self``'s shape."""
    from .._ops._inplace import inplace as plain_inplace  # func (layer 5) reuses the in-place machinery
    own = self._levels if type(self) is BatchedTensor else ()
    target = self._phys if type(self) is BatchedTensor else self
    depth = _State.vmap

    # batched arguments travel as their physical tensors, so the in-place machinery sees whether they
    # require grad (a BatchedTensor itself is no graph node), and are wrapped again for ``result_fn``
    pos = [(i, a._levels) for i, a in enumerate(args) if type(a) is BatchedTensor]
    args = [a._phys if type(a) is BatchedTensor else a for a in args]

    def batched_result(src, *a, **k):
        _State.vmap = depth
        if pos:
            a = list(a)
            for i, lv in pos:
                a[i] = wrap(a[i], lv)
        try:
            res = result_fn(wrap(src, own) if own else src, *a, **k)
        finally:
            _State.vmap = 0
        rl = res._levels if type(res) is BatchedTensor else ()
        if any(lid not in own for lid in rl):
            raise RuntimeError(_INPLACE_ERROR)
        if not own:
            return res
        return align(res, own, rank=self._data.ndim)

    _State.vmap = 0
    try:
        plain_inplace(target, batched_result, *args, **kwargs)
    finally:
        _State.vmap = depth
    return self


# ------------------------------------------------------------------------------------------------
# grad inside vmap
# ------------------------------------------------------------------------------------------------
def lift_for_grad(t):
    """The input a grad transform should differentiate with respect to, for ``t`` inside vmap.

    Inside ``vmap``, ``grad(f)(x)`` must give one gradient per sample. A batched ``x`` already holds one
    row per sample in its physical tensor, so autograd gives per-sample gradients directly. An UNBATCHED
    ``x`` (``vmap(grad(f), in_dims=(None, 0))(params, data)``) is shared by every sample, so autograd
    alone would sum the samples' gradients; it is lifted first: expanded (a view, no copy) to every
    active level, so each sample has its own row and the gradient arriving at the expand is per sample.
    Returns ``(batched_input, physical_tensor)``: call ``f`` on the first, and ask ``autograd.grad`` for
    the gradient with respect to the second; wrap that gradient with ``wrap(g, batched_input._levels)``.
    An input that does not require grad is detached into a fresh leaf first; one that does stays
    connected to its history (so an outer grad sees through). Outside vmap ``t`` is returned twice.
    """
    if not _LEVELS.stack:
        return t, t
    levels = tuple(lvl.id for lvl in _LEVELS.stack)
    depth = _State.vmap
    _State.vmap = 0
    try:
        src, own = (t._phys, t._levels) if type(t) is BatchedTensor else (t, ())
        fresh = not src._rg and src._data.dtype.kind in "fc"
        if fresh:
            src = src.detach().requires_grad_(True)
        phys = align(wrap(src, own) if own else src, levels, expand=True)
        if fresh:  # the transform's own leaf (behind the view), for func/_seams._leaves_of
            phys._lifted_leaf_id = id(src)
    finally:
        _State.vmap = depth
    return wrap(phys, levels), phys


def lift_inputs(inputs):
    """``func.grad``'s lifting seam (``func/_seams._vmap_lift_inputs``): every Tensor in ``inputs`` (a
    tuple; tuples, lists and dicts inside are walked) replaced by ``lift_for_grad(t)[0]``, a batched
    tensor whose physical tensor is a differentiable per-sample node. Identity outside vmap."""
    if not _LEVELS.stack:
        return inputs

    def lift(x):
        if isinstance(x, Tensor):
            return lift_for_grad(x)[0]
        if type(x) in (tuple, list):
            return type(x)(lift(v) for v in x)
        if type(x) is dict:
            return {k: lift(v) for k, v in x.items()}
        return x
    return tuple(lift(x) for x in inputs)


def physical_grad(grad_fn, outputs, inputs, grad_outputs=None, **kwargs):
    """``grad_fn(outputs, inputs, grad_outputs, **kwargs)`` (``autograd.grad``'s signature) for batched
    outputs and inputs: it runs on their physical tensors (a missing or unbatched ``grad_outputs`` entry
    of a batched output becomes ones / is expanded to its batch) and each gradient is wrapped with its
    input's levels, so inside vmap the gradients are per sample. Plain tensors pass through as-is."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    extra = _extra_levels(outputs, grad_outputs)
    if extra:  # cotangents batched where their outputs are not: one batched backward
        return _physical_grad_batched(grad_fn, outputs, inputs, grad_outputs, extra, kwargs)
    depth = _State.vmap
    _State.vmap = 0
    try:
        po, pg = [], []
        for o, g in zip(outputs, grad_outputs):
            po.append(unwrap_physical(o))
            if type(o) is BatchedTensor:
                if g is None:
                    g = po[-1].new_ones(po[-1].shape)
                else:
                    g = align(g, o._levels, rank=o._data.ndim)
            pg.append(g)
        res = grad_fn(po, [unwrap_physical(x) for x in inputs], pg, **kwargs)
    finally:
        _State.vmap = depth
    return tuple(wrap(r, x._levels) if r is not None and type(x) is BatchedTensor else r
                 for r, x in zip(res, inputs))


def _extra_levels(outputs, grad_outputs):
    """The sorted vmap levels some cotangent is batched at while its output is not (``vmap(vjp_fn)``,
    ``jacrev``: a graph made outside the vmap, cotangents made inside)."""
    extra = set()
    for o, g in zip(outputs, grad_outputs):
        if type(g) is BatchedTensor:
            extra.update(lid for lid in g._levels if type(o) is not BatchedTensor or lid not in o._levels)
    return tuple(sorted(extra))


def _physical_grad_batched(grad_fn, outputs, inputs, grad_outputs, extra, kwargs):
    """``physical_grad`` when cotangents carry the levels ``extra`` that their outputs lack.

    The graph runs on physical tensors (an output batched at its own levels L is the plain tensor
    ``o._phys``), so each cotangent is regrouped as a tensor batched at ``extra`` ONLY, whose logical
    shape is the physical output's shape (``L`` dims, then the output's). With vmap left active,
    ``autograd.grad`` sees batched grad_outputs and runs one batched backward (``_batched_backward.py``):
    every formula runs once for the whole batch. A gradient comes back batched at (some of) ``extra``
    with its input's physical shape; its input's own levels are merged back in ascending order."""
    depth = _State.vmap
    po, pg, pi = [], [], []
    _State.vmap = 0
    try:
        for o, g in zip(outputs, grad_outputs):
            own = o._levels if type(o) is BatchedTensor else ()
            p = unwrap_physical(o)
            po.append(p)
            if g is None:
                g = p.new_ones(p.shape)
            else:
                g = _regroup(g, own, extra, o._data.ndim)
            pg.append(g)
        for x in inputs:
            if type(x) is BatchedTensor and set(x._levels) & set(extra):
                raise NotImplementedError("numtorch: vmap: a gradient with respect to an input batched at the "
                                          "cotangents' own vmap level is not supported")
            pi.append(unwrap_physical(x))
    finally:
        _State.vmap = depth
    res = grad_fn(po, pi, pg, **kwargs)
    _State.vmap = 0
    try:
        return tuple(None if r is None else _merge(r, x._levels if type(x) is BatchedTensor else ())
                     for r, x in zip(res, inputs))
    finally:
        _State.vmap = depth


def _regroup(g, own, extra, rank):
    """Cotangent ``g`` (logical: one output sample) as a tensor batched at ``extra`` whose logical value
    is the physical output: dims of ``extra`` first, then those of the output's levels ``own``."""
    every = tuple(sorted(set(own) | set(extra)))
    phys = align(g, every, rank)
    order = [every.index(lid) for lid in extra] + [every.index(lid) for lid in own]
    if order != sorted(order):
        phys = phys.permute(order + list(range(len(every), phys.dim())))
    return wrap(phys, extra)


def _merge(r, own):
    """A gradient batched at cotangent levels (logical: its input's physical tensor, ``own`` dims
    first) as a batched tensor at ``own`` and those levels together, in ascending level order."""
    rl = r._levels if type(r) is BatchedTensor else ()
    if not rl:
        return wrap(r, own) if own else r
    if not own:
        return r
    every = tuple(sorted(set(rl) | set(own)))
    cur = rl + own
    order = [cur.index(lid) for lid in every]
    phys = r._phys
    if order != sorted(order):
        phys = phys.permute(order + list(range(len(cur), phys.dim())))
    return wrap(phys, every)


def unwrap_physical(t):
    """The physical tensor of a batched tensor (or ``t`` itself)."""
    return t._phys if type(t) is BatchedTensor else t


class _NonDiff:
    """A non-differentiable elementwise NumPy function (``_ops/_util._nondiff``) seen as an Op class, so
    the elementwise batching rule and the fallback can run it."""

    _vmap = "elementwise"

    def __init__(self, fn, unary):
        self.fn, self.unary = fn, unary

    def apply(self, a, b=None):
        from .._ops._util import _nondiff  # func (layer 5) runs the op machinery's kernel on physical tensors
        return _nondiff(self.fn, a) if self.unary else _nondiff(self.fn, a, b)


def nondiff(fn, a, b=None):
    """``_ops/_util._nondiff`` under vmap: the elementwise rule on the physical operands."""
    op = _NonDiff(fn, b is None)
    return dispatch(op, (a,) if b is None else (a, b), {})


_function.vmap_dispatch = dispatch
_function.vmap_nondiff = nondiff
_function.vmap_inplace = inplace
_function.vmap_wrap = wrap
