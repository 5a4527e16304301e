"""Custom ``autograd.Function`` under vmap (PyTorch's ``custom_function_call`` vmap rule).

``Function.apply`` on batched tensors hands its call to ``vmap_function`` (the hook
``autograd.function.vmap_function``). As in PyTorch:

* without ``generate_vmap_rule = True`` or a ``vmap`` staticmethod: RuntimeError; with both: RuntimeError;
  a ``forward`` that takes ``ctx`` (no ``setup_context``): RuntimeError.
* ``generate_vmap_rule = True``: ``forward`` runs on the batched inputs (its ops batch themselves).
* a ``vmap`` staticmethod: called as ``vmap(info, in_dims, *args)`` for the innermost vmap level, with
  that level unwrapped (``in_dims[i]`` is 0 for an input batched at it, else None; ``info.batch_size``,
  ``info.randomness``), returning ``(outputs, out_dims)``.

Either way the call is recorded as ONE autograd node on the physical tensors (every input aligned to
the batch), whose backward runs the user's ``backward`` on batched gradients with vmap switched back
on, so ``vmap(grad(f))`` through the Function gives per-sample gradients.
"""
from __future__ import annotations

from .._tensor import Tensor
from ..autograd import function as _function
from ..autograd.function import Function, _grads_tuple
from ..autograd.grad_mode import _State
from . import _batched as _B
from ._batched import BatchedTensor, align, levels_of, wrap

__all__ = ["vmap_function"]

_DOCS = "https://pytorch.org/docs/main/notes/extending.func.html"


class VmapInfo:
    """What a ``vmap`` staticmethod learns about the level it runs for (``torch.autograd.function.VmapInfo``)."""

    def __init__(self, batch_size, randomness):
        self.batch_size, self.randomness = batch_size, randomness

    def __repr__(self):
        return f"VmapInfo(batch_size={self.batch_size}, randomness='{self.randomness}')"


def _check(cls):
    own_rule = any("vmap" in vars(k) for k in cls.__mro__ if k not in (Function, object))
    generate = getattr(cls, "generate_vmap_rule", False)
    if not generate and not own_rule:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
                           f"override and implement the vmap staticmethod or set generate_vmap_rule=True. For more "
                           f"details, please see {_DOCS}")
    if generate and own_rule:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an "
                           f"overriden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
                           f"overriden vmap staticmethod to avoid ambiguity. For more details, please see {_DOCS}")
    if cls.setup_context is Function.setup_context:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
                           "jacrev, ...), it must override the setup_context staticmethod. For more details, please "
                           f"see {_DOCS}")
    return not generate


def vmap_function(cls, args, kwargs):
    """``cls.apply(*args)`` with batched tensors among ``args`` (NotImplemented when there are none)."""
    levels = levels_of(args)
    if not levels:
        return NotImplemented
    user_rule = _check(cls)
    call = _Call(cls, args, kwargs, levels, user_rule)
    depth = _State.vmap
    _State.vmap = 0
    try:
        phys = [align(a, levels) if isinstance(a, Tensor) else None for a in args]
    finally:
        _State.vmap = depth
    call.lvls = [lv for lv in _B._LEVELS.stack if lv.id in levels]
    outs = _Recorded.apply(call, *[p for p in phys if p is not None])
    res = [wrap(o, levels) if isinstance(o, Tensor) else o for o in outs]
    return res[0] if call.single else tuple(res)


class _Call:
    """One vmapped call of a custom Function: its inputs, levels and the user's ctx."""

    def __init__(self, cls, args, kwargs, levels, user_rule):
        self.cls, self.args, self.kwargs, self.levels, self.user_rule = cls, args, kwargs, levels, user_rule
        self.uctx = self.single = self.lvls = None

    def batched_args(self, phys):
        it = iter(phys)
        return tuple(wrap(next(it), self.levels) if isinstance(a, Tensor) else a for a in self.args)


