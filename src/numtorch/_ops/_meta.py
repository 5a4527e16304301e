"""Ops on ``meta`` tensors: shapes and dtypes without data (PyTorch's meta device, docs/meta.md).

A meta tensor's ``_data`` is a ``_backend.MetaArray``: any shape and dtype over 16 shared zero bytes.
While meta arrays are alive, ``Op.apply`` hands every op call to ``dispatch``, which returns
NotImplemented (the op then runs as usual) unless an input is meta. With a meta input the op runs as
its **meta twin**: a subclass with the same name (so ``grad_fn`` prints as PyTorch's) whose

* ``forward`` is the Op class's ``_meta_rule`` when it has one (``_ops/meta_rules.py`` gives the
  heavy ops one: matmuls, convolution, pooling, embedding, attention, norms), else the op's own NumPy
  forward run on the meta arrays: NumPy calls on them compute shapes only (``MetaArray``), and a
  forward that allocates a result and writes into it allocates it once, transiently; whatever the
  forward returns becomes meta arrays of the same shapes and dtypes, and what it kept on the node is
  dropped;
* ``backward`` returns, for each input, a meta array of that input's shape and dtype: the shape of
  an input's gradient is the input's, whatever the op, so no formula runs and nothing is saved.

The graph is recorded as usual, so ``loss.backward()`` on meta tensors fills meta ``.grad`` of the
right shapes and dtypes. Mixing a meta tensor with a CPU tensor that is not 0-d raises PyTorch's
RuntimeError.
"""
from __future__ import annotations

import numpy as np

from .._backend import MetaArray, in_forward, meta
from .._tensor import Tensor
from ..autograd import function

__all__ = ["dispatch", "meta_twin", "to_meta"]

_TWINS = {}  # Op class -> its meta twin


def dispatch(cls, args, kwargs):
    """Run ``cls`` on meta inputs as its meta twin; NotImplemented when no input is a meta tensor."""
    found = other = None
    for a in args:
        for t in (a if type(a) is list or type(a) is tuple else (a,)):  # ops on tensor lists: cat, stack
            if isinstance(t, Tensor):
                if type(t._data) is MetaArray:
                    found = t
                elif t._data.ndim:
                    other = t
    if found is None:
        return NotImplemented
    if other is not None:
        raise RuntimeError("Tensor on device cpu is not on the expected device meta!")
    return meta_twin(cls).apply(*args, **kwargs)


def meta_twin(cls):
    """The meta twin of Op class ``cls`` (made once): same name, shape-only forward and backward."""
    twin = _TWINS.get(cls)
    if twin is None:
        twin = _TWINS[cls] = type(cls.__name__, (cls,), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__, "_meta_op": True,
            "_saves": (), "_saves_for": None, "_orig": cls,
            "forward": _forward, "backward": _backward, "_materialize": _keep_grads})
    return twin


def _forward(self, *arrays, **kwargs):
    orig = self._orig
    shapes = [(a.shape, a.dtype) if isinstance(a, np.ndarray) else None for a in arrays]
    rule = getattr(orig, "_meta_rule", None)
    if rule is not None:
        out = rule(self, *arrays, **kwargs)
    else:
        in_forward(1)
        try:
            with np.errstate(all="ignore"):
                out = orig.forward(self, *arrays, **kwargs)
        finally:
            in_forward(-1)
        self.__dict__.clear()  # what the forward kept is for a backward the twin does not run
    self._meta_in = shapes
    return tuple(to_meta(o) for o in out) if type(out) is tuple else to_meta(out)


def _backward(self, *grads):
    # an input's gradient has that input's shape and dtype, whatever the op
    return tuple(meta(*s) if s is not None and s[1].kind in "fcV" else None for s in self._meta_in)


def _keep_grads(self, grads):  # a multi-output twin reads no gradient: missing ones need no zeros
    return grads


def to_meta(a):
    """An op result (ndarray, NumPy scalar, Python number) as a meta array of its shape and dtype."""
    if type(a) is MetaArray:
        return a
    return meta(np.shape(a), np.asarray(a).dtype if not isinstance(a, np.ndarray) else a.dtype)


function.meta_dispatch = dispatch
