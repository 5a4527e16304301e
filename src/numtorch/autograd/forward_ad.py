"""Forward-mode automatic differentiation (mirrors ``torch.autograd.forward_ad``).

A *dual tensor* carries, besides its value (the primal), a *tangent* of the same shape at a *dual
level*: ``make_dual(x, v)`` inside ``with dual_level():``. Every op applied to dual tensors computes
its result as usual and the result's tangent, the Jacobian-vector product ``J v``; ``unpack_dual``
reads it back. One pass gives a directional derivative, whatever the number of outputs::

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, direction)
        y = f(x)
        value, jvp = forward_ad.unpack_dual(y)       # jvp == J_f(primal) @ direction

How the tangents flow (design, one home per op as in JAX's primitives):

* ``Op.apply`` (the hot path) checks one thread-local flag, ``_State.fw``, True while a dual level
  is entered in this thread; then it calls ``op_apply`` here, which runs the op as usual (with the
  flag off) and, if some input has a tangent at a live level, computes the output tangent.
* An Op class may define ``jvp(self, *tangents)`` (one Tensor or None per positional input; ``self``
  is a bare instance of the class with ``fw_inputs``, ``fw_kwargs`` and ``fw_out``): explicit rules
  for the common ops, written with differentiable numtorch ops, so tangents can be differentiated
  again (reverse over forward) and carry tangents of outer levels (forward over forward).
  ``jvp_linear`` and ``jvp_multilinear`` below are the rules of ops linear in their inputs (views,
  sums) and linear in each input (products); an Op marked ``_view = True`` is linear by definition.
  ``jvp_elementwise`` serves real elementwise ops (diagonal Jacobian: ``J t = J^T t``, the op's own
  backward formula applied to the tangent).
* Every other Op gets its tangent from its backward formula, so nothing is written twice: the vjp
  ``u -> J^T u`` is linear in ``u``, hence ``J t = d/du <J^T u, t>``. ``_fallback`` runs the op's
  backward through the create_graph machinery (``engine.graph_runner``) with ``u`` a zero Tensor
  requiring grad, and differentiates ``<J^T u, t>`` with respect to ``u`` (with create_graph, so the
  tangent keeps its graph).
* Ops PyTorch gives no forward formula raise PyTorch's NotImplementedError (``NO_FORWARD_AD``).
* A custom ``Function`` under forward AD runs its ``jvp(ctx, *tangents)`` staticmethod; ``ctx`` reads
  what ``ctx.save_for_forward`` kept through ``ctx.saved_tensors``.

Levels are per thread. PyTorch allows one public level at a time (a second ``dual_level`` raises);
numtorch's function transforms may nest levels through ``_enter_level``: a tensor keeps one tangent
per level, and the tangent of level L is computed from inputs stripped of levels >= L.
"""
from __future__ import annotations

import functools
import threading
from typing import NamedTuple

import numpy as _np

from .._tensor import Tensor, _make
from . import engine
from . import function as _function
from .function import Function, Op
from .grad_mode import _State, enable_grad

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level", "jvp_linear", "jvp_multilinear", "jvp_elementwise"]


class _Level:
    """One entered level; tangents are stored under this object, so after the level is exited they are
    unreachable (``alive`` False) even if a tensor keeps the entry."""

    __slots__ = ("idx", "alive")

    def __init__(self, idx):
        self.idx, self.alive = idx, True


class _FwThread(threading.local):
    levels = ()  # this thread's entered levels, outermost first


_FW = _FwThread()


def _set_levels(levels):
    _FW.levels = levels
    _State.fw = bool(levels)


def _enter_level():
    """Enter a new level, nested or not (for function transforms); returns its index."""
    lv = _Level(len(_FW.levels))
    _set_levels(_FW.levels + (lv,))
    return lv.idx


def enter_dual_level():
    """Enter a new forward grad level and make it the current one (``torch.autograd.forward_ad``);
    returns its index. RuntimeError if a level is already entered (PyTorch supports one)."""
    if _FW.levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    return _enter_level()