class _Recorded(Function):
    """The node on the physical tensors: forward runs the user's batched forward (or vmap rule),
    backward the user's backward on batched gradients."""

    @staticmethod
    def forward(ctx, call, *phys):
        ctx.call = call
        cls, bargs = call.cls, call.batched_args(phys)
        uctx = cls._backward_cls()
        uctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in call.args)
        out = _run_user_rule(call) if call.user_rule else cls.forward(*bargs, **call.kwargs)
        cls.setup_context(uctx, bargs, out)
        uctx.saved = uctx.__dict__.pop("_to_save", None)
        call.uctx, call.single = uctx, not isinstance(out, tuple)
        outs = (out,) if call.single else out
        depth = _State.vmap
        _State.vmap = 0
        try:
            return tuple(align(o, call.levels) if isinstance(o, Tensor) else o for o in outs)
        finally:
            _State.vmap = depth

    @staticmethod
    def backward(ctx, *grads):
        call = ctx.call
        levels = call.levels
        depth, stack = _State.vmap, _B._LEVELS.stack
        active = {lv.id for lv in stack}
        # the user's backward runs on batched gradients, its ops batched; after the vmap returned (a
        # backward outside it) its levels are entered again for the time of the call
        _B._LEVELS.stack = stack + tuple(lv for lv in call.lvls if lv.id not in active)
        _State.vmap = len(_B._LEVELS.stack)
        try:
            res = call.cls.backward(call.uctx, *[None if g is None else wrap(g, levels) for g in grads])
            res = _grads_tuple(res, len(call.args), call.cls.__name__ + "Backward")
            _State.vmap = 0
            out = [None if r is None else align(r, levels, rank=a._data.ndim)
                   for a, r in zip(call.args, res) if isinstance(a, Tensor)]
        finally:
            _State.vmap, _B._LEVELS.stack = depth, stack
        return (None,) + tuple(out)


def _run_user_rule(call):
    """The user's ``vmap`` staticmethod for the innermost level (the others stay batched)."""
    lid = call.levels[-1]
    lvl = next(lv for lv in _B._LEVELS.stack if lv.id == lid)
    vals, in_dims = [], []
    for a in call.args:
        if type(a) is BatchedTensor and lid in a._levels:
            outer = a._levels[:-1]
            vals.append(wrap(a._phys, outer) if outer else a._phys)
            in_dims.append(0)
        else:
            vals.append(a)
            in_dims.append(None)
    res = call.cls.vmap(VmapInfo(lvl.size, lvl.randomness), tuple(in_dims), *vals, **call.kwargs)
    if not isinstance(res, tuple) or len(res) != 2:
        raise RuntimeError("Expected the vmap staticmethod to have two returns, an output and out_dims with pytree "
                           f"structure compatible with the output. Got a {type(res)} instead")
    out, out_dims = res
    leaves = list(out) if type(out) in (tuple, list) else [out]
    if out_dims is None or type(out_dims) is int:
        dims = [out_dims] * len(leaves)
    elif type(out_dims) in (tuple, list) and type(out) in (tuple, list) and len(out_dims) == len(leaves):
        dims = list(out_dims)
    else:
        dims = None
    if dims is None or any(d is not None and type(d) is not int for d in dims):
        raise RuntimeError(f"The autograd.Function's vmap staticmethod returned an incompatible (output, out_dims) "
                           f"tuple. Expected out_dims={out_dims} to be compatible with the structure of `output`. "
                           f"For more details, please see {_DOCS}")
    depth = _State.vmap
    _State.vmap = 0
    try:
        leaves = [_rebatch(o, d, lid) for o, d in zip(leaves, dims)]
    finally:
        _State.vmap = depth
    return type(out)(leaves) if type(out) in (tuple, list) else leaves[0]


def _rebatch(o, d, lid):
    """Output ``o`` of a vmap staticmethod with level ``lid``'s batch at its dim ``d`` (None: unbatched)."""
    if d is None or not isinstance(o, Tensor):
        return o
    if type(o) is BatchedTensor:
        n = len(o._levels)
        return wrap(o._phys.movedim(n + d, n), o._levels + (lid,))
    return wrap(o.movedim(d, 0), (lid,))


_function.vmap_function = vmap_function
