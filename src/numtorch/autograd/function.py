"""Differentiable functions (mirrors ``torch.autograd.Function``).

Two flavours share one graph:

* ``Function`` is PyTorch's public class: subclass it with ``forward(ctx, *args)`` and
  ``backward(ctx, *grad_outputs)`` working on Tensors, call ``MyFn.apply(...)``.
* ``Op`` is how numtorch's own ops are written: the same idea with ``forward``/``backward`` on
  ndarrays and ``self`` as the ctx, which skips Tensor wrapping on the hot path. Each Op class is
  named after its backward node as PyTorch names them (``AddBackward0``, ``MmBackward0``, ...).
"""
from __future__ import annotations

import functools

import numpy as np

from .._backend import LIVE as _META_LIVE
from .._backend import MetaArray
from .._tensor import _GRAD_KINDS, Tensor, _make
from .._tensor_sparse import SparseCOO
from .grad_mode import _State, no_grad
from .graph import Node, _edge

__all__ = ["Function", "FunctionCtx", "Op", "once_differentiable", "save_indices"]


_new = object.__new__
_apply_hook = None  # set by autograd/profiler.py while profiling: (cls, args, kwargs) -> the op's result

# Set by ``numtorch/func/_batched.py`` at import: ``vmap_dispatch(cls, args, kwargs)`` runs an Op on
# batched tensors (their batching rule, or a loop over the batch). Op.apply calls it only while a vmap
# is active in this thread (``_State.vmap``), so outside vmap it costs one attribute read.
vmap_dispatch = None
vmap_inplace = None  # likewise, for ``_ops/_inplace.inplace`` under vmap
vmap_nondiff = None  # and for ``_ops/_util._nondiff`` (comparisons and other non-differentiable elementwise ops)
vmap_wrap = None  # and ``wrap(physical, levels)``, for ``_ops/creation``'s ``*_like`` of a batched tensor
# and the indexing/gather/scatter public functions, which read index values before any Op runs:
# ``vmap_index(name, *args)`` runs their batching rule (func/_batching_rules_index.py) or gives NotImplemented
vmap_index = None
vmap_function = None  # and a custom Function's apply on batched tensors (func/_custom_function.py)

# forward AD's slow paths, set by forward_ad.py (same layer, imported after this module)
fw_apply = fw_function_apply = None

# Set by ``_ops/_meta.py``: ``meta_dispatch(cls, args, kwargs)`` runs an Op on meta tensors (shapes and
# dtypes only), or returns NotImplemented when no input is meta. Op.apply asks only while
# meta arrays are alive (``_backend.LIVE`` is not empty); otherwise it costs one truth test of a list.
meta_dispatch = None


# ------------------------------------------------------------------------------------------------
# Inference tensors: results of ops made in inference mode, which autograd refuses to save
# ------------------------------------------------------------------------------------------------
class _InferenceVersion(list):
    """The version counter of an inference tensor: its type is the mark (``Tensor.is_inference``)."""

    __slots__ = ()


_inference_made = False  # until the process makes an inference tensor, saving checks nothing


def _mark_inference(t):
    """Make ``t`` (a new, non-view op result made in inference mode) an inference tensor."""
    global _inference_made
    _inference_made = True
    t._vc = _InferenceVersion(t._vc)


def _check_not_inference(versions):
    """RuntimeError, in PyTorch's words, if a tensor being saved for backward is an inference tensor;
    ``versions``: the ``(version_counter, version, array)`` entries a node saves."""
    for vc, *_ in versions:
        if type(vc) is _InferenceVersion:
            raise RuntimeError("Inference tensors cannot be saved for backward. Please do not use Tensors created "
                               "in inference mode in computation tracked by autograd. To work around this, you can "
                               "make a clone to get a normal tensor and use it in autograd, or use "
                               "`torch.no_grad()` instead of `torch.inference_mode()`.")


