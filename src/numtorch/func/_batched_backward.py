"""The backward pass under vmap: one run of every node's formula for a whole batch of cotangents.

``jacrev(f)(x)`` is ``vmap(vjp_fn)(basis)``, ``autograd.grad(..., is_grads_batched=True)`` and
``autograd.functional.jacobian(vectorize=True)`` are the same thing: a graph recorded OUTSIDE the vmap
(plain nodes on plain tensors) is walked with cotangents made INSIDE it, batched tensors whose logical
shape is each node output's shape. The engine (``autograd/engine.py``) sees batched grad_outputs while a
vmap is active and runs every node through the runner made here:

* **values** (``create_graph=False``): the node's own NumPy formula is called once, with the incoming
  batched gradients boxed as ``GradArray`` (``autograd/graph_backward.py``). A box reports the LOGICAL
  shape (one sample), so the formula's shape logic (reducing a broadcast gradient to an input's shape,
  reshapes, transposes) is the unbatched one, and every operation it makes on a box is a numtorch op
  that dispatches to its batching rule. The saved arrays stay the plain ndarrays the node kept
  (constants shared by the batch). Runs under no_grad: nothing is recorded.
  Many ops' fast NumPy paths cannot run on a box (they write the gradient into a preallocated array);
  they raise before returning and the node's create_graph formula (next item; written with Tensor
  ops, as a node's ``self._graph`` branch) runs instead, still under no_grad.
* **graph** (``create_graph=True``): ``graph_backward.run_node``, the create_graph runner, on the batched
  gradients: saved inputs become boxes of their Tensors, so the gradients keep a graph to them, as in a
  plain double backward (``ConstantGradient``'s batching rule: ``_batching_rules_backward.py``).
* **rules**: a node class in ``_batching_rules_backward.BACKWARD_RULES`` (basic indexing, slicing) runs
  its rule instead, on the physical gradients.
* **fallback**: a formula neither way can run (it reads a gradient's values with NumPy, casts it to an
  integer, an op it calls has no box form, a linear backward's array map) raises before returning;
  that ONE node then runs sample by sample on the physical slices of its gradients and the results
  are stacked, with PyTorch's "There is a performance drop" warning once per node class. The rest of
  the pass stays batched.

``vmap_rows`` (``engine.vmap_rows``) is the vmap that ``grad(is_grads_batched=True)`` maps over its
grad_outputs with (the engine sits below ``func`` and cannot import it).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._ops.rearrange import stack
from .._tensor import Tensor, _make
from ..autograd import engine
from ..autograd.function import BatchedLinearBackward, Op, _FunctionNode
from ..autograd.graph_backward import GradArray, run_node
from ..autograd.grad_mode import _State
from ._batched import BatchedTensor, StandInRead, align, batch_shape, levels_of, wrap
from ._batching_rules_backward import BACKWARD_RULES
from ._vmap import vmap

__all__ = ["runner", "vmap_rows", "LOOPED"]

_FALLBACK = (NotImplementedError, StandInRead)
LOOPED = {}  # node class name -> how many times a node of it ran sample by sample (for tests)
_WARNED = set()


def runner(create_graph):
    """The engine's node runner for a backward with batched gradients (``engine.batched_runner``)."""
    return _run_graph if create_graph else _run_values


def _run_values(node, grads):
    return _run(node, grads, False)


def _run_graph(node, grads):
    return _run(node, grads, True)


def _run(node, grads, graph):
    if not any(type(g) is BatchedTensor for g in grads):  # this branch got unbatched gradients only
        if graph:
            return run_node(node, grads)
        return tuple(_tensor(r) for r in node._run_backward([None if g is None else g._data for g in grads]))
    rule = BACKWARD_RULES.get(type(node))
    if rule is not None:
        return _ruled(rule, node, grads, graph)
    # values: the plain formula on boxes, then the create_graph formula (for an Op: Tensor ops, batched by
    # their rules; no graph is recorded under no_grad); graph: the create_graph formula
    for attempt in ((_graph_formula,) if graph else (_values, _graph_formula)):
        try:
            return attempt(node, grads)
        except _FALLBACK:
            pass
    return _loop(node, grads, graph)


