"""The three places where ``torch.func`` on numtorch meets vmap and forward-mode AD.

numtorch builds its reverse-mode transforms on ``autograd.grad`` and its forward products on
``autograd.forward_ad``'s dual levels; each capability plugs in here through ONE function:

* ``_rows(fn, basis, like, chunk_size)``: the rows of a Jacobian by reverse mode, ``vmap(fn,
  chunk_size=chunk_size)(*basis)`` as in PyTorch: ``fn`` is a vjp, so each chunk is ONE backward pass
  with a batched cotangent (``_batched_backward.py``). ``jacrev`` (so ``hessian``'s reverse part) and
  ``autograd.functional``'s ``vectorize=True`` use it. ``_batched(fn, basis)`` is the column-by-column
  loop, still used for ``jacfwd``'s columns.
* ``_jvp_impl(fn, primals, tangents)``: ``(fn(*primals), J @ tangents)`` by one forward pass over dual
  tensors at a new forward-AD level (levels nest: ``jvp(jvp(f))``, ``jacfwd(jacfwd(f))``). A reverse
  transform inside (``jvp(grad(f))``, ``hessian``) differentiates with ``create_graph=True`` while a
  level is entered, so its backward runs as recorded ops that carry the tangents (forward over
  reverse), and ``_release`` keeps the tangents of what it detaches. Batched tensors (inside vmap)
  carry no tangents, so there the double-vjp trick (``_jvp_double_vjp``) is used. ``jvp``, ``jacfwd``,
  ``linearize``, ``hessian`` and ``autograd.functional.jacobian(strategy="forward-mode")`` use it.
* ``_vmap_lift_inputs(inputs)``: called by ``grad``/``grad_and_value``/``vjp`` on their positional
  arguments before making them differentiable. The identity here; under vmap, the vmap module
  replaces it with the function that lifts unbatched inputs to the current vmap level.

The helpers below (``_differentiable``, ``_release``...) are how a reverse-mode transform keeps
PyTorch's rule that its results carry a graph only when something outside the transform (an outer
transform, or a caller's tensor that requires grad, with grad mode on) can still differentiate them.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from .._ops.creation import zeros_like
from .._ops.rearrange import stack
from ..autograd import forward_ad as _fw
from ..autograd.engine import grad as _engine_grad
from ..autograd.grad_mode import _State, enable_grad, is_grad_enabled
from ..autograd.graph import Node
from . import _batched as _B
from . import _batched_backward  # noqa: F401  (the engine's batched backward, used under vmap)
from ._vmap import vmap

__all__ = []


def _vmap_lift_inputs(inputs):
    """Under a vmap, ``grad`` must see its unbatched inputs lifted to the vmap level (a per-sample
    copy each) before it differentiates them, so the gradients come out per sample; identity outside."""
    return _B.lift_inputs(inputs)


def _batched(fn, basis, chunk_size=None):
    """``fn`` on each slice along dim 0 of the tensors in ``basis`` (a non-empty tuple, all with the
    same ``size(0) >= 1``); ``fn`` returns a tuple of Tensors; returns the tuple of their stacks
    (dim 0 = the slice). ``chunk_size`` is ignored by the loop (values are the same)."""
    n = basis[0].shape[0]
    rows = [fn(*(b[i] for b in basis)) for i in range(n)]
    return tuple(stack([r[k] for r in rows]) for k in range(len(rows[0])))


def _jvp_impl(fn, primals, tangents):
    """``(outputs, jvps)``: ``fn(*primals)`` (a tuple of Tensors) and ``J @ tangents``, one per output.

    ``primals``/``tangents``: tuples of Tensors of equal shapes. The jvp of an output that does not
    depend on the inputs is None (as ``forward_ad.unpack_dual`` gives no tangent); callers fill zeros.

    One forward pass over dual tensors at a new (possibly nested) forward-AD level, as functorch's jvp:
    ``fn`` runs in the caller's grad mode, so outputs and jvps carry a graph exactly when they depend on
    a tensor requiring grad. Inside a vmap (batched primals) the double-vjp trick below is used instead:
    vmap's batched tensors do not carry tangents."""
    if _State.vmap or any(_B.is_batched(t) for t in (*primals, *tangents)):
        return _jvp_double_vjp(fn, primals, tangents)
    lv = _fw._enter_level()
    try:
        outs = fn(*(_fw.make_dual(p, t, level=lv) for p, t in zip(primals, tangents)))
        pairs = [_fw.unpack_dual(o, level=lv) if isinstance(o, Tensor) else (o, None) for o in outs]
    finally:
        _fw.exit_dual_level(level=lv)
    return tuple(p for p, _ in pairs), tuple(t for _, t in pairs)


