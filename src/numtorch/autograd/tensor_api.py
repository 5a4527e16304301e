"""The autograd methods of Tensor: ``backward``, ``register_hook``, ``register_post_accumulate_grad_hook``,
``retain_grad``, ``requires_grad_``, ``detach``, ``detach_`` (bound onto Tensor by ``_tensor_methods.py``)."""
from __future__ import annotations

import weakref
from collections import OrderedDict

from .._tensor import Tensor, _make
from .hooks import add_hook
from .engine import backward as _backward


def backward(self: Tensor, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (``torch.Tensor.backward``).

    ``gradient`` is required unless ``self`` has one element. RuntimeError if ``self`` does not
    require grad, or on a second backward through freed saved tensors without ``retain_graph``.
    """
    _backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(self: Tensor, hook):
    """``hook(grad) -> Tensor or None`` runs when this tensor's gradient is computed; returns a handle.

    RuntimeError for a tensor that does not require grad.
    """
    if not self._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is None:
        if self._hooks is None:
            self._hooks = OrderedDict()
        d = self._hooks
    else:
        node = self.grad_fn
        th = node.__dict__.setdefault("_tensor_hooks", {})
        d = th.setdefault(self._output_nr, OrderedDict())
    return add_hook(d, hook)


def register_post_accumulate_grad_hook(self: Tensor, hook):
    """``hook(tensor) -> None`` runs after backward accumulated into this leaf's ``.grad``; returns a
    removable handle (``torch.Tensor.register_post_accumulate_grad_hook``). Not run by
    ``autograd.grad``, which accumulates nothing.

    RuntimeError for a tensor that does not require grad or is not a leaf.
    """
    if not self._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if self._post_accumulate_grad_hooks is None:
        self._post_accumulate_grad_hooks = OrderedDict()
    return add_hook(self._post_accumulate_grad_hooks, hook)


def retain_grad(self: Tensor) -> None:
    """Keep ``.grad`` for this non-leaf tensor after backward (``torch.Tensor.retain_grad``)."""
    if not self._rg:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is None:
        return
    self.grad_fn.__dict__.setdefault("_retained", {})[self._output_nr] = weakref.ref(self)


def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Set ``requires_grad`` in place and return self; RuntimeError for integer tensors."""
    self.requires_grad = requires_grad
    return self


def detach(self: Tensor) -> Tensor:
    """A new tensor sharing storage and version counter, cut from the graph (``torch.Tensor.detach``)."""
    t = _make(self._data)
    t._vc = self._vc  # shares the version counter; not a graph view, so no _base
    return t


def detach_(self: Tensor) -> Tensor:
    self.grad_fn = None
    self._rg = False
    return self
