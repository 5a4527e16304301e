"""The backward engine (mirrors ``torch.autograd.backward`` / ``torch.autograd.grad``).

Like micrograd's ``backward``, but without recursion: one pass counts, for every node reachable
from the roots, how many edges lead into it; a second pass runs each node once all of its
gradients have arrived (a topological order), sums gradients that meet at a node, and finally
accumulates into the ``.grad`` of leaves. A chain of 100,000 ops is fine.
"""
from __future__ import annotations

import threading
from sys import getrefcount

import numpy as np

from .._backend import MetaArray
from .._dtype import from_np
from .._tensor import Tensor, _make
from .._tensor_sparse import SparseCOO
from .grad_mode import _State, enable_grad, no_grad
from .anomaly_mode import _state as _anomaly
from .graph import Node, _edge

__all__ = ["backward", "grad", "run_backward", "queue_callback"]


def _as_grad(t, g, i, graph=False):
    """The starting gradient for root ``t``: an ndarray, or a Tensor (keeping its graph) when ``graph``."""
    if g is None:
        if t._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if t._data.dtype.kind == "c":  # d(complex)/d(...) needs a chosen grad_output, as in PyTorch
            raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {t.dtype}")
        arr = np.ones_like(t._data)  # of a meta output: a meta array
        return _make(arr) if graph else arr
    arr = g._data if isinstance(g, Tensor) else np.asarray(g, t._data.dtype)
    if arr.shape != t._data.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size({list(arr.shape)}) "
                           f"and output[{i}] has a shape of torch.Size({list(t._data.shape)}).")
    if graph:
        return g if isinstance(g, Tensor) else _make(arr)
    return arr


def _wrap(g):
    """A gradient as hooks see it: a Tensor (a graph gradient already is one)."""
    return g if isinstance(g, Tensor) or g is None else _make(g)


def _unwrap(r, like):
    """A hook's returned Tensor in the engine's form: the Tensor itself in a graph backward, else its array."""
    return r if isinstance(like, Tensor) or r is None else r._data


def _run_tensor_hooks(hooks, g):
    for fn in list(hooks.values()):
        r = fn(_wrap(g))
        if r is not None:
            ra, ga = r._data, getattr(g, "_data", g)
            if ra.shape != ga.shape or ra.dtype != ga.dtype:  # PyTorch's check on a tensor hook's result
                name = getattr(fn, "__name__", type(fn).__name__)
                if ra.shape != ga.shape:
                    raise RuntimeError(f"hook '{name}' has changed the size of value")
                raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                                   f"{from_np(ga.dtype)._tensor_type} got {from_np(ra.dtype)._tensor_type})")
            g = _unwrap(r, g)
    return g


# Set by ``autograd/graph_backward.py`` (it needs the op library, which sits above the engine):
# runs one node's backward on Tensors so that the gradients get a graph of their own.
graph_runner = None
graph_grad_copy = None  # set by graph_backward: a leaf's first .grad under create_graph, g.copy_-ed into a new Tensor
stack = None  # set by graph_backward: the differentiable ``torch.stack`` (for ``grad(is_grads_batched=True)``)
# Set by ``func/_batched_backward.py``: ``batched_runner(create_graph)`` gives the node runner of a backward
# whose grad_outputs are batched tensors (under vmap); ``vmap_rows(fn, tensors, chunk_size)`` is
# ``vmap(fn, chunk_size=chunk_size)(*tensors)`` (None-tolerant), for ``grad(is_grads_batched=True)``.
batched_runner = None
vmap_rows = None


def _any_batched(grads):
    """Whether a grad_output is a batched tensor of an active vmap (only looked at while one is)."""
    if not _State.vmap or batched_runner is None:
        return False
    if isinstance(grads, Tensor):
        grads = (grads,)
    return grads is not None and any(getattr(g, "_levels", None) for g in grads)