def exit_dual_level(*, level=None):
    """Exit the last entered level; the tangents of that level are gone. RuntimeError for another level."""
    levels = _FW.levels
    cur = len(levels) - 1
    if level is None:
        level = cur
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != cur:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    levels[-1].alive = False
    _set_levels(levels[:-1])


class dual_level:
    """Context manager (and decorator) entering a forward AD level for its body; ``as`` gives the level."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()


class UnpackedDualTensor(NamedTuple):
    """``unpack_dual``'s result: the primal (a view of the dual tensor) and its tangent (or None)."""

    primal: Tensor
    tangent: Tensor | None


def _level(level):
    levels = _FW.levels
    if level is None:
        return levels[-1] if levels else None
    return levels[level] if 0 <= level < len(levels) else None


def _tangent(t, lv):
    fw = t.__dict__.get("_fw") if isinstance(t, Tensor) else None
    return fw.get(lv) if fw else None


def _live(t):
    """{level: tangent} of ``t``'s tangents at live levels (empty dict if none)."""
    fw = t.__dict__.get("_fw")
    if not fw:
        return {}
    return {lv: v for lv, v in fw.items() if lv.alive}


def _alias(t, fw):
    """A Tensor on ``t``'s array and graph (a view alias for autograd's version checks) with tangents ``fw``."""
    a = _make(t._data, t._rg)
    a.grad_fn, a._output_nr, a._vc = t.grad_fn, t._output_nr, t._vc
    if fw:
        a._fw = fw
    return a


def _strip(t, lv):
    """``t`` without its tangents at levels >= ``lv`` (itself if it has none)."""
    if not isinstance(t, Tensor):
        return t
    fw = t.__dict__.get("_fw")
    if not fw or not any(k.alive and k.idx >= lv.idx for k in fw):
        return t
    keep = {k: v for k, v in fw.items() if k.alive and k.idx < lv.idx}
    if t.grad_fn is None and t._rg:  # a leaf (a transform's input): a view, so gradients still reach it
        a = _view_of(t)
        if keep:
            a._fw = keep
        return a
    return _alias(t, keep)


def _check_float(t, what):
    if not (t.is_floating_point() or t.is_complex()):
        raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")


def make_dual(tensor, tangent, *, level=None):
    """A new tensor aliasing ``tensor`` (its view, backward differentiable) carrying ``tangent`` as its
    forward gradient at ``level`` (default: the current one).

    RuntimeError outside a level or for an invalid one, for a ``tangent`` of another size, for a
    ``tensor`` that already has a tangent at this level; ValueError for non-float primal or tangent.
    The tangent is kept as it is (its dtype and graph too), as in PyTorch.
    """
    if level is None:
        level = len(_FW.levels) - 1
        if level < 0:
            raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                               "enter_dual_level() first.")
    lv = _level(level)
    if lv is None:
        raise RuntimeError("Invalid level given to _make_dual")
    _check_float(tensor, "primal")
    _check_float(tangent, "tangent")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if _tangent(tensor, lv) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                           f"same level {lv.idx} is not supported.")
    out = _view_of(tensor)
    out._fw = {**_live(tensor), lv: tangent}
    return out


def unpack_dual(tensor, *, level=None):
    """``UnpackedDualTensor(primal, tangent)``: a view of ``tensor`` without its tangent at ``level``
    (default: the current level) and that tangent as stored (None if it has none, or no level exists)."""
    lv = _level(level)
    if lv is None:
        if level is not None and _FW.levels and isinstance(tensor, Tensor) and _live(tensor):
            raise RuntimeError("Invalid level given to _fw_primal")
        return UnpackedDualTensor(tensor, None)
    tan = _tangent(tensor, lv)
    if tan is None:
        return UnpackedDualTensor(tensor, None)
    primal = _view_of(tensor)
    rest = {k: v for k, v in _live(tensor).items() if k is not lv}
    if rest:
        primal._fw = rest
    return UnpackedDualTensor(primal, tan)


def _view_of(t):
    """``t.view_as(t)`` recorded for backward, without forward AD propagating its tangents."""
    st = _State.fw
    _State.fw = False
    try:
        return t.view_as(t)
    finally:
        _State.fw = st