class Unsaved(np.ndarray):
    """Stands in for an input array an Op did not keep (see ``Op._saves_for``): same shape and dtype,
    no memory (zero strides over a shared zero buffer, read-only), so a backward may still read
    ``.shape``/``.dtype`` of it; its values are never used."""


_ZEROS = bytes(64)
_UNSAVED = {}  # (shape, dtype) -> its stand-in; they hold no memory, so the cache only needs a bound


def _unsaved(a):
    key = (a.shape, a.dtype)
    u = _UNSAVED.get(key)
    if u is None:
        if len(_UNSAVED) > 4096:
            _UNSAVED.clear()
        u = _UNSAVED[key] = Unsaved(a.shape, a.dtype, buffer=_ZEROS, strides=(0,) * a.ndim)
    return u


class Op(Node):
    """A built-in differentiable op on ndarrays.

    ``forward(self, *arrays, **options)`` returns an ndarray or a tuple of them; it may keep what
    backward needs in ``self.saved`` (freed after backward) and other attributes. ``backward(self,
    *grads)`` returns one gradient per positional input (``None`` for inputs that need none).
    Class attributes: ``_saves`` (input indices and/or ``"out"`` that backward reads, checked for
    in-place modification), ``_saves_for`` (``{saved input index: indices of the inputs whose
    gradients read it}``; a saved input whose readers all need no gradient is neither kept nor
    version-checked, as in PyTorch: ``Mul`` saves ``b`` only for ``a``'s gradient), ``_view``
    (output shares memory and version counter with input 0), ``_nondiff_outputs`` (output indices
    that never require grad, e.g. argmax indices).
    """

    _view = False
    _nondiff_outputs = ()
    _saves_for = None
    _meta_op = False  # True on the meta twin of an Op class (_ops/_meta.py), which runs on meta arrays

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        # split ``_saves`` once per class so ``apply`` does no parsing per call
        cls._save_in = tuple(i for i in cls._saves if i != "out")
        cls._save_out = "out" in cls._saves
        if cls._saves_for is not None:
            cls._save_rules = tuple((i, cls._saves_for.get(i)) for i in cls._save_in)

    @classmethod
    def apply(cls, *args, **kwargs):
        # The hot path of every op: keep it to one pass over the inputs and no helper calls.
        if _apply_hook is not None: return _apply_hook(cls, args, kwargs)  # noqa: E701  (profiler)
        if _State.vmap:  # first: vmap's rules run the op on physical tensors, which carry the tangents
            return vmap_dispatch(cls, args, kwargs)
        if _State.fw:  # forward AD: some dual level is entered in this thread (forward_ad.py)
            return fw_apply(cls, args, kwargs)
        if _META_LIVE and not cls._meta_op:  # meta tensors exist: shapes only if an input is one
            out = meta_dispatch(cls, args, kwargs)
            if out is not NotImplemented:
                return out
        self = _new(cls)
        arrays = []
        needs = False
        if _State.enabled:
            for a in args:
                if isinstance(a, Tensor):
                    if a._base is not None and a._view_version != a._vc[0]:
                        _refresh_view(a)
                    if a._rg:
                        needs = True
                    arrays.append(a._data)
                else:
                    arrays.append(a)
        else:
            for a in args:
                arrays.append(a._data if isinstance(a, Tensor) else a)
            if _State.inference:
                needs = None  # results become inference tensors
        out = self.forward(*arrays, **kwargs)
        if type(out) is tuple:
            return self._wrap_many(out, args, needs)
        if type(out) is not np.ndarray and type(out) is not SparseCOO and type(out) is not MetaArray:  # sparse, meta payloads
            raw, out = out, np.asarray(out)
            if cls._save_out:  # a 0-d result is a NumPy scalar: the node must keep the array the graph
                d = self.__dict__  # backward (create_graph) recognises as the saved output, not the scalar
                for k, v in d.items():
                    if v is raw:
                        d[k] = out
                self._out_scalar = raw  # kept inside a tuple (pow's ``saved``): create_graph boxes it as the output
        t = _new(Tensor)
        t._data = out
        t._grad = t.grad_fn = t._hooks = None
        t._output_nr = 0
        if cls._view:
            src = args[0]
            t._vc = src._vc
            t._base = src._base if src._base is not None else src
            t._view_version = src._vc[0]
        else:
            t._vc = [0]
            t._base = None
        if needs and out.dtype.kind in "fcV":  # _GRAD_KINDS, inlined
            self._edges = [((a.grad_fn, a._output_nr) if a.grad_fn is not None else (a, 0))  # _edge, inlined
                           if isinstance(a, Tensor) and a._rg else None for a in args]
            if cls._saves:
                save_in = cls._save_in
                if cls._saves_for is not None and None in self._edges:
                    save_in = self._prune_saves(arrays)
                # the input Tensors themselves: a graph backward (create_graph) differentiates through them
                self._versions = [(a._vc, a._vc[0], a, i) for i in save_in
                                  if isinstance(a := args[i], Tensor)]
                if cls._save_out:
                    self._versions.append((t._vc, t._vc[0], out))
                if _inference_made:
                    _check_not_inference(self._versions)
            t._rg = True
            t.grad_fn = self
        else:
            t._rg = False
            if needs is None and not cls._view:
                _mark_inference(t)
        return t

    def _wrap_many(self, outs, args, needs):
        cls = type(self)
        ts = []
        for i, o in enumerate(outs):
            if type(o) is not np.ndarray and type(o) is not MetaArray:
                o = np.asarray(o)
            t = _make(o)
            if cls._view:
                t._vc = args[0]._vc
                t._base = args[0]._base if args[0]._base is not None else args[0]
                t._view_version = args[0]._vc[0]
            elif needs is None:
                _mark_inference(t)
            ts.append(t)
        if needs:
            self._edges = [_edge(a) if isinstance(a, Tensor) and a._rg else None for a in args]
            self._n_out = len(outs)
            self._out_meta = [(o._data.shape, o._data.dtype) for o in ts]
            if cls._saves:
                save_in = cls._save_in
                if cls._saves_for is not None and None in self._edges:
                    save_in = self._prune_saves([a._data if isinstance(a, Tensor) else a for a in args])
                self._versions = [(a._vc, a._vc[0], a, i) for i in save_in
                                  if isinstance(a := args[i], Tensor)]
                if _inference_made:
                    _check_not_inference(self._versions)
            if cls._nondiff_outputs:  # the indices sort/max/max_pool return are saved by PyTorch: an
                # in-place change of them must raise, not send the gradient to the wrong elements
                self._versions = [*self._versions, *((ts[i]._vc, 0, ts[i], None) for i in cls._nondiff_outputs)]
            for i, t in enumerate(ts):
                if i not in cls._nondiff_outputs and t._data.dtype.kind in _GRAD_KINDS:
                    t._rg = True
                    t.grad_fn = self
                    t._output_nr = i
        return tuple(ts)

    def _prune_saves(self, arrays):
        """The ``_save_in`` indices whose arrays a needed gradient reads (see ``_saves_for``); in
        ``self.saved`` the arrays of the others become memoryless ``Unsaved`` stand-ins (by identity,
        so an array that a kept input shares stays). Runs only when some input needs no gradient."""
        edges = self._edges
        keep = []
        gone = None
        for i, users in self._save_rules:
            if users is not None:
                for j in users:
                    if edges[j] is not None:
                        break
                else:
                    a = arrays[i]
                    if type(a) is np.ndarray:
                        if gone is None:
                            gone = {}
                        gone[id(a)] = _unsaved(a)
                    continue
            keep.append(i)
        if gone is not None:
            for i in keep:
                gone.pop(id(arrays[i]), None)
            saved = self.saved
            if type(saved) is tuple:
                self.saved = tuple([gone.get(id(x), x) for x in saved])
            elif saved is not None:
                self.saved = gone.get(id(saved), saved)
        return keep

    def _run_backward(self, grads):
        if self._versions or self._freed:
            self._check_saved()
        if self._n_out > 1:
            grads = self._materialize(grads)
        out = self.backward(*grads)
        return out if type(out) is tuple else (out,)

    def forward(self, *args, **kwargs):
        raise NotImplementedError

    def backward(self, *grads):
        raise NotImplementedError(f"the derivative for '{self.name()}' is not implemented.")