def _jvp_double_vjp(fn, primals, tangents):
    """``_jvp_impl`` by the double-vjp trick (two reverse passes), for batched tensors under vmap. Results
    carry a graph only where it reaches beyond this call (see ``_release``)."""
    entry_grad = is_grad_enabled()
    with enable_grad():
        xs = tuple(_differentiable(p) for p in primals)
        outs = fn(*xs)
        # only floating outputs have a derivative (an integer output's jvp is zero)
        diff = [i for i, o in enumerate(outs) if o.is_floating_point() or o.is_complex()]
        us = tuple(_zero_cotangent(outs[i]) for i in diff)
        gs = _autograd_grad(tuple(outs[i] for i in diff), xs, us, create_graph=True, retain_graph=True)
        mine = _leaves_of(xs) | _leaves_of(us) | _leaves_of([_B.unwrap_physical(t) for t in (*xs, *us)])
        keep = entry_grad and (any(t.requires_grad for t in tangents) or _any_reaches_outside(outs, mine))
        jv = _autograd_grad(gs, us, tangents, create_graph=keep) if us else ()
        jvps = [None] * len(outs)
        for i, j in zip(diff, jv):
            if outs[i].requires_grad:
                jvps[i] = j
    return _release(outs, mine, entry_grad), tuple(None if j is None else _release((j,), mine, entry_grad)[0]
                                                   for j in jvps)


def _zero_cotangent(out):
    """The zero ``u`` of the double-vjp trick, requiring grad. Under vmap a batched output gets a batched
    ``u`` (one row per sample): a shared unbatched one would be expanded to the batch, and the gradient
    with respect to it would sum the samples' jvps."""
    if _B.is_batched(out):
        return _B.wrap(zeros_like(out._phys, requires_grad=True), out._levels)
    return zeros_like(out, requires_grad=True)


def _basis(tensors):
    """The standard basis over the concatenated elements of ``tensors``: one Tensor per input, of shape
    ``(N,) + t.shape`` with ``N`` the total element count; row ``r`` is the ``r``-th unit vector."""
    numels = [t.numel() for t in tensors]
    eye = np.eye(sum(numels))
    out, off = [], 0
    for t, n in zip(tensors, numels):
        out.append(_make(np.ascontiguousarray(eye[:, off:off + n]).astype(t._data.dtype)
                         .reshape((eye.shape[0],) + tuple(t.shape))))
        off += n
    return tuple(out)


def _rows(fn, basis, like, chunk_size=None):
    """The vjps ``fn`` of every row of ``basis`` (the rows of a Jacobian), as PyTorch: ``vmap(fn,
    chunk_size=chunk_size)(*basis)``, so each chunk of rows is ONE backward pass with a batched cotangent
    (``_batched_backward.py``; a node whose formula cannot run batched loops over that chunk alone).
    An empty basis gives empty stacks shaped like ``like``."""
    if basis[0].shape[0] == 0:
        return tuple(_make(np.zeros((0,) + tuple(t.shape), t._data.dtype)) for t in like)
    if _forward_over_reverse():
        # under jvp/jacfwd (hessian's outer jacfwd): batched tensors carry no tangents, so the rows run one
        # by one, each a plain vjp whose recorded backward carries them (forward over reverse)
        return _batched(fn, basis)
    return vmap(fn, chunk_size=chunk_size)(*basis)