# ------------------------------------------------------------------------------------------------
# The slow path of Op.apply while a level is entered
# ------------------------------------------------------------------------------------------------
def _collect(args):
    """{level: [tangent or None per arg]} over the positional args, levels outermost first."""
    found = {}
    n = len(args)
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            fw = a.__dict__.get("_fw")
            if fw:
                for lv, tan in fw.items():
                    if lv.alive:
                        found.setdefault(lv, [None] * n)[i] = tan
    return sorted(found.items(), key=lambda kv: kv[0].idx)


def op_apply(cls, args, kwargs):
    """``cls.apply(*args, **kwargs)`` under forward AD: the result, with the tangents of its outputs."""
    found = _collect(args)
    _State.fw = False
    try:
        out = cls.apply(*args, **kwargs)
    finally:
        _State.fw = True
    for lv, tans in found:
        _attach(out, lv, _op_jvp(cls, [_strip(a, lv) for a in args], tans, kwargs, out))
    return out


def _attach(out, lv, tans):
    """Store the output tangents ``tans`` (one per output; None: none) at level ``lv``."""
    outs = out if type(out) is tuple else (out,)
    for o, t in zip(outs, tans):
        if t is not None and isinstance(o, Tensor) and o._data.dtype.kind in "fcV":
            fw = o.__dict__.get("_fw")
            if fw is None:
                o._fw = fw = {}
                node = o.grad_fn
                if node is not None:
                    # a create_graph backward boxes saved outputs as new Tensors on their arrays: they
                    # take the tangents from here, so forward AD through a backward sees them
                    if "_fw_out" not in node.__dict__:
                        node._fw_out = {}
                    node._fw_out[o._output_nr] = fw
            fw[lv] = t


def _op_jvp(cls, prims, tans, kwargs, out):
    missing = NO_FORWARD_AD.get(cls.__name__)
    if missing is not None:
        raise NotImplementedError(f"Trying to use forward AD with {missing} that does not support it because it has "
                                  "not been implemented yet.\nPlease file an issue to PyTorch at https://github.com/"
                                  "pytorch/pytorch/issues/new?template=feature-request.yml so that we can prioritize "
                                  "its implementation.")
    rule = getattr(cls, "jvp", None)
    if rule is None and cls._view:
        rule = jvp_linear
    if rule is None:
        res = _fallback(cls, prims, tans, kwargs, out)
    else:
        node = object.__new__(cls)
        node.fw_inputs, node.fw_kwargs, node.fw_out = prims, kwargs, out
        res = rule(node, *tans)
    return res if type(res) is tuple else (res,)


def _zeros_for(p):
    return _make(_np.zeros_like(p._data)) if isinstance(p, Tensor) else None


def jvp_linear(self, *tangents):
    """The jvp of an op linear in its float Tensor inputs jointly (views, sums, cat): the op itself on
    the tangents (zeros for inputs without one; non-float inputs, indices, stay as they are)."""
    args = [t if t is not None else (_zeros_for(p) if isinstance(p, Tensor) and p._data.dtype.kind in "fcV" else p)
            for p, t in zip(self.fw_inputs, tangents)]
    return type(self).apply(*args, **self.fw_kwargs)


def jvp_multilinear(self, *tangents):
    """The jvp of an op linear in each Tensor input (products, matmul, einsum): the sum over inputs
    with a tangent of the op with that input replaced by its tangent."""
    cls, prims = type(self), self.fw_inputs
    out = None
    for i, t in enumerate(tangents):
        if t is not None:
            term = cls.apply(*prims[:i], t, *prims[i + 1:], **self.fw_kwargs)
            out = term if out is None else out + term
    return out