def save_indices(t, *indices):
    """Version-check the index Tensors the node of op result ``t`` kept (as PyTorch saves a gather's or
    embedding's index): changing one in place before backward then raises PyTorch's RuntimeError
    instead of sending the gradient to the wrong elements. Non-Tensors in ``indices`` are skipped."""
    node = t.grad_fn
    if node is not None and t._rg:
        extra = [(i._vc, i._vc[0], i, None) for i in indices if isinstance(i, Tensor)]
        if extra:
            node._versions = list(node._versions) + extra
    return t


# ------------------------------------------------------------------------------------------------
# Public torch.autograd.Function
# ------------------------------------------------------------------------------------------------
class FunctionCtx:
    """The ``ctx`` a custom Function's ``forward``/``backward`` receive."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {tensors.index(t)} "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_fwd = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = {id(t) for t in tensors}

    def mark_dirty(self, *tensors):
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool):
        self.materialize_grads = bool(value)


class _FunctionNode(FunctionCtx, Node):
    """Backward node of a custom Function; its class is made per Function (``MyFnBackward``)."""

    _forward_cls = None
    materialize_grads = True

    @property
    def saved_tensors(self):
        self._check_saved()
        if self.saved is None:
            return ()
        return tuple(s._unpack(self) if type(s) is _SavedOutput else s for s in self.saved)

    @property
    def saved_variables(self):
        return self.saved_tensors

    def _run_backward(self, grads):
        # first order: arrays in, arrays out; the user's backward runs on Tensors without recording
        gts = [_make(g) if g is not None else None for g in grads]
        with no_grad():
            res = self._run_backward_tensors(gts)
        return tuple(r._data if r is not None else None for r in res)

    def _run_backward_tensors(self, grads):
        """The user's ``backward`` on Tensor gradients; under grad mode it records a graph (create_graph)."""
        self._check_saved()
        if self.materialize_grads:
            grads = [g if g is not None else _make(z) for g, z in zip(grads, self._materialize([None] * len(grads)))]
        res = _grads_tuple(self._forward_cls.backward(self, *grads), len(self._edges), self.name())
        out = []
        for r, e, shape in zip(res, self._edges, self._in_shapes):
            if r is None or e is None:
                out.append(None)
                continue
            if not isinstance(r, Tensor):
                raise TypeError(f"function {self.name()} returned a gradient of type {type(r).__name__}; "
                                f"expected a Tensor or None")
            if r._data.shape != shape:
                raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index "
                                   f"{len(out)} - got {list(r._data.shape)} but expected shape compatible "
                                   f"with {list(shape)}")
            out.append(r)
        return tuple(out)


