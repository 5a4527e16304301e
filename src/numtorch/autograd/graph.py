"""Backward-graph nodes (mirrors ``torch.autograd.graph.Node``).

Every differentiable op call creates one Node. ``_edges[i]`` says where the gradient for the op's
i-th input goes: ``(node, output_nr)`` for an input produced by another op, ``(tensor, 0)`` for a
leaf that requires grad (the engine accumulates into ``tensor.grad``), or ``None``.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .._dtype import from_np
from .hooks import RemovableHandle, add_hook

__all__ = ["Node", "AccumulateGrad"]


def _edge(t):
    """Where the gradient of tensor ``t`` goes: ``(its grad_fn, output_nr)``, or ``(t, 0)`` for a leaf.
    ``Op.apply`` inlines this on its hot path."""
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else (t, 0)


class Node:
    """A backward function in the graph; ``grad_fn`` of a tensor is one of these."""

    _saves = ()      # which tensors the op saved: input indices and/or "out" (for version checks)
    _n_out = 1       # number of forward outputs
    _edges = ()
    saved = None     # the arrays the op saved for backward; dropped after backward
    _freed = False
    _versions = ()
    _graph = False   # True on the copy of a node whose backward runs on boxes (create_graph=True)
    _node_name = None  # PyTorch's node name when the class is named for what it computes (shared names)

    def name(self) -> str:
        return self._node_name or type(self).__name__

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        out = []
        for e in self._edges:
            if e is None:
                out.append((None, 0))
            elif isinstance(e[0], Node):
                out.append(e)
            else:
                out.append((AccumulateGrad(e[0]), 0))
        return tuple(out)

    @property
    def metadata(self) -> dict:
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    # hooks ----------------------------------------------------------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after this node's backward; may return new grad_inputs."""
        return add_hook(self.__dict__.setdefault("_post_hooks", OrderedDict()), fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs)`` before this node's backward; may return new grad_outputs."""
        return add_hook(self.__dict__.setdefault("_pre_hooks", OrderedDict()), fn)

    # run by the engine -----------------------------------------------------------------------
    def _check_saved(self):
        if self._freed:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after "
                "they have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward.")
        for vc, v, saved, *_ in self._versions:
            if vc[0] != v:
                arr = getattr(saved, "_data", saved)  # a saved input Tensor, or a saved output's array
                shape, dt = arr.shape, arr.dtype
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{from_np(dt)._tensor_type} {list(shape)}], which is an input or output of "
                    f"{self.name()}, is at version {vc[0]}; expected version {v} instead. Hint: the "
                    f"backtrace further above can help find the operation that failed to compute its gradient.")

    def _materialize(self, grads):
        """``grads`` (one per forward output) with zeros for the outputs that received no gradient;
        needs ``_out_meta``, the ``(shape, dtype)`` of each output, set by multi-output nodes."""
        return [g if g is not None else np.zeros(s, d) for g, (s, d) in zip(grads, self._out_meta)]

    def _release(self):
        if self.saved is not None:
            self.saved = None
            self._freed = True
        if self._versions:
            self._versions = ()


class AccumulateGrad:
    """What ``next_functions`` shows for a leaf: it accumulates into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    @property
    def next_functions(self):
        return ()

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def __eq__(self, other):
        return isinstance(other, AccumulateGrad) and other.variable is self.variable

    def __hash__(self):
        return id(self.variable)