def run_backward(roots, grads, retain_graph=False, capture=None, accumulate=True, create_graph=False,
                 batched=False):
    """Backpropagate ``grads`` from ``roots`` (Tensors).

    ``grads`` are ndarrays for a first-order backward. With ``create_graph`` they are Tensors, every
    node's backward runs on Tensors through ``graph_runner`` (so it records a graph) and leaves get
    gradients that carry a ``grad_fn``. ``capture`` maps graph positions ``(node_or_leaf, output_nr)``
    to slots whose gradients are returned instead of (or as well as) accumulated; used by ``autograd.grad``.
    ``batched``: some ``grads`` are batched Tensors (vmap): every node runs through ``batched_runner``,
    once for the whole batch (see ``func/_batched_backward.py``).
    """
    if batched:
        mode = enable_grad() if create_graph else no_grad()
        with mode:
            return _run(roots, grads, retain_graph, capture, accumulate, batched_runner(create_graph))
    if create_graph:
        with enable_grad():  # a graph backward records what it computes, even under no_grad
            return _run(roots, grads, retain_graph, capture, accumulate, graph_runner)
    return _run(roots, grads, retain_graph, capture, accumulate, None)


_tls = threading.local()  # per thread: one list of final callbacks per running backward (innermost last)


def queue_callback(callback) -> None:
    """Run ``callback()`` when the backward pass now running finishes (PyTorch's
    ``Variable._execution_engine.queue_callback``; DistributedDataParallel waits for its gradient
    reductions this way). RuntimeError outside a backward pass."""
    frames = getattr(_tls, "callbacks", None)
    if not frames:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    frames[-1].append(callback)


def _with_callbacks(work, *args):
    """``work(*args)`` as one backward pass: callbacks queued meanwhile run after it, in order."""
    frames = getattr(_tls, "callbacks", None)
    if frames is None:
        frames = _tls.callbacks = []
    callbacks = []
    frames.append(callbacks)
    try:
        result = work(*args)
        i = 0
        while i < len(callbacks):  # a callback may queue another one
            callbacks[i]()
            i += 1
    finally:
        frames.pop()
    return result


def _run(roots, grads, retain_graph, capture, accumulate, runner):
    return _with_callbacks(_walk, roots, grads, retain_graph, capture, accumulate, runner)


def _walk(roots, grads, retain_graph, capture, accumulate, runner):
    buf = {}
    stack = []
    for t, g in zip(roots, grads):
        key, nr = _edge(t)
        b = buf.get(key)
        if b is None:
            b = buf[key] = [None] * (key._n_out if isinstance(key, Node) else 1)
            stack.append(key)
        b[nr] = g if b[nr] is None else b[nr] + g
    # pass 1: count incoming edges (leaves are Tensors: they have no edges of their own). A root
    # may also be reachable from another root: it then waits for those edges like any other node.
    deps = dict.fromkeys(stack, 0)
    todo = [n for n in stack if isinstance(n, Node)]
    # autograd.grad (capture without accumulation) runs only the nodes on a path to an input, as
    # PyTorch's engine does: that needs each node's parents
    parents = {} if capture is not None and not accumulate else None
    while todo:
        n = todo.pop()
        for e in n._edges:
            if e is not None:
                tgt = e[0]
                if parents is not None:
                    parents.setdefault(tgt, []).append(n)
                if tgt in deps:
                    deps[tgt] += 1
                else:
                    deps[tgt] = 1
                    if isinstance(tgt, Node):
                        todo.append(tgt)
    run = None if parents is None else _needed(capture, parents)
    ready = [k for k in stack if deps[k] == 0]
    captured = {}
    # pass 2: run nodes in topological order
    while ready:
        n = ready.pop()
        if not isinstance(n, Node):  # a leaf tensor: its gradient is complete
            g = buf.pop(n)[0]
            if run is not None and (n, 0) not in capture:
                continue
            if n._hooks:
                g = _run_tensor_hooks(n._hooks, g)
            if capture is not None and (n, 0) in capture:
                captured[(n, 0)] = g
            if accumulate:
                _accumulate(n, g, steal=True)
                if n._post_accumulate_grad_hooks is not None:
                    _post_accumulate(n)
            continue
        gl = buf.pop(n)
        if run is not None and n not in run and not any((n, nr) in capture for nr in range(len(gl))):
            continue
        d = n.__dict__
        if "_tensor_hooks" in d or "_retained" in d or "_pre_hooks" in d:
            gl = _pre_hooks(n, gl)
        if capture is not None:
            for nr in range(len(gl)):
                if (n, nr) in capture:
                    captured[(n, nr)] = gl[nr]
            if run is not None and n not in run:
                continue  # no input of autograd.grad lies behind this node
        gins = n._run_backward(gl) if runner is None else runner(n, gl)
        if _anomaly["enabled"] and _anomaly["check_nan"]:
            _check_nan(n, gins)
        if "_post_hooks" in d:
            for fn in list(n._post_hooks.values()):
                r = fn(tuple(_wrap(g) for g in gins), tuple(_wrap(g) for g in gl))
                if r is not None:
                    gins = tuple(_unwrap(x, x if runner else None) for x in r)
        del gl
        if not retain_graph:
            n._release()
        for e, g in zip(n._edges, gins):
            if e is None:
                continue
            tgt = e[0]
            if g is not None:
                b = buf.get(tgt)
                if b is None:
                    if type(tgt) is Tensor or not isinstance(tgt, Node):
                        buf[tgt] = [g]
                    else:
                        b = buf[tgt] = [None] * tgt._n_out
                        b[e[1]] = g
                else:
                    nr = e[1]
                    b[nr] = g if b[nr] is None else b[nr] + g
            c = deps[tgt] - 1
            deps[tgt] = c
            if c == 0:
                if tgt in buf:
                    ready.append(tgt)
                else:
                    _skip(tgt, deps, buf, ready)
        gins = g = None  # drop references so a leaf can take its gradient without a copy
    return captured


