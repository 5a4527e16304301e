"""``numtorch.func.vmap`` (mirrors ``torch.func.vmap``, ``torch/_functorch/vmap.py``).

``vmap(f)(x)`` runs ``f`` once on the whole batch: each mapped input becomes a ``BatchedTensor`` whose
batch dim is moved in front of its data, every op inside ``f`` runs its batching rule on the physical
tensors (``_batched.py``, ``_batching_rules.py``), and the outputs' batch dims are moved to ``out_dims``.
Nested vmaps stack levels; inputs and outputs are pytrees of tuples, lists and dicts.
"""
from __future__ import annotations

import functools

from .. import _generator
from .._tensor import Tensor
from ..autograd.grad_mode import _State
from . import _batching_rules, _batching_rules_index, _batching_rules_nn, _custom_function  # noqa: F401  (rules)
from ._batched import _LEVELS, BatchedTensor, pop_level, push_level, wrap

__all__ = ["vmap"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                 "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def _random_check():
    """Before every raw draw inside vmap (``_generator.vmap_random_hook``): RuntimeError (PyTorch's) when any
    active level has randomness="error"; NotImplementedError under "different" for a sampler that draws
    one value of the logical shape (it would silently be shared by the batch)."""
    stack = _LEVELS.stack
    if any(lvl.randomness == "error" for lvl in stack):
        raise RuntimeError(_RANDOM_ERROR)
    if not _generator.batched_draws and any(lvl.randomness == "different" for lvl in stack):
        raise NotImplementedError("numtorch: this random operation has no per-sample draw under "
                                  "vmap(randomness='different') (its values would be shared by the batch); use "
                                  "randomness='same' or draw the random values outside vmap and pass them in")


def _random_levels():
    """``_generator.vmap_random_levels``: the ids and sizes of the active levels with randomness="different"
    (a sampler draws one value per sample of them, and one shared value for the "same" levels);
    RuntimeError when a level has randomness="error"."""
    stack = _LEVELS.stack
    if any(lvl.randomness == "error" for lvl in stack):
        raise RuntimeError(_RANDOM_ERROR)
    diff = [lvl for lvl in stack if lvl.randomness == "different"]
    return tuple(lvl.id for lvl in diff), tuple(lvl.size for lvl in diff)


def _name(func):
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


# ------------------------------------------------------------------------------------------------
# pytrees (tuples, lists, dicts; namedtuples as tuples)
# ------------------------------------------------------------------------------------------------
def _is_node(x):
    return type(x) in (tuple, list, dict) or (isinstance(x, tuple) and hasattr(x, "_fields"))


def _children(x):
    return list(x.values()) if type(x) is dict else list(x)


def _rebuild(x, kids):
    if type(x) is dict:
        return dict(zip(x.keys(), kids))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*kids)
    return type(x)(kids)


def _flatten(x):
    if not _is_node(x):
        return [x]
    out = []
    for c in _children(x):
        out.extend(_flatten(c))
    return out


def _unflatten(x, leaves):
    if not _is_node(x):
        return next(leaves)
    return _rebuild(x, [_unflatten(c, leaves) for c in _children(x)])


def _broadcast(dims, tree):
    """``dims`` (a prefix of ``tree``'s structure) as one entry per leaf of ``tree``; None if they do not fit."""
    if not _is_node(dims):
        return [dims] * len(_flatten(tree))
    if not _is_node(tree) or type(dims) is not type(tree) and not (isinstance(dims, tuple) and isinstance(tree, tuple)):
        return None
    dk, tk = _children(dims), _children(tree)
    if len(dk) != len(tk) or (type(dims) is dict and list(dims) != list(tree)):
        return None
    out = []
    for d, t in zip(dk, tk):
        sub = _broadcast(d, t)
        if sub is None:
            return None
        out.extend(sub)
    return out


# ------------------------------------------------------------------------------------------------
# vmap
# ------------------------------------------------------------------------------------------------
def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorize ``func`` over a dimension of its inputs (``torch.func.vmap``).

    ``in_dims``: per positional input, the dim to map over (int, negative allowed) or None (not mapped);
    an int applies to every input, a (nested) tuple matches the inputs' structure (tuples, lists,
    dicts). ``out_dims``: where the batch dim goes in each output (int, None or a matching structure).
    ``randomness``: "error" (random ops inside raise RuntimeError, PyTorch's default), "same" (one draw
    shared by the batch), "different" (one draw per sample; see docs/vmap.md for the samplers). ``chunk_size``: run the
    batch in chunks of this size (None: all at once). Nested ``vmap`` and ``vmap(grad(f))`` work.
    Errors as PyTorch's: ValueError for bad ``in_dims``/``out_dims``, mismatched batch sizes, no
    mapped tensor, non-Tensor outputs; RuntimeError for ``.item()``/``bool()`` on a batched tensor,
    in-place ops that would change a batched tensor's shape, and tensors that escaped a vmap.
    Ops without a batching rule run as a loop over the batch and warn once (see docs/vmap.md).
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return wrapped