def jvp_elementwise(self, t, *rest):
    """The jvp of a real elementwise op of one Tensor (diagonal Jacobian, so ``J t = J^T t``): the op's
    own backward formula run on the tangent through the create_graph machinery (one backward, no
    double backward). Complex or broadcasting cases go to ``_fallback``."""
    cls, prims, out = type(self), self.fw_inputs, self.fw_out
    x = prims[0]
    if t is None or x._data.dtype.kind != "f" or t._data.dtype.kind != "f" or t.shape != out.shape:
        return _fallback(cls, prims, (t, *rest), self.fw_kwargs, out)
    keep = _State.enabled and _any_rg((x, t))
    xin = x if x._rg else _internal(_alias(x, x.__dict__.get("_fw")))
    st = _State.fw
    with enable_grad():
        _State.fw = bool(_live(x))  # outer levels' tangents: the saved output must get its own (nested jvp)
        try:
            node = cls.apply(xin, *prims[1:], **self.fw_kwargs).grad_fn
        finally:
            _State.fw = st
        g = engine.graph_runner(node, [t])[0]
    if g is None:
        return _make(_np.zeros_like(out._data))
    return g if keep else _keep_tangents(_make(g._data), g)


def _any_rg(tensors):
    """Whether a Tensor among ``tensors``, or one of their tangents (at any level), requires grad."""
    for x in tensors:
        if isinstance(x, Tensor) and (x._rg or any(_any_rg((v,)) for v in _live(x).values())):
            return True
    return False


def _keep_tangents(t, src):
    """``t`` (a graph-less copy of ``src``) with ``src``'s tangents, graph-less too: nothing they came
    from requires grad outside (as the caller checked with ``_any_rg``)."""
    fw = _live(src)
    if fw:
        t._fw = {lv: v if not v._rg else _keep_tangents(_make(v._data), v) for lv, v in fw.items()}
    return t


def _internal(t):
    """Mark a leaf this module made to differentiate through (``_fw_internal``): function transforms do
    not count a graph reaching it as reaching the caller's tensors."""
    t._rg = t._fw_internal = True
    return t


def _fallback(cls, prims, tans, kwargs, out):
    """``J t`` from the op's backward: ``d/du <J^T u, t>`` with ``u`` a zero Tensor requiring grad."""
    keep = _State.enabled and _any_rg((*prims, *tans))
    ins = [p if t is None or p._rg else _alias(p, p.__dict__.get("_fw")) for p, t in zip(prims, tans)]
    for p, x in zip(prims, ins):
        if x is not p:
            _internal(x)
    st = _State.fw
    with enable_grad():
        # inputs with outer levels' tangents (nested jvp): the re-run computes its outputs' tangents at
        # those levels too, so the backward's boxed saved output carries them (``node._fw_out``)
        _State.fw = any(isinstance(p, Tensor) and _live(p) for p in prims)
        try:
            res = cls.apply(*ins, **kwargs)
        finally:
            _State.fw = st
        outs = res if type(res) is tuple else (res,)
        node = next((o.grad_fn for o in outs if isinstance(o, Tensor) and o.grad_fn is not None), None)
        if node is None:
            return tuple(None for _ in outs)
        us = [_internal(_make(_np.zeros_like(o._data), True)) if isinstance(o, Tensor) and o.grad_fn is node
              else None for o in outs]
        try:
            gs = engine.graph_runner(node, [u if u is not None else None for u in us])
            s = None
            for g, t in zip(gs, tans):
                if g is not None and t is not None:
                    term = (g * t).sum()
                    s = term if s is None else s + term
            if s is None:
                return tuple(None for _ in outs)
            diff = [u for u in us if u is not None]
            one = _make(_np.ones_like(s._data))  # explicit: a complex s has no implicit grad_output
            jt = engine.grad([s], diff, [one], create_graph=True, allow_unused=True)
        except NotImplementedError as e:
            raise NotImplementedError(f"numtorch: forward AD through {node.name()} is not supported: {e}") from None
    it = iter(jt)
    res = []
    for o, u in zip(outs, us):
        if u is None:
            res.append(None)
            continue
        r = next(it)
        if r is None:
            r = _make(_np.zeros_like(o._data))
        elif not keep:  # nothing the tangent came from requires grad: no graph, as an explicit rule
            r = _keep_tangents(_make(r._data), r)
        res.append(r)
    return tuple(res)