def _needed(capture, parents):
    """The nodes with a path to a captured position (those autograd.grad must run)."""
    run = set()
    seen = set()
    todo = [k[0] for k in capture]
    while todo:
        for p in parents.get(todo.pop(), ()):
            run.add(p)
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return run


def _check_nan(n, gins):
    """Anomaly mode: a node whose backward produced NaN fails there, as PyTorch's engine does."""
    for i, g in enumerate(gins):
        arr = getattr(g, "_phys", g)._data if isinstance(g, Tensor) else g  # a batched gradient: its values
        if arr is not None and arr.dtype.kind in "fc" and np.isnan(arr).any():
            raise RuntimeError(f"Function '{n.name()}' returned nan values in its {i}th output.")


def _skip(n, deps, buf, ready):
    """A node that received no gradient at all: release its dependants' counts without running it."""
    todo = [n]
    while todo:
        n = todo.pop()
        if not isinstance(n, Node):
            continue
        for e in n._edges:
            if e is None:
                continue
            tgt = e[0]
            deps[tgt] -= 1
            if deps[tgt] == 0:
                if tgt in buf:
                    ready.append(tgt)
                else:
                    todo.append(tgt)


def _pre_hooks(n, gl):
    gl = list(gl)
    th = n.__dict__.get("_tensor_hooks")
    if th:
        for nr, hooks in th.items():
            if gl[nr] is not None and hooks:
                gl[nr] = _run_tensor_hooks(hooks, gl[nr])
    ph = n.__dict__.get("_pre_hooks")
    if ph:
        for fn in list(ph.values()):
            r = fn(tuple(_wrap(g) for g in gl))
            if r is not None:
                gl = [_unwrap(x, g) for x, g in zip(r, gl)]
    rt = n.__dict__.get("_retained")
    if rt:
        for nr, ref in rt.items():
            t = ref()
            if t is not None and gl[nr] is not None:
                _accumulate(t, gl[nr])
    return gl


_STEAL_REFS = 3  # references to a stolen gradient: the caller's name, _accumulate's argument, getrefcount's