def _inputs(func, in_dims, args):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or "
                         f"a (potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                         f"are trying to vmap over a function with no inputs. The latter is unsupported.")
    flat = _flatten(args)
    dims = _broadcast(in_dims, args)
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                         f"the structure of `inputs`.")
    sizes = []
    for i, (a, d) in enumerate(zip(flat, dims)):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                             f"but in_dim must be either an integer dimension or None.")
        if not isinstance(a, Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                             f"but the input is of type {type(a)}. We cannot vmap over non-Tensor arguments, please "
                             f"use None as the respective in_dim")
        n = a.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                             f"input, but that input is a Tensor of dimensionality {n} so expected in_dim to "
                             f"satisfy -{n} <= in_dim < {n}.")
        dims[i] = d % n
        sizes.append(a.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return flat, dims, sizes[0]


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    flat, dims, size = _inputs(func, in_dims, args)
    if chunk_size is None or chunk_size >= size:
        return _vmap_once(func, out_dims, randomness, args, kwargs, flat, dims, size)
    from .._ops.rearrange import cat  # the chunks' outputs are concatenated along their out_dims
    results = []
    for start in range(0, size, chunk_size):
        n = min(chunk_size, size - start)
        part = [a.narrow(d, start, n) if d is not None else a for a, d in zip(flat, dims)]
        results.append(_vmap_once(func, out_dims, randomness, _unflatten(args, iter(part)), kwargs, part, dims, n))
    outs0 = results[0]
    odims = _out_dims(func, out_dims, outs0)
    leaves = [_flatten(r) for r in results]
    joined = [cat([lv[i] for lv in leaves], dim=od) if od is not None and isinstance(leaves[0][i], Tensor)
              else leaves[0][i] for i, od in enumerate(odims)]
    return _unflatten(outs0, iter(joined))


def _out_dims(func, out_dims, outs):
    dims = _broadcast(out_dims, outs) if isinstance(out_dims, (int, tuple, list, dict)) or out_dims is None else None
    if not isinstance(out_dims, (int, tuple, list, dict)) and out_dims is not None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                         f"collection of ints representing where in the outputs the vmapped dimension should appear.")
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`.")
    return dims


def _vmap_once(func, out_dims, randomness, args, kwargs, flat, dims, size):
    lvl = push_level(size, randomness)
    prev_hook, prev_levels = _generator.vmap_random_hook, _generator.vmap_random_levels
    _generator.vmap_random_hook, _generator.vmap_random_levels = _random_check, _random_levels
    try:
        depth = _State.vmap
        _State.vmap = 0  # moving the mapped dims in front runs plain ops on the physical tensors
        try:
            batched = [_batch(a, d, lvl.id) if d is not None else a for a, d in zip(flat, dims)]
        finally:
            _State.vmap = depth
        outs = func(*_unflatten(args, iter(batched)), **kwargs)
        odims = _out_dims(func, out_dims, outs)
        leaves = _flatten(outs)
        depth = _State.vmap
        _State.vmap = 0
        try:
            res = [_unbatch(func, o, d, lvl.id, size) for o, d in zip(leaves, odims)]
        finally:
            _State.vmap = depth
    finally:
        pop_level()
        _generator.vmap_random_hook, _generator.vmap_random_levels = prev_hook, prev_levels
    return _unflatten(outs, iter(res))


def _batch(a, d, lid):
    """Input ``a`` mapped over its logical dim ``d`` at level ``lid`` (the innermost)."""
    if type(a) is BatchedTensor:
        n = len(a._levels)
        return wrap(a._phys.movedim(n + d, n), a._levels + (lid,))
    return wrap(a.movedim(d, 0), (lid,))


def _unbatch(func, o, d, lid, size):
    """Output ``o`` of the function with this level's batch dim at logical dim ``d`` (for the caller)."""
    name = _name(func)
    if d is None:
        if type(o) is BatchedTensor and lid in o._levels:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return o
    if not isinstance(o, Tensor):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. Did you mean "
                         f"to set out_dims= to None for output?")
    if type(o) is BatchedTensor:
        phys, levels = o._phys, o._levels
    else:
        phys, levels = o, ()
    nd = phys.dim() - len(levels)
    if not -(nd + 1) <= d <= nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-(nd + 1)}, {nd}], but got {d})")
    d %= nd + 1
    if lid in levels:
        k = levels.index(lid)
        outer = levels[:k] + levels[k + 1:]
        phys = phys.movedim(k, len(outer) + d)
    else:  # not batched at this level: the same value for every sample
        outer = levels
        n = len(outer)
        phys = phys.unsqueeze(n + d)
        phys = phys.expand(phys.shape[:n + d] + (size,) + phys.shape[n + d + 1:])
    return wrap(phys, outer) if outer else phys