def _graph_formula(node, grads):
    try:
        return run_node(node, grads)
    except BatchedLinearBackward:
        # a linear backward (indexing, flip, stack, ...) reads no input values: its plain formula on the
        # boxes is differentiable in the gradients, which is all its graph needs
        return _values(node, grads)


def _ruled(rule, node, grads, graph):
    if node._versions or node._freed:
        node._check_saved()
    depth = _State.vmap
    _State.vmap = 0  # rules compute on the physical tensors
    try:
        return rule(node, grads, levels_of(grads), graph)
    finally:
        _State.vmap = depth


def _values(node, grads):
    """One call of the node's formula for the batch: batched gradients boxed, plain ones as arrays."""
    if isinstance(node, Op):
        if node._versions or node._freed:
            node._check_saved()
        gl = [GradArray(g) if type(g) is BatchedTensor else (None if g is None else g._data) for g in grads]
        if node._n_out > 1:
            gl = node._materialize(gl)
        out = node.backward(*gl)
        return tuple(_tensor(r) for r in (out if type(out) is tuple else (out,)))
    if isinstance(node, _FunctionNode):  # a custom Function's backward already works on Tensors
        return tuple(node._run_backward_tensors(list(grads)))
    raise NotImplementedError(f"{node.name()} under vmap")


def _tensor(r):
    if r is None or isinstance(r, Tensor):
        return r
    if isinstance(r, GradArray):
        return r.t
    return _make(np.asarray(r))  # computed from constants only: the same for every sample


def _loop(node, grads, graph):
    """The node's backward sample by sample on the physical slices of its gradients, stacked."""
    name = node.name()
    LOOPED[name] = LOOPED.get(name, 0) + 1
    if type(node) not in _WARNED:
        _WARNED.add(type(node))
        warnings.warn(f"There is a performance drop because we have not yet implemented the batching rule for "
                      f"{name} (its backward). Please file us an issue on GitHub so that we can prioritize its "
                      "implementation.", UserWarning, stacklevel=2)
    levels = levels_of(grads)
    shape = batch_shape(levels)
    n = math.prod(shape)
    depth = _State.vmap
    _State.vmap = 0
    try:
        flat = []
        for g in grads:
            if type(g) is BatchedTensor:
                p = align(g, levels)
                g = p.reshape((n,) + tuple(p.shape[len(levels):]))
            flat.append(g)
        batched = [type(g) is BatchedTensor for g in grads]
        rows = []
        for i in range(n):
            gi = [f[i] if b else f for f, b in zip(flat, batched)]
            if graph:
                rows.append(run_node(node, gi))
            else:
                out = node._run_backward([None if x is None else x._data for x in gi])
                rows.append(tuple(_tensor(r) for r in out))
        res = []
        for col in zip(*rows):
            if all(c is None for c in col):
                res.append(None)
                continue
            like = next(c for c in col if c is not None)
            col = [c if c is not None else like.new_zeros(like.shape) for c in col]
            st = stack(col)
            res.append(wrap(st.reshape(shape + tuple(st.shape[1:])), levels))
        return tuple(res)
    finally:
        _State.vmap = depth


def vmap_rows(fn, tensors, chunk_size=None):
    """``vmap(fn, chunk_size=chunk_size)(*tensors)`` for an ``fn`` returning a tuple of Tensors or None;
    a None (an unused input of ``autograd.grad``) comes back as None."""
    none = set()

    def body(*xs):
        out = fn(*xs)
        none.update(i for i, o in enumerate(out) if o is None)
        return tuple(_make(np.zeros(())) if o is None else o for o in out)

    res = vmap(body, chunk_size=chunk_size)(*tensors)
    return tuple(None if i in none else r for i, r in enumerate(res))


engine.batched_runner = runner
engine.vmap_rows = vmap_rows