def _accumulate(t, g, steal=False):
    if isinstance(g, Tensor):  # a gradient with a graph (create_graph=True): .grad keeps its grad_fn
        if g._data.dtype != t._data.dtype:
            g = g.to(t.dtype)
        if g._data.shape != t._data.shape:
            g = g.expand(t._data.shape)
        if t._grad is not None:
            t._grad = t._grad + g
        elif g._rg:  # PyTorch's AccumulateGrad copies it: .grad's grad_fn is a CopyBackwards
            t._grad = graph_grad_copy(g)
        else:
            t._grad = _make(np.array(g._data, order="C", copy=True))
        return
    if type(g) is SparseCOO:  # a sparse gradient (nn.Embedding(sparse=True), sparse tensors' leaves)
        return _accumulate_sparse(t, g)
    if g.dtype != t._data.dtype:
        g = g.astype(t._data.dtype)
    if g.shape != t._data.shape:
        g = np.broadcast_to(g, t._data.shape)
    if t._grad is None:
        # .grad must be a fresh, writable, contiguous array that nothing else aliases. Like
        # PyTorch's AccumulateGrad, the engine's leaf step (``steal``) takes the incoming array when
        # nobody else can see it: it owns its memory (no base) and the only references are the
        # engine's local name, this argument and getrefcount's own; otherwise copy.
        if (steal and g.base is None and getrefcount(g) <= _STEAL_REFS and g.flags.c_contiguous
                and g.flags.writeable):
            t._grad = _make(g)
        else:  # (a meta gradient has no data to copy: docs/meta.md)
            t._grad = _make(g if type(g) is MetaArray else np.array(g, order="C", copy=True))
    else:
        gd = t._grad
        if type(gd._data) is SparseCOO:
            return _accumulate_sparse(t, g)
        if gd._rg:  # a grad that is part of a graph is replaced, not mutated
            t._grad = _make(gd._data + g)
        else:
            np.add(gd._data, g, out=gd._data, casting="unsafe")
            gd._vc[0] += 1


def _accumulate_sparse(t, g):
    """PyTorch's AccumulateGrad where a sparse gradient meets: the first one becomes ``.grad`` as it is
    (sparse COO); sparse + sparse adds in place into ``.grad``; a dense gradient and a sparse
    one sum to a dense ``.grad`` (in place when the dense one is already ``.grad``)."""
    if g.dtype != t._data.dtype:
        g = g.astype(t._data.dtype)
    gd = t._grad
    if gd is None:
        t._grad = _make(g.copy() if type(g) is SparseCOO else np.array(g, order="C", copy=True))
    elif type(gd._data) is SparseCOO and type(g) is SparseCOO and not gd._rg:
        gd._data = gd._data + g  # in place, as PyTorch's sparse add_
        gd._vc[0] += 1
    elif type(gd._data) is SparseCOO or gd._rg:
        t._grad = _make(gd._data + g)
    else:
        if type(g) is SparseCOO:
            np.add.at(gd._data, tuple(g.indices), g.values)
        else:
            np.add(gd._data, g, out=gd._data)
        gd._vc[0] += 1


def _post_accumulate(t):
    """Run ``t``'s post-accumulate-grad hooks (``hook(t)``, after its ``.grad`` was updated)."""
    for fn in list(t._post_accumulate_grad_hooks.values()):
        fn(t)