# ------------------------------------------------------------------------------------------------
# Custom Functions and in-place writes
# ------------------------------------------------------------------------------------------------
class _JvpCtx:
    """The ctx a custom Function's ``jvp`` sees: the forward's ctx, ``saved_tensors`` being what
    ``save_for_forward`` kept."""

    def __init__(self, ctx):
        self.__dict__["_ctx"] = ctx

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        setattr(self._ctx, name, value)

    @property
    def saved_tensors(self):
        return tuple(self._ctx.__dict__.get("_to_save_fwd", ()))


def function_apply(cls, args, kwargs):
    """``Function.apply`` under forward AD: the forward runs without forward AD, then ``cls.jvp``
    (zeros for inputs without a tangent, as PyTorch materializes them) gives the output tangents."""
    found = _collect(args)
    ctx = cls._backward_cls()
    _State.fw = False
    try:
        out = cls._apply_ctx(ctx, args, kwargs)
    finally:
        _State.fw = True
    if not found:
        return out
    if cls.jvp is Function.jvp:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")
    for lv, tans in found:
        ts = [t if t is not None else (_zeros_for(a) if isinstance(a, Tensor) else None) for a, t in zip(args, tans)]
        res = cls.jvp(_JvpCtx(ctx), *ts)
        _attach(out, lv, res if type(res) is tuple else (res,))
    return out


def inplace_tangent(self, res):
    """After an in-place op wrote ``res`` into ``self``: ``self``'s tangents become ``res``'s. A tangent
    ``self`` already had that is a view (of its base's tangent) is written in place, so the base's
    tangent sees the write, as in PyTorch."""
    new = _live(res)
    old = _live(self)
    if not new and not old:
        return
    fw = {}
    for lv, t in new.items():
        prev = old.get(lv)
        if prev is None and self._base is not None:  # a view written with a tangent: its base gets one too
            prev = _tangent_view_of_base(self, lv)
        if prev is not None and prev._base is not None and prev.shape == t.shape and not t._rg:
            prev._data[...] = t._data
            prev._vc[0] += 1
            t = prev
        fw[lv] = t
    self._fw = fw


def _tangent_view_of_base(view, lv):
    """When a view whose base has no tangent at ``lv`` is written with one, PyTorch gives the base a zero
    tangent and the view that tangent's matching view, so the write reaches the base's tangent. Returns
    the view's tangent (a view of the base's new tangent), or None where the base's memory is not one
    contiguous block (the view's place in it cannot be replayed)."""
    base = view._base
    if _live(base).get(lv) is not None or not (base._data.flags.c_contiguous or base._data.flags.f_contiguous):
        return None
    bt = _make(_np.zeros_like(base._data))
    offset = view._data.__array_interface__["data"][0] - base._data.__array_interface__["data"][0]
    arr = _np.ndarray(view._data.shape, view._data.dtype, buffer=bt._data, offset=offset, strides=view._data.strides)
    tv = _make(arr)
    tv._base, tv._vc = bt, bt._vc
    base._fw = {**_live(base), lv: bt}
    return tv


def zero_tangent(self):
    """After ``self`` was overwritten with a constant (``zero_``, ``fill_``): its tangents are zeros."""
    live = _live(self)
    if live:
        res = _make(self._data)
        res._fw = {lv: _make(_np.zeros_like(t._data)) for lv, t in live.items()}
        inplace_tangent(self, res)


_function.fw_apply = op_apply
_function.fw_function_apply = function_apply

# The ops PyTorch has no forward formula for (numtorch Op class -> the op name PyTorch's error gives); they
# raise its NotImplementedError. (torch.cholesky, legacy, has none either, but shares linalg.cholesky's Op.)
NO_FORWARD_AD = {
    "CdistBackward0": "_cdist_forward", "PdistBackward0": "_pdist_forward", "EmbeddingBagBackward0": "_embedding_bag",
    "MultiMarginLossBackward0": "multi_margin_loss", "MultilabelMarginLossBackward0": "multilabel_margin_loss_forward",
}