# ------------------------------------------------------------------------------------------------
# Reverse-mode helpers shared by the transforms
# ------------------------------------------------------------------------------------------------
def _differentiable(x):
    """The Tensor a transform differentiates with respect to: a view of ``x`` when ``x`` already
    requires grad (so an outer transform or the caller still reaches ``x`` through it), else a fresh
    leaf on ``x``'s values."""
    if x.requires_grad:
        return x.view_as(x)
    leaf = x.detach().requires_grad_()
    if _State.fw:  # under jvp (forward over reverse): the leaf keeps ``x``'s tangents
        _carry_tangents(leaf, x, None, True)
    return leaf


def _carry_tangents(dst, src, mine, entry_grad):
    """``dst`` (a detached copy of ``src``) given ``src``'s tangents at live levels, each released as
    ``_release`` releases results (``mine`` None: kept as they are)."""
    live = _fw._live(src) if isinstance(src, Tensor) else None
    if live:
        dst._fw = {lv: t if mine is None else _release((t,), mine, entry_grad)[0] for lv, t in live.items()}
    return dst


def _leaves_of(tensors):
    """The ids of the fresh leaves among ``tensors`` (views of outer tensors are not ours)."""
    return {id(t) for t in tensors if t.grad_fn is None}


def _lifted_leaf_ids(tensors):
    """The ids of the leaves vmap's lifting (``_batched.lift_for_grad``) made for the batched tensors
    among ``tensors``: a transform's own, like its fresh leaves (empty outside vmap)."""
    return {t._phys._lifted_leaf_id for t in tensors if _B.is_batched(t) and "_lifted_leaf_id" in t._phys.__dict__}


def _reaches_outside(t, mine):
    """Whether ``t``'s graph reaches a leaf requiring grad that is not one of ``mine`` (ids)."""
    if isinstance(t, Tensor) and t.grad_fn is None and id(t) not in mine:
        t = _B.unwrap_physical(t)  # a batched tensor: its graph is its physical tensor's
    if not isinstance(t, Tensor) or not t.requires_grad:
        return False
    if t.grad_fn is None:
        return id(t) not in mine
    seen, todo = {t.grad_fn}, [t.grad_fn]
    while todo:
        for e in todo.pop()._edges:
            if e is None:
                continue
            tgt = e[0]
            if isinstance(tgt, Node):
                if tgt not in seen:
                    seen.add(tgt)
                    todo.append(tgt)
            elif id(tgt) not in mine and not tgt.__dict__.get("_fw_internal"):
                return True
    return False


def _any_reaches_outside(tensors, mine):
    return any(_reaches_outside(t, mine) for t in tensors)


def _release(tensors, mine, entry_grad):
    """Each Tensor detached unless its graph reaches beyond ``mine`` with grad mode on at entry (as a
    functorch level unwraps its results: no graph is left pointing at the transform's own inputs)."""
    return tuple(t if entry_grad and _reaches_outside(t, mine) else
                 (_carry_tangents(t.detach(), t, mine, entry_grad) if isinstance(t, Tensor) else t) for t in tensors)


def _forward_over_reverse():
    """Whether a reverse-mode transform must differentiate with ``create_graph=True`` so its results get
    tangents: a forward-AD level is entered (jvp of grad / vjp / jacrev)."""
    return _State.fw


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad, zeros for inputs nothing reaches (torch's
    ``_functorch.eager_transforms._autograd_grad``)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return tuple(_zeros(x) for x in inputs)
    # on batched tensors (inside vmap) the gradient runs on their physical tensors, per sample
    got = _B.physical_grad(_engine_grad, [o for o, _ in pairs], list(inputs), [g for _, g in pairs],
                           retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    return tuple(_zeros(x) if g is None else g for g, x in zip(got, inputs))


def _zeros(x):
    if _B.is_batched(x):  # inside vmap: zeros for every sample
        return _B.wrap(_make(np.zeros(x._phys._data.shape, x._data.dtype)), x._levels)
    return _make(np.zeros(x._data.shape, x._data.dtype))