def _tensors(x):
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _roots(tensors, grad_tensors, create_graph):
    """The roots of a backward pass and their initial gradients, checked as PyTorch does: ndarrays, or
    Tensors (a given gradient keeps its own graph) when ``create_graph``."""
    tensors = _tensors(tensors)
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    for i, t in enumerate(tensors):
        if not t._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return tensors, [_as_grad(t, g, i, create_graph) for i, (t, g) in enumerate(zip(tensors, grad_tensors))]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of graph leaves (``torch.autograd.backward``).

    Raises RuntimeError for a tensor that does not require grad, for a non-scalar output without
    ``grad_tensors``, and when backpropagating a second time through freed saved tensors.
    """
    tensors, grads = _roots(tensors, grad_tensors if grad_tensors is not None else grad_variables, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        capture = {_edge(t): t for t in inputs}
        _with_callbacks(_backward_inputs, tensors, grads, bool(retain_graph), capture, create_graph)
        return
    run_backward(tensors, grads, bool(retain_graph), create_graph=create_graph)


def _backward_inputs(tensors, grads, retain_graph, capture, create_graph):
    """``backward(inputs=...)``: accumulate only into the given tensors."""
    got = run_backward(tensors, grads, retain_graph, capture, accumulate=False, create_graph=create_graph)
    for k, t in capture.items():
        if k in got:
            _accumulate(t, got[k])
            if t._post_accumulate_grad_hooks is not None:
                _post_accumulate(t)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad`` (``torch.autograd.grad``).

    Returns a tuple with one Tensor per input (``None`` for unused inputs when ``allow_unused``).
    RuntimeError when an input does not require grad or was not used and ``allow_unused`` is False.
    """
    if is_grads_batched:
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if retain_graph is None:
        retain_graph = create_graph
    batched = _any_batched(grad_outputs)
    outputs, grads = _roots(outputs, grad_outputs, create_graph or batched)
    inputs = _tensors(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in inputs:
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    capture = {_edge(t): t for t in inputs}
    got = run_backward(outputs, grads, bool(retain_graph), capture, accumulate=False, create_graph=create_graph,
                       batched=batched)
    result = []
    for i, t in enumerate(inputs):
        g = got.get(_edge(t))
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            result.append(_make(np.zeros(t._data.shape, t._data.dtype), bool(create_graph)) if materialize_grads
                          else None)
        elif isinstance(g, Tensor):  # create_graph: the gradient keeps its graph
            result.append(g if g._data.dtype == t._data.dtype else g.to(t.dtype))
        else:
            if g.dtype != t._data.dtype:
                g = g.astype(t._data.dtype)
            result.append(_make(g if type(g) is MetaArray else g.copy() if type(g) is SparseCOO else
                                np.array(g, copy=True)))
    return tuple(result)


def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``grad(..., is_grads_batched=True)``: dim 0 of every grad_output is a batch of cotangents; the
    result has the same batch dim in front. As PyTorch, one vector-Jacobian product vmapped over the
    batch (``vmap_rows``, set by ``func/_batched_backward.py``): ONE backward pass with batched
    cotangents. Without that hook (or for an empty batch) one backward per batch entry, stacked."""
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    gos = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs or [None] * len(outs))
    if any(g is None for g in gos):
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    for i, (o, g) in enumerate(zip(outs, gos)):
        if g.dim() == 0 or tuple(g.shape[1:]) != tuple(o.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                f"torch.Size({list(g.shape[1:])}) and output[{i}] has a shape of torch.Size({list(o.shape)}). "
                "If you only want some tensors in `grad_output` to be considered batched, consider using vmap.")
    n = gos[0].shape[0]
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    vectorized = vmap_rows is not None and n > 0
    if vectorized:
        def one(*gs):
            return grad(outs, inputs, list(gs), retain_graph=retain_graph, create_graph=create_graph,
                        allow_unused=allow_unused, materialize_grads=False)
        cols = [[r] for r in vmap_rows(one, gos)]
    else:
        rows = [grad(outs, inputs, [g[b] for g in gos], retain_graph=True if b < n - 1 else retain_graph,
                     create_graph=create_graph, allow_unused=allow_unused, materialize_grads=False)
                for b in range(n)]
        cols = [[r[k] for r in rows] for k in range(len(_tensors(inputs)))]
    inputs = _tensors(inputs)
    result = []
    for k, t in enumerate(inputs):
        col = cols[k]
        if not col:  # an empty batch
            result.append(_make(np.zeros((0,) + t._data.shape, t._data.dtype)))
        elif col[0] is None:  # unused (as PyTorch: materialized unused grads have no batch dim)
            result.append(_make(np.zeros(t._data.shape, t._data.dtype), bool(create_graph)) if materialize_grads
                          else None)
        else:
            result.append(col[0] if vectorized else stack(col))
    return tuple(result)
