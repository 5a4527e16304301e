"""``nn.Parameter`` and ``nn.Buffer`` (mirrors ``torch/nn/parameter.py``).

A Parameter is a Tensor subclass and nothing more: what makes it special is that
``Module.__setattr__`` sees its type and files it under ``_parameters``, so that ``parameters()``,
``state_dict()`` and optimizers find it. Building one never copies: the Parameter shares the data
array (and version counter) of the tensor it wraps, as ``torch.Tensor._make_subclass`` does.

``Buffer`` (PyTorch 2.5+) marks a tensor to be registered as a buffer on assignment; as in PyTorch,
``Buffer(t)`` returns a plain (detached) Tensor flagged with ``_is_buffer`` and ``persistent``,
and ``isinstance(x, Buffer)`` checks that flag.
"""
from __future__ import annotations

from .._ops.creation import empty
from .._tensor import Tensor, _make, _python_state, _rebuild_tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    ``Parameter(data=None, requires_grad=True)``: ``data`` (a Tensor; default ``torch.empty(0)``)
    is shared, not copied; the result is always a leaf, even when ``data`` has a ``grad_fn``,
    and ``no_grad()`` does not change its ``requires_grad``. RuntimeError when
    ``requires_grad=True`` and ``data`` is not floating point or complex; AttributeError (as
    PyTorch) when ``data`` is not a Tensor.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            tp = type(data)
            name = tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__name__}"
            raise AttributeError(f"'{name}' object has no attribute 'detach'")
        if requires_grad and data._data.dtype.kind not in "fcV":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t = _make(data._data, bool(requires_grad), cls)
        t._vc = data._vc  # like detach(): same storage, same version counter
        return t

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happened in __new__; Tensor.__init__ must not run again

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # PyTorch copies data and requires_grad only: not .grad, not extra attributes
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_make(self._data.copy()), self._rg)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        # rebuilt as a Parameter (the class travels with the pickle); hooks are never pickled
        return (_rebuild_tensor, (self._data, self._rg, _python_state(self), type(self)))


class _BufferMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute.

    ``Buffer(data=None, *, persistent=True)`` returns ``data.detach()`` (same storage, same
    ``requires_grad``) tagged so that ``module.name = Buffer(t)`` calls
    ``register_buffer(name, t, persistent)``. ``isinstance(x, nn.Buffer)`` is True for such tensors.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = data.detach()
        t._rg = data._rg
        t.persistent = persistent
        t._is_buffer = True
        return t