def _grads_tuple(res, n_in, name):
    """A custom Function's ``backward`` result as a tuple; RuntimeError for a wrong count (extra Nones are fine)."""
    if not isinstance(res, tuple):
        res = (res,)
    if len(res) < n_in or (len(res) > n_in and any(r is not None for r in res[n_in:])):
        raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected {n_in}, got "
                           f"{len(res)})")
    return res


class _SavedOutput:
    """An output a custom Function saved for backward, kept without its ``grad_fn`` (as PyTorch's
    SavedVariable does): the output Tensor points to the node, so keeping the Tensor itself would
    make a reference cycle node <-> output that only the garbage collector could free. Unpacking
    makes a new Tensor on the same array and version counter whose ``grad_fn`` is the node."""

    __slots__ = ("data", "vc", "nr")

    def __init__(self, t, nr):
        self.data, self.vc, self.nr = t._data, t._vc, nr

    def _unpack(self, node):
        t = _make(self.data, True)
        t._vc, t.grad_fn, t._output_nr = self.vc, node, self.nr
        fw = node.__dict__.get("_fw_out")  # the output's forward-AD tangents (forward_ad.py)
        if fw and self.nr in fw:
            t._fw = fw[self.nr]
        return t


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (_FunctionNode,), {"_forward_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Base class for custom differentiable operations (mirrors ``torch.autograd.Function``).

    Example::

        class Exp(Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad_out):
                (y,) = ctx.saved_tensors
                return grad_out * y

        y = Exp.apply(x)

    ``forward`` may instead take only the inputs, with a ``setup_context(ctx, inputs, output)``
    staticmethod, as in PyTorch 2. ``backward`` returns one gradient (or None) per forward input.
    """

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method. "
                           "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if _State.fw:  # forward AD: the outputs get tangents from cls.jvp (forward_ad.py)
            return fw_function_apply(cls, args, kwargs)
        if _State.vmap and (r := vmap_function(cls, args, kwargs)) is not NotImplemented:
            return r  # on batched tensors (func/_custom_function.py)
        return cls._apply_ctx(cls._backward_cls(), args, kwargs)

    @classmethod
    def _apply_ctx(cls, ctx, args, kwargs):
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg for a in args)
        uses_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            out = cls.forward(*args, **kwargs) if uses_setup else cls.forward(ctx, *args, **kwargs)
        if uses_setup:
            cls.setup_context(ctx, args, out)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        needs = _State.enabled and any(ctx.needs_input_grad)
        nondiff = getattr(ctx, "_non_differentiable", ())
        dirty = getattr(ctx, "_dirty", ())
        inputs = {id(a) for a in args if isinstance(a, Tensor)}
        if needs:  # before a dirty input takes the node as its grad_fn: its edge is its old history
            ctx._edges = [_edge(a) if isinstance(a, Tensor) and a._rg else None for a in args]
        wrapped = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                wrapped.append(o)
                continue
            is_nondiff = id(o) in nondiff
            is_dirty = id(o) in dirty and id(o) in inputs
            if id(o) in inputs and not is_dirty:
                o = _make(o._data)  # an input returned as-is becomes a new tensor sharing memory
            if is_dirty:
                # PyTorch: the modified input itself becomes the output, its version bumped
                if needs and o._rg and o.grad_fn is None:
                    raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
                o._vc[0] += 1
            if needs and not is_nondiff and o._data.dtype.kind in _GRAD_KINDS:
                if is_dirty and o._base is not None:
                    # a modified view: its base's history is rebased on the node (PyTorch's CopySlices)
                    src = _make(o._data, True)
                    src.grad_fn, src._output_nr = ctx, i
                    rebase_view(o, src)
                    o._rg = True
                else:
                    o._rg = True
                    o.grad_fn = ctx
                    o._output_nr = i
            wrapped.append(o)
        if needs:
            ctx._in_shapes = [a._data.shape if isinstance(a, Tensor) else None for a in args]
            ctx._out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float32)
                             for o in wrapped]
            ctx._n_out = len(wrapped)
            saved = ctx.__dict__.pop("_to_save", None)
            if saved is not None:
                own = {id(o): i for i, o in enumerate(wrapped) if isinstance(o, Tensor) and o.grad_fn is ctx}
                ctx.saved = tuple(_SavedOutput(t, own[id(t)]) if id(t) in own else t for t in saved)
                # an output's entry keeps its array, not the Tensor (no node <-> output cycle)
                ctx._versions = [(t._vc, t._vc[0], t._data if id(t) in own else t) for t in saved if t is not None]
                _check_not_inference(ctx._versions)
        return wrapped[0] if single else tuple(wrapped)


# ------------------------------------------------------------------------------------------------
# In-place writes through views (PyTorch's CopySlices) and regenerated view history
# ------------------------------------------------------------------------------------------------
def _view_geometry(base, view):
    """(offset, shape, strides) of ``view``'s data inside the C-contiguous array of ``base``."""
    if not base._data.flags.c_contiguous:
        raise RuntimeError("numtorch: an in-place operation that records gradients on a view of a non-contiguous "
                           "tensor is not supported; call .contiguous() on the base first.")
    isz = base._data.itemsize
    offset = (view._data.__array_interface__["data"][0] - base._data.__array_interface__["data"][0]) // isz
    return offset, view._data.shape, tuple(st // isz for st in view._data.strides)


def _flat_index(n, geometry):
    offset, shape, strides = geometry
    idx = np.arange(n, dtype=np.int64)
    return np.lib.stride_tricks.as_strided(idx[offset:], shape, tuple(st * idx.itemsize for st in strides))


class CopySlices(Op):
    """A base after an in-place op on one of its views: the view's region comes from ``src``, the
    rest from the base's previous value. Forward returns the base's own (already written) array."""

    def name(self):  # PyTorch's C++ node reports its namespaced name; its type and repr say CopySlices
        return "torch::autograd::CopySlices"

    def __repr__(self):
        return f"<CopySlices object at {hex(id(self))}>"

    def forward(self, base, src, geometry):
        self.geometry, self.n, self.shape = geometry, base.size, base.shape
        return base

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), self._adjoint)
        idx = _flat_index(self.n, self.geometry)
        gflat = np.array(g, order="C", copy=True).reshape(-1)
        gsrc = gflat[idx]
        gflat[idx] = 0
        return gflat.reshape(g.shape), gsrc

    def _adjoint(self, wbase, wsrc):
        dt = (wbase if wbase is not None else wsrc).dtype
        out = np.zeros(self.n, dt) if wbase is None else np.array(wbase, order="C", copy=True).reshape(-1)
        out[_flat_index(self.n, self.geometry)] = 0 if wsrc is None else wsrc
        return out.reshape(self.shape)


class RegeneratedView(Op):
    """A view's history regenerated from its base's current history (after the base was rebased)."""

    _node_name = "AsStridedBackward0"  # PyTorch regenerates the view as an as_strided of the base

    def forward(self, base, view, geometry):
        self.geometry, self.shape, self.dtype = geometry, base.shape, base.dtype
        return view

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w, _=None: np.ascontiguousarray(w).reshape(-1)[
                _flat_index(w.size, self.geometry)])
        idx = _flat_index(int(np.prod(self.shape)), self.geometry)
        out = np.bincount(idx.reshape(-1), weights=g.reshape(-1), minlength=int(np.prod(self.shape)))
        return out.astype(self.dtype, copy=False).reshape(self.shape), None


def _alias(t):
    a = _make(t._data, t._rg)
    a.grad_fn, a._output_nr = t.grad_fn, t._output_nr
    return a


def rebase_view(view, src):
    """After writing ``src`` (a graph result) into ``view``'s memory, rebase the view's base history."""
    base = view._base
    out = CopySlices.apply(_alias(base), src, geometry=_view_geometry(base, view))
    base.grad_fn, base._output_nr, base._rg = out.grad_fn, 0, True
    view._view_version = -1  # stale on purpose: the next use regenerates it from the rebased base


def _refresh_view(t):
    """A view whose base changed in place since the view was made takes its history from the base."""
    base = t._base
    t._view_version = t._vc[0]
    if not base._rg or base.grad_fn is None or not _State.enabled:
        return
    out = RegeneratedView.apply(_alias(base), t._data, geometry=_view_geometry(base, t))
    t.grad_fn, t._output_nr, t._rg = out.grad_fn, 0, True


class DelayedError(Op):
    """Stands in for the backward of a backward that may run only once (``@once_differentiable``)."""

    def forward(self, *grads):
        return grads if len(grads) > 1 else grads[0]

    def backward(self, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


def once_differentiable(fn):
    """Decorator for ``backward`` (mirrors ``torch.autograd.function.once_differentiable``): the backward
    runs without recording a graph; differentiating its result again raises PyTorch's RuntimeError."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outs = fn(ctx, *args)
        if not _State.enabled:
            return outs
        # under create_graph: if a gradient given to backward requires grad, the results get a node that
        # raises when it is reached (PyTorch looks at these arguments only, not at ctx.saved_tensors)
        deps = [a for a in args if isinstance(a, Tensor) and a._rg]
        if not deps:
            return outs
        single = not isinstance(outs, tuple)
        res = []
        for o in ((outs,) if single else outs):
            if isinstance(o, Tensor):
                # as in PyTorch, the error node's input is a detached copy made to require grad: the
                # result is connected to nothing else, so only a backward() that reaches it raises
                o = DelayedError.apply(_make(o._data, True))
            res.append(o)
        return res[0] if single else tuple(res)
    return wrapper


# ------------------------------------------------------------------------------------------------
# Linear backwards under create_graph=True
# ------------------------------------------------------------------------------------------------
def _call(f, arrays):
    out = f(*arrays)
    return out if type(out) is tuple else (out,)


class LinearBackwardBackward(Op):
    """The backward of a backward that is linear in the gradients and reads no input values (slicing,
    indexing, gather/scatter, cat...): its own backward is the adjoint map, the op's forward on the
    incoming gradients, so any order of derivative is the pair of maps applied in turn."""

    def forward(self, *args, outs, fn, adj, present, n_outs, pos):
        self.fn, self.adj, self.present, self.n_outs, self.pos = fn, adj, present, n_outs, pos
        return outs

    def backward(self, *ws):
        full = [None] * self.n_outs
        for p, w in zip(self.pos, ws):
            full[p] = w
        if self._graph:
            res = linear_apply(self.adj, self.fn, full)
        else:
            res = _call(self.adj, full)
        return tuple(res[i] for i in self.present)


class BatchedLinearBackward(NotImplementedError):
    """``linear_apply`` reached with a batched gradient (vmap): ``fn`` maps arrays and a batched tensor
    has none; ``func/_batched_backward.py`` runs the node's plain formula on the boxes instead."""


def linear_apply(fn, adj, args):
    """``fn(*args)`` for a linear map ``fn`` of array arguments (``None``: zero) whose adjoint is
    ``adj``; arguments that are gradient boxes (``.t`` a Tensor) give Tensor results with a graph.
    Returns a tuple as long as ``fn``'s result (``None`` entries stay ``None``)."""
    boxed = any(a is not None and type(a) is not np.ndarray for a in args)
    if boxed and any(hasattr(a.t, "_levels") for a in args if a is not None and type(a) is not np.ndarray):
        # a batched gradient (vmap) has no values to run fn on: func/_batched_backward runs it per sample
        raise BatchedLinearBackward("a linear backward on a batched gradient")
    arrays = [a if a is None or type(a) is np.ndarray else a.t._data for a in args]
    res = _call(fn, arrays)
    if not boxed:
        return res
    present = [i for i, a in enumerate(args) if a is not None]
    pos = [i for i, r in enumerate(res) if r is not None]
    if not pos:
        return res
    ts = [_make(args[i]) if type(args[i]) is np.ndarray else args[i].t for i in present]
    node_outs = LinearBackwardBackward.apply(*ts, outs=tuple(np.asarray(res[i]) for i in pos), fn=fn, adj=adj,
                                             present=present, n_outs=len(res), pos=pos)
    full = list(res)
    for p, o in zip(pos, node_outs):
        full[p] = o
    return tuple(full)


def linear_backward(node, grads, adj):
    """A linear Op's backward under create_graph=True: ``node``'s own ndarray backward on ``grads``,
    recorded with ``adj`` (the op's forward on gradients, ``None`` args zero) as its backward."""
    plain = _new(type(node))
    plain.__dict__.update(node.__dict__)
    plain._graph = False
    single = []

    def fn(*gs):
        out = plain.backward(*gs)
        if type(out) is not tuple:
            single.append(True)
        return out
    res = linear_apply(fn, adj, list(grads))
    return res[0] if single else res
